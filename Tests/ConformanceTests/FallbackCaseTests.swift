@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
import Foundation
import OperationSpec
import ReferenceEngine
import Synchronization
import Testing

/// A finding that replays: when a rule's first case broke it once and no replay shows it again,
/// the same cause's second case is shrunk instead (a CI run of the Python example: the first
/// case "replays 0 of 5", and the check's replay of the printed line exited 0).
@Suite("A finding's case replays")
struct FallbackCaseTests {
    /// The reference engine with a queue that runs one operation too many, taken for a real
    /// implementation; the first case that shows the fault shows it that once: every later run
    /// with that case's schedule seed (its replays, its shrink candidates) is the correct engine,
    /// as a schedule too rare to meet twice would be.
    struct OnceOnlyFirstSighting: Implementation {
        /// The first schedule seed whose run broke QUEUE-MAX-CONCURRENT, and how many runs used it.
        let victim = Victim()
        final class Victim: Sendable {
            let state = Mutex<(seed: UInt64?, runs: Int)>((nil, 0))
            func withLock<R>(_ body: (inout (seed: UInt64?, runs: Int)) -> R) -> R { state.withLock { body(&$0) } }
        }
        var name: String { "once-only" }
        var capabilities: [Observation] { ReferenceEngine.capabilities }
        var isDeterministic: Bool { false }
        func patient(_ patience: Int) -> any Implementation { self }
        func run(_ scenario: Scenario, scheduleSeed: UInt64) -> Trace {
            let faulty = ReferenceEngine(options: EngineOptions(faults: [.oneTooMany]))
            let correct = ReferenceEngine()
            let isVictim = victim.withLock { v -> Bool in
                guard v.seed == scheduleSeed else { return false }
                v.runs += 1
                return true
            }
            if isVictim { return correct.run(scenario, scheduleSeed: scheduleSeed) }
            let trace = faulty.run(scenario, scheduleSeed: scheduleSeed)
            let broke = RuleBook.check(id: "QUEUE-MAX-CONCURRENT")!
                .check(CheckContext(scenario: scenario, trace: trace, profile: .guide)).violations.isEmpty == false
            if broke { victim.withLock { v in if v.seed == nil { v.seed = scheduleSeed } } }
            return trace
        }
    }

    @Test("a first case that never replays gives way to the same cause's second case, which does")
    func secondCaseReplaces() throws {
        let impl = OnceOnlyFirstSighting()
        var configuration = RunConfiguration(impl: impl, seed: 1, count: 60)
        configuration.jobs = 1
        configuration.attempts = 3
        configuration.stopRules = ["QUEUE-MAX-CONCURRENT"]
        let result = Runner(configuration).run()
        let finding = try #require(result.findings.first { $0.rule == "QUEUE-MAX-CONCURRENT" },
                                   "\(result.findings.map(\.rule))")
        let victim = impl.victim.withLock { $0 }
        // The first case was replayed and shrunk on its own seed, and never broke the rule again.
        #expect(victim.seed != nil && victim.runs > 0)
        #expect(finding.identity.scheduleSeed != victim.seed, "the finding kept the case that never replays")
        #expect(finding.reproduced > 0, "\(finding.replayRate ?? "")")
        #expect(finding.caseIndex > 0)
    }
}
