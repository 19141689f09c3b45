import Conformance
import Foundation
import OperationSpec
import Testing

@Suite("The seeded scenario generator")
struct GeneratorTests {
    @Test("the same seed builds the same scenario, byte for byte")
    func deterministic() {
        let g = ScenarioGenerator()
        for seed: UInt64 in [0, 1, 42, .max] {
            #expect(JSONCodec.encode(g.generate(seed: seed)) == JSONCodec.encode(g.generate(seed: seed)))
        }
    }

    @Test("the same seed builds the same scenario in a separate process")
    func separateProcess() async throws {
        let expected = JSONCodec.encodeString(ScenarioGenerator().generate(seed: 987_654_321))
        let result = try await #require(processExitsWith: .success, observing: [\.standardOutputContent]) {
            FileHandle.standardOutput.write(Data(JSONCodec.encodeString(ScenarioGenerator().generate(seed: 987_654_321)).utf8))
        }
        #expect(String(decoding: result.standardOutputContent, as: UTF8.self) == expected)
    }

    @Test("every generated scenario is valid and within its size")
    func valid() {
        for size in [1, 4, 8, 64] {
            let g = ScenarioGenerator(options: GeneratorOptions(size: size, misuseRate: 50))
            for seed: UInt64 in 0..<300 {
                let s = g.generate(seed: seed)
                #expect(s.problems().isEmpty, "seed \(seed): \(s.problems())")
                #expect(s.operations.count <= size + 2, "spare operations for misuse add at most 2")
                // No flaws: the case is version 1's, and says so (`ScenarioGenerator.stamp`).
                #expect(s.generatorVersion == 1 && s.seed == seed)
            }
        }
    }

    @Test("the generator reaches every kind, shape and setting")
    func variety() {
        let g = ScenarioGenerator(options: GeneratorOptions(size: 12))
        var kinds: Set<String> = [], queueCounts: Set<Int> = [], widths: Set<Int> = [], actions: Set<String> = []
        var suspended = false, nonStandardPriority = false, crossQueueEdge = false, triggers = false, rendezvous = false
        for seed: UInt64 in 0..<500 {
            let s = g.generate(seed: seed)
            queueCounts.insert(s.queues.count)
            for q in s.queues { widths.insert(q.maxConcurrent); suspended = suspended || q.suspended }
            for o in s.operations {
                kinds.insert(o.kind.label.hasPrefix("block") ? "block" : o.kind.label)
                if let p = o.queuePriority, !QueuePriority.defined.contains(p) { nonStandardPriority = true }
            }
            var queueOf: [Int: Int] = [:]
            for d in s.driver {
                if let t = d.after { triggers = triggers || t.op != nil }
                actions.insert(String(describing: d.action).prefix { $0 != "(" }.description)
                if case .add(let o, let q) = d.action { queueOf[o] = q }
                if case .addBatch(let list, let q, _) = d.action { for o in list { queueOf[o] = q } }
            }
            crossQueueEdge = crossQueueEdge || s.dependencies.contains { e in queueOf[e.op].flatMap { a in queueOf[e.on].map { a != $0 } } ?? false }
            rendezvous = rendezvous || s.operations.contains { o in String(describing: o.kind).contains("await") }
        }
        #expect(kinds == ["main", "block", "concurrent", "invocation"])
        #expect(queueCounts == [1, 2, 3, 4])
        #expect(widths.isSuperset(of: [QueueConfig.defaultMax, 1, 2]))
        #expect(suspended && nonStandardPriority && crossQueueEdge && triggers && rendezvous)
        for a in ["add", "addBatch", "start", "perform", "cancel", "cancelAll", "suspend", "resume", "setMaxConcurrent", "addDependency",
                  "removeDependency", "waitUntilFinished", "waitUntilAllFinished", "setCompletionBlock", "addExecutionBlock", "setQueuePriority",
                  "read", "readOperationCount", "result"] {
            #expect(actions.contains(a), "no generated driver step does \(a)")
        }
    }

    @Test("misuse appears at the rate asked for")
    func misuseRate() {
        func misusing(_ rate: Int) -> Int {
            let g = ScenarioGenerator(options: GeneratorOptions(misuseRate: rate))
            return (0..<400).filter { seed in
                let s = g.generate(seed: UInt64(seed))
                return s.operations.count > 0 && ReferenceImplementation().run(s, scheduleSeed: 1).events.contains {
                    // A cancelled invocation's result throws by design (004 2.7.2): that is use, not misuse.
                    if case .threw(_, let kind, _) = $0.kind { return kind != .invocationCancelled }; return false
                }
            }.count
        }
        #expect(misusing(0) == 0)
        #expect(misusing(50) > misusing(10))
    }
}
