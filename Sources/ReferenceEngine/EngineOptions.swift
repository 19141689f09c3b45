import OperationSpec

/// How the reference engine runs: which reading of the documents, and the width it gives a queue
/// whose `maxConcurrentOperationCount` is left to the implementation.
public struct EngineOptions: Sendable, Equatable {
    public var profile: Profile
    /// The number of operations a default-width queue runs at once.
    public var defaultWidth: Int
    /// A run that takes more atomic steps than this ends with a `cut` event (a runaway program).
    /// A step costs the engine about the same however many threads are alive, and emits a
    /// bounded number of events, so this bounds a run's time and its trace.
    public var stepBudget: Int
    /// A run that has more virtual threads alive at once than this, after a step, ends with a
    /// `cut` event (a spawn bomb: threads that spawn threads). Generated cases and the scale
    /// scenarios use a few dozen; a live thread holds its frames, so this bounds memory.
    public var threadBudget: Int
    /// A run whose threads hold more frames at once than this, after a step, ends with a `cut`
    /// event (a routine that calls itself, a `main` that calls `[self main]`). Generated cases
    /// hold a few dozen; a frame is about 100 bytes. A step pushes a frame or two, so steps bound
    /// most programs' frames already; this bounds them all, and a deep recursion sooner.
    public var frameBudget: Int
    /// Bugs to inject (`Fault`); empty for the faithful engine.
    public var faults: [Fault]
    /// Refuse, with a `threw` event (`dependencyCycle`), an `addDependency` that would close a
    /// cycle. Off by default: the documents say a cycle is accepted and deadlocks its operations
    /// (003 addDependency: "this would cause deadlock"; 004 2.6.1 "will prevent the affected
    /// operations from ever running"), and neither Foundation on Linux nor GNUstep checks for
    /// one. On, the engine models an implementation that does check (the Python example driver
    /// does), which DEP-CYCLE tolerates; a refused edge is never added.
    public var refusesDependencyCycles: Bool

    public init(profile: Profile = .guide, defaultWidth: Int = 4, stepBudget: Int = 2_000_000,
                threadBudget: Int = 100_000, frameBudget: Int = 1_000_000, faults: [Fault] = [],
                refusesDependencyCycles: Bool = false) {
        self.profile = profile
        self.defaultWidth = defaultWidth
        self.stepBudget = stepBudget
        self.threadBudget = threadBudget
        self.frameBudget = frameBudget
        self.faults = faults
        self.refusesDependencyCycles = refusesDependencyCycles
    }
}
