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
        // The rules the probe judged: a fault reached through flawed subclasses leaves out the
        // subclass rules, which the scenario's own code breaks with the fault or without it.
        let judged = Set(FaultProbe.rules(for: fault).map(\.rule.id))
        #expect(RuleBook.violations(scenario: finding.scenario, trace: without, profile: .guide).filter { judged.contains($0.rule) }.isEmpty)
        // A minimised case must never wait for ever on a correct runtime.
        #expect(without.ending == .complete, "the minimised \(fault.rawValue) case ends \(without.ending.rawValue) on the faithful engine")
        // It shows the same failure as the original case, not merely the same rule.
        let original = ReferenceEngine(options: EngineOptions(faults: [fault])).run(finding.identity.scenario(), scheduleSeed: finding.identity.scheduleSeed)
        let signatures = check.check(CheckContext(scenario: finding.identity.scenario(), trace: original, profile: .guide)).violations.map(Shrinker.signature)
        let minimal = check.check(CheckContext(scenario: finding.scenario, trace: with, profile: .guide)).violations.map(Shrinker.signature)
        #expect(minimal.contains { signatures.contains($0) })
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

    @Test("finding files are the same bytes on every run")
    func stableFiles() throws {
        let a = try #require(FaultProbe.firstFinding(.oneTooMany))
        let b = try #require(FaultProbe.firstFinding(.oneTooMany))
        #expect(JSONCodec.encode(a) == JSONCodec.encode(b))
    }

    @Test("removing an operation renumbers every reference to later ones")
    func removingOperation() {
        let s = Scenario(queues: [QueueConfig()],
                         operations: [OperationConfig(kind: .main([])), OperationConfig(kind: .main([.read(.isFinished, .op(2)), .cancel(.op(0))])),
                                      OperationConfig(kind: .block([[], []]))],
                         dependencies: [Edge(2, on: 1), Edge(1, on: 0)],
                         driver: [DriverStep(.addBatch(ops: [0, 1, 2], queue: 0, wait: false)), DriverStep(after: .blockBegan(2, block: 1), .cancel(2)),
                                  DriverStep(after: .mainBegan(0), .read(.isReady, op: 1)), DriverStep(.waitUntilFinished(2))])
        let r = s.removingOperation(0)
        #expect(r.problems().isEmpty)
        #expect(r.operations.count == 2)
        #expect(r.operations[0].kind == .main([.read(.isFinished, .op(1))]))
        #expect(r.dependencies == [Edge(1, on: 0)])
        #expect(r.driver == [DriverStep(.addBatch(ops: [0, 1], queue: 0, wait: false)), DriverStep(after: .blockBegan(1, block: 1), .cancel(1)),
                             DriverStep(.waitUntilFinished(1))])
        let q = s.removingQueue(0)
        #expect(q.queues.isEmpty && q.driver.count == 3 && q.problems().isEmpty)
        let b = s.removingBlock(0, of: 2)
        #expect(b.driver[1].after == .blockBegan(2, block: 0))
        #expect(s.removingBlock(1, of: 2).driver.count == 3)
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
