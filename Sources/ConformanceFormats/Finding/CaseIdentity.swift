import OperationSpec
import ReferenceEngine

/// Everything that fixes one generated case: from these, any machine rebuilds the same scenario
/// and runs it under the same schedule.
public struct CaseIdentity: Sendable, Equatable, Codable {
    /// The seed the scenario is generated from (printed on failure; `replay --seed` takes it).
    /// Written as a string (`SeedText`).
    @SeedText public var caseSeed: UInt64
    public var generatorVersion: Int
    public var options: GeneratorOptions

    /// `generatorVersion` nil: the version the generator stamps on the case
    /// (`GeneratorVersion.stamp`: 1 for a case without flaws, which every version since builds
    /// the same).
    public init(caseSeed: UInt64, generatorVersion: Int? = nil, options: GeneratorOptions) {
        self.caseSeed = caseSeed
        self.generatorVersion = generatorVersion ?? GeneratorVersion.stamp(options)
        self.options = options
    }

    /// Case `index` of a run seeded with `runSeed`.
    public static func of(run runSeed: UInt64, index: Int, options: GeneratorOptions) -> CaseIdentity {
        CaseIdentity(caseSeed: SplitMix64.derive(runSeed, UInt64(index)), options: options)
    }

    /// The schedule seed of the case: a separate stream from the one that built the scenario.
    public var scheduleSeed: UInt64 { SplitMix64.derive(caseSeed, 0x5C4E_D01E) }

}

/// FNV-1a over a scenario's canonical JSON: a short name for "this exact scenario".
public enum ScenarioHash {
    public static func of(_ scenario: Scenario) -> String {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in JSONCodec.encode(scenario) { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
