import Foundation
import OperationSpec

/// The driving thread of a run: configuration, then the scenario's steps, each after
/// its trigger, then a drain. Every wait is bounded except the API's own waits, which a real
/// implementation may never return from; the parent process bounds those.
extension DriverContext {
    /// How long a trigger may take at most before the step runs anyway (`triggerMissed`).
    static let triggerTimeout: TimeInterval = 1

    /// "Nothing is happening" windows. A correct run records an event at least every
    /// `longestSilentStep` units (the longest `work` or rendezvous timeout), so a trigger still
    /// missing after four times that (at least 0.25 s) of silence is not coming, and a driver call
    /// that has not returned after eight times that (at least 0.5 s) of silence is stuck.
    /// Scaled this way they cost a fraction of a second, where a fixed deadline long enough for
    /// every case would cost seconds in each case that misses a trigger or hangs.
    /// Each is `patience` times as long when the harness asks for patience (a case run again
    /// to tell a slow case from a stuck one).
    var triggerQuiet: TimeInterval { Double(patience) * max(0.25, 4 * Double(scenario.longestSilentStep) * unit) }
    var stallQuiet: TimeInterval { Double(patience) * max(0.5, 8 * Double(scenario.longestSilentStep) * unit) }
    /// The longest a driver call may run, however much is recorded meanwhile: four times all the
    /// scenario's work, rendezvous timeouts and driver sleeps done one after another, and at
    /// least 5 s.
    var callDeadline: TimeInterval { Double(patience) * max(5, 4 * Double(scenario.totalWork) * unit) }

    /// Runs the scenario; returns the trace's last event when the run is over (`end`, or `hang`
    /// naming what never finished). A call that never returns is caught by the driver's
    /// watchdog (`OperationDriver`) through `recorder.stalled`.
    func drive() -> EventKind {
        prepare()
        let quiet = triggerQuiet
        ThreadRole.with(.driver) {
            for (q, config) in scenario.queues.enumerated() {
                // First, and not a logged call: naming a queue cannot fail, and a name set after
                // operations were added could not name their threads.
                if let name = config.name { queues[q].name = name }
                if config.maxConcurrent != QueueConfig.defaultMax {
                    perform(.setMaxConcurrent(queue: q, config.maxConcurrent), as: "the setup of queue \(q)")
                }
                if config.suspended { perform(.suspend(queue: q), as: "the setup of queue \(q)") }
            }
            for (o, config) in scenario.operations.enumerated() {
                if let p = config.queuePriority {
                    perform(.setQueuePriority(op: o, p), as: "the setup of operation \(o)")
                }
                if let p = config.threadPriority {
                    perform(.setThreadPriority(op: o, p), as: "the setup of operation \(o)")
                }
                if let c = config.completion {
                    perform(.setCompletionBlock(op: o, c), as: "the setup of operation \(o)")
                }
            }
            for e in scenario.dependencies {
                perform(.addDependency(op: e.op, on: e.on), as: "the setup of operation \(e.op)'s dependencies")
            }
            letGo(after: -1)
            for (i, step) in scenario.driver.enumerated() {
                if let trigger = step.after, !recorder.wait(for: trigger, timeout: Self.triggerTimeout, quiet: quiet) {
                    log(.triggerMissed(i))
                }
                log(.stepIssued(i))
                if let d = step.onDispatchQueue {
                    // A block on the scenario's dispatch queue, waited for (the `dispatchQueues`
                    // capability); what it calls is still the driver's.
                    dispatchQueues[d].sync {
                        ThreadRole.with(.driver) { perform(step.action, as: "driver step \(i) (\(step.action))") }
                    }
                } else {
                    perform(step.action, as: "driver step \(i) (\(step.action))")
                }
                log(.stepDone(i))
                letGo(after: i)
            }
        }
        return drain()
    }

    /// Performs a driver action, marked as pending while it runs (what a stall is blamed on).
    private func perform(_ action: DriverAction, as description: String) {
        recorder.pending(description)
        perform(action)
        recorder.pending(nil)
    }

