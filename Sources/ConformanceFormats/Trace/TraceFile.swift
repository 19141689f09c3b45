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
    /// counting from 0 without gaps, an event after the last one, an operation, queue or driver
    /// step the scenario does not have (`EventReferences`, the list driver-check holds a
    /// driver's events to). Empty when there is nothing to say. (Threads are any numbers from
    /// 0: the reference engine numbers a thread when it is made, which need not be the order in
    /// which threads first log.)
    public func problems() -> [String] {
        var out: [String] = []
        let operations = scenario.operations.count, queues = scenario.queues.count, steps = scenario.driver.count
        // Negative numbers too: format 2's reader refuses them itself, but the format-1 document
        // is read by Swift's synthesized decoding, which takes any whole number, and a checker
        // indexes by these.
        func op(_ n: Int, _ i: Int) {
            if n < 0 || n >= operations {
                out.append("events[\(i)] names operation \(n), but the scenario has \(operations) (numbered from 0)")
            }
        }
        for (i, e) in trace.events.enumerated() {
            if e.seq != i {
                out.append("events[\(i)] has seq \(e.seq), but seq counts from 0 without gaps: it must be \(i)")
            }
            if e.thread < 0 { out.append("events[\(i)] is on thread \(e.thread), but threads are numbered from 0") }
            if i > 0, trace.events[i - 1].kind.endsTrace {
                out.append(
                    "events[\(i)] follows the trace's last event (\(trace.events[i - 1].kind)): nothing follows end, "
                        + "hang, crash, cut or breach"
                )
            }
            let named = EventReferences.of(e.kind)
            for n in named.ops { op(n, i) }
            for q in named.queues where q < 0 || q >= queues {
                out.append("events[\(i)] names queue \(q), but the scenario has \(queues) (numbered from 0)")
            }
            for s in named.steps where s < 0 || s >= steps {
                out.append("events[\(i)] names driver step \(s), but the scenario has \(steps) (numbered from 0)")
            }
            switch e.kind {
            case .operations(_, let list):
                for n in list where n < -1 {
                    out.append(
                        "events[\(i)] lists operation \(n), but an operations event lists the scenario's operations, "
                            + "or -1 for one the driver does not hold"
                    )
                }
            case .willChange(_, .dependencies, .ops(let deps)), .didChange(_, .dependencies, .ops(let deps)),
                .read(_, .dependencies, .ops(let deps)):
                for n in deps { op(n, i) }
            case .blockBegan(let o, let b), .blockEnded(let o, let b):
                // Blocks added while running (addExecutionBlock) come after the scenario's own,
                // so only a negative number is surely none.
                if b < 0 {
                    out.append("events[\(i)] names block \(b) of operation \(o), but blocks are numbered from 0")
                }
            default: break
            }
            if out.count >= 5 { break }
        }
        return out
    }
}
