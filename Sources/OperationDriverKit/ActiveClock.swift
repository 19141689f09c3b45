import Foundation
import Synchronization

/// Seconds that pass only while this process is being run: the clock of the driver's "nothing
/// happened for so long" windows.
///
/// A wall-clock window turns a machine that stops running the driver for half a second (a loaded
/// CI machine, a noisy neighbour, a page-in from a cold disk) into a hang finding, although the
/// implementation did nothing wrong. A heartbeat thread wakes every `beat`; a wake-up later than
/// `slack` means the process was not being run, and the time beyond `slack` is not counted, nor
/// is time past an overdue beat. The clock is continuous and never goes back.
///
/// One clock serves the whole process (`shared`): its heartbeat thread runs for the process's
/// life. (Up to release 0.10.0 each case's recorder made a clock of its own, so a session driver
/// left one more heartbeat thread, waking 100 times a second, behind every case it served.)
///
/// `@unchecked Sendable` is sound: `lost` and `lastBeat` are read and written only under `lock`.
final class ActiveClock: @unchecked Sendable {
    static let beat: TimeInterval = 0.01
    static let slack: TimeInterval = 0.03
    /// The process's clock, started at its first use.
    static let shared = ActiveClock()
    /// How many clocks, each with its heartbeat thread, this process has made: one at most
    /// (`ActiveClockTests` holds the kit to it).
    static let made = Atomic<Int>(0)

    private let lock = NSLock()
    private let origin = Date()
    private var lost: TimeInterval = 0
    private var lastBeat: Date

    private init() {
        Self.made.add(1, ordering: .relaxed)
        lastBeat = origin
        let thread = Thread { [self] in
            while true {
                Thread.sleep(forTimeInterval: Self.beat)
                tick()
            }
        }
        thread.name = "opconform active clock"
        thread.start()
    }

    /// Active seconds since the clock was made.
    var now: TimeInterval {
        lock.lock()
        defer { lock.unlock() }
        return min(Date(), lastBeat.addingTimeInterval(Self.slack)).timeIntervalSince(origin) - lost
    }

    private func tick() {
        lock.lock()
        defer { lock.unlock() }
        let wall = Date()
        let gap = wall.timeIntervalSince(lastBeat)
        if gap > Self.slack { lost += gap - Self.slack }
        lastBeat = wall
    }
}
