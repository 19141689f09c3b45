import Conformance
import Foundation
import OperationSpec
import ReferenceEngine
import Testing

/// A user's own asynchronous `Operation` subclass under test: the scenario kind that stands for
/// it, the generator that makes it, the reference engine that runs it as the correct subclass,
/// and the driver that makes instances of the user's class (`OperationDriver(name:subclass:)`,
/// `SubclassProbe`). `Examples/async-operation` is a package that tests two classes this way.
@Suite("A subclass under test")
struct SubclassUnderTestTests {
    /// The sample driver (`Tests/SampleSubclassDriver`): a careful class, probed. Run in a child
    /// process: a driver exits its process when a call stalls, so it never runs in the tests'.
    static let driver = SpecsDriftTests.root.appendingPathComponent(".build/debug/sample-subclass-driver").path

    @Test("the same seed makes the same scenario with the implementation's subclass in place of the step programs")
    func generation() {
        var found = 0
        for seed in UInt64(1)...200 {
            let plain = ScenarioGenerator(options: GeneratorOptions()).generate(seed: seed)
            let own = ScenarioGenerator(options: GeneratorOptions(subclass: true)).generate(seed: seed)
            #expect(own.driver == plain.driver && own.dependencies == plain.dependencies && own.queues == plain.queues)
            for (a, b) in zip(plain.operations, own.operations) {
                if case .concurrent(let p) = a.kind {
                    found += 1
                    #expect(b.kind == .subclass(p.main.filter { if case .call = $0 { return false }; return true }))
                } else {
                    #expect(a == b)
                }
            }
        }
        #expect(found > 50)
        // Options without the subclass are written as before (finding files keep their bytes).
        #expect(!String(decoding: JSONCodec.encode(GeneratorOptions()), as: UTF8.self).contains("subclass"))
        let back = try? JSONCodec.decode(GeneratorOptions.self, from: JSONCodec.encode(GeneratorOptions(subclass: true)), source: "t")
        #expect(back?.subclass == true)
    }

    @Test("the reference engine runs the implementation's subclass as the correct one: no rule breaks")
    func reference() {
        let r = Runner(RunConfiguration(impl: ReferenceImplementation(), seed: 3, count: 300,
                                        generator: GeneratorOptions(subclass: true), shrink: false)).run()
        #expect(r.findings.isEmpty, "\(r.findings.map(\.rule))")
    }

    @Test("a subclass's work cannot change its state: only the subclass's own code does")
    func validation() {
        let s = Scenario(operations: [OperationConfig(kind: .subclass([.work(1), .set(.isFinished, true)]))])
        #expect(s.problems().first?.contains("an instance of the implementation's own subclass") == true, "\(s.problems())")
    }

    @Test("the driver makes the user's instances, sees their calls, getters and work, and names the class in its hello")
    func driver() throws {
        let impl = try Implementations.external(command: [Self.driver])
        #expect(impl.name == "careful" && impl.subclass == "Probed")
        #expect(!impl.capabilities.contains(.superStart) && impl.capabilities.contains(.finishing))
        let scenario = Scenario(queues: [QueueConfig()],
                                operations: [OperationConfig(kind: .subclass([.work(1)])), OperationConfig(kind: .subclass([.work(1)]))],
                                dependencies: [Edge(1, on: 0)],
                                driver: [DriverStep(.addBatch(ops: [0, 1], queue: 0, wait: false)), DriverStep(.waitUntilAllFinished(queue: 0))])
        let trace = impl.run(scenario, scheduleSeed: 1)
        #expect(trace.ending == .complete, "\(trace.events.suffix(3))")
        for op in 0..<2 {
            #expect(trace.events.contains { $0.kind == .call(.start(op, by: .queue)) })
            #expect(trace.events.contains { $0.kind == .mainBegan(op: op, threadPriority: -1) })
            #expect(trace.events.contains { $0.kind == .read(op: op, .isFinished, .bool(true)) })
        }
        let broken = RuleBook.verdicts(scenario: scenario, trace: trace, profile: .classReference).flatMap { v -> [String] in
            if case .checked(let r) = v.verdict { return r.violations.map(\.rule) }; return []
        }
        #expect(broken.isEmpty, "\(broken)")
        // Generated cases take the class: a run of the driver sets the generator's option.
        #expect(RunConfiguration(impl: impl).generator.subclass)

        // A driver without a subclass refuses such a scenario in one sentence.
        let plain = try Implementations.external(command: [Self.driver, "--no-subclass"])
        #expect(plain.subclass == nil)
        guard case .breach(let message)? = plain.run(scenario, scheduleSeed: 1).events.last?.kind else { Issue.record("not refused"); return }
        #expect(message.contains("has none (OperationDriver(name:subclass:) makes a driver that has)"), "\(message)")
    }
}
