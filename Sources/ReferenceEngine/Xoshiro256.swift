import OperationSpec

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
