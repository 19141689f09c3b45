/// The project's one pseudo-random generator: xoshiro256** (Blackman and Vigna, 2018),
/// seeded through SplitMix64 as its authors recommend. Chosen because it is small, fast, has a
/// 2^256 period, and its output is fixed by its definition: the same seed gives the same numbers
/// on every machine and in every process, forever. `Specs/determinism.md` documents it.
///
/// Never replace it with `SystemRandomNumberGenerator` or `.random()`: those are not replayable.
public struct Xoshiro256: RandomNumberGenerator, Sendable, Equatable {
    private var s0, s1, s2, s3: UInt64

    public init(seed: UInt64) {
        var sm = SplitMix64(seed: seed)
        s0 = sm.next(); s1 = sm.next(); s2 = sm.next(); s3 = sm.next()
    }

    public mutating func next() -> UInt64 {
        let result = rotl(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = rotl(s3, 45)
        return result
    }

    /// A uniform number in `0..<bound` (Lemire's multiply-shift with rejection: no modulo bias).
    public mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0, "below(_:) needs a positive bound")
        let b = UInt64(bound)
        var m = next().multipliedFullWidth(by: b)
        if m.low < b {
            let threshold = (0 &- b) % b
            while m.low < threshold { m = next().multipliedFullWidth(by: b) }
        }
        return Int(m.high)
    }

    /// True with probability `numerator / denominator`.
    public mutating func chance(_ numerator: Int, in denominator: Int) -> Bool { below(denominator) < numerator }

    private func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 &- k)) }
}

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
