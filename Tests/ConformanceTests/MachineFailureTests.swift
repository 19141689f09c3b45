@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
import Foundation
import OperationSpec
import ReferenceEngine
import Testing

/// A machine out of processes (issue 43): a driver the machine will not start, or a killed one
/// never seen to end, makes a case the machine's. Its trace ends cut, says so, and is judged by
/// no rule nor blamed on the driver; a shrink's replay the machine failed is no replay at all.
@Suite("The machine's failures are not verdicts")
struct MachineFailureTests {
    /// The reference engine with a fault, except that every other run the machine "fails":
    /// the trace a child-process implementation writes when no driver could be started.
    /// `@unchecked Sendable` is sound: `runs` is read and written only under `lock`.
    final class Starved: Implementation, @unchecked Sendable {
        let engine: ReferenceEngine
        private let lock = NSLock()
        private var runs = 0
        init(faults: [Fault] = [.oneTooMany]) { engine = ReferenceEngine(options: EngineOptions(faults: faults)) }
        var name: String { "starved" }
        var capabilities: [Observation] { ReferenceEngine.capabilities }
        var isDeterministic: Bool { false }
        func run(_ scenario: Scenario, scheduleSeed: UInt64) -> Trace {
            let odd = lock.withLock { () -> Bool in runs += 1; return runs % 2 == 1 }
            guard odd else { return engine.run(scenario, scheduleSeed: scheduleSeed) }
            return Trace(impl: name, scheduleSeed: scheduleSeed, capabilities: capabilities, events: [
                TraceEvent(seq: 0, thread: 0, .cut(ChildProcessImplementation.machineFailure
                                                    + "the machine could not start a driver: Resource temporarily unavailable")),
            ])
        }
    }

    @Test("a start the machine refuses is the machine's: a cut trace that says so, never a breach")
    func refusedStart() {
        let error = SpawnedProcess.StartError(message: "Resource temporarily unavailable", transient: true)
        let outcome = ChildProcess.Outcome.cannotStart(["/bin/driver"], error)
        #expect(outcome.machine?.contains("Resource temporarily unavailable") == true)
        let bad = ChildProcess.Outcome.cannotStart(["/no/such/driver"], SpawnedProcess.StartError(message: "No such file or directory"))
        #expect(bad.machine == nil, "a command that cannot exist is the user's error, not the machine's")
        #expect(SpawnedProcess.transientErrors.contains(EAGAIN))

        let trace = Starved().run(Scenario(name: "t", queues: [QueueConfig()], operations: [], driver: []), scheduleSeed: 1)
        #expect(trace.isMachineFailure && trace.ending == .truncated)
        #expect(ShrinkTarget.death(of: trace).isEmpty, "no crash, hang or breach is made of it")
    }

    @Test("a shrink's replay the machine failed is neither a success nor a miss")
    func replaysSkipMachineFailures() throws {
        let (scenario, seed) = try ShrinkReplayRateTests.original()
        let check = try #require(RuleBook.check(id: ShrinkReplayRateTests.rule))
        let shrinker = Shrinker(impl: Starved(), profile: .guide, rule: check)
        // Every run the machine did not fail shows the fault: all of them count, none is lost.
        #expect(shrinker.reproductions(scenario, scheduleSeed: seed, signature: nil) == shrinker.rateAttempts)
    }

    @Test("a run with cases cut short gives no verdict, unless a failure found elsewhere stands")
    func cutCasesGiveNoVerdict() {
        // Every other case is cut: with a faithful engine nothing failed, so nothing is decided.
        let clean = Runner(RunConfiguration(impl: Starved(faults: []), seed: 1, count: 6, shrink: false)).run()
        #expect(clean.endings["truncated"] == 3 && clean.failures.isEmpty)
        #expect(clean.noVerdict?.contains("3 of 6 cases were cut short and not judged; first in case 0") == true,
                "\(clean.noVerdict ?? "nil")")
        #expect(clean.noVerdict?.contains("Resource temporarily unavailable") == true)
        // With the fault, the cases that ran show it: the failure is the verdict.
        let faulty = Runner(RunConfiguration(impl: Starved(), seed: 1, count: 40, shrink: false)).run()
        #expect(faulty.endings["truncated"] == 20)
        #expect(!faulty.failures.isEmpty && faulty.noVerdict == nil && faulty.failed)
    }

    /// A scenario that keeps six operations of one queue running at once for 0.4 s.
    static let sixAtOnce = Scenario(queues: [QueueConfig(maxConcurrent: 6)],
                                    operations: Array(repeating: OperationConfig(kind: .main([.work(400)])), count: 6),
                                    dependencies: [],
                                    driver: [DriverStep(.addBatch(ops: Array(0..<6), queue: 0, wait: false)),
                                             DriverStep(.waitUntilAllFinished(queue: 0))])

    @Test("a driver past the thread limit is cut short: the case is unjudged and says why",
          .enabled(if: FoundationIsolationTests.available && ProcessThreads.count(getpid()) != nil,
                   "needs opconform built and /proc (Linux)"))
    func threadLimit() throws {
        var limits = DriverLimits.standard
        limits.maxThreads = 4
        let impl = ChildProcessImplementation(name: "foundation", capabilities: FoundationDriver.capabilities,
                                              command: [FoundationIsolationTests.driver, "driver"], limits: limits)
        let trace = impl.run(Self.sixAtOnce, scheduleSeed: 1)
        #expect(trace.ending == .truncated)
        guard case .cut(let why)? = trace.events.last?.kind else { Issue.record("no cut: \(trace.ending)"); return }
        #expect(why.contains("threads at once, more than a case may (4)"), "\(why)")
        #expect(ShrinkTarget.death(of: trace).isEmpty, "an unjudged case is no crash, hang or breach")
        // The same case under the standard limit runs whole.
        let whole = ChildProcessImplementation(name: "foundation", capabilities: FoundationDriver.capabilities,
                                               command: [FoundationIsolationTests.driver, "driver"])
            .run(Self.sixAtOnce, scheduleSeed: 1)
        #expect(whole.ending == .complete)
    }
}
