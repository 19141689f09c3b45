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

/// What makes a shrink on a real implementation quicker without changing what it keeps
/// (issue 45): trials really side by side, and no run spent on a candidate that could not be kept.
@Suite("A shrink's runs")
struct ShrinkSpeedTests {
    /// Eight bodies that each wait for all eight to have begun: they finish only if all run at
    /// once, more than the cores of this machine. `DispatchQueue.concurrentPerform` runs as many
    /// at once as there are cores on Linux, and these would each give up after their wait.
    @Test("side by side means every trial at once, whatever the number of cores")
    func allAtOnce() {
        let count = max(8, ProcessInfo.processInfo.activeProcessorCount + 2)
        let begun = Mutex(0), sawAll = Atomic(0)
        SideBySide.perform(count) { _ in
            begun.withLock { $0 += 1 }
            let deadline = ContinuousClock.now + .seconds(20)
            while begun.withLock({ $0 }) < count && ContinuousClock.now < deadline { usleep(1_000) }
            if begun.withLock({ $0 }) == count { sawAll.add(1, ordering: .relaxed) }
        }
        #expect(sawAll.load(ordering: .relaxed) == count, "\(sawAll.load(ordering: .relaxed)) of \(count) saw all begun")
    }

    /// The faulty engine taken for a real implementation, recording every scenario it runs.
    final class Recording: Implementation, Sendable {
        let faulty = ReferenceEngine(options: EngineOptions(faults: [.oneTooMany]))
        let ran = Mutex<[Scenario]>([])
        var name: String { "recording" }
        var capabilities: [Observation] { ReferenceEngine.capabilities }
        var isDeterministic: Bool { false }
        func run(_ scenario: Scenario, scheduleSeed: UInt64) -> Trace {
            ran.withLock { $0.append(scenario) }
            return faulty.run(scenario, scheduleSeed: scheduleSeed)
        }
    }

    /// A candidate that a correct runtime would not run to its end, when the case does, is
    /// never kept; on a real implementation each of its runs costs a stall window. The first
    /// generated case that breaks the rule and has such candidates (a wait for an operation
    /// whose add was removed) is shrunk: none of them is run.
    @Test("a candidate that would hang on a correct runtime is not run on a real implementation")
    func noHopelessRuns() throws {
        let rule = try #require(RuleBook.check(id: "QUEUE-MAX-CONCURRENT"))
        let correct = ReferenceEngine()
        var found: (Scenario, UInt64)?
        for k in 0..<500 where found == nil {
            let identity = CaseIdentity.of(run: 1, index: k, options: GeneratorOptions())
            let scenario = identity.scenario()
            let trace = Recording().faulty.run(scenario, scheduleSeed: identity.scheduleSeed)
            guard !rule.check(CheckContext(scenario: scenario, trace: trace, profile: .guide)).violations.isEmpty,
                  correct.run(scenario, scheduleSeed: identity.scheduleSeed).ending == .complete,
                  Shrinker.candidates(scenario).contains(where: { correct.run($0, scheduleSeed: identity.scheduleSeed).ending != .complete })
            else { continue }
            found = (scenario, identity.scheduleSeed)
        }
        let (scenario, seed) = try #require(found)
        let impl = Recording()
        let result = Shrinker(impl: impl, profile: .guide, rule: rule).shrink(scenario, scheduleSeed: seed)
        #expect(result.scenario.operations.count < scenario.operations.count)
        let hopeless = impl.ran.withLock { $0 }.filter { correct.run($0, scheduleSeed: seed).ending != .complete }
        #expect(hopeless.count == 0, "runs of candidates a correct runtime does not finish")
    }
}

