/// Scheduling without scanning the threads. The rule is the one a scan made: before each step,
/// every blocked thread whose wait is satisfied becomes runnable; the seed picks the k-th
/// runnable thread in ascending order; when none can run, time jumps to the earliest timer and
/// wakes every thread due then. What changed is how the engine finds those threads:
///
/// - a thread that blocks is looked at again before the next step (`recheck`), then only when
///   something it waits for may have happened: a token it awaits is signalled
///   (`tokenWaiters`), a block of the operation it joins ends (`blockWaiters`). The driver's
///   waits (a finish, a queue emptying, a trigger) are looked at before every step (`polled`):
///   the driving thread is one thread, and those conditions change in many places;
/// - every sleep and every deadline is a timer in a heap (`wakeups`).
///
/// Each look at a thread is counted in `statistics.threadVisits`, which the tests bound by the
/// steps taken.
extension Simulation {
    /// Every change of a thread's state goes through here, so the runnable set, the timers and
    /// the waits registered stay in step with the threads.
    func setState(_ t: Int, _ state: VirtualThread.State) {
        if case .runnable = threads[t].state { runnable.remove(t) }
        threads[t].state = state
        switch state {
        case .runnable:
            runnable.insert(t)
        case .sleeping(let until):
            threads[t].epoch += 1
            wakeups.insert(Wakeup(time: until, thread: t, epoch: threads[t].epoch))
        case .blocked(let wait, let deadline):
            threads[t].epoch += 1
            let registration = Registration(thread: t, epoch: threads[t].epoch)
            if let deadline { wakeups.insert(Wakeup(time: deadline, thread: t, epoch: registration.epoch)) }
            switch wait {
            case .token(let n): tokenWaiters[n, default: []].append(registration)
            case .blocks(let op): blockWaiters[op].append(registration)
            case .finished, .allFinished, .queueEmpty, .trigger: polled.append(registration)
            }
            recheck.append(registration)
        case .done:
            liveThreads -= 1
            // A finished thread keeps its name and number for the trace, not its stack.
            threads[t].frames = []
        }
    }

    /// Whether the registration is for the wait the thread is blocked in now.
    private func isCurrent(_ r: Registration) -> Bool {
        guard threads[r.thread].epoch == r.epoch, case .blocked = threads[r.thread].state else { return false }
        return true
    }

    /// Before a step: the threads whose wait may have been satisfied since the last step, and
    /// the driver's polled waits, become runnable if it was.
    func wakeSatisfied() {
        if !recheck.isEmpty {
            // Waking a thread registers nothing, so the list does not change while it is read.
            for i in recheck.indices { wakeIfSatisfied(recheck[i]) }
            recheck.removeAll(keepingCapacity: true)
        }
        if !polled.isEmpty {
            var kept = 0
            for i in polled.indices {
                let r = polled[i]
                wakeIfSatisfied(r)
                if isCurrent(r) { polled[kept] = r; kept += 1 }
            }
            polled.removeLast(polled.count - kept)
        }
    }

    private func wakeIfSatisfied(_ r: Registration) {
        statistics.threadVisits += 1
        guard isCurrent(r), case .blocked(let wait, _) = threads[r.thread].state, satisfied(wait) else { return }
        setState(r.thread, .runnable)
    }

    /// Token `n` was signalled: its waiters are looked at before the next step. Tokens stay
    /// signalled, so no registration for `n` is needed again.
    func tokenSignalled(_ n: Int) {
        guard let waiters = tokenWaiters.removeValue(forKey: n) else { return }
        recheck.append(contentsOf: waiters)
    }

    /// A block of operation `op` ended, or its blocks changed: the threads joining them are
    /// looked at before the next step. Registrations of threads that woke since are dropped
    /// here; current ones stay, since a thread may still wait after the look.
    func blocksChanged(_ op: Int) {
        guard !blockWaiters[op].isEmpty else { return }
        blockWaiters[op].removeAll { !isCurrent($0) }
        recheck.append(contentsOf: blockWaiters[op])
    }

    /// Nothing can run: time jumps to the earliest timer, and every thread due then wakes.
    /// False when no timer is pending.
    func advanceTime() -> Bool {
        while let top = wakeups.min, !due(top) {
            statistics.threadVisits += 1
            wakeups.removeMin()
        }
        guard let first = wakeups.min else { return false }
        now = first.time
        while let top = wakeups.min, top.time <= now {
            statistics.threadVisits += 1
            wakeups.removeMin()
            if due(top) { setState(top.thread, .runnable) }
        }
        return true
    }

    /// Whether the timer is the thread's current sleep or deadline.
    private func due(_ w: Wakeup) -> Bool {
        guard threads[w.thread].epoch == w.epoch else { return false }
        switch threads[w.thread].state {
        case .sleeping, .blocked(_, _?): return true
        default: return false
        }
    }
}