    /// Lets everything started finish: every queue empties (at most 2 s of active time, see
    /// `ActiveClock`, and only while something still happens), then nothing happens for a
    /// little while.
    private func drain() -> EventKind {
        let deadline = recorder.activeTime + 2
        let stall = stallQuiet
        while queues.live.contains(where: { Self.busy($0.queue) }) && recorder.activeTime < deadline
                && recorder.silence < stall {
            _ = recorder.settle(quiet: 0.005, timeout: 0.05)
        }
        // Code of the case can still be on a thread once the queues let go of its operations: a
        // subclass's finish between the queue's notice of isFinished and the did-change it goes
        // on to send. Its events belong to this trace (`end` drops what follows it), so the end
        // waits for that code while it makes progress. On a loaded machine such a thread was off
        // the processor for longer than the settle below, its did-change was dropped, and the
        // case read as KVO-BALANCED: a false alarm.
        // So is a completion block the implementation owes a finished operation: Foundation
        // starts it on a thread of its own after the finish, and under load that start came more
        // than 30 ms after the last event (COMPLETION-ONCE, a false alarm). It is waited for
        // only the trigger window of silence: a queue that never runs it (GNUstep's, for a
        // concurrent operation) costs each such case that much.
        let frames = recorder.activeTime + 2
        while recorder.activeTime < frames && (recorder.codeRunning && recorder.silence < stall
                                                || recorder.completionDue && recorder.silence < triggerQuiet) {
            _ = recorder.settle(quiet: 0.005, timeout: 0.05)
        }
        // Late events matter to a trace; a plain run has none to keep.
        if recorder.recording { _ = recorder.settle(quiet: 0.03, timeout: 1) }
        // A released queue counts while it is alive: it may still run what it holds.
        let stuck = queues.live.filter { Self.busy($0.queue) }
        if stuck.isEmpty { return .end }
        return .hang(
            stuck.map { "queue \($0.index) still holds \($0.queue.operationCount) operations" }.joined(separator: "; "))
    }

    /// Whether a queue holds operations it should run: not suspended, not of width 0.
    private static func busy(_ queue: any QueueUnderTest) -> Bool {
        queue.operationCount > 0 && !queue.isSuspended && queue.maxConcurrentOperationCount != 0
    }

    func call(_ c: Call, _ body: () -> Void) {
        log(.call(c))
        body()
        log(.returned(c))
    }

