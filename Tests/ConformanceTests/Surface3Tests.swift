@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
@testable import ConformanceExport
import Foundation
import OperationSpec
import ReferenceEngine
import Testing

/// API surface 3 (issue 44 item 4): the constructs corelibs' peer suite needs that surface 2
/// lacks: the `cancelAll` step (a queue's `cancelAllOperations` called from the code of one of
/// its own operations, test_CurrentQueueOnBackgroundQueueWithSelfCancel) and the `releaseQueue`
/// action (the driver lets go of a queue that still holds operations: test_Deadlock).
@Suite("API surface 3: cancelAll from an operation's code, a queue released while it works")
struct Surface3Tests {
    /// A serial queue: op 0 cancels its own queue from its main, while op 1 waits its turn.
    static let cancelFromInside = Scenario(
        name: "cancelAll from inside",
        queues: [QueueConfig(maxConcurrent: 1)],
        operations: [OperationConfig(kind: .main([.cancelAll(0), .work(1)])),
                     OperationConfig(kind: .main([.returnIfCancelled, .work(1)]))],
        driver: [DriverStep(.addBatch(ops: [0, 1], queue: 0, wait: false)), DriverStep(.waitUntilAllFinished(queue: 0))])

    /// The cancelAll call, made on a thread other than the driver's, and op 1 cancelled.
    static func cancelledFromInside(_ t: Trace) -> Bool {
        let call = t.events.first { $0.kind == .call(.cancelAll(queue: 0)) }
        return call != nil && call?.thread != 0 && t.events.contains { $0.kind == .returned(.cancelAll(queue: 0)) }
            && t.events.contains { $0.kind == .call(.cancel(1)) }
    }

    @Test("the reference engine performs the step on the operation's thread, and CANCEL-ALL judges it")
    func engine() throws {
        #expect(Self.cancelFromInside.problems().isEmpty, "\(Self.cancelFromInside.problems())")
        #expect(Self.cancelFromInside.surface3Constructs == ["cancelAll step"])
        let t = ReferenceEngine().run(Self.cancelFromInside, scheduleSeed: 1)
        #expect(Self.cancelledFromInside(t), "\(t.events.map(\.kind))")
        #expect(RuleBook.violations(scenario: Self.cancelFromInside, trace: t, profile: .guide).isEmpty)
        // A queue whose cancelAll skips the operations already running (op 0, the caller) breaks
        // CANCEL-ALL: the step reaches the rule.
        let faulty = ReferenceEngine(options: EngineOptions(faults: [.cancelAllSkipsExecuting])).run(Self.cancelFromInside, scheduleSeed: 1)
        let rules = RuleBook.violations(scenario: Self.cancelFromInside, trace: faulty, profile: .guide).map(\.rule)
        #expect(rules.contains("CANCEL-ALL"), "\(rules)")
    }

    @Test("a driver that does not declare apiSurface3 is not sent the step, and is told why")
    func refusal() throws {
        let blind = BlindToKVO()
        #expect(!blind.capabilities.contains(.apiSurface3))
        let sentence = try #require(blind.refusal(of: Self.cancelFromInside))
        #expect(sentence.contains("does not declare the capability apiSurface3") && sentence.contains("cancelAll step"), "\(sentence)")
        #expect(ReferenceImplementation().refusal(of: Self.cancelFromInside) == nil)
        #expect(blind.refusal(of: Scenario(name: "plain")) == nil)
    }

    @Test("the format: read and written as {\"cancelAll\": Q}, a queue the scenario lacks refused with its place")
    func format() throws {
        let bytes = ScenarioFormat.encode(Self.cancelFromInside)
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""cancelAll": 0"#))
        #expect(try ScenarioFormat.decode(bytes, source: "s.json") == Self.cancelFromInside)
        var wrong = Self.cancelFromInside
        wrong.operations[0].kind = .main([.cancelAll(3)])
        #expect(wrong.problems().contains { $0.contains("names queue 3 in cancelAll, but the scenario has 1") }, "\(wrong.problems())")
        // Shrinking a queue away takes its cancelAll steps with it, and renumbers the others.
        var two = Self.cancelFromInside
        two.queues.append(QueueConfig())
        two.operations[1].kind = .main([.cancelAll(1), .cancelAll(0)])
        let fewer = two.removingQueue(0)
        #expect(fewer.operations[0].kind == .main([.work(1)]) && fewer.operations[1].kind == .main([.cancelAll(0)]), "\(fewer.operations)")
    }

