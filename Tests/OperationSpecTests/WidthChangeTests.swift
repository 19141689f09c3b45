import OperationSpec
import Testing

/// A width takes effect from its `setMaxConcurrentOperationCount:` call, not its return: GNUstep
/// sets the count, then starts operations inside the same call, and that call can deadlock and
/// never return. Judged from returns, the gate of 2026-11-24 blamed GNUstep for starting an
/// operation "at width 0" inside the call that had just widened the queue.
@Suite("Queue width changes")
struct WidthChangeTests {
    static let scenario = Scenario(queues: [QueueConfig(maxConcurrent: 0)], operations: [OperationConfig(kind: .main([]))],
                                   driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.setMaxConcurrent(queue: 0, -1))])

    static func trace(widenedTo width: Int) -> Trace {
        let kinds: [EventKind] = [
            .threadStarted(name: "main", queue: nil),
            .call(.setMaxConcurrent(queue: 0, 0)), .returned(.setMaxConcurrent(queue: 0, 0)),
            .stepIssued(0), .call(.addOperation(0, queue: 0)), .returned(.addOperation(0, queue: 0)), .stepDone(0),
            .stepIssued(1), .call(.setMaxConcurrent(queue: 0, width)),
            .call(.start(0, by: .queue)),
            .hang("driver step 1 (setMaxConcurrent(queue: 0, \(width))) never returned"),
        ]
        return Trace(impl: "test", scheduleSeed: 1, capabilities: Observation.allCases,
                     events: kinds.enumerated().map { TraceEvent(seq: $0.offset, thread: 0, $0.element) })
    }

    static func violations(_ trace: Trace) -> [Violation] {
        RuleBook.check(id: "QUEUE-MAX-CONCURRENT")!.check(CheckContext(scenario: scenario, trace: trace, profile: .guide)).violations
    }

    @Test("a start inside a widening call that never returns is judged by the new width")
    func widenedInsideTheCall() {
        #expect(Self.violations(Self.trace(widenedTo: -1)).isEmpty)
    }

    @Test("the same start inside a call that keeps the width at 0 is still a violation")
    func stillZero() {
        #expect(Self.violations(Self.trace(widenedTo: 0)).map(\.rule) == ["QUEUE-MAX-CONCURRENT"])
    }
}
