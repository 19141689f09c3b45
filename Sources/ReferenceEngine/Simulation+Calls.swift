import OperationSpec

extension Simulation {
    /// One driver action: a public API call made by the driving thread. Misuse is refused with a
    /// reported error (a `threw` event), never a trap, so a scenario can misuse on purpose.
    func perform(_ action: DriverAction) {
        switch action {
        case .add(let op, let q):
            atomic(.addOperation(op, queue: q)) {
                if let refusal = refuseAdd(op, to: q) { return refusal }
                enqueue(op, q)
                pump(q)
                return nil
            }
        case .addBatch(let list, let q, let wait):
            let call = Call.addOperations(list, queue: q, wait: wait)
            emit(.call(call))
            for op in list {
                if let (kind, message) = refuseAdd(op, to: q) { emit(.threw(call, kind, message)); return }
            }
            for op in list { enqueue(op, q) }
            pump(q)
            if wait {
                push(Frame([.afterWait(call, reads: list, countOf: nil)]))
                if !satisfied(.allFinished(list)) { block(.allFinished(list)) }
            } else {
                emit(.returned(call))
            }
        case .start(let op):
            push(Frame([.callStart(op, .driver)]))
        case .perform(let op, let steps):
            push(Frame(steps: steps, this: op, exit: .plain))
        case .cancel(let op):
            cancel(op)
        case .cancelAll(let q):
            cancelAll(q)
        case .suspend(let q):
            atomic(.setSuspended(queue: q, true)) { queues[q].suspended = true; return nil }
        case .resume(let q):
            atomic(.setSuspended(queue: q, false)) {
                queues[q].suspended = false
                pump(q)
                return nil
            }
        case .setMaxConcurrent(let q, let n):
            atomic(.setMaxConcurrent(queue: q, n)) {
                queues[q].maxConcurrent = n
                pump(q)
                return nil
            }
        case .addDependency(let op, let on):
            atomic(.addDependency(op, on: on)) {
                if op == on { return (.selfDependency, "operation \(op) cannot depend on itself") }
                if ops[op].deps.contains(on) && has(.duplicateDependencyToggles) {
                    changeDependencies(op) { ops[op].deps.removeAll { $0 == on } }
                    ops[on].dependents.removeAll { $0 == op }
                    refreshReady(op)
                    return nil
                }
                if ops[op].deps.contains(on) {
                    return (.duplicateDependency, "operation \(op) already depends on \(on)")
                }
                // A cycle is accepted: its operations then never become ready unless cancelled
                // (003 addDependency:, 004 2.6.1), which Foundation and GNUstep both do. Refusing
                // it is an option, for implementations that check.
                if options.refusesDependencyCycles && reaches(from: on, to: op) {
                    return (
                        .dependencyCycle,
                        "operation \(on) already depends, directly or not, on \(op): the edge would close a cycle"
                    )
                }
                changeDependencies(op) { ops[op].deps.append(on) }
                ops[on].dependents.append(op)
                refreshReady(op)
                return nil
            }
        case .removeDependency(let op, let on):
            atomic(.removeDependency(op, on: on)) {
                guard ops[op].deps.contains(on) else { return nil }
                changeDependencies(op) { ops[op].deps.removeAll { $0 == on } }
                ops[on].dependents.removeAll { $0 == op }
                refreshReady(op)
                return nil
            }
        case .waitUntilFinished(let op):
            let call = Call.waitUntilFinished(op)
            emit(.call(call))
            push(Frame([.afterWait(call, reads: [op], countOf: nil)]))
            if has(.waitOnCancelledHangs) && ops[op].cancelled && !ops[op].finished {
                block(.token(-1))  // no step signals a negative token: the wait never returns
            } else if !satisfied(.finished(op)) && !has(.waitReturnsEarly) {
                block(.finished(op))
            }
        case .waitUntilAllFinished(let q):
            let call = Call.waitUntilAllFinished(queue: q)
            emit(.call(call))
            // What the driver can read afterwards: not the operations the queue made for blocks.
            push(Frame([.afterWait(call, reads: queues[q].everAdded.filter { !ops[$0].hidden }, countOf: q)]))
            if !satisfied(.queueEmpty(q)) { block(.queueEmpty(q)) }
        case .setCompletionBlock(let op, let body):
            atomic(.setCompletionBlock(op)) {
                if (ops[op].executing || ops[op].finished) && !has(.completionLateAccepted) {
                    return (
                        .completionBlockLate,
                        "operation \(op) is already \(ops[op].finished ? "finished" : "executing"): too late for a "
                            + "completion block"
                    )
                }
                emit(.willChange(op: op, .completionBlock, ops[op].value(.completionBlock)))
                ops[op].completion = body
                didChange(op, .completionBlock)
                return nil
            }
        case .addExecutionBlock(let op, let body):
            atomic(.addExecutionBlock(op)) {
                if ops[op].executing || ops[op].finished {
                    return (
                        .executionBlockLate, "block operation \(op) has already started: too late for another block"
                    )
                }
                ops[op].blocks.append(body)
                blocksChanged(op)
                return nil
            }
        case .setQueuePriority(let op, let raw):
            atomic(.setQueuePriority(op, raw)) {
                emit(.willChange(op: op, .queuePriority, ops[op].value(.queuePriority)))
                ops[op].priority = has(.priorityNotNormalised) ? raw : QueuePriority.normalized(raw)
                if startable(op) { offer(op) }
                didChange(op, .queuePriority)
                return nil
            }
        case .setThreadPriority(let op, let p):
            atomic(.setThreadPriority(op, p)) {
                ops[op].threadPriority = min(1, max(0, p))
                return nil
            }
        case .read(let key, let op):
            emit(.read(op: op, key, getter(op, key)))
        case .readOperationCount(let q):
            emit(.operationCount(queue: q, queues[q].count))
        case .addBlock(let op, let q):
            // `addOperationWithBlock:` cannot be refused: the operation is new, made by the queue.
            atomic(.addBlock(op, queue: q)) {
                enqueue(op, q)
                pump(q)
                return nil
            }
        case .releaseQueue(let q):
            // The driver's reference goes; the queue runs what it holds as before (the engine's
            // queues live for the whole run), as corelibs' test_Deadlock expects.
            atomic(.releaseQueue(queue: q)) {
                queues[q].released = true
                return nil
            }
        case .readQueueDeallocated(let q):
            // Gone once nothing in it is left to run or to finish: nothing else holds it.
            let gone = queues[q].released && queues[q].isEmpty && queues[q].running == 0
            emit(.queueDeallocated(queue: q, deallocated: gone))
        case .readMainQueue:
            // One main queue for the whole run, never suspended (nothing in a scenario can suspend
            // it), and the current queue of the driving thread, which stands for the main thread.
            emit(.mainQueue(same: true, suspended: false, current: true))
        case .setUnderlyingQueue(let q, let d):
            atomic(.setUnderlyingQueue(queue: q, dispatchQueue: d)) {
                queues[q].underlyingQueue = d
                return nil
            }
        case .readOperations(let q):
            // What the queue holds, as `operationCount` counts it; the operation it made for an
            // `addBlock` block is nobody's to name (-1).
            emit(.operations(queue: q, ops: queues[q].ops.map { ops[$0].hidden ? -1 : $0 }))
        case .readSuspended(let q):
            emit(.suspended(queue: q, queues[q].suspended))
        case .sleep(let units):
            // As long as `work(units)`, with nothing logged: the step's stepIssued / stepDone
            // frame it. Zero is a scheduling point only, as for work.
            if units > 0 { setState(current, .sleeping(until: now + units)) }
        case .result(let op):
            atomic(.result(op)) {
                if ops[op].cancelled && !has(.cancelledResultReturned) {
                    return (.invocationCancelled, "invocation operation \(op) was cancelled: it has no result")
                }
                emit(.invocationResult(op: op))
                return nil
            }
        }
    }

