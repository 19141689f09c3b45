import OperationSpec

/// The reference implementation of the operation model: deterministic, in process, with virtual
/// time and seeded interleavings. It observes everything, so every rule is checkable on it.
public struct ReferenceEngine: Sendable {
    public var options: EngineOptions
    public init(options: EngineOptions = EngineOptions()) { self.options = options }

    /// Everything it can observe: every capability but `timingNoise`, which marks a driver's
    /// trace recorded under timing noise (the engine has its own seeded scheduler, and no noise).
    public static let capabilities: [Observation] = Observation.allCases.filter {
        // `announcements` follows from `kvo` (RuleBook.verdict); not written, so that the
        // engine's traces keep trace format 2. Nor `apiSurface3`, `apiSurface4` and
        // `dispatchQueues`, for the same reason (`Observation.performedOnly`): the engine
        // performs them, and says so as an implementation (`ReferenceImplementation`).
        $0 != .timingNoise && $0 != .announcements && !Observation.performedOnly.contains($0)
    }

    /// Runs the scenario under one schedule seed. The scenario must be valid
    /// (`Scenario.validate()` returns no problem); the same scenario and seed give the same trace.
    public func run(_ scenario: Scenario, scheduleSeed: UInt64) -> Trace {
        measuredRun(scenario, scheduleSeed: scheduleSeed).trace
    }

    /// `run`, with what the run cost the engine (steps, threads, the scheduler's looks at
    /// threads): the counts that bound a runaway program, for the package's tests.
    package func measuredRun(_ scenario: Scenario, scheduleSeed: UInt64) -> (trace: Trace, statistics: RunStatistics) {
        let simulation = Simulation(scenario: scenario, scheduleSeed: scheduleSeed, options: options)
        let events = simulation.run()
        return (
            Trace(impl: "reference", scheduleSeed: scheduleSeed, capabilities: Self.capabilities, events: events),
            simulation.statistics
        )
    }

    /// `run`, with the queue each virtual thread's code runs for, by the thread number its
    /// events carry: what `OperationQueue.current` names there (nil: none). The trace shows it
    /// only where a `readCurrentQueue` step reads it; the package's tests check every thread.
    package func runNotingCurrentQueues(
        _ scenario: Scenario, scheduleSeed: UInt64
    ) -> (trace: Trace, currentQueue: [Int?]) {
        let simulation = Simulation(scenario: scenario, scheduleSeed: scheduleSeed, options: options)
        let events = simulation.run()
        return (
            Trace(impl: "reference", scheduleSeed: scheduleSeed, capabilities: Self.capabilities, events: events),
            simulation.currentQueues
        )
    }
}