/// Shrinking begins when a rule's first case is folded, beside the cases still to run (issue 45:
/// the Python example's bug, seen in case 2, was minimised only after all 200 cases).
@Suite("Shrinks beside the cases")
struct EarlyShrinkTests {
    /// The faulty engine taken for a real implementation, 10 ms a run, that tells the runs of
    /// the generated cases from the others (shrink candidates and replays) and counts the
    /// others made before the last case was folded.
    final class Slow: Implementation, Sendable {
        let faulty = ReferenceEngine(options: EngineOptions(faults: [.oneTooMany]))
        let generated: [Scenario]
        let casesOver = Atomic(false)
        let besideCases = Atomic(0)
        init(count: Int, options: GeneratorOptions) {
            generated = (0..<count).map { CaseIdentity.of(run: 1, index: $0, options: options).scenario() }
        }
        var name: String { "slow" }
        var capabilities: [Observation] { ReferenceEngine.capabilities }
        var isDeterministic: Bool { false }
        func run(_ scenario: Scenario, scheduleSeed: UInt64) -> Trace {
            usleep(10_000)
            if !casesOver.load(ordering: .relaxed) && !generated.contains(scenario) { besideCases.add(1, ordering: .relaxed) }
            return faulty.run(scenario, scheduleSeed: scheduleSeed)
        }
    }

    static func run(jobs: Int) -> (RunResult, besideCases: Int) {
        let options = RunConfiguration(impl: ReferenceImplementation(), seed: 1, count: 60).generator
        let impl = Slow(count: 60, options: options)
        var configuration = RunConfiguration(impl: impl, seed: 1, count: 60)
        configuration.generator = options
        configuration.jobs = jobs
        configuration.stopRules = ["QUEUE-MAX-CONCURRENT"]
        let result = Runner(configuration).run(progress: { done, total, _ in
            if done == total { impl.casesOver.store(true, ordering: .relaxed) }
        })
        return (result, impl.besideCases.load(ordering: .relaxed))
    }

    @Test("with jobs, the first failing case is shrunk while the others run; the finding is the same case's")
    func beside() throws {
        let (early, beside) = Self.run(jobs: 2)
        let (late, besideLate) = Self.run(jobs: 1)
        #expect(early.shrunkBesideCases == 1 && beside > 0, "\(early.shrunkBesideCases) shrinks, \(beside) runs beside the cases")
        #expect(late.shrunkBesideCases == 0 && besideLate == 0)
        let a = try #require(early.findings.first), b = try #require(late.findings.first)
        #expect(a.rule == b.rule && a.caseIndex == b.caseIndex && a.identity == b.identity)
        #expect(a.reproduced > 0 && a.scenario.operations.count < b.originalOperations)
    }
}

/// On a machine out of processes no thread can be started: the work is done on the calling
/// thread instead, and nothing waits for a thread that never ran (issue 43's lesson).
@Suite("Shrinks on a machine that refuses threads")
struct RefusedThreadTests {
    static let refuse: SideBySide.Starter = { _ in false }

    @Test("side by side runs every index on the calling thread when no thread starts")
    func sideBySideInline() {
        let ran = Mutex<[Int]>([])
        SideBySide.perform(5, starting: Self.refuse) { index in ran.withLock { $0.append(index) } }
        #expect(ran.withLock { $0 } == [0, 1, 2, 3, 4])
    }

    @Test("an early shrink that no thread began is handed back, and the run shrinks it itself")
    func earlyHandedBack() throws {
        let failing = try #require(FaultProbe.firstFinding(.oneTooMany))
        let runner = Runner(RunConfiguration(impl: ReferenceImplementation(), seed: 1, count: 1))
        let early = EarlyShrinks(runner: runner, workers: 2, hints: [], starting: Self.refuse)
        let job = Runner.ShrinkJob(failing: FailingCase(index: failing.caseIndex, identity: failing.identity,
                                                        scenario: failing.identity.scenario(), violation: Violation(rule: failing.rule, observed: "", expected: "", witnesses: [])),
                                   fallback: nil, target: ShrinkTarget(try #require(RuleBook.check(id: failing.rule))))
        early.begin(0, job)
        #expect(early.finding(0) == nil)
        #expect(early.begunSoFar == 0)
        // Taken back: a second ask finds nothing either, and returns at once.
        #expect(early.finding(0) == nil)
    }
}