    /// `cancelAllOperations` (004 2.9.3): `cancel` of every operation the queue holds, from
    /// whichever thread calls it (the driver's, or an operation's own code: a `cancelAll` step).
    func cancelAll(_ q: Int) {
        atomic(.cancelAll(queue: q)) {
            for op in queues[q].ops {
                // The queue cancels the operation it made for a block as it cancels any
                // other, but nobody can see that object: nothing is logged, and it never runs.
                if ops[op].hidden { if !ops[op].finished { ops[op].cancelled = true }; continue }
                if has(.cancelAllSkipsExecuting) && ops[op].dispatched { continue }
                cancel(op)
            }
            return nil
        }
    }

    /// `cancel` (003 cancel; 004 2.9.3): marks the operation cancelled, with KVO; no effect once finished.
    func cancel(_ op: Int) {
        atomic(.cancel(op)) {
            guard !ops[op].finished || has(.cancelAfterFinishSticks), !ops[op].cancelled else { return nil }
            emit(.willChange(op: op, .isCancelled, ops[op].value(.isCancelled)))
            ops[op].cancelled = true
            didChange(op, .isCancelled)
            return nil
        }
    }

    /// A call that completes in one step: `call`, the body, then `returned` or `threw`.
    private func atomic(_ call: Call, _ body: () -> (MisuseKind, String)?) {
        emit(.call(call))
        if let (kind, message) = body() {
            emit(.threw(call, kind, message))
        } else {
            emit(.returned(call))
        }
    }

