import OperationSpec
import ReferenceEngine

/// Everything a run decided, as data: what `run` and `gate` write to `DIR/run-record.json` beside
/// the findings, and what `opconform merge` joins when shards of one run ran on several machines
/// (Specs/run-output.md, "Shards and merge").
///
/// The findings themselves are the finding files of the same folder, named here in finding
/// order; a record holds what the reports need besides them (per-rule counts, known divergences
/// and unconfirmed breaks with their first cases, endings, times). Read strictly at its top: a
/// field this build does not know is refused (`RunMerge.load`), and a record of another format is
/// named as such.
public struct RunRecord: Codable, Sendable, Equatable, CheckedInput {
    /// 2: every seed is a string (`SeedText`); a record of format 1 (numbers) is refused, as
    /// shards of another release are.
    public static let formatVersion = 2
    public static let fileName = "run-record.json"

    /// The first case that broke a rule in a way the record reports apart (known, unconfirmed):
    /// enough to rebuild its scenario (`CaseIdentity.scenario()`) and say what it broke.
    public struct FirstCase: Codable, Sendable, Equatable {
        public var index: Int
        public var identity: CaseIdentity
        public var violation: Violation

        /// Every stored property (the memberwise initializer is internal to its module).
        package init(index: Int, identity: CaseIdentity, violation: Violation) {
            self.index = index
            self.identity = identity
            self.violation = violation
        }
    }
    public struct Known: Codable, Sendable, Equatable {
        public var rule: String
        public var entry: Expectations.Entry
        public var cases: Int
        public var owner: String
        public var first: FirstCase

        /// Every stored property (the memberwise initializer is internal to its module).
        package init(rule: String, entry: Expectations.Entry, cases: Int, owner: String, first: FirstCase) {
            self.rule = rule
            self.entry = entry
            self.cases = cases
            self.owner = owner
            self.first = first
        }
    }
    public struct Unconfirmed: Codable, Sendable, Equatable {
        public var rule: String
        public var cases: Int
        public var first: FirstCase

        /// Every stored property (the memberwise initializer is internal to its module).
        package init(rule: String, cases: Int, first: FirstCase) {
            self.rule = rule
            self.cases = cases
            self.first = first
        }
    }
    public struct Cause: Codable, Sendable, Equatable {
        /// A finding file of the record's folder.
        public var file: String
        public var cases: Int

        package init(file: String, cases: Int) { self.file = file; self.cases = cases }
    }

    public var format: Int
    /// The release of the harness that ran it (`HarnessVersion`): shards of different releases
    /// are not merged.
    public var harness: String
    public var impl: String
    /// The words that name the implementation again on a command line (`--impl …`).
    public var implArguments: [String]
    public var driver: DriverLaunch?
    public var profile: Profile
    public var faults: [Fault]
    @SeedText public var seed: UInt64
    /// The cases of the whole run, all shards together (`--count`).
    public var count: Int
    /// `I/N`, 1-based as on the command line; `1/1` for a run not split.
    public var shard: String
    public var generatorVersion: Int
    public var generator: GeneratorOptions
    public var strict: Bool
    public var statistics: [RuleStatistics]
    /// The findings' files in this folder, in finding order.
    public var findings: [String]
    public var otherCauses: [Cause]
    public var known: [Known]
    public var unconfirmed: [Unconfirmed]
    public var deathCases: [String: Int]
    public var endings: [String: Int]
    /// Cases this shard decided.
    public var cases: Int
    public var seconds: Double
    public var shrinkSeconds: Double
    public var cpu: CPUTime?
    public var interrupted: Bool
    /// Where the run's known divergences came from, for the report.
    public var knownSource: String?

    /// The shard as numbers, 0-based index (`Shard`); nil when `shard` is not `I/N`.
    public var shardNumbers: Shard? {
        let parts = shard.split(separator: "/").map { Int($0) }
        guard parts.count == 2, let i = parts[0], let n = parts[1], n >= 1, i >= 1, i <= n else { return nil }
        return Shard(index: i - 1, count: n)
    }

    /// The most cases a record may count: far more than any run, and small enough that the
    /// counts of a million shards add up without overflow.
    static let maxCount = 1_000_000_000_000

    func inputProblem() -> InputError.FieldProblem? {
        headerProblem() ?? countsProblem() ?? endingsProblem() ?? timesProblem()
    }

    /// The format, the shard and the run's and shard's case counts.
    private func headerProblem() -> InputError.FieldProblem? {
        if format != Self.formatVersion {
            return .init(path: [.key("format")], what: "is \(format)",
                         requirement: ", but this build reads run records of format \(Self.formatVersion) only")
        }
        if shardNumbers == nil {
            return .init(
                path: [.key("shard")], what: "is \"\(shard)\"", requirement: ", but must be I/N with 1 ≤ I ≤ N")
        }
        if count > Self.maxCount {
            return .init(
                path: [.key("count")], what: "is \(count)",
                requirement: ", but a run has at most \(Self.maxCount) cases")
        }
        if count < 0 || cases < 0 || cases > count {
            return .init(
                path: [.key("cases")], what: "is \(cases)",
                requirement: " of \(count), but must be between 0 and the count")
        }
        // A shard's cases follow from the run's count and its place (`Shard.cases(of:)`): one that
        // ran fewer was cut short and must say so (issue 43: a shard claiming 21 of its 40 cases
        // merged as complete), and none runs more.
        if let planned = shardNumbers?.cases(of: count), cases != planned, cases > planned || !interrupted {
            let requirement = cases > planned
                ? ", but shard \(shard) of \(count) cases holds \(planned)"
                : ", but shard \(shard) of \(count) cases holds \(planned), and a shard that ran fewer "
                    + "must be marked interrupted"
            return .init(path: [.key("cases")], what: "is \(cases)", requirement: requirement)
        }
        return nil
    }

