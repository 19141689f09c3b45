@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
@testable import ConformanceReports
import Foundation
import OperationSpec
import ReferenceEngine
import Testing

/// One finding per cause (issue 29 item 5), and a shrinker that keeps a failure the tested
/// code's own.
@Suite("Findings per cause, and shrinking that keeps a failure the tested code's")
struct CauseGroupTests {
    @Test("a rule broken two ways gets a finding for each, with its count, its file and its JSON entry")
    func otherCauses() throws {
        let configuration = RunConfiguration(impl: ReferenceImplementation(), seed: 1, count: 300,
                                              generator: GeneratorOptions(size: 8, misuseRate: 10, flawRate: 100))
        let result = Runner(configuration).run()
        #expect(!result.otherCauses.isEmpty, "flawed subclasses break several rules in more than one way")
        for other in result.otherCauses {
            let main = try #require(result.findings.first { $0.rule == other.finding.rule })
            // Another cause says something else than the rule's finding, and its minimum says it too.
            let mainCause = CauseGroups.cause(of: Violation(rule: main.rule, observed: main.message, expected: "", witnesses: []))
            let cause = CauseGroups.cause(of: Violation(rule: other.finding.rule, observed: other.finding.message, expected: "", witnesses: []))
            #expect(cause != mainCause, "\(other.finding.rule): \(other.finding.message)")
            #expect(other.cases > 0 && other.finding.reproduced > 0)
        }
        for rule in Set(result.otherCauses.map(\.finding.rule)) {
            let causes = result.otherCauses.filter { $0.finding.rule == rule }
            #expect(causes.count < CauseGroups.limit, "\(rule): at most \(CauseGroups.limit) causes a rule")
        }
        let report = RunJSONReport(result, files: [:])
        #expect(report.otherCauses?.count == result.otherCauses.count)
        #expect(report.otherCauses?.allSatisfy { ($0.causeCases ?? 0) > 0 } == true)
        #expect(report.findings.allSatisfy { $0.causeCases == nil })
        let console = ConsoleReport.text(result, files: [:])
        #expect(console.contains("another cause, in \(result.otherCauses[0].cases) of 300 cases: \(result.otherCauses[0].finding.message)"))
    }

    @Test("a list of operations is one cause however long it is; another call that hangs is another")
    func causeSignature() {
        func cause(_ s: String) -> String { CauseGroups.cause(of: Violation(rule: "RUN-HANG", observed: s, expected: "", witnesses: [])) }
        #expect(cause("hang: thread 0 (main) waits for queue 1 to empty (holds [2, 1])")
                == cause("hang: thread 3 (main) waits for queue 0 to empty (holds [4])"))
        #expect(cause("hang: driver step 2 (waitUntilAllFinished(queue: 1)) never returned")
                != cause("hang: driver step 2 (addDependency(op 3 on 3)) never returned"))
        var groups = CauseGroups()
        let scenario = Scenario(name: "x", queues: [], operations: [], driver: [])
        let identity = CaseIdentity.of(run: 1, index: 0, options: GeneratorOptions())
        for text in ["a 1", "a 2", "b 1", "c 1", "d 1", "b 7"] {
            groups.add(FailingCase(index: 0, identity: identity, scenario: scenario,
                                   violation: Violation(rule: "R", observed: text, expected: "", witnesses: [])))
        }
        #expect(groups.groups.map(\.cases) == [2, 2, 1], "the first three causes are kept and counted; d is past the limit")
    }

    @Test("the shrinker's target leaves out what a known divergence excuses")
    func shrinkerKeepsOwnFailure() {
        let excused = Violation(rule: "STATE-FINISHED-AFTER-TASK", observed: "op 0 reported finished before its task began",
                                expected: "", witnesses: [])
        let own = Violation(rule: "STATE-FINISHED-AFTER-TASK", observed: "op 0 reported finished while its task still ran",
                            expected: "", witnesses: [])
        let entry = Expectations.Entry(rule: "STATE-FINISHED-AFTER-TASK", kind: .bug, reason: "r", finding: "f.json",
                                       cause: Expectations.Cause(owner: .platform, says: ["before its task began"]))
        var configuration = RunConfiguration(impl: ReferenceImplementation(), seed: 1, count: 1)
        let target = ShrinkTarget(id: "STATE-FINISHED-AFTER-TASK", needs: []) { _ in [excused, own] }
        let scenario = Scenario(name: "x", queues: [], operations: [], driver: [])
        let context = CheckContext(scenario: scenario, trace: ReferenceEngine().run(scenario, scheduleSeed: 1), profile: .guide)
        #expect(Runner(configuration).unexcused(target).violations(context).map(\.observed) == [excused.observed, own.observed],
                "without known divergences nothing is left out")
        configuration.known = Expectations(format: 3, impl: "reference", profile: .guide, expected: [entry])
        #expect(Runner(configuration).unexcused(target).violations(context).map(\.observed) == [own.observed])
        #expect(Runner(configuration).shrinker(for: target).target.violations(context).map(\.observed) == [own.observed])
    }
}
