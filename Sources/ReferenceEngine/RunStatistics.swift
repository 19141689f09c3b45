/// What one run cost the engine, in counts that do not depend on the machine: the tests bound a
/// runaway program's cost by these, never by the clock (`RunawayProgramTests`).
package struct RunStatistics: Sendable, Equatable {
    /// Steps counted, the one that found the step budget spent included (at most
    /// `stepBudget + 1`).
    package var steps = 0
    /// Virtual threads made, the driving thread included.
    package var threadsMade = 0
    /// The most virtual threads alive at once.
    package var peakLiveThreads = 0
    /// The most frames the threads held at once.
    package var peakFramesHeld = 0
    /// Times the scheduler looked at a thread beyond the one it ran: a wait rechecked, a timer
    /// taken from its heap. A scan of every live thread at every step made this grow with the
    /// threads alive; now it grows with the waits and sleeps the program makes.
    package var threadVisits = 0

    package init() {}
}
