@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
import Foundation
import OperationSpec
import Testing

/// Issue 18, item 3 ("no rule silently unreached"): on an implementation that cannot report
/// misuse as an error, a misuse case of generator version 1 misused the API before the adds and
/// again while running, and the first misuse ended the process (Foundation's `fatalError`), so
/// the late misuse, and START-FINISHED with it, was never reached. `splitMisuse` makes each
/// misuse case misuse at one moment, chosen on a stream of its own.
@Suite("Misuse split for implementations that trap on it")
struct SplitMisuseTests {
    /// A late misuse: a start triggered by the operation's own progress, or a completion block
    /// set once it started (only `misuseWhileRunning` writes either).
    static func late(_ s: Scenario) -> Bool {
        s.driver.contains { step in
            switch (step.action, step.after) {
            case (.start, .mainBegan?), (.start, .finished?), (.setCompletionBlock, .started?): return true
            default: return false
            }
        }
    }

    /// An early misuse: a self-dependency (only `misuseBeforeAdds` writes one).
    static func early(_ s: Scenario) -> Bool {
        s.driver.contains { if case .addDependency(let op, let on) = $0.action { return op == on }; return false }
    }

    @Test("Each misuse case misuses early or late, never both, about half each; a case without misuse is version 1's, byte for byte")
    func split() {
        var both = 0, lateOnly = 0, earlyOnly = 0, v1Both = 0
        for seed in UInt64(1)...400 {
            let v1 = ScenarioGenerator(options: GeneratorOptions(misuseRate: 100)).generate(seed: seed)
            let split = ScenarioGenerator(options: GeneratorOptions(misuseRate: 100, splitMisuse: true)).generate(seed: seed)
            if Self.early(v1) && Self.late(v1) { v1Both += 1 }
            if Self.early(split) && Self.late(split) { both += 1 }
            if Self.late(split) && !Self.early(split) { lateOnly += 1 }
            if Self.early(split) && !Self.late(split) { earlyOnly += 1 }
            // Without misuse the option changes nothing.
            let plain = ScenarioGenerator(options: GeneratorOptions(misuseRate: 0)).generate(seed: seed)
            #expect(ScenarioGenerator(options: GeneratorOptions(misuseRate: 0, splitMisuse: true)).generate(seed: seed) == plain)
        }
        // Version 1 had both in many cases; the split never does, and reaches each moment often.
        #expect(v1Both > 40, "\(v1Both)")
        #expect(both == 0)
        #expect(lateOnly > 80 && earlyOnly > 30, "late only \(lateOnly), early only \(earlyOnly)")
    }

    @Test("A run on an implementation without thrownErrors splits its misuse, one with it does not; the option is written only when set and read back")
    func setForTrappingImplementations() throws {
        let foundation = ChildProcessImplementation(name: "foundation", capabilities: FoundationDriver.capabilities, command: ["/nonexistent"])
        #expect(RunConfiguration(impl: foundation).generator.splitMisuse)
        #expect(!RunConfiguration(impl: ReferenceImplementation()).generator.splitMisuse)
        #expect(!String(decoding: JSONCodec.encode(GeneratorOptions()), as: UTF8.self).contains("splitMisuse"))
        let back = try JSONCodec.decode(GeneratorOptions.self, from: JSONCodec.encode(GeneratorOptions(splitMisuse: true)), source: "options")
        #expect(back.splitMisuse)
        // The replay line says it, so `replay --seed` rebuilds the same case whatever the
        // implementation (a matrix may have run one that traps without the split).
        let line = Finding.replayLine(identity: CaseIdentity(caseSeed: 3, options: GeneratorOptions(splitMisuse: true)),
                                      implArguments: ["--impl", "foundation"], profile: .guide, faults: [], program: "opconform")
        #expect(line.hasSuffix(" --split-misuse"), "\(line)")
        #expect(!Finding.replayLine(identity: CaseIdentity(caseSeed: 3, options: GeneratorOptions()), implArguments: ["--impl", "foundation"],
                                    profile: .guide, faults: [], program: "opconform").contains("split"))
    }
}
