import OperationSpec
import ReferenceEngine
import Testing

/// Checks widened to the statements they cite (issue 30 item 3, issue 34): each is reached on
/// the reference engine and kept, and a hand-broken trace of the newly judged case is caught.
@Suite("Checks widened to what their statements say")
struct WidenedCheckTests {
    /// One operation whose main checks isCancelled between units, and a cancelAll once it runs.
    static let cancelAllWhileRunning = Scenario(name: "cancel-all-while-running",
        queues: [QueueConfig()],
        operations: [OperationConfig(kind: .main([.repeat(4, [.work(1), .returnIfCancelled])]))],
        driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(after: .mainBegan(0), .cancelAll(queue: 0)),
                 DriverStep(.waitUntilFinished(0))])

    @Test("CANCEL-ALL judges an operation that is executing when cancelAllOperations is called")
    func cancelAllReachesExecuting() throws {
        let check = try #require(RuleBook.check(id: "CANCEL-ALL"))
        let trace = ReferenceEngine().run(Self.cancelAllWhileRunning, scheduleSeed: 1)
        let kept = check.check(CheckContext(scenario: Self.cancelAllWhileRunning, trace: trace, profile: .guide))
        #expect(kept.hits > 0, "the executing operation is judged")
        #expect(kept.violations.isEmpty, "\(kept.violations.map(\.description))")
        // A queue that skips its running operations: the task's check after the call reads NO,
        // so it does another unit and reads NO again (a read that surely began after the call
        // returned: its thread had done something since).
        var editor = TraceEditor(trace)
        editor.drop(.didChange(op: 0, .isCancelled, .bool(true)))
        editor.replace(.read(op: 0, .isCancelled, .bool(true)), with: .read(op: 0, .isCancelled, .bool(false)))
        editor.insert(.work(op: 0, units: 1), after: .read(op: 0, .isCancelled, .bool(false)), thread: 1)
        editor.insert(.read(op: 0, .isCancelled, .bool(false)), after: .work(op: 0, units: 1), nth: 1, thread: 1)
        #expect(editor.missing.isEmpty)
        let broken = check.check(CheckContext(scenario: Self.cancelAllWhileRunning, trace: editor.result, profile: .guide))
        #expect(broken.violations.contains { $0.observed.contains("op 0, executing in queue 0, reported isCancelled NO") },
                "\(broken.violations.map(\.description))")
    }

    /// One operation whose main checks isCancelled between units, cancelled by hand once it runs.
    static let cancelWhileRunning = Scenario(name: "cancel-while-running",
        queues: [QueueConfig()],
        operations: [OperationConfig(kind: .main([.repeat(4, [.work(1), .returnIfCancelled])]))],
        driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(after: .mainBegan(0), .cancel(0)),
                 DriverStep(.read(.isCancelled, op: 0)), DriverStep(.waitUntilFinished(0))])

    @Test("CANCEL-SETS-FLAG judges a cancel of an operation whose main is running (issue 34)")
    func cancelSetsFlagWhileRunning() throws {
        let check = try #require(RuleBook.check(id: "CANCEL-SETS-FLAG"))
        let trace = ReferenceEngine().run(Self.cancelWhileRunning, scheduleSeed: 1)
        let kept = check.check(CheckContext(scenario: Self.cancelWhileRunning, trace: trace, profile: .guide))
        #expect(kept.hits > 0, "the running operation's cancel is judged")
        #expect(kept.violations.isEmpty, "\(kept.violations.map(\.description))")
        // An implementation whose cancel of a running operation leaves the flag NO: every read
        // after it, the driver's own among them, says NO.
        var editor = TraceEditor(trace)
        editor.drop(.didChange(op: 0, .isCancelled, .bool(true)))
        editor.dropAll { $0 == .willChange(op: 0, .isCancelled, .bool(false)) }
        for _ in trace.events.filter({ $0.kind == .read(op: 0, .isCancelled, .bool(true)) }) {
            editor.replace(.read(op: 0, .isCancelled, .bool(true)), with: .read(op: 0, .isCancelled, .bool(false)))
        }
        #expect(editor.missing.isEmpty)
        let broken = check.check(CheckContext(scenario: Self.cancelWhileRunning, trace: editor.result, profile: .guide))
        #expect(broken.violations.contains { $0.observed.contains("op 0 reported isCancelled NO after cancel returned") },
                "\(broken.violations.map(\.description))")
    }

    /// A block given to a suspended queue with addOperationWithBlock:, then a resume.
    static let blockWhileSuspended = Scenario(name: "block-while-suspended",
        queues: [QueueConfig(suspended: true)],
        operations: [OperationConfig(kind: .block([[.work(1)]]))],
        driver: [DriverStep(.addBlock(op: 0, queue: 0)), DriverStep(.sleep(2)), DriverStep(.resume(queue: 0)),
                 DriverStep(.waitUntilAllFinished(queue: 0))])

    @Test("QUEUE-SUSPENDED judges a block given to addOperationWithBlock: as it judges an added operation")
    func suspensionHoldsForBlocks() throws {
        let check = try #require(RuleBook.check(id: "QUEUE-SUSPENDED"))
        let trace = ReferenceEngine().run(Self.blockWhileSuspended, scheduleSeed: 1)
        let kept = check.check(CheckContext(scenario: Self.blockWhileSuspended, trace: trace, profile: .guide))
        #expect(kept.hits > 0 && kept.violations.isEmpty, "\(kept.violations.map(\.description))")
        // A queue that runs the block at once, though suspended: its beginning moves before the resume.
        var editor = TraceEditor(trace)
        editor.drop(.blockBegan(op: 0, block: 0))
        editor.insert(.blockBegan(op: 0, block: 0), after: .returned(.addBlock(0, queue: 0)), thread: 1)
        #expect(editor.missing.isEmpty, "\(editor.missing)")
        let broken = check.check(CheckContext(scenario: Self.blockWhileSuspended, trace: editor.result, profile: .guide))
        #expect(broken.violations.contains { $0.observed == "suspended queue 0 ran the block of op 0 given to addOperationWithBlock:" },
                "\(broken.violations.map(\.description))")
    }
}
