import Conformance
import Foundation
import OperationSpec
import Testing

/// API surface 2 on the GNUstep driver (`Drivers/gnustep/`, built by `build.sh` on first use):
/// each construct performed with GNUstep Base's own API (`addOperationWithBlock:`,
/// `isSuspended`, `+currentQueue`, `executionBlocks`, `setName:`, an `isReady` override) and
/// logged as `Specs/driver-protocol.md` says, through the harness's own route (`Implementations`).
/// Where GNUstep's behaviour decides an answer (which queue `+currentQueue` names, whether an
/// `isReady` notification starts an operation), the test's comment says what GNUstep does.
@Suite("API surface 2 on the GNUstep driver", .enabled(if: GNUstepDriverTests.available, "needs GNUstep: apt-get install gobjc libgnustep-base-dev"))
struct Surface2GNUstepTests {
    static func run(_ s: Scenario) throws -> Trace {
        precondition(s.problems().isEmpty, "\(s.problems())")
        return try Implementations.make("gnustep", profile: .gnustep, faults: []).run(s, scheduleSeed: 1)
    }

    static func first(_ t: Trace, _ kind: EventKind) -> TraceEvent? { t.events.first { $0.kind == kind } }

    static func request(_ s: Scenario, protocol version: Int = DriverProtocol.oneCaseVersion) -> String {
        JSONCodec.line(DriverProtocol.Request(impl: "gnustep", scenario: s, scheduleSeed: 1, unitMicroseconds: 1000, protocol: version))
            .trimmingCharacters(in: .newlines)
    }

