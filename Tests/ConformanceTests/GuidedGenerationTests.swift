@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
import Foundation
import OperationSpec
import ReferenceEngine
import Testing

/// Issue 18, item 4: guided generation steers towards the rules reached least so far, and keeps
/// every case reproducible from its seed and options (its focus among them) at any `--jobs`.
@Suite("Guided generation")
struct GuidedGenerationTests {
    static func run(guided: Bool, count: Int, jobs: Int = 1, seed: UInt64 = 1) -> RunResult {
        var c = RunConfiguration(impl: ReferenceImplementation(), seed: seed, count: count, shrink: false)
        c.guided = guided
        c.jobs = jobs
        return Runner(c).run()
    }

    /// The fewest hits among the rules guidance can steer for.
    static func lowest(_ r: RunResult) -> (id: String, hits: Int) {
        let steerable = Set(Guidance.steering.map(\.rule))
        let s = r.statistics.filter { steerable.contains($0.id) && $0.status != .notApplicable && $0.status != .notObservable }
            .min { ($0.hits, $0.id) < ($1.hits, $1.id) }!
        return (s.id, s.hits)
    }

    @Test("Foci: the least-reached steerable rules' parts of the API, fewest hits first, each once; unsteerable and unobservable rules are passed over")
    func foci() {
        func stat(_ id: String, _ hits: Int, _ status: RuleStatistics.Status = .notReached) -> RuleStatistics {
            var s = RuleStatistics(id: id); s.hits = hits; s.status = status; return s
        }
        let stats = [stat("STATE-EXCLUSIVE", 0), stat("CANCEL-ALL", 40), stat("DEP-SELF", 7), stat("DEP-CYCLE", 3), stat("QUEUE-ADD-WAIT", 9),
                     stat("PRIORITY-NORMALIZE", 0, .notObservable), stat("QUEUE-SUSPEND-RUNNING-CONTINUE", 12)]
        #expect(Guidance.foci(after: stats) == [.misuse, .waitingAdd, .suspendRunning])
        // A run that does not misuse at all is not offered the misuse focus.
        #expect(Guidance.foci(after: stats, misuse: false) == [.waitingAdd, .suspendRunning, .cancelAll])
        #expect(Guidance.focus(position: 0, foci: [.misuse, .cancelAll]) == nil)
        #expect(Guidance.focus(position: 1, foci: [.misuse, .cancelAll]) == .misuse)
        #expect(Guidance.focus(position: 3, foci: [.misuse, .cancelAll]) == .cancelAll)
        #expect(Guidance.focus(position: 5, foci: []) == nil)
    }

    @Test("A focus changes only the thresholds: an unfocused case is version 1's; a focused one differs and is rebuilt from its options")
    func focusedCases() throws {
        var differs = 0
        for seed in UInt64(1)...100 {
            let plain = ScenarioGenerator(options: GeneratorOptions()).generate(seed: seed)
            for focus in GeneratorFocus.allCases {
                let focused = ScenarioGenerator(options: GeneratorOptions(focus: focus)).generate(seed: seed)
                if focused != plain { differs += 1 }
                #expect(focused.problems().isEmpty, "seed \(seed), \(focus): \(focused.problems())")
            }
        }
        #expect(differs > 300, "\(differs) of 700 focused cases differ")
        // The focus is written with the options, read back, and said in the replay line.
        let identity = CaseIdentity(caseSeed: 7, options: GeneratorOptions(focus: .cancelAll))
        let back = try JSONCodec.decode(CaseIdentity.self, from: JSONCodec.encode(identity), source: "identity")
        #expect(back.options.focus == .cancelAll && back.scenario() == identity.scenario())
        #expect(Finding.replayLine(identity: identity, implArguments: ["--impl", "reference"], profile: .guide, faults: [], program: "opconform")
            .contains("--focus cancelAll"))
        #expect(!String(decoding: JSONCodec.encode(GeneratorOptions()), as: UTF8.self).contains("focus"))
    }

    @Test("A guided run makes the same cases at any --jobs, and reaches its least-reached rule more often than an unguided run of as many cases")
    func steersAndReproduces() {
        let one = Self.run(guided: true, count: 600)
        let four = Self.run(guided: true, count: 600, jobs: 4)
        #expect(one.statistics == four.statistics)
        let plain = Self.run(guided: false, count: 600)
        #expect(plain.statistics != one.statistics, "guidance changed no case")
        let (id, before) = Self.lowest(plain), after = Self.lowest(one)
        #expect(after.hits > before, "lowest without guidance \(id) \(before); with guidance \(after.id) \(after.hits)")
    }
}
