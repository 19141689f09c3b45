import Conformance
import ConformanceReports
import Foundation
import OperationSpec
import ReferenceEngine
import Testing

/// Verdicts that respect a rule's strength (issue 17): a broken must-rule fails the run; a
/// broken documented example, piece of advice or observed-only rule is a warning, reported with
/// its strength everywhere, and fails the run only under `--strict`.
@Suite("Strength-aware verdicts")
struct SeverityTests {
    /// A careful asynchronous subclass whose completion is nested the other way round from
    /// Listing 2-7: will isExecuting, will isFinished, did isFinished, did isExecuting.
    static let nestedCompletion: [Step] = [.willChange(.isExecuting), .willChange(.isFinished), .set(.isExecuting, false),
                                           .set(.isFinished, true), .didChange(.isFinished), .didChange(.isExecuting)]

    static func nestedScenario() -> Scenario {
        var program = ConcurrentProgram.correct(work: [.work(1)])
        program.routines = program.routines.map { $0.name == "completeOperation" ? Routine($0.name, nestedCompletion) : $0 }
        return Scenario(name: "nested", queues: [QueueConfig()], operations: [OperationConfig(kind: .concurrent(program))],
                        driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.waitUntilAllFinished(queue: 0))])
    }

    @Test("only documented musts fail; examples, advice and observed-only rules warn")
    func severities() {
        for rule in RuleBook.rules {
            #expect((rule.severity == .failure) == (rule.strength == .documentedMust), "\(rule.id)")
        }
        #expect(Finding.severity(of: Finding.crashRule) == .failure && Finding.severity(of: Finding.hangRule) == .failure)
        #expect(Finding.severity(of: "KVO-COMPLETION-ORDER") == .warning && Finding.severity(of: "KVO-BALANCED") == .failure)
    }

    @Test("the nested completion order breaks the listing's example on every schedule, and the message quotes all four notifications")
    func nestedOrderMessage() {
        let sweep = ScheduleSweep(scenario: Self.nestedScenario(), schedules: 50)
        let broken = sweep.violated.map(\.id)
        #expect(broken == ["KVO-COMPLETION-ORDER"], "\(broken)")
        let tally = sweep.violated.first
        #expect(tally?.violatingSeeds == 50)
        #expect(tally?.firstViolation?.observed == "op 0 finished with notifications will isExecuting, will isFinished, did isFinished, did isExecuting",
                "\(tally?.firstViolation?.observed ?? "")")
        #expect(tally?.firstViolation?.witnesses.count == 4)
    }

    /// Generated cases whose asynchronous subclasses all finish in the nested order: the
    /// reference engine runs each case with every `completeOperation` routine rewritten.
    struct NestedCompletion: Implementation {
        let engine = ReferenceImplementation()
        var name: String { "nested-completion" }
        var capabilities: [Observation] { engine.capabilities }
        var isDeterministic: Bool { true }
        func run(_ scenario: Scenario, scheduleSeed: UInt64) -> Trace {
            var s = scenario
            for i in s.operations.indices {
                guard case .concurrent(var p) = s.operations[i].kind else { continue }
                p.routines = p.routines.map { $0.name == "completeOperation" ? Routine($0.name, SeverityTests.nestedCompletion) : $0 }
                s.operations[i].kind = .concurrent(p)
            }
            return engine.run(s, scheduleSeed: scheduleSeed)
        }
    }

    static func nestedRun(strict: Bool = false, count: Int = 80) -> RunResult {
        var configuration = RunConfiguration(impl: NestedCompletion(), seed: 5, count: count, generator: GeneratorOptions(misuseRate: 0), shrink: false)
        configuration.strict = strict
        return Runner(configuration).run()
    }

    @Test("careful subclasses with the nested order get a warning, not a failure, in every report; --strict makes it fail")
    func carefulSubclassWarns() throws {
        let result = Self.nestedRun()
        #expect(result.noVerdict == nil)
        #expect(result.failures.isEmpty, "\(result.failures.map { "\($0.rule): \($0.message)" })")
        #expect(result.warnings.map(\.rule) == ["KVO-COMPLETION-ORDER"], "\(result.warnings.map(\.rule))")
        #expect(result.warnings.first?.message.contains("will isExecuting, will isFinished, did isFinished, did isExecuting") == true)
        #expect(!result.failed)
        #expect(result.statistics.first { $0.id == "KVO-COMPLETION-ORDER" }?.status == .warn)
        let console = ConsoleReport.text(result, files: [:])
        #expect(console.contains("WARN KVO-COMPLETION-ORDER: ") && console.contains("  documented example; broken in "), "\(console)")
        #expect(console.contains("no failure; 1 warning"), "\(console)")
        let json = String(decoding: JSONCodec.encode(RunJSONReport(result, files: [:])), as: UTF8.self)
        #expect(json.contains("\"severity\" : \"warning\"") && json.contains("\"strength\" : \"documented example\"") && json.contains("\"failed\" : false"), "\(json)")
        let junit = JUnitReport.xml(result, files: [:])
        #expect(junit.contains("failures=\"0\"") && junit.contains("<system-out>WARNING: ") && junit.contains("value=\"documented example\""), "\(junit)")

        // The same run under --strict fails, and says why.
        let strict = Self.nestedRun(strict: true)
        #expect(strict.failed && strict.warnings.map(\.rule) == ["KVO-COMPLETION-ORDER"])
        #expect(ConsoleReport.text(strict, files: [:]).contains("FAIL (--strict) KVO-COMPLETION-ORDER"))
        #expect(JUnitReport.xml(strict, files: [:]).contains("failures=\"1\""))
    }

    @Test("a must-rule broken still fails, with its strength shown")
    func mustFails() {
        var c = RunConfiguration(impl: ReferenceImplementation(options: EngineOptions(faults: [.finishedStayInQueue])), faults: [.finishedStayInQueue], seed: 1, count: 60, shrink: false)
        c.stopAtFirstFailure = false
        let r = Runner(c).run()
        #expect(r.failed && !r.failures.isEmpty)
        #expect(r.failures.allSatisfy { $0.severity == .failure })
        #expect(ConsoleReport.text(r, files: [:]).contains("FAIL \(r.failures[0].rule): "))
        #expect(ConsoleReport.text(r, files: [:]).contains("  documented must; broken in "))
    }

    @Test("a gate tells unexpected warnings from unexpected failures; --strict fails on them")
    func gate() throws {
        let result = Self.nestedRun(count: 40)
        let none = Expectations(impl: result.configuration.impl.name, profile: .guide, expected: [])
        let verdict = GateVerdict(result: result, expectations: none)
        #expect(verdict.unexpected.isEmpty && verdict.unexpectedWarnings == ["KVO-COMPLETION-ORDER"])
        #expect(verdict.passes(strict: false) && !verdict.passes(strict: true))
    }

    /// A run whose case hung: the summary and the JUnit header count RUN-HANG with the rules, so
    /// the numbers add up to the FAIL blocks and the test cases (issue 45).
    @Test("the run's own failures are counted in the summary line and in JUnit's header")
    func runFailuresCounted() {
        let result = Runner(RunConfiguration(impl: ReferenceImplementation(options: EngineOptions(faults: [.waitOnCancelledHangs])),
                                             faults: [.waitOnCancelledHangs], count: 60, shrink: false)).run()
        #expect(result.findings.contains { $0.rule == Finding.hangRule })
        let text = ConsoleReport.text(result, files: [:])
        #expect(text.contains("; and the run: 1 fail (RUN-HANG)"), "\(text.prefix(600))")
        let junit = JUnitReport.xml(result, files: [:])
        let cases = junit.components(separatedBy: "<testcase ").count - 1
        let failed = junit.components(separatedBy: "<failure ").count - 1
        #expect(junit.contains("tests=\"\(cases)\" failures=\"\(failed)\""), "\(junit.prefix(300))")
        #expect(failed == result.statistics.filter { $0.status == RuleStatistics.Status.fail }.count + 1)
    }
}
