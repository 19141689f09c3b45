import OperationSpec

/// A scenario to try before the greedy search: a minimum already found for another rule of
/// the same run, with the schedule seed it broke under.
public struct ShrinkHint: Sendable, Equatable {
    public var scenario: Scenario
    public var scheduleSeed: UInt64
    public init(scenario: Scenario, scheduleSeed: UInt64) {
        self.scenario = scenario
        self.scheduleSeed = scheduleSeed
    }
}
