import OperationSpec

/// A slice of a run's case indices: shard `index` of `count` (0-based) holds the cases whose
/// index is `index` modulo `count`.
public struct Shard: Sendable, Equatable {
    public var index: Int
    public var count: Int
    public static let whole = Shard(index: 0, count: 1)
    public init(index: Int, count: Int) { self.index = index; self.count = count }
    /// How many of cases 0..<total the shard holds.
    public func cases(of total: Int) -> Int { total > index ? (total - index + count - 1) / count : 0 }
    /// The case index of the shard's `position`-th case.
    public func caseIndex(_ position: Int) -> Int { index + position * count }
}

/// What one case did, reported as soon as it is decided (the run's JSON-lines log).
public struct CaseRecord: Sendable, Codable, Equatable {
    public var index: Int
    @SeedText public var caseSeed: UInt64
    public var operations: Int
    public var ending: String
    /// Rules the case broke (RUN-CRASH / RUN-HANG for a crash or a hang), in catalog order.
    public var broken: [String]
    /// The first violation's sentence, when the case broke something.
    public var message: String?
    /// Rules the case broke only in ways a known divergence excuses (absent when none).
    public var known: [String]?
    /// Rules (RUN-HANG too) the case broke only in ways a patient run did not confirm (absent
    /// when none).
    public var unconfirmed: [String]?
    /// The line that replays the case, when it broke something.
    public var replay: String?

    package init(
        index: Int, caseSeed: UInt64, operations: Int, ending: String, broken: [String], message: String? = nil,
        known: [String]? = nil, unconfirmed: [String]? = nil, replay: String? = nil
    ) {
        self.index = index
        self.caseSeed = caseSeed
        self.operations = operations
        self.ending = ending
        self.broken = broken
        self.message = message
        self.known = known
        self.unconfirmed = unconfirmed
        self.replay = replay
    }
}

/// Per rule: how many cases reached its antecedent, how many broke it, and its status.
public struct RuleStatistics: Sendable, Codable, Equatable {
    public var id: String
    /// Antecedents reached, summed over cases.
    public var hits = 0
    /// Cases in which the antecedent was reached at least once.
    public var cases = 0
    /// Cases that broke the rule in a way no known divergence excuses (the tested code's).
    public var violations = 0
    /// Cases that broke the rule only in ways a known divergence excuses (`Attribution`).
    public var known = 0
    /// Cases whose only violations of the rule rested on absence or time and did not show
    /// again in a patient run of the case (`Confirmation`).
    public var unconfirmed = 0
    public var status: Status = .notReached
    /// Why, for not-observable and not-applicable.
    public var reason: String?

    /// `fail`: a rule whose breaking fails the run (a documented must) was broken; `warn`: a rule
    /// whose breaking is a warning (`Severity.warning`) was broken.
    /// `known`: broken only in ways a known divergence of the platform excuses. `unconfirmed`:
    /// broken only in ways that rest on absence or time, not seen again with patience.
    public enum Status: String, Sendable, Codable {
        case pass, fail, warn, known, unconfirmed, notObservable = "not-observable", notApplicable = "not-applicable",
            notReached = "not-reached"
    }

    /// Whether the rule was broken in some case, whatever its severity.
    public var broken: Bool { status == .fail || status == .warn }

    /// A rule no case has reached yet.
    package init(id: String) { self.id = id }
}
