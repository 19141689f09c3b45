import OperationSpec

/// How the reference engine runs: which reading of the documents, and the width it gives a queue
/// whose `maxConcurrentOperationCount` is left to the implementation.
public struct EngineOptions: Sendable, Equatable {
    public var profile: Profile
    /// The number of operations a default-width queue runs at once.
    public var defaultWidth: Int
    /// A run that takes more atomic steps than this ends with a `hang` event (runaway programs).
    public var stepBudget: Int
    /// Bugs to inject (`Fault`); empty for the faithful engine.
    public var faults: [Fault]

    public init(profile: Profile = .guide, defaultWidth: Int = 4, stepBudget: Int = 2_000_000, faults: [Fault] = []) {
        self.profile = profile
        self.defaultWidth = defaultWidth
        self.stepBudget = stepBudget
        self.faults = faults
    }
}
