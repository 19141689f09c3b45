import OperationSpec
import Testing

/// KVO-CANCELLED judges a cancel only when no start began before the cancel returned. The
/// fresh-clone CI of 2026-11-27 failed the GNUstep gate once in 2,000 cases: a queue's worker
/// logged its start of a 2 ms task while the driver's cancel of it was under way, ran it to its
/// end, and the descheduled cancel then found it finished and rightly said nothing. The rule
/// took the cancel for one made before any start.
@Suite("KVO-CANCELLED and a start inside the cancel")
struct CancelInsideStartTests {
    static let scenario = Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .main([.work(1)]))],
                                   driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.cancel(0))])

    /// Op 0 is queued, then cancelled with no notification: the queue's run of it (start, main,
    /// finish) is logged inside the cancel call, or after it returned.
    static func trace(runInsideCancel: Bool) -> Trace {
        var kinds: [EventKind] = [.threadStarted(name: "main", queue: nil),
                                  .stepIssued(0), .call(.addOperation(0, queue: 0)), .returned(.addOperation(0, queue: 0)), .stepDone(0),
                                  .stepIssued(1), .call(.cancel(0))]
        let run: [EventKind] = [.threadStarted(name: "worker", queue: 0), .call(.start(0, by: .queue)),
                                .willChange(op: 0, .isExecuting, .bool(false)), .didChange(op: 0, .isExecuting, .bool(true)),
                                .mainBegan(op: 0, threadPriority: 0.5), .work(op: 0, units: 1), .mainEnded(op: 0),
                                .willChange(op: 0, .isFinished, .bool(false)), .willChange(op: 0, .isExecuting, .bool(true)),
                                .didChange(op: 0, .isExecuting, .bool(false)), .didChange(op: 0, .isFinished, .bool(true)),
                                .returned(.start(0, by: .queue))]
        let cancelled: [EventKind] = [.returned(.cancel(0)), .stepDone(1)]
        kinds += runInsideCancel ? run + cancelled : cancelled + run
        kinds.append(.end)
        let workerAt = kinds.firstIndex { if case .threadStarted(_, 0?) = $0 { return true }; return false }!
        return Trace(impl: "test", scheduleSeed: 1, capabilities: Observation.allCases,
                     events: kinds.enumerated().map { k in
                         let onWorker = k.offset >= workerAt && k.offset < workerAt + run.count
                         return TraceEvent(seq: k.offset, thread: onWorker ? 1 : 0, k.element)
                     })
    }

    static func violations(runInsideCancel: Bool) throws -> [Violation] {
        let check = try #require(RuleBook.check(id: "KVO-CANCELLED"))
        return check.check(CheckContext(scenario: scenario, trace: trace(runInsideCancel: runInsideCancel), profile: .gnustep)).violations
    }

    @Test("a start logged inside the cancel call: the cancel may have found the operation finished, so it is not judged")
    func startInside() throws {
        #expect(try Self.violations(runInsideCancel: true).isEmpty)
    }

    @Test("a cancel that returned before any start and said nothing is still caught")
    func startAfter() throws {
        let found = try Self.violations(runInsideCancel: false)
        #expect(found.count == 1 && found.first?.observed.contains("without a will-change for isCancelled") == true, "\(found)")
    }
}