    @Test("the GNUstep driver declares apiSurface2 in its hello")
    func declares() throws {
        #expect(GNUstepDriver.capabilities.contains(.apiSurface2))
        let probe = JSONCodec.line(DriverProtocol.Request(impl: nil, scenario: Scenario(name: "probe"), scheduleSeed: 1, unitMicroseconds: 1000))
        let (lines, status) = try GNUstepDriverTests.raw(probe.trimmingCharacters(in: .newlines))
        #expect(status == 0)
        let hello = try JSONCodec.decode(DriverProtocol.Message.self, from: Data(try #require(lines.first).utf8), source: "hello")
        guard case .hello(_, "gnustep", let capabilities, _, _, _) = hello else { Issue.record("\(hello)"); return }
        #expect(Set(capabilities) == Set(GNUstepDriver.capabilities), "\(capabilities)")
    }

    @Test("addOperationWithBlock: counted, held by a suspended queue, run once as block 0, nothing else of it seen; isSuspended read on thread 0")
    func addBlock() throws {
        let s = Scenario(queues: [QueueConfig(suspended: true)],
                         operations: [OperationConfig(kind: .block([[.work(1), .readCurrentQueue]]))],
                         driver: [DriverStep(.addBlock(op: 0, queue: 0)), DriverStep(.readOperationCount(queue: 0)),
                                  DriverStep(.readSuspended(queue: 0)), DriverStep(.resume(queue: 0)),
                                  DriverStep(.readSuspended(queue: 0)), DriverStep(.waitUntilAllFinished(queue: 0))])
        let t = try Self.run(s)
        #expect(t.ending == .complete, "\(t.events.suffix(3))")
        #expect(DriverCheck.traceFailure(t.events, in: s) == nil)
        let call = try #require(Self.first(t, .call(.addBlock(0, queue: 0))))
        #expect(call.thread == 0 && Self.first(t, .returned(.addBlock(0, queue: 0)))?.thread == 0)
        #expect(t.events.contains { $0.kind == .operationCount(queue: 0, 1) })
        let suspended = t.events.filter { if case .suspended = $0.kind { return true }; return false }
        #expect(suspended.map(\.kind) == [.suspended(queue: 0, true), .suspended(queue: 0, false)] && suspended.allSatisfy { $0.thread == 0 })
        let began = try #require(Self.first(t, .blockBegan(op: 0, block: 0)))
        #expect(began.thread != 0 && t.events.filter { $0.kind == .blockBegan(op: 0, block: 0) }.count == 1)
        #expect(Self.first(t, .currentQueue(op: 0, queue: 0))?.thread == began.thread)
        let ended = try #require(Self.first(t, .blockEnded(op: 0, block: 0)))
        #expect(ended.seq < (Self.first(t, .returned(.waitUntilAllFinished(queue: 0)))?.seq ?? -1))
        // GNUstep's KVO is real here, and still nothing of op 0 but its block: the queue's
        // operation is not observed, not read, not started by the harness.
        let ofOp0 = t.events.filter { e in
            switch e.kind {
            case .read(0, _, _), .willChange(0, _, _), .didChange(0, _, _), .mainBegan(0, _), .call(.start(0, _)), .call(.cancel(0)): return true
            default: return false
            }
        }
        #expect(ofOp0.isEmpty, "\(ofOp0)")
    }

    @Test("addOperationWithBlock: on a suspended queue, then cancelAllOperations: the block never runs")
    func addBlockCancelled() throws {
        let s = Scenario(queues: [QueueConfig(suspended: true)], operations: [OperationConfig(kind: .block([[.work(1)]]))],
                         driver: [DriverStep(.addBlock(op: 0, queue: 0)), DriverStep(.cancelAll(queue: 0)),
                                  DriverStep(.resume(queue: 0)), DriverStep(.waitUntilAllFinished(queue: 0))])
        let t = try Self.run(s)
        #expect(t.ending == .complete)
        #expect(!t.events.contains { $0.kind == .blockBegan(op: 0, block: 0) })
        #expect(t.events.contains { $0.kind == .operationCount(queue: 0, 0) })
    }

    /// GNUstep 1.28: `+currentQueue` answers the main queue on the main thread (the driver's
    /// thread 0), and otherwise the queue a worker thread keeps in its thread dictionary, so
    /// main, every block, and the completion block (run by `-_finish` on the same worker) see
    /// the queue that runs the operation.
    @Test("[NSOperationQueue currentQueue] names the scenario's queue in main, blocks and the completion block; none on the driving thread")
    func currentQueue() throws {
        let s = Surface2DriverTests.currentQueueScenario
        let t = try Self.run(s)
        #expect(t.ending == .complete, "\(t.events.suffix(3))")
        let reads = t.events.filter { if case .currentQueue = $0.kind { return true }; return false }
        #expect(reads.count == 6, "\(reads)")
        #expect(reads.filter { $0.kind == .currentQueue(op: 1, queue: 1) }.count == 2)
        #expect(t.events.contains { $0.kind == .currentQueue(op: 2, queue: 0) })
        let completion = try #require(t.events.first { if case .completionBegan(0, _) = $0.kind { return true }; return false })
        let inCompletion = try #require(reads.first { $0.seq > completion.seq && $0.thread == completion.thread })
        #expect(inCompletion.kind == .currentQueue(op: 0, queue: 1))
        #expect(reads.first { $0.thread == 0 }?.kind == .currentQueue(op: 0, queue: nil))
        #expect(DriverCheck.traceFailure(t.events, in: s) == nil)
    }

    @Test("executionBlocks counts a block operation's blocks, added ones included")
    func executionBlocks() throws {
        let s = Scenario(queues: [QueueConfig()],
                         operations: [OperationConfig(kind: .block([[.work(1)], [.read(.executionBlocks, .this)]]))],
                         driver: [DriverStep(.read(.executionBlocks, op: 0)), DriverStep(.addExecutionBlock(op: 0, [])),
                                  DriverStep(.read(.executionBlocks, op: 0)), DriverStep(.add(op: 0, queue: 0)),
                                  DriverStep(.waitUntilAllFinished(queue: 0))])
        let t = try Self.run(s)
        #expect(t.ending == .complete)
        let counts = t.events.compactMap { e -> Int? in if case .read(0, .executionBlocks, .int(let n)) = e.kind { return n }; return nil }
        #expect(counts == [2, 3, 3], "\(counts)")
    }

    @Test("a signaled trigger waits for its token, a token never signalled is missed, and sleep records nothing of its own")
    func signaledAndSleep() throws {
        // Operation 1 is never queued: its long step only widens the driver's window of silence
        // (4 × the longest step, at least 0.25 s), after which a trigger counts as missed, so a
        // loaded machine's slow worker start is not read as a missed token.
        let s = Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .main([.work(3), .signal(1), .work(1)])),
                                                               OperationConfig(kind: .main([.work(500)]))],
                         driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(after: .signaled(1), .sleep(5)),
                                  DriverStep(after: .signaled(9), .waitUntilAllFinished(queue: 0))])
        let t = try Self.run(s)
        #expect(t.ending == .complete)
        let signal = try #require(Self.first(t, .signal(token: 1)))
        let issued = try #require(Self.first(t, .stepIssued(1)))
        let done = try #require(Self.first(t, .stepDone(1)))
        #expect(signal.seq < issued.seq)
        #expect(!t.events.contains { $0.thread == 0 && $0.seq > issued.seq && $0.seq < done.seq })
        #expect(!t.events.contains { $0.kind == .triggerMissed(1) } && t.events.contains { $0.kind == .triggerMissed(2) })
    }

    /// GNUstep 1.28: the queue observes `isReady` of an operation that was not ready when added;
    /// the did-change notification puts it with the waiting operations and the queue starts it.
    @Test("readyAfterSignal: isReady NO until the token, will/did isReady (with KVO) right after the signal in operation order, then the queue starts the operations")
    func readyAfterSignal() throws {
        let s = Scenario(queues: [QueueConfig()],
                         operations: [OperationConfig(kind: .main([.work(1)]), readyAfterSignal: 5),
                                      OperationConfig(kind: .main([.work(2), .signal(5)])),
                                      OperationConfig(kind: .block([[.work(1)]]), readyAfterSignal: 5)],
                         driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.read(.isReady, op: 0)), DriverStep(.add(op: 2, queue: 0)),
                                  DriverStep(.add(op: 1, queue: 0)), DriverStep(.waitUntilFinished(0)), DriverStep(.waitUntilFinished(2))])
        let t = try Self.run(s)
        #expect(t.ending == .complete, "\(t.events.suffix(3))")
        let signal = try #require(Self.first(t, .signal(token: 5)))
        let before = t.events.filter { $0.seq < signal.seq }
        #expect(before.contains { $0.kind == .read(op: 0, .isReady, .bool(false)) })
        #expect(!before.contains { if case .read(let o, .isReady, .bool(true)) = $0.kind { return o == 0 || o == 2 }; return false })
        let notes = t.events.filter { e in
            guard e.seq > signal.seq, e.thread == signal.thread else { return false }
            switch e.kind { case .willChange(_, .isReady, _), .didChange(_, .isReady, _): return true; default: return false }
        }
        #expect(notes.map(\.kind) == [.willChange(op: 0, .isReady, .bool(true)), .didChange(op: 0, .isReady, .bool(true)),
                                      .willChange(op: 2, .isReady, .bool(true)), .didChange(op: 2, .isReady, .bool(true))])
        // Right after the signal: nothing else happens on its thread before the last of them.
        let lastNote = try #require(notes.last)
        let between = t.events.filter { $0.thread == signal.thread && $0.seq > signal.seq && $0.seq < lastNote.seq }
        #expect(between.allSatisfy { e in
            switch e.kind { case .read(_, .isReady, _), .willChange(_, .isReady, _), .didChange(_, .isReady, _): return true; default: return false }
        }, "\(between)")
        let start0 = try #require(Self.first(t, .call(.start(0, by: .queue))))
        let start2 = try #require(Self.first(t, .call(.start(2, by: .queue))))
        #expect(start0.seq > signal.seq && start2.seq > signal.seq)
        #expect(DriverCheck.traceFailure(t.events, in: s) == nil)
    }

    @Test("the driver refuses what it cannot run, in one sentence", arguments: [
        (Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .main([]))], driver: [DriverStep(.addBlock(op: 0, queue: 0))]),
         "must be a block operation with exactly one block"),
        (Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .block([[]]))],
                  driver: [DriverStep(.addBlock(op: 0, queue: 0)), DriverStep(.addBlock(op: 0, queue: 0))]), "addBlock 2 times"),
        (Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .block([[]]), queuePriority: 4)],
                  driver: [DriverStep(.addBlock(op: 0, queue: 0))]), "cannot be configured"),
        (Scenario(operations: [OperationConfig(kind: .main([]))], driver: [DriverStep(.read(.executionBlocks, op: 0))]),
         "reads executionBlocks of operation 0, which is not a block operation"),
        (Scenario(operations: [OperationConfig(kind: .main([.read(.executionBlocks, .this)]))]), "which is not a block operation"),
        (Scenario(operations: [OperationConfig(kind: .block([[.willChange(.executionBlocks)]]))]), "notifies executionBlocks"),
        (Scenario(driver: [DriverStep(.sleep(2_000_000))]), "sleeps 2000000 units"),
        (Scenario(queues: [QueueConfig(name: "")]), "queue 0's name is empty"),
        (Scenario(queues: [QueueConfig(name: "a\u{7}b")]), "holds a control character"),
        (Scenario(queues: [QueueConfig(name: String(repeating: "é", count: 65))]), "has 65 characters"),
        (Scenario(queues: [QueueConfig()], driver: [DriverStep(.readSuspended(queue: 3))]), "names queue 3"),
    ])
    func refuses(scenario: Scenario, fragment: String) throws {
        #expect(!scenario.problems().isEmpty, "the harness refuses it too")
        let message = try #require(try GNUstepDriverTests.refusal(Self.request(scenario)), "no single error line with status 2")
        #expect(message.contains(fragment), "\(message)")
    }

    @Test("a session serves a surface-2 case and takes the next one (protocol 3)")
    func session() throws {
        let s = Scenario(queues: [QueueConfig(name: "fetch")],
                         operations: [OperationConfig(kind: .block([[.signal(1)]])), OperationConfig(kind: .main([]), readyAfterSignal: 1)],
                         driver: [DriverStep(.add(op: 1, queue: 0)), DriverStep(.addBlock(op: 0, queue: 0)), DriverStep(.waitUntilAllFinished(queue: 0))])
        let line = Self.request(s, protocol: DriverProtocol.sessionVersion)
        let (lines, status) = try GNUstepDriverTests.raw(line + "\n" + line)
        let dones = lines.filter { $0.hasPrefix(#"{"done""#) }
        #expect(status == 0 && dones == [#"{"done":{"next":true}}"#, #"{"done":{"next":true}}"#], "\(dones)")
        #expect(lines.filter { $0.contains(#""mainEnded":{"op":1}"#) }.count == 2)
    }
}
