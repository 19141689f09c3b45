import OperationSpec

/// What an event names: the trace reader checks that each is the scenario's (`TraceFile`), and
/// driver-check tells a driver author which event named what the scenario does not have.
package enum EventReferences {
    /// The operations, queues and driver steps an event names. Exhaustive on purpose: a new
    /// event kind must say what it names.
    package static func of(_ kind: EventKind) -> (ops: [Int], queues: [Int], steps: [Int]) {
        switch kind {
        case .threadStarted(_, let q): return ([], q.map { [$0] } ?? [], [])
        case .stepIssued(let s), .stepDone(let s), .triggerMissed(let s): return ([], [], [s])
        case .call(let c), .returned(let c), .threw(let c, _, _): let (o, q) = of(c); return (o, q, [])
        case .mainBegan(let o, _), .mainEnded(let o), .blockBegan(let o, _), .blockEnded(let o, _),
            .completionBegan(let o, _),
            .completionEnded(let o), .willChange(let o, _, _), .didChange(let o, _, _), .read(let o, _, _),
            .set(let o, _, _),
             .work(let o, _), .invocationResult(let o), .announced(let o, _, _):
            return ([o], [], [])
        case .operationCount(let q, _), .suspended(let q, _): return ([], [q], [])
        case .operations(let q, let list): return (list.filter { $0 >= 0 }, [q], [])
        case .currentQueue(let o, let q): return ([o], q.map { [$0] } ?? [], [])
        case .underlyingQueue(let o, _): return ([o], [], [])
        case .queueDeallocated(let q, _): return ([], [q], [])
        case .mainQueue: return ([], [], [])
        case .signal, .awaited, .crash, .hang, .unsupported, .cut, .breach, .end: return ([], [], [])
        }
    }

    package static func of(_ call: Call) -> (ops: [Int], queues: [Int]) {
        switch call {
        case .start(let o, _), .superStart(let o), .cancel(let o), .setCompletionBlock(let o),
            .addExecutionBlock(let o),
             .setQueuePriority(let o, _), .setThreadPriority(let o, _), .waitUntilFinished(let o), .result(let o):
            return ([o], [])
        case .addOperation(let o, let q), .addBlock(let o, let q): return ([o], [q])
        case .addOperations(let list, let q, _): return (list, [q])
        case .addDependency(let a, let b), .removeDependency(let a, let b): return ([a, b], [])
        case .cancelAll(let q), .setSuspended(let q, _), .setMaxConcurrent(let q, _), .waitUntilAllFinished(let q),
             .releaseQueue(let q), .setUnderlyingQueue(let q, _):
            return ([], [q])
        }
    }
}
