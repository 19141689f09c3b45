import OperationSpec

/// What a trace file holds (Specs/trace-format.md): one run's trace with the scenario it ran.
/// A trace alone cannot be judged (the rules read the scenario's operations, kinds and
/// dependencies), so the file carries both, and `opconform check FILE` judges it again on any
/// machine, with any build that reads its format.
public struct TraceFile: Sendable, Equatable {
    public var scenario: Scenario
    public var trace: Trace

    public init(scenario: Scenario, trace: Trace) {
        self.scenario = scenario
        self.trace = trace
    }
}

extension TraceFile {
    /// Why the events are not a trace the checkers can read, in the order found: `seq` not
    /// counting from 0 without gaps, an event after the last one, an operation or queue the
    /// scenario does not have. Empty when there is nothing to say. (Threads are any numbers
    /// from 0: the reference engine numbers a thread when it is made, which need not be the
    /// order in which threads first log.)
    public func problems() -> [String] {
        var out: [String] = []
        let operations = scenario.operations.count, queues = scenario.queues.count
        // Negative numbers too: format 2's reader refuses them itself, but the format-1 document
        // is read by Swift's synthesized decoding, which takes any whole number, and a checker
        // indexes by these.
        func op(_ n: Int, _ i: Int) { if n < 0 || n >= operations { out.append("events[\(i)] names operation \(n), but the scenario has \(operations) (numbered from 0)") } }
        func queue(_ n: Int, _ i: Int) { if n < 0 || n >= queues { out.append("events[\(i)] names queue \(n), but the scenario has \(queues) (numbered from 0)") } }
        for (i, e) in trace.events.enumerated() {
            if e.seq != i { out.append("events[\(i)] has seq \(e.seq), but seq counts from 0 without gaps: it must be \(i)") }
            if e.thread < 0 { out.append("events[\(i)] is on thread \(e.thread), but threads are numbered from 0") }
            if i > 0, trace.events[i - 1].kind.endsTrace {
                out.append("events[\(i)] follows the trace's last event (\(trace.events[i - 1].kind)): nothing follows end, hang, crash, cut or breach")
            }
            if let n = e.kind.op { op(n, i) }
            if let n = e.kind.queue { queue(n, i) }
            switch e.kind {
            case .call(let c), .returned(let c), .threw(let c, _, _):
                for n in c.ops { op(n, i) }
                if let q = c.queue { queue(q, i) }
            case .willChange(_, .dependencies, .ops(let deps)), .didChange(_, .dependencies, .ops(let deps)), .read(_, .dependencies, .ops(let deps)):
                for n in deps { op(n, i) }
            case .blockBegan(let o, let b), .blockEnded(let o, let b):
                // Blocks added while running (addExecutionBlock) come after the scenario's own,
                // so only a negative number is surely none.
                if b < 0 { out.append("events[\(i)] names block \(b) of operation \(o), but blocks are numbered from 0") }
            default: break
            }
            if out.count >= 5 { break }
        }
        return out
    }
}

extension EventKind {
    /// The operation an event is about, when it names one outside a call.
    var op: Int? {
        switch self {
        case .mainBegan(let o, _), .mainEnded(let o), .blockBegan(let o, _), .blockEnded(let o, _), .completionBegan(let o, _),
             .completionEnded(let o), .willChange(let o, _, _), .didChange(let o, _, _), .read(let o, _, _), .set(let o, _, _),
             .currentQueue(let o, _), .work(let o, _), .invocationResult(let o):
            return o
        default: return nil
        }
    }

    /// The queue an event names outside a call: a thread's, a read's, or currentQueue's answer.
    var queue: Int? {
        switch self {
        case .threadStarted(_, let q): return q
        case .operationCount(let q, _), .suspended(let q, _): return q
        case .currentQueue(_, let q): return q
        default: return nil
        }
    }
}

extension Call {
    /// Every operation a call names (one, two for a dependency, the batch for addOperations).
    var ops: [Int] {
        switch self {
        case .addOperations(let ops, _, _): return ops
        case .addDependency(let o, let on), .removeDependency(let o, let on): return [o, on]
        default: return op.map { [$0] } ?? []
        }
    }

    /// The queue a call names, when it names one.
    var queue: Int? {
        switch self {
        case .addOperation(_, let q), .addOperations(_, let q, _), .cancelAll(let q), .setSuspended(let q, _), .setMaxConcurrent(let q, _),
             .waitUntilAllFinished(let q), .addBlock(_, let q):
            return q
        default: return nil
        }
    }
}
