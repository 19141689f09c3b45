// In OperationSpec, not beside Xoshiro256 in ReferenceEngine: a driver derives its timing
// noise from the schedule seed with it, and the driver kit links OperationSpec alone.

/// SplitMix64 (Steele, Lea and Flood, 2014): used to expand one 64-bit seed into generator
/// state, and to derive independent child seeds (`derive`).
public struct SplitMix64: Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// The `index`-th child seed of `seed`: independent streams for cases of one run.
    public static func derive(_ seed: UInt64, _ index: UInt64) -> UInt64 {
        var sm = SplitMix64(seed: seed ^ (index &* 0xD1B5_4A32_D192_ED03))
        return sm.next()
    }
}