    /// A serial queue holds two operations, the first waiting on the second, and the driver lets
    /// go of the queue at once (corelibs' test_Deadlock): both must still run, in order.
    static let releasedWhileWorking = Scenario(
        name: "released while working",
        queues: [QueueConfig(maxConcurrent: 1)],
        operations: [OperationConfig(kind: .block([[.work(2), .signal(1)]])), OperationConfig(kind: .block([[.work(2), .signal(2)]]))],
        dependencies: [Edge(0, on: 1)],
        driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.add(op: 1, queue: 0)), DriverStep(.releaseQueue(queue: 0)),
                 DriverStep(after: .signaled(1), .sleep(0))])

    /// Both blocks ran, after the release was logged.
    static func ranAfterRelease(_ t: Trace) -> Bool {
        guard let release = t.events.firstIndex(where: { $0.kind == .returned(.releaseQueue(queue: 0)) }) else { return false }
        return [0, 1].allSatisfy { op in t.events.contains { $0.kind == .blockEnded(op: op, block: 0) } }
            && t.events[release...].contains { $0.kind == .blockEnded(op: 0, block: 0) }
    }

    @Test("a released queue runs what it holds on the engine; the trace says so in format 4; the format refuses a later use")
    func releaseOnEngine() throws {
        let s = Self.releasedWhileWorking
        #expect(s.problems().isEmpty, "\(s.problems())")
        #expect(s.surface3Constructs == ["releaseQueue"])
        let t = ReferenceEngine().run(s, scheduleSeed: 1)
        #expect(t.ending == .complete && Self.ranAfterRelease(t), "\(t.events.map(\.kind))")
        #expect(RuleBook.violations(scenario: s, trace: t, profile: .guide).isEmpty)
        #expect(TraceFormat.format(of: t) == 4)
        let file = TraceFile(scenario: s, trace: t)
        #expect(try TraceFormat.decode(TraceFormat.encode(file), source: "t.json").trace == t)

        var later = s
        later.driver.append(DriverStep(.readOperationCount(queue: 0)))
        #expect(later.problems().contains { $0.contains("names queue 0, which driver step 2 released") }, "\(later.problems())")
        var fromCode = s
        fromCode.operations[1].kind = .block([[.cancelAll(0)]])
        #expect(fromCode.problems().contains { $0.contains("a step cancels all operations of queue 0, which driver step 2 releases") },
                "\(fromCode.problems())")
        #expect(BlindToKVO().refusal(of: s)?.contains("releaseQueue") == true)
        // The reproducers hold every queue for the whole test: they refuse rather than drop the release.
        #expect(throws: RuleClaims.Unsupported.self) {
            try RuleClaims.claims(rule: "DEP-ORDER", message: "op 0 started before op 1 finished", scenario: s)
        }
    }

    /// A suspended queue holds three operations, one of them a block handed over with
    /// `addBlock`, and the driver reads its `operations` (corelibs' test_OperationCount).
    static let listed = Scenario(
        name: "operations listed",
        queues: [QueueConfig(suspended: true)],
        operations: [OperationConfig(kind: .block([[.work(1)]])), OperationConfig(kind: .block([[.work(1)]])),
                     OperationConfig(kind: .block([[.work(1)]]))],
        driver: [DriverStep(.add(op: 1, queue: 0)), DriverStep(.addBlock(op: 2, queue: 0)), DriverStep(.add(op: 0, queue: 0)),
                 DriverStep(.readOperations(queue: 0)), DriverStep(.resume(queue: 0)), DriverStep(.waitUntilAllFinished(queue: 0)),
                 DriverStep(.readOperations(queue: 0))])

    /// The two reads: what the suspended queue held, in the order added, then nothing.
    static func listedReads(_ t: Trace) -> [[Int]] {
        t.events.compactMap { if case .operations(0, let list) = $0.kind { return list }; return nil }
    }

    @Test("the operations array: in the order added, the block's operation as -1, empty after the wait; format 4")
    func operationsOnEngine() throws {
        #expect(Self.listed.problems().isEmpty, "\(Self.listed.problems())")
        #expect(Self.listed.surface3Constructs == ["readOperations"])
        let t = ReferenceEngine().run(Self.listed, scheduleSeed: 1)
        #expect(Self.listedReads(t) == [[1, -1, 0], []], "\(Self.listedReads(t))")
        #expect(TraceFormat.format(of: t) == 4)
        #expect(try TraceFormat.decode(TraceFormat.encode(TraceFile(scenario: Self.listed, trace: t)), source: "t.json").trace == t)
    }

    /// Each construct's scenario and what its trace must show, on any implementation.
    enum Construct: String, CaseIterable, Sendable {
        case cancelAllFromInside, releaseWhileWorking, readOperations
        var scenario: Scenario {
            switch self {
            case .cancelAllFromInside: return Surface3Tests.cancelFromInside
            case .releaseWhileWorking: return Surface3Tests.releasedWhileWorking
            case .readOperations: return Surface3Tests.listed
            }
        }
        func shown(in t: Trace) -> Bool {
            switch self {
            case .cancelAllFromInside: return Surface3Tests.cancelledFromInside(t)
            case .releaseWhileWorking: return Surface3Tests.ranAfterRelease(t)
            case .readOperations: return Surface3Tests.listedReads(t) == [[1, -1, 0], []]
            }
        }
    }

    /// The construct on `impl`: the driver declares surface 3, the case ends, the trace shows it,
    /// and no rule that fails is broken (known divergences of the platform aside).
    static func check(_ construct: Construct, on impl: any Implementation, profile: Profile, known: String) throws {
        let t = impl.run(construct.scenario, scheduleSeed: 1)
        let expectations = try Expectations.load(SpecsDriftTests.root.appendingPathComponent("Fixtures/expectations/\(known).json").path)
        // The driver performs surface 3; its traces leave the capability out, keeping their format.
        #expect(impl.capabilities.contains(.apiSurface3) && !t.capabilities.contains(.apiSurface3))
        #expect(TraceFormat.format(of: t) == (construct == .cancelAllFromInside ? 2 : 4))
        #expect(t.ending == .complete, "\(t.events.suffix(3))")
        #expect(construct.shown(in: t), "\(t.events.map(\.kind))")
        #expect(PeerSuiteTests.unexcused(construct.scenario, t, profile: profile, known: expectations).isEmpty)
    }

    @Test("Foundation's driver performs each construct", .enabled(if: FoundationIsolationTests.available, "build opconform first (swift build)"),
          arguments: Construct.allCases)
    func foundation(_ construct: Construct) throws {
        try Self.check(construct, on: FoundationIsolationTests.foundation(), profile: .guide, known: "foundation-linux")
    }

    @Test("GNUstep's driver performs each construct", .enabled(if: GNUstepDriverTests.available, "needs GNUstep"),
          arguments: Construct.allCases)
    func gnustep(_ construct: Construct) throws {
        try Self.check(construct, on: try Implementations.make("gnustep", profile: .gnustep, faults: []), profile: .gnustep, known: "gnustep")
    }

    @Test("GNUstep's driver refuses, as the harness does, a request that names a queue it released",
          .enabled(if: GNUstepDriverTests.available, "needs GNUstep"))
    func gnustepRefusesReleasedQueue() throws {
        var later = Self.releasedWhileWorking
        later.driver.append(DriverStep(.readOperationCount(queue: 0)))
        let (lines, status) = try GNUstepDriverTests.raw(Surface2GNUstepTests.request(later))
        #expect(status == 2, "\(lines)")
        #expect(lines.joined().contains("names queue 0, which driver step 2 released"), "\(lines)")
    }

    @Test("an operations event must name the scenario's operations or -1, on the driving thread")
    func operationsEventIsChecked() {
        let s = Self.listed
        func trace(_ kind: EventKind, thread: Int = 0) -> [TraceEvent] {
            [TraceEvent(seq: 0, thread: 0, .threadStarted(name: "main", queue: nil)), TraceEvent(seq: 1, thread: thread, kind),
             TraceEvent(seq: 2, thread: 0, .end)]
        }
        #expect(DriverCheck.traceFailure(trace(.operations(queue: 0, ops: [1, -1, 0])), in: s) == nil)
        #expect(DriverCheck.traceFailure(trace(.operations(queue: 0, ops: [-2])), in: s)?.contains("lists operation -2") == true)
        #expect(DriverCheck.traceFailure(trace(.operations(queue: 0, ops: [])), in: s) == nil)
        let file = TraceFile(scenario: s, trace: Trace(impl: "x", scheduleSeed: 1, capabilities: [], events: trace(.operations(queue: 0, ops: [-3]))))
        #expect(file.problems().contains { $0.contains("lists operation -3") }, "\(file.problems())")
    }
}