    /// A count that is not of this shard's cases (issue 43: negative counts were printed, and two
    /// shards' counts summed past Int.max trapped the merge).
    private func tally(_ n: Int, at path: [JSONPathSegment]) -> InputError.FieldProblem? {
        guard (0...cases).contains(n) else {
            return .init(
                path: path, what: "is \(n)",
                requirement: ", but must be a count of this shard's cases: 0 to \(cases)")
        }
        return nil
    }

    /// Every rule's, known divergence's, unconfirmed finding's, cause's and death's count.
    private func countsProblem() -> InputError.FieldProblem? {
        for (i, s) in statistics.enumerated() {
            for (key, n) in [
                ("cases", s.cases), ("violations", s.violations), ("known", s.known), ("unconfirmed", s.unconfirmed)
            ] {
                if let problem = tally(n, at: [.key("statistics"), .index(i), .key(key)]) { return problem }
            }
            if s.hits < 0 {
                return .init(
                    path: [.key("statistics"), .index(i), .key("hits")], what: "is \(s.hits)",
                    requirement: ", but must not be negative")
            }
        }
        for (i, k) in known.enumerated() {
            if let p = tally(k.cases, at: [.key("known"), .index(i), .key("cases")]) { return p }
        }
        for (i, u) in unconfirmed.enumerated() {
            if let p = tally(u.cases, at: [.key("unconfirmed"), .index(i), .key("cases")]) { return p }
        }
        for (i, c) in otherCauses.enumerated() {
            if let p = tally(c.cases, at: [.key("otherCauses"), .index(i), .key("cases")]) { return p }
        }
        for key in deathCases.keys.sorted() {
            if let p = tally(deathCases[key]!, at: [.key("deathCases"), .key(key)]) { return p }
        }
        return nil
    }

    /// The endings: known names, each count of this shard's cases, no more than its cases.
    private func endingsProblem() -> InputError.FieldProblem? {
        let endingNames = ["breach", "complete", "crash", "hang", "truncated"]
        var ended = 0
        for key in endings.keys.sorted() {
            guard endingNames.contains(key) else {
                return .init(
                    path: [.key("endings"), .key(key)], what: "is named \"\(JSONDiagnosis.oneLine(key, limit: 40))\"",
                    requirement: ", but an ending is one of: " + endingNames.joined(separator: ", "))
            }
            if let p = tally(endings[key]!, at: [.key("endings"), .key(key)]) { return p }
            ended += endings[key]!
        }
        if ended > cases {
            return .init(
                path: [.key("endings")], what: "counts \(ended) endings",
                requirement: ", but the shard ran \(cases) cases")
        }
        return nil
    }

    /// The run's times.
    private func timesProblem() -> InputError.FieldProblem? {
        if !seconds.isFinite || seconds < 0 || !shrinkSeconds.isFinite || shrinkSeconds < 0 {
            return .init(
                path: [.key("seconds")], what: "is \(seconds)",
                requirement: ", but must be a time: finite, not negative")
        }
        return nil
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case format, harness, impl, implArguments, driver, profile, faults, seed, count, shard, generatorVersion,
            generator
        case strict, statistics, findings, otherCauses, known, unconfirmed, deathCases, endings, cases, seconds,
            shrinkSeconds
        case cpu, interrupted, knownSource
    }

    package init(
        format: Int, harness: String, impl: String, implArguments: [String], driver: DriverLaunch?, profile: Profile,
        faults: [Fault], seed: UInt64, count: Int, shard: String, generatorVersion: Int, generator: GeneratorOptions,
        strict: Bool, statistics: [RuleStatistics], findings: [String], otherCauses: [Cause], known: [Known],
        unconfirmed: [Unconfirmed], deathCases: [String: Int], endings: [String: Int], cases: Int, seconds: Double,
        shrinkSeconds: Double, cpu: CPUTime?, interrupted: Bool, knownSource: String?
    ) {
        self.format = format
        self.harness = harness
        self.impl = impl
        self.implArguments = implArguments
        self.driver = driver
        self.profile = profile
        self.faults = faults
        self.seed = seed
        self.count = count
        self.shard = shard
        self.generatorVersion = generatorVersion
        self.generator = generator
        self.strict = strict
        self.statistics = statistics
        self.findings = findings
        self.otherCauses = otherCauses
        self.known = known
        self.unconfirmed = unconfirmed
        self.deathCases = deathCases
        self.endings = endings
        self.cases = cases
        self.seconds = seconds
        self.shrinkSeconds = shrinkSeconds
        self.cpu = cpu
        self.interrupted = interrupted
        self.knownSource = knownSource
    }
}