    private func perform(_ action: DriverAction) {
        switch action {
        case .add(let op, let q):
            call(.addOperation(op, queue: q)) { queues[q].addOperation(ops[op]) }
        case .addBatch(let list, let q, let wait):
            call(.addOperations(list, queue: q, wait: wait)) {
                queues[q].addOperations(list.map { ops[$0] }, waitUntilFinished: wait)
            }
            if wait { for op in list { _ = ops[op].isFinished } }
        case .start(let op):
            ops[op].start()
        case .perform(let op, let steps):
            run(steps, this: op)
        case .cancel(let op):
            ops[op].cancel()
        case .cancelAll(let q):
            call(.cancelAll(queue: q)) { queues[q].cancelAllOperations() }
        case .suspend(let q):
            call(.setSuspended(queue: q, true)) { queues[q].isSuspended = true }
        case .resume(let q):
            call(.setSuspended(queue: q, false)) { queues[q].isSuspended = false }
        case .setMaxConcurrent(let q, let n):
            call(.setMaxConcurrent(queue: q, n)) { queues[q].maxConcurrentOperationCount = n }
        case .addDependency(let op, let on):
            call(.addDependency(op, on: on)) { ops[op].addDependency(ops[on]) }
        case .removeDependency(let op, let on):
            call(.removeDependency(op, on: on)) { ops[op].removeDependency(ops[on]) }
        case .waitUntilFinished(let op):
            call(.waitUntilFinished(op)) { ops[op].waitUntilFinished() }
            _ = ops[op].isFinished
        case .waitUntilAllFinished(let q):
            call(.waitUntilAllFinished(queue: q)) { queues[q].waitUntilAllOperationsAreFinished() }
            log(.operationCount(queue: q, queues[q].operationCount))
            for op in addedTo(q) { _ = ops.live(op)?.isFinished }
        case .setCompletionBlock(let op, let body):
            call(.setCompletionBlock(op)) {
                ops[op].completionBlock = { [unowned self] in
                    self.log(.completionBegan(op: op, threadPriority: Self.unknownPriority))
                    self.run(body, this: op)
                    self.log(.completionEnded(op: op))
                }
            }
        case .addExecutionBlock(let op, let body):
            guard let block = ops[op] as? LoggedBlockOperation else { return }
            call(.addExecutionBlock(op)) { block.addLoggedBlock(block.executionBlocks.count, body) }
        case .setQueuePriority(let op, let raw):
            if let p = Operation.QueuePriority(rawValue: raw) {
                call(.setQueuePriority(op, raw)) { ops[op].queuePriority = p }
            } else {
                log(
                    .unsupported(
                        "Foundation on Linux cannot express queue priority \(raw): "
                            + "QueuePriority(rawValue:) is nil for it"
                    ))
            }
        case .setThreadPriority:
            log(.unsupported("Foundation on Linux has no thread priority"))
        case .read(let key, let op):
            _ = read(key, of: op, logging: true)
        case .readOperationCount(let q):
            log(.operationCount(queue: q, queues[q].operationCount))
        case .result:
            log(.unsupported("Foundation on Linux has no NSInvocationOperation, so no result to ask for"))
        case .addBlock(let op, let q):
            // The queue makes the operation; the block logs itself as block 0 of `op`, and
            // nothing else of that operation can be seen.
            guard case .block(let blocks) = scenario.operations[op].kind, let body = blocks.first else { return }
            call(.addBlock(op, queue: q)) {
                queues[q].addOperation { [unowned self] in
                    self.log(.blockBegan(op: op, block: 0))
                    self.run(body, this: op)
                    self.log(.blockEnded(op: op, block: 0))
                }
            }
        case .readSuspended(let q):
            log(.suspended(queue: q, queues[q].isSuspended))
        case .sleep(let n):
            recorder.idle(for: Double(n) * unit)
        case .readOperations(let q):
            if let list = queues[q].listedOperations {
                log(.operations(queue: q, ops: list.map { ops.index(of: $0) ?? -1 }))
            } else {
                log(.unsupported("the queue under test does not list its operations (its listedOperations is nil)"))
            }
        case .releaseQueue(let q):
            // The driver's last reference: the queue lives on only if the implementation keeps it.
            call(.releaseQueue(queue: q)) { queues.slots[q].release() }
        case .readQueueDeallocated(let q):
            // The weak reference the release left (`QueueSlots`) is nil once the queue is gone.
            log(.queueDeallocated(queue: q, deallocated: queues.slots[q].queue == nil))
        case .readMainQueue:
            let main = OperationQueue.main
            if firstMainQueue == nil { firstMainQueue = main }
            log(.mainQueue(same: firstMainQueue === main, suspended: main.isSuspended,
                           current: OperationQueue.current === main))
        case .setUnderlyingQueue(let q, let d):
            if let queue = queues[q] as? OperationQueue {
                call(.setUnderlyingQueue(queue: q, dispatchQueue: d)) {
                    queue.underlyingQueue = d.map { dispatchQueues[$0] }
                }
            } else {
                log(.unsupported("the queue under test is not an OperationQueue, so it has no underlyingQueue"))
            }
        }
    }

    /// Operations the scenario's driver adds to queue `q` (for the reads after a wait).
    private func addedTo(_ q: Int) -> [Int] {
        var out: [Int] = []
        for step in scenario.driver {
            switch step.action {
            case .add(let op, q): out.append(op)
            case .addBatch(let list, q, _): out += list
            default: break
            }
        }
        return out
    }

}
