import OperationSpec
import Testing

/// PRIORITY-ORDER judges a serial queue's choice only from a moment the queue surely chose after.
/// A resume is such a moment only when the queue was suspended: the CI run of 2026-11-27 missed
/// Foundation's expected PRIORITY-ORDER on a minimised scenario whose queue was never suspended,
/// where the rule had judged a start logged after a resume that changed nothing (a queue that
/// chose before it, slow to log, would have been blamed under load).
@Suite("PRIORITY-ORDER's choice point")
struct PriorityChoiceTests {
    /// Op 1 (Normal) is added before op 0 (Very Low) to serial queue 0, then the queue is resumed.
    static func scenario(suspended: Bool) -> Scenario {
        Scenario(queues: [QueueConfig(maxConcurrent: 1, suspended: suspended)],
                 operations: [OperationConfig(kind: .main([]), queuePriority: -4), OperationConfig(kind: .main([]))],
                 driver: [DriverStep(.add(op: 1, queue: 0)), DriverStep(.add(op: 0, queue: 0)), DriverStep(.resume(queue: 0))])
    }

    /// The queue starts op 0 with op 1 still waiting: inside the resume call, or after it returned.
    static func trace(suspended: Bool, startInsideResume: Bool) -> Trace {
        var kinds: [EventKind] = [.threadStarted(name: "main", queue: nil),
                                  .call(.setMaxConcurrent(queue: 0, 1)), .returned(.setMaxConcurrent(queue: 0, 1))]
        if suspended { kinds += [.call(.setSuspended(queue: 0, true)), .returned(.setSuspended(queue: 0, true))] }
        kinds += [.call(.setQueuePriority(0, -4)), .returned(.setQueuePriority(0, -4)),
                  .stepIssued(0), .call(.addOperation(1, queue: 0)), .returned(.addOperation(1, queue: 0)), .stepDone(0),
                  .stepIssued(1), .call(.addOperation(0, queue: 0)), .returned(.addOperation(0, queue: 0)), .stepDone(1),
                  .stepIssued(2), .call(.setSuspended(queue: 0, false))]
        let start: [EventKind] = [.threadStarted(name: "worker", queue: 0), .call(.start(0, by: .queue)),
                                  .mainBegan(op: 0, threadPriority: 0.5), .mainEnded(op: 0), .returned(.start(0, by: .queue))]
        let resumed: [EventKind] = [.returned(.setSuspended(queue: 0, false)), .stepDone(2)]
        kinds += startInsideResume ? start + resumed : resumed + start
        kinds.append(.hang("queue 0 still holds 1 operations"))
        let workerAt = kinds.firstIndex { if case .threadStarted(_, 0?) = $0 { return true }; return false }!
        return Trace(impl: "test", scheduleSeed: 1, capabilities: Observation.allCases,
                     events: kinds.enumerated().map { k in
                         let onWorker = k.offset >= workerAt && k.offset < workerAt + start.count
                         return TraceEvent(seq: k.offset, thread: onWorker ? 1 : 0, k.element)
                     })
    }

    static func violations(suspended: Bool, startInsideResume: Bool) -> [String] {
        let s = scenario(suspended: suspended)
        let t = trace(suspended: suspended, startInsideResume: startInsideResume)
        return RuleBook.check(id: "PRIORITY-ORDER")!.check(CheckContext(scenario: s, trace: t, profile: .guide)).violations.map(\.rule)
    }

    @Test("a queue suspended while both were added, that starts the lower priority once resumed, breaks the rule")
    func suspendedThenResumed() {
        #expect(Self.violations(suspended: true, startInsideResume: false) == ["PRIORITY-ORDER"])
    }

    @Test("... and so does a start logged inside the resume call: the queue could not have chosen before it")
    func startInsideTheResume() {
        #expect(Self.violations(suspended: true, startInsideResume: true) == ["PRIORITY-ORDER"])
    }

    @Test("a resume of a queue that was running is no choice point: the start may have been chosen before op 1 came")
    func resumeOfRunningQueue() {
        #expect(Self.violations(suspended: false, startInsideResume: false).isEmpty)
        #expect(Self.violations(suspended: false, startInsideResume: true).isEmpty)
    }
}
