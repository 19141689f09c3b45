import Foundation
import OperationSpec

/// Timing noise (Specs/driver-protocol.md, "Timing noise"): short random delays a driver
/// makes at its instrumented points, so that interleavings a quiet run almost never shows
/// (a reader landing between two stores, a queue thread overtaking the driver) come up often,
/// in the spirit of randomized-delay testing tools. The request's `noise` (0 to 3) sets the
/// level; 0 makes none, at no cost.
///
/// Each thread of a case draws from a stream of its own, seeded from the schedule seed and the
/// thread's number: the same seed gives every thread the same draws, whatever the others do.
/// The interleaving that results is the machine's, so a noisy case is no more deterministic
/// than a quiet one; the noise only changes how often each interleaving happens.
struct TimingNoise: Sendable, Equatable {
    /// The levels a request may ask for.
    static let levels = DriverProtocol.noiseLevels
    /// A point is perturbed with probability `level`/`denominator`.
    static let denominator = 8
    /// The longest sleep is this many microseconds times the level.
    static let microsecondsPerLevel = 20

    /// What one instrumented point does.
    enum Action: Equatable, Sendable {
        case none
        /// `sched_yield()`: gives the processor to another ready thread, if any.
        case yield
        /// Sleeps this many microseconds (1 to 20 × level).
        case sleep(microseconds: Int)
    }

    let level: Int
    let scheduleSeed: UInt64

    /// Nil for level 0: a driver without noise keeps no draws and pays one nil check a point.
    init?(level: Int, scheduleSeed: UInt64) {
        guard level > 0 else { return nil }
        self.level = min(level, Self.levels.upperBound)
        self.scheduleSeed = scheduleSeed
    }

    /// One thread's stream of draws.
    struct Draws: Sendable {
        private var random: SplitMix64
        let level: Int

        init(level: Int, scheduleSeed: UInt64, thread: Int) {
            self.level = level
            random = SplitMix64(seed: SplitMix64.derive(scheduleSeed, UInt64(thread)))
        }

        /// The next point's action, from one 64-bit draw: its low 3 bits decide whether the point
        /// is perturbed (below `level` of 8), bit 3 a yield or a sleep, the high 32 bits the
        /// sleep's length. The GNUstep driver draws the same way (Drivers/gnustep/Recorder.m).
        mutating func next() -> Action {
            let x = random.next()
            guard Int(x & 7) < level else { return .none }
            if (x >> 3) & 1 == 0 { return .yield }
            return .sleep(microseconds: 1 + Int((x >> 32) % UInt64(TimingNoise.microsecondsPerLevel * level)))
        }
    }

    func draws(thread: Int) -> Draws { Draws(level: level, scheduleSeed: scheduleSeed, thread: thread) }

    /// Does what `action` says, on the calling thread. Called with no lock of the driver held.
    static func perform(_ action: Action) {
        switch action {
        case .none: break
        case .yield: sched_yield()
        case .sleep(let us): usleep(UInt32(us))
        }
    }
}