    private func refuseAdd(_ op: Int, to q: Int) -> (MisuseKind, String)? {
        if let other = ops[op].queue, !(has(.addedTwice) && !ops[op].dispatched) {
            return (.alreadyInQueue, "operation \(op) is already in queue \(other)")
        }
        if ops[op].executing || ops[op].finished {
            return (.executingOrFinished, "operation \(op) is already \(ops[op].finished ? "finished" : "executing")")
        }
        return nil
    }

    private func enqueue(_ op: Int, _ q: Int) {
        ops[op].queue = q
        queues[q].append(op)
        if has(.crossQueueDependencyIgnored) {
            // Under this fault readiness depends on where the operations are queued, so it is
            // recomputed now, however the dependency was added (before either add, or by the
            // scenario's own dependencies): the operation itself (it offers itself if it becomes
            // ready; its queue is pumped by the caller, after a batch is all in), and dependents
            // queued elsewhere, whose dependency on it now crosses queues.
            if startable(op) { queues[q].offer(op, rank: rank(op)) } else { refreshReady(op, pump: false) }
            for d in ops[op].dependents where ops[d].queue != nil && ops[d].queue != q { refreshReady(d) }
            return
        }
        if startable(op) { queues[q].offer(op, rank: rank(op)) }
    }

    private func changeDependencies(_ op: Int, _ change: () -> Void) {
        emit(.willChange(op: op, .dependencies, ops[op].value(.dependencies)))
        change()
        didChange(op, .dependencies)
    }

    /// Whether `to` is reachable from `from` by following dependencies (iterative, no recursion
    /// limit): asked only when `EngineOptions.refusesDependencyCycles` is on. Only an operation
    /// something depends on can be reached from another, so an edge onto an operation without
    /// dependents is answered at once; otherwise the walk marks the operations it visited with a
    /// fresh stamp instead of clearing an array per call (both made adding the edges of a
    /// 100,000-operation chain quadratic).
    private func reaches(from: Int, to: Int) -> Bool {
        if from == to { return true }
        if ops[to].dependents.isEmpty { return false }
        visitStamp += 1
        var stack = [from]
        while let n = stack.popLast() {
            if n == to { return true }
            if visited[n] == visitStamp { continue }
            visited[n] = visitStamp
            stack.append(contentsOf: ops[n].deps)
        }
        return false
    }
}
