import Conformance
import OperationSpec
import ReferenceEngine
import Testing

/// The harness must prove it finds bugs: every injected fault is caught within a bounded number
/// of generated cases and shrunk to a small scenario.
@Suite("Every fault is caught and shrunk")
struct FaultTests {
    @Test("caught within the bound, shrunk to at most 4 operations", arguments: Fault.allCases)
    func caught(fault: Fault) throws {
        let result = FaultProbe.run(fault)
        let finding = try #require(result.findings.first, "\(fault.rawValue) was not caught in \(FaultProbe.bound) cases")
        #expect(result.cases <= FaultProbe.bound)
        #expect(finding.operations <= 4, "\(fault.rawValue) shrunk only to \(finding.operations) operations")
        #expect(finding.reproduced == finding.attempts)
        // The minimised scenario breaks the rule with the fault, and not without it.
        let check = try #require(RuleBook.check(id: finding.rule))
        let with = ReferenceEngine(options: EngineOptions(faults: [fault])).run(finding.scenario, scheduleSeed: finding.scheduleSeed)
        #expect(!check.check(CheckContext(scenario: finding.scenario, trace: with, profile: .guide)).violations.isEmpty)
        let without = ReferenceEngine().run(finding.scenario, scheduleSeed: finding.scheduleSeed)
        #expect(RuleBook.violations(scenario: finding.scenario, trace: without, profile: .guide).isEmpty)
    }

    @Test("every rule family has at least one fault, and there are at least 15")
    func coverage() {
        #expect(Fault.allCases.count >= 15)
        for family in Family.allCases { #expect(Fault.allCases.contains { $0.family == family }, "no fault in \(family)") }
    }
}

@Suite("The shrinker")
struct ShrinkerTests {
    @Test("shrinking is deterministic and keeps the rule broken")
    func deterministic() throws {
        let a = try #require(FaultProbe.firstFinding(.priorityIgnored))
        var b = try #require(FaultProbe.firstFinding(.priorityIgnored))
        b.shrinkMilliseconds = a.shrinkMilliseconds  // the only field that is a measurement
        #expect(a == b)
        #expect(a.operations < a.originalOperations || a.originalOperations <= 3)
    }

    @Test("it never edits a concurrent subclass's protocol, so a correct subclass stays correct")
    func keepsProtocol() {
        let program = ConcurrentProgram(
            start: [.if(.isCancelled(.this), then: [.willChange(.isFinished), .set(.isFinished, true), .didChange(.isFinished), .return], else: []),
                    .willChange(.isExecuting), .set(.isExecuting, true), .didChange(.isExecuting), .spawn(.main, .this)],
            main: [.work(3), .read(.isReady, .this), .call("done")],
            routines: [Routine("done", [.willChange(.isFinished), .willChange(.isExecuting), .set(.isExecuting, false),
                                        .set(.isFinished, true), .didChange(.isExecuting), .didChange(.isFinished)])])
        let s = Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .concurrent(program))], driver: [DriverStep(.add(op: 0, queue: 0))])
        for candidate in Shrinker.candidates(s) {
            guard let p = candidate.operations.first?.kind.program else { continue }
            #expect(p.start == program.start)
            #expect(p.routines == program.routines)
            #expect(p.main.contains(Step.call("done")))
        }
    }
}
