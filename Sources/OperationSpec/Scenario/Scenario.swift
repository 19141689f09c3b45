/// Everything an implementation needs to run one case, and nothing that depends on a particular
/// implementation. Operations and queues are numbered by their position in `operations` and
/// `queues`; every reference to them elsewhere is that number.
///
/// A scenario is plain data: it encodes to JSON with sorted keys, so the same scenario is the same
/// bytes in every process (the determinism contract of `Specs/scenario-format.md`).
public struct Scenario: Codable, Sendable, Equatable {
    /// The format of this structure. Bumped when a field changes meaning.
    public static let formatVersion = 1

    public var format: Int
    /// A free label: the sample's name, or "generated".
    public var name: String
    /// The seed the generator built this scenario from (0 for hand-written ones).
    public var seed: UInt64
    /// The generator version that built it (0 for hand-written ones).
    public var generatorVersion: Int
    public var queues: [QueueConfig]
    public var operations: [OperationConfig]
    /// Dependencies set before the driver program runs: `op` depends on `on`.
    public var dependencies: [Edge]
    /// What the driving thread does, step by step.
    public var driver: [DriverStep]

    public init(name: String = "scenario", seed: UInt64 = 0, generatorVersion: Int = 0,
                queues: [QueueConfig] = [], operations: [OperationConfig] = [],
                dependencies: [Edge] = [], driver: [DriverStep] = []) {
        self.format = Scenario.formatVersion
        self.name = name
        self.seed = seed
        self.generatorVersion = generatorVersion
        self.queues = queues
        self.operations = operations
        self.dependencies = dependencies
        self.driver = driver
    }
}

/// `op` depends on `on`: `op` may not begin before `on` has finished.
public struct Edge: Codable, Sendable, Equatable, Hashable {
    public var op: Int
    public var on: Int
    public init(_ op: Int, on: Int) { self.op = op; self.on = on }
}

public struct QueueConfig: Codable, Sendable, Equatable {
    /// `maxConcurrentOperationCount`; `QueueConfig.defaultMax` (-1) lets the implementation decide.
    public var maxConcurrent: Int
    public var suspended: Bool
    /// `[queue setName:]`, set first in configuration; nil leaves the implementation's default.
    /// GNUstep names a named queue's worker threads `<name>_<number>` (003). API surface 2.
    public var name: String?
    public static let defaultMax = -1
    public init(maxConcurrent: Int = QueueConfig.defaultMax, suspended: Bool = false, name: String? = nil) {
        self.maxConcurrent = maxConcurrent
        self.suspended = suspended
        self.name = name
    }
}

public struct OperationConfig: Codable, Sendable, Equatable {
    public var kind: OperationKind
    /// The raw `queuePriority` set before the run; nil leaves the default (Normal).
    /// Non-standard values are allowed on purpose: they exercise normalisation.
    public var queuePriority: Int?
    /// `threadPriority` set before the run; nil leaves the default (0.5).
    public var threadPriority: Double?
    /// The completion block's body, set before the run; nil means no completion block.
    public var completion: [Step]?
    /// A token the operation's class waits for in an `isReady` override (004, "Configuring
    /// Interoperation Dependencies"): `isReady` returns `[super isReady]` only once `signal(n)`
    /// has run, and NO before; the code that signals sends `willChange` / `didChange` of
    /// `isReady` for the operation, as the guide asks of such a subclass. Not for the
    /// implementation's own subclass, nor an operation added with `addBlock`. API surface 2.
    public var readyAfterSignal: Int?

    public init(kind: OperationKind, queuePriority: Int? = nil, threadPriority: Double? = nil,
                completion: [Step]? = nil, readyAfterSignal: Int? = nil) {
        self.kind = kind
        self.queuePriority = queuePriority
        self.threadPriority = threadPriority
        self.completion = completion
        self.readyAfterSignal = readyAfterSignal
    }
}

/// The standard queue priorities, by raw value.
public enum QueuePriority {
    public static let veryLow = -8, low = -4, normal = 0, high = 4, veryHigh = 8
    public static let defined = [veryLow, low, normal, high, veryHigh]

    /// A raw value that is not a defined priority becomes the next defined value moving towards
    /// Normal (003, setQueuePriority:). Values beyond the extremes move to the extreme.
    /// (A loop, not `filter`: checkers ask this for every priority event, and each filter
    /// allocated an array.)
    public static func normalized(_ raw: Int) -> Int {
        var best = normal
        for d in defined {
            if d == raw { return raw }
            // Above normal: the largest defined value at or below raw; below: the smallest at or above.
            if raw > normal ? (d <= raw && d > best) : (d >= raw && d < best) { best = d }
        }
        return best
    }
}
