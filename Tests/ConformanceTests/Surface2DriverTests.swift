@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
@testable import OperationDriverKit
import ConformanceTesting
import Foundation
import OperationSpec
import Testing

/// API surface 2 on the Foundation driver (`DriverContext`, in this process, on Foundation's own
/// `OperationQueue`): each construct performed as `Specs/driver-protocol.md` says, with the
/// events it must leave in the trace. What Foundation itself does with them (which queue
/// `OperationQueue.current` names, whether an `isReady` notification starts an operation) is
/// asserted where the driver's answer depends on it, and said in each test's comment.
@Suite("API surface 2 on the Foundation driver")
struct Surface2DriverTests {
    /// Collects a run's events as the recorder hands them over (under its lock, in `seq`
    /// order). `@unchecked Sendable` is sound: `events` is read and written only under `lock`.
    final class Events: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [TraceEvent] = []
        func append(_ e: TraceEvent) { lock.withLock { list.append(e) } }
        var all: [TraceEvent] { lock.withLock { list } }
    }

    /// The contexts of every run, kept to the end of the process: operations and blocks hold
    /// their context `unowned`, and Foundation may run a completion block after the trace has
    /// ended (on a global queue); the driver process keeps its last case alive for the same
    /// reason (`OperationDriver.CaseWatch`). `@unchecked Sendable` is sound: `kept` is touched
    /// only under `lock`.
    final class Keeper: @unchecked Sendable {
        private let lock = NSLock()
        private var kept: [DriverContext] = []
        func keep(_ c: DriverContext) { lock.withLock { kept.append(c) } }
    }
    static let keeper = Keeper()

    /// A driver's protocol lines. `@unchecked Sendable` is sound: `lines` is touched only under `lock`.
    final class Output: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    /// The threads the in-process queues run their operations on: a queue of its own, whose
    /// threads come from Dispatch's overcommit pool. A default OperationQueue runs them on the
    /// global pool, which in a test process has about as many threads as cores, and which the
    /// suite's other tests hold while they wait for their child processes: under CI's load
    /// nothing of a case ran for a second (readyAfterSignal: "queue 0 still holds 3 operations").
    static let workers = DispatchQueue(label: "opconform in-process queues", attributes: .concurrent)

    /// Runs `s` on Foundation's OperationQueue in this process: the trace's events, ending with
    /// its last event, and the context (its queues, for what the trace cannot show).
    static func run(_ s: Scenario) -> (events: [TraceEvent], context: DriverContext) {
        precondition(s.problems().isEmpty, "\(s.problems())")
        let events = Events()
        let context = DriverContext(scenario: s, unit: 0.001, queue: {
            let queue = OperationQueue()
            queue.underlyingQueue = workers
            return queue
        }, sink: events.append)
        keeper.keep(context)
        let last = context.drive()
        _ = context.recorder.close(with: last, onCallingThread: true)
        return (events.all, context)
    }

    static func kinds(_ events: [TraceEvent]) -> [EventKind] { events.map(\.kind) }

    /// Where `currentQueue` is read: in main (queue 1), in two blocks (queue 1), in an
    /// `addOperationWithBlock:` block (queue 0), in a completion block, and on the driving
    /// thread once the completion block signalled 7. Both drivers' tests run it.
    static let currentQueueScenario = Scenario(
        queues: [QueueConfig(), QueueConfig(name: "fetch")],
        operations: [OperationConfig(kind: .main([.readCurrentQueue]), completion: [.readCurrentQueue, .signal(7)]),
                     OperationConfig(kind: .block([[.readCurrentQueue], [.readCurrentQueue]])),
                     OperationConfig(kind: .block([[.readCurrentQueue]]))],
        driver: [DriverStep(.add(op: 0, queue: 1)), DriverStep(.add(op: 1, queue: 1)), DriverStep(.addBlock(op: 2, queue: 0)),
                 DriverStep(.waitUntilAllFinished(queue: 1)), DriverStep(.waitUntilAllFinished(queue: 0)),
                 DriverStep(after: .signaled(7), .perform(op: 0, [.readCurrentQueue]))])
    static func first(_ events: [TraceEvent], _ kind: EventKind) -> TraceEvent? { events.first { $0.kind == kind } }

    @Test("the Foundation driver declares apiSurface2, in process and in its hello")
    func declares() throws {
        #expect(FoundationDriver.capabilities.contains(.apiSurface2))
        #expect(!OperationDriver.capabilities.contains(.apiSurface2), "a queue of yours does not declare it by default")
        let lines = Output()
        let probe = DriverProtocol.Request(impl: nil, scenario: Scenario(name: "probe"), scheduleSeed: 1, unitMicroseconds: 1000)
        #expect(FoundationDriver.serve(requestLine: JSONCodec.line(probe), write: lines.append) == 0)
        let hello = try #require(lines.all.first)
        let message = try JSONCodec.decode(DriverProtocol.Message.self, from: Data(hello.utf8), source: "hello")
        guard case .hello(_, let impl, let capabilities, _, _, _) = message else { Issue.record("first line is not a hello: \(hello)"); return }
        #expect(impl == "foundation" && capabilities.contains(.apiSurface2), "\(capabilities)")
    }

    @Test("addBlock: the queue counts, holds and runs the block as block 0, and nothing else of it is seen; readSuspended reads isSuspended on thread 0")
    func addBlock() throws {
        let s = Scenario(queues: [QueueConfig(suspended: true)],
                         operations: [OperationConfig(kind: .block([[.work(1), .readCurrentQueue]]))],
                         driver: [DriverStep(.addBlock(op: 0, queue: 0)), DriverStep(.readOperationCount(queue: 0)),
                                  DriverStep(.readSuspended(queue: 0)), DriverStep(.resume(queue: 0)),
                                  DriverStep(.readSuspended(queue: 0)), DriverStep(.waitUntilAllFinished(queue: 0))])
        let (events, _) = Self.run(s)
        #expect(events.last?.kind == .end, "\(events.suffix(3))")
        #expect(DriverCheck.traceFailure(events, in: s) == nil)
        let call = try #require(Self.first(events, .call(.addBlock(0, queue: 0))))
        let returned = try #require(Self.first(events, .returned(.addBlock(0, queue: 0))))
        #expect(call.thread == 0 && returned.thread == 0 && call.seq < returned.seq)
        // Suspended: the queue holds it, and says so.
        #expect(Self.kinds(events).contains(.operationCount(queue: 0, 1)))
        let suspended = events.filter { if case .suspended = $0.kind { return true }; return false }
        #expect(suspended.map(\.kind) == [.suspended(queue: 0, true), .suspended(queue: 0, false)])
        #expect(suspended.allSatisfy { $0.thread == 0 })
        // Resumed: it runs once, on a worker, for queue 0, and the wait waited for it.
        let began = try #require(Self.first(events, .blockBegan(op: 0, block: 0)))
        let ended = try #require(Self.first(events, .blockEnded(op: 0, block: 0)))
        #expect(began.thread != 0 && ended.thread == began.thread && began.seq < ended.seq)
        #expect(events.filter { $0.kind == .blockBegan(op: 0, block: 0) }.count == 1)
        #expect(Self.first(events, .currentQueue(op: 0, queue: 0))?.thread == began.thread)
        let waited = try #require(Self.first(events, .returned(.waitUntilAllFinished(queue: 0))))
        #expect(ended.seq < waited.seq)
        #expect(Self.kinds(events).contains(.operationCount(queue: 0, 0)))
        // No object of the harness's: no start, cancel, getter, notification or main of op 0.
        let ofOp0 = events.filter { e in
            switch e.kind {
            case .read(0, _, _), .willChange(0, _, _), .didChange(0, _, _), .mainBegan(0, _), .call(.start(0, _)), .call(.cancel(0)): return true
            default: return false
            }
        }
        #expect(ofOp0.isEmpty, "\(ofOp0)")
    }

    @Test("addBlock on a suspended queue, then cancelAll: the block never runs and the queue empties")
    func addBlockCancelled() {
        let s = Scenario(queues: [QueueConfig(suspended: true)],
                         operations: [OperationConfig(kind: .block([[.work(1)]]))],
                         driver: [DriverStep(.addBlock(op: 0, queue: 0)), DriverStep(.cancelAll(queue: 0)),
                                  DriverStep(.resume(queue: 0)), DriverStep(.waitUntilAllFinished(queue: 0))])
        let (events, _) = Self.run(s)
        #expect(events.last?.kind == .end)
        #expect(!Self.kinds(events).contains(.blockBegan(op: 0, block: 0)))
        // cancelAll cancels the queue's own BlockOperation: no nested cancel of ours is logged.
        #expect(!Self.kinds(events).contains(.call(.cancel(0))))
        #expect(Self.kinds(events).contains(.operationCount(queue: 0, 0)))
    }

    @Test("sleep: the driving thread records nothing between its stepIssued and stepDone while an operation works")
    func sleep() throws {
        let s = Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .main([.work(2), .signal(1)]))],
                         driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.sleep(20)), DriverStep(.waitUntilAllFinished(queue: 0))])
        let (events, _) = Self.run(s)
        #expect(events.last?.kind == .end)
        let issued = try #require(Self.first(events, .stepIssued(1)))
        let done = try #require(Self.first(events, .stepDone(1)))
        #expect(!events.contains { $0.thread == 0 && $0.seq > issued.seq && $0.seq < done.seq })
        #expect(DriverCheck.traceFailure(events, in: s) == nil)
    }

    @Test("a signaled trigger waits for its token; a token no code signals is a missed trigger")
    func signaled() throws {
        // Operation 1 is never queued: its long step only widens the driver's window of silence
        // (4 × the longest step, at least 0.25 s), after which a trigger counts as missed. A
        // loaded CI machine once took longer than 0.25 s to start operation 0's worker, and on
        // 2026-11-27 longer than 2 s (then 500 units): 1,500 units give it 6 s.
        let s = Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .main([.work(3), .signal(1), .work(1)])),
                                                               OperationConfig(kind: .main([.work(1500)]))],
                         driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(after: .signaled(1), .readOperationCount(queue: 0)),
                                  DriverStep(after: .signaled(9), .waitUntilAllFinished(queue: 0))])
        let (events, _) = Self.run(s)
        #expect(events.last?.kind == .end)
        let signal = try #require(Self.first(events, .signal(token: 1)))
        let issued = try #require(Self.first(events, .stepIssued(1)))
        #expect(signal.seq < issued.seq)
        #expect(!Self.kinds(events).contains(.triggerMissed(1)))
        #expect(Self.kinds(events).contains(.triggerMissed(2)))
    }

    /// Foundation on Linux sets `OperationQueue.current` around an operation's `start` on the
    /// queue's worker; a completion block runs later on a global dispatch queue, outside it, so
    /// it sees no queue; the driving thread sees none of the scenario's either (the main queue
    /// on the main thread, nil on any other).
    @Test("readCurrentQueue names the scenario's queue by identity: queue 1's operation and blocks see queue 1; a completion block and the driver see none")
    func currentQueue() throws {
        let s = Self.currentQueueScenario
        let (events, context) = Self.run(s)
        #expect(events.last?.kind == .end)
        let reads = events.filter { if case .currentQueue = $0.kind { return true }; return false }
        // main, two blocks of op 1, the addBlock block, the completion block, the driver.
        #expect(reads.count == 6, "\(reads)")
        #expect(reads.filter { $0.kind == .currentQueue(op: 1, queue: 1) }.count == 2)
        #expect(Self.kinds(events).contains(.currentQueue(op: 2, queue: 0)))
        let inMain = try #require(events.first { $0.kind == .currentQueue(op: 0, queue: 1) })
        #expect(inMain.thread != 0)
        let completion = try #require(Self.first(events, .completionBegan(op: 0, threadPriority: DriverContext.unknownPriority)))
        let inCompletion = try #require(reads.first { $0.seq > completion.seq && $0.thread == completion.thread })
        #expect(inCompletion.kind == .currentQueue(op: 0, queue: nil))
        let driverRead = try #require(reads.first { $0.thread == 0 })
        #expect(driverRead.kind == .currentQueue(op: 0, queue: nil))
        // The name was set in configuration, with no event of its own.
        #expect(context.queues[1].name == "fetch" && context.queues[0].name == "opconform-0")
        #expect(DriverCheck.traceFailure(events, in: s) == nil)
    }

    @Test("read(executionBlocks) counts a block operation's blocks, added ones included, from the driver and from a step")
    func executionBlocks() {
        let s = Scenario(queues: [QueueConfig()],
                         operations: [OperationConfig(kind: .block([[.work(1)], [.read(.executionBlocks, .this)]]))],
                         driver: [DriverStep(.read(.executionBlocks, op: 0)), DriverStep(.addExecutionBlock(op: 0, [])),
                                  DriverStep(.read(.executionBlocks, op: 0)), DriverStep(.add(op: 0, queue: 0)),
                                  DriverStep(.waitUntilAllFinished(queue: 0))])
        let (events, _) = Self.run(s)
        #expect(events.last?.kind == .end)
        let counts = events.compactMap { e -> Int? in if case .read(0, .executionBlocks, .int(let n)) = e.kind { return n }; return nil }
        #expect(counts == [2, 3, 3], "\(counts)")
    }

    /// Foundation on Linux: `didChangeValue(forKey: "isReady")` makes the operation's queue read
    /// `isReady` again and schedule it at once (there is no KVO; the did-change is the
    /// notification), so the operation starts right after the signalling code's notification.
    @Test("readyAfterSignal: isReady stays NO until the token, the signalling code notifies isReady in operation order, and the queue then starts the operation")
    func readyAfterSignal() throws {
        let s = Scenario(queues: [QueueConfig()],
                         operations: [OperationConfig(kind: .main([.work(1)]), readyAfterSignal: 5),
                                      OperationConfig(kind: .main([.work(2), .signal(5)])),
                                      OperationConfig(kind: .block([[.work(1)]]), readyAfterSignal: 5)],
                         // Bounded waits (triggers, then the drain), not waitUntilFinished: an
                         // operation the queue never starts must fail this test, not hang it.
                         driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.read(.isReady, op: 0)), DriverStep(.add(op: 2, queue: 0)),
                                  DriverStep(.add(op: 1, queue: 0)), DriverStep(after: .finished(0), .readOperationCount(queue: 0)),
                                  DriverStep(after: .finished(2), .readOperationCount(queue: 0))])
        let (events, _) = Self.run(s)
        #expect(events.last?.kind == .end, "\(events.suffix(3))")
        let signal = try #require(Self.first(events, .signal(token: 5)))
        // Before the token: every isReady of op 0 and op 2 said NO, and neither started.
        let before = events.filter { $0.seq < signal.seq }
        #expect(before.contains { $0.kind == .read(op: 0, .isReady, .bool(false)) })
        #expect(!before.contains { if case .read(let o, .isReady, .bool(true)) = $0.kind { return o == 0 || o == 2 }; return false })
        #expect(!before.contains { $0.kind == .mainBegan(op: 0, threadPriority: DriverContext.unknownPriority) })
        // Right after the signal, on its thread: will/did isReady of op 0, then of op 2.
        let notes = events.filter { e in
            guard e.seq > signal.seq, e.thread == signal.thread else { return false }
            switch e.kind { case .willChange(_, .isReady, _), .didChange(_, .isReady, _): return true; default: return false }
        }
        #expect(notes.map(\.kind) == [.willChange(op: 0, .isReady, .bool(true)), .didChange(op: 0, .isReady, .bool(true)),
                                      .willChange(op: 2, .isReady, .bool(true)), .didChange(op: 2, .isReady, .bool(true))])
        // Right after: the signalling thread does nothing else in between (the values the
        // notifications carry, and Foundation's own isReady reads, are reads of isReady).
        let lastNote = try #require(notes.last)
        let between = events.filter { $0.thread == signal.thread && $0.seq > signal.seq && $0.seq < lastNote.seq }
        #expect(between.allSatisfy { e in
            switch e.kind { case .read(_, .isReady, _), .willChange(_, .isReady, _), .didChange(_, .isReady, _): return true; default: return false }
        }, "\(between)")
        // And the queue starts both after the notification, without anyone else's help.
        let start0 = try #require(Self.first(events, .call(.start(0, by: .queue))))
        let start2 = try #require(Self.first(events, .call(.start(2, by: .queue))))
        #expect(start0.seq > notes[1].seq && start2.seq > notes[3].seq)
        #expect(DriverCheck.traceFailure(events, in: s) == nil)
    }

    @Test("the driver-check trace checks: the new events name existing operations and queues, and the driving thread's own are on thread 0")
    func traceChecks() {
        let s = Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .block([[]]))])
        func trace(_ kinds: [(Int, EventKind)]) -> [TraceEvent] {
            var out: [TraceEvent] = [TraceEvent(seq: 0, thread: 0, .threadStarted(name: "main", queue: nil))]
            var seen = 1
            for (thread, kind) in kinds {
                if thread >= seen { out.append(TraceEvent(seq: out.count, thread: thread, .threadStarted(name: "w", queue: nil))); seen += 1 }
                out.append(TraceEvent(seq: out.count, thread: thread, kind))
            }
            return out + [TraceEvent(seq: out.count, thread: 0, .end)]
        }
        let good = trace([(0, .call(.addBlock(0, queue: 0))), (0, .returned(.addBlock(0, queue: 0))), (0, .suspended(queue: 0, false)),
                          (1, .blockBegan(op: 0, block: 0)), (1, .currentQueue(op: 0, queue: 0)), (1, .currentQueue(op: 0, queue: nil)),
                          (1, .blockEnded(op: 0, block: 0))])
        #expect(DriverCheck.traceFailure(good, in: s) == nil)
        let elsewhere = trace([(1, .suspended(queue: 0, true))])
        #expect(DriverCheck.traceFailure(elsewhere, in: s)?.hasSuffix("a readSuspended, addBlock, readOperations, releaseQueue, readMainQueue or readQueueDeallocated action is performed by the driving thread, thread 0") == true)
        let offThread = trace([(1, .call(.addBlock(0, queue: 0))), (1, .returned(.addBlock(0, queue: 0)))])
        #expect(DriverCheck.traceFailure(offThread, in: s)?.contains("is on thread 1") == true)
        let noQueue = trace([(0, .suspended(queue: 2, true))])
        #expect(DriverCheck.traceFailure(noQueue, in: s)?.hasSuffix("names queue 2, but the scenario has 1; events name the scenario's queues") == true)
        let noOp = trace([(1, .currentQueue(op: 4, queue: 0))])
        #expect(DriverCheck.traceFailure(noOp, in: s)?.hasSuffix("names operation 4, but the scenario has 1; events name the scenario's operations") == true)
        let badCurrent = trace([(1, .currentQueue(op: 0, queue: 3))])
        #expect(DriverCheck.traceFailure(badCurrent, in: s)?.contains("names queue 3") == true)
        let badBlock = trace([(0, .call(.addBlock(0, queue: 1))), (0, .returned(.addBlock(0, queue: 1)))])
        #expect(DriverCheck.traceFailure(badBlock, in: s)?.contains("names queue 1") == true)
    }

    /// `opconform` as built next to this test bundle (a `.build/debug/opconform` of another
    /// build may predate the code under test).
    static var opconform: String? { try? DriverExecutable.locate("opconform") }

    @Test("opconform driver (the exec driver) runs a surface-2 case to its end", .enabled(if: opconform != nil, "swift test builds opconform next to the tests"))
    func execDriver() throws {
        let driver = try #require(Self.opconform)
        let s = Scenario(queues: [QueueConfig(suspended: true, name: "fetch")],
                         operations: [OperationConfig(kind: .block([[.readCurrentQueue, .signal(1)]])),
                                      OperationConfig(kind: .main([.work(1)]), readyAfterSignal: 1)],
                         driver: [DriverStep(.addBlock(op: 0, queue: 0)), DriverStep(.add(op: 1, queue: 0)), DriverStep(.readSuspended(queue: 0)),
                                  DriverStep(.resume(queue: 0)), DriverStep(after: .signaled(1), .sleep(2)), DriverStep(.waitUntilAllFinished(queue: 0))])
        let foundation = ChildProcessImplementation(name: "foundation", capabilities: FoundationDriver.capabilities, command: [driver, "driver"], timeout: 5)
        let t = foundation.run(s, scheduleSeed: 1)
        #expect(t.ending == .complete, "\(t.events.suffix(3))")
        #expect(t.capabilities.contains(.apiSurface2))
        let kinds = t.events.map(\.kind)
        #expect(kinds.contains(.suspended(queue: 0, true)) && kinds.contains(.currentQueue(op: 0, queue: 0)))
        #expect(kinds.contains(.didChange(op: 1, .isReady, .bool(true))) && kinds.contains(.mainEnded(op: 1)))
        #expect(!kinds.contains(.triggerMissed(4)))
    }

    /// The public opt-in (`OperationDriver(name:queue:apiSurface2:)`): a user's queue of another
    /// type (the sample driver's `Forwarding`, which forwards to an OperationQueue and cannot
    /// tell its own threads) declares API surface 2, and a run then generates the constructs and
    /// judges them with their rules, which pass on it. Without the opt-in, the same driver's
    /// cases are the old ones and the rules are not observable.
    @Test("a driver of your own queue opts in to API surface 2 with apiSurface2: true, and its run reaches and passes the new rules",
          .enabled(if: FileManager.default.isExecutableFile(atPath: SubclassUnderTestTests.driver), "swift build builds the sample driver"))
    func publicOptIn() throws {
        let impl = try Implementations.external(command: [SubclassUnderTestTests.driver, "--forwarding-surface2"])
        #expect(impl.name == "forwarding" && impl.capabilities.contains(.apiSurface2))
        let result = Runner(RunConfiguration(impl: impl, seed: 5, count: 40, shrink: false)).run()
        let stats = Dictionary(uniqueKeysWithValues: result.statistics.map { ($0.id, $0) })
        for id in ["QUEUE-ADD-BLOCK-RUNS", "QUEUE-SUSPENDED-READ", "READY-OVERRIDE"] {
            #expect(stats[id]?.hits ?? 0 > 0 && stats[id]?.status == .pass, "\(id): \(String(describing: stats[id]))")
        }
        // Without the opt-in the capability is not declared: the same rules cannot be observed.
        let plain = try Implementations.external(command: [SubclassUnderTestTests.driver, "--no-subclass"])
        #expect(!plain.capabilities.contains(.apiSurface2))
        let old = Runner(RunConfiguration(impl: plain, seed: 5, count: 5, shrink: false)).run()
        #expect(old.statistics.first { $0.id == "QUEUE-ADD-BLOCK-RUNS" }?.status == .notObservable)
    }
}
