import Foundation
import OperationSpec
import ReferenceEngine

/// Joins the results of a run's shards into the result of the whole run (`opconform merge`).
///
/// Each shard is a folder a `run` or `gate` wrote: its `run-record.json` and its finding files.
/// Shards are joined only when they are parts of one run: the same harness release,
/// implementation, profile, faults and generator. Several seeds may be joined (each seed's run
/// split or not); within a seed, every shard of its `I/N` must be there once, unless missing ones
/// are allowed, and then the report says which cases were not run.
///
/// The joined verdict is the unsplit run's: a rule's counts are the sums of its shards' counts
/// and its status is decided from them as a run decides it; a rule's finding is the one whose
/// first case comes first in the run (lowest seed given first, then lowest case index), which is
/// the case the unsplit run would have shrunk. Its minimum can differ from the unsplit run's
/// only where the unsplit run shrank with hints from other rules' minima. Wall times are the
/// longest shard's (the machines ran side by side); CPU times are summed.
package enum RunMerge {
    /// One shard as read from its folder.
    public struct Shard: Sendable {
        public var folder: String
        public var record: RunRecord
        /// The record's findings, read from their files, in the record's order.
        public var findings: [Finding]
        public var otherCauses: [OtherCause]
    }

    /// Reads the shard in `folder`: its record (strictly: unknown fields are refused) and every
    /// finding file it names.
    public static func load(folder: String) throws(InputError) -> Shard {
        let path = PathText.join(folder, RunRecord.fileName)
        // A record is a regular file, read under the input size limit: a FIFO would block the
        // merge, a link to /dev/zero fill its memory, a folder of that name is not a record.
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            throw InputError(
                "merge: \(JSONDiagnosis.oneLine(path)) is not a regular file (a folder, a FIFO or a device), "
                    + "so it is not a run record")
        }
        guard let data = FileManager.default.fileExists(atPath: path) ? try JSONCodec.readFile(at: path) : nil else {
            var isDir: ObjCBool = false
            if !FileManager.default.fileExists(atPath: folder, isDirectory: &isDir) || !isDir.boolValue {
                throw InputError("merge: \(folder) is not a folder; give each shard's output folder (run --out DIR)")
            }
            throw InputError(
                "merge: \(folder) has no \(RunRecord.fileName); a run or gate of release 0.9.0 or later writes it "
                    + "into its output folder (--out DIR), beside the findings")
        }
        let keys = RunRecord.CodingKeys.allCases.map(\.stringValue).sorted()
        if case .object(let members)? = JSONDiagnosis(data).root?.value,
            let unknown = members.first(where: { !keys.contains($0.key) })
        {
            let diagnosis = JSONDiagnosis(data)
            throw InputError.unknownKey(
                unknown.key, in: [], at: diagnosis.at(unknown.keyOffset), allowed: keys,
                clause: "the keys of a run record are: " + keys.joined(separator: ", "),
                source: JSONDiagnosis.oneLine(path))
        }
        let record = try JSONCodec.decode(RunRecord.self, from: data, source: path)
        func finding(_ name: String) throws(InputError) -> Finding {
            let file = PathText.join(folder, name)
            guard !name.isEmpty, !name.contains("/"), let bytes = FileManager.default.contents(atPath: file) else {
                throw InputError("merge: \(path) names the finding file '\(name)', which is not in \(folder)")
            }
            return try FindingFile.decode(bytes, source: file)
        }
        var findings: [Finding] = []
        for name in record.findings { findings.append(try finding(name)) }
        var causes: [OtherCause] = []
        for cause in record.otherCauses {
            causes.append(OtherCause(finding: try finding(cause.file), cases: cause.cases))
        }
        return Shard(folder: folder, record: record, findings: findings, otherCauses: causes)
    }

    /// What the joined shards cover: per seed, which shards of how many, and the cases missing.
    public struct Coverage: Sendable, Equatable {
        public var seed: UInt64
        package var shards: Int
        package var present: [Int]
        package var casesRun: Int
        public var count: Int
        public var complete: Bool { present.count == shards }
        public var line: String {
            let have = present.map { "\($0 + 1)" }.joined(separator: ", ")
            return "seed \(seed): shards \(have) of \(shards), \(casesRun) of \(count) cases"
                + (complete
                    ? ""
                    : " (missing: "
                        + (0..<shards).filter { !present.contains($0) }.map { "\($0 + 1)" }.joined(separator: ", ")
                        + ")")
        }
    }

    /// The run the shards make together, and what they cover.
    package static func merge(
        _ shards: [Shard], allowMissing: Bool = false
    ) throws(InputError) -> (result: RunResult, coverage: [Coverage]) {
        guard let first = shards.first else { throw InputError("merge: give at least one shard's folder") }
        // One run: the same release, implementation, profile, faults and generator.
        for s in shards.dropFirst() {
            let a = first.record, b = s.record
            func differ(_ what: String, _ x: String, _ y: String) throws(InputError) {
                throw InputError(
                    "merge: \(s.folder) was run with \(what) \(y), but \(first.folder) with \(x); "
                        + "only shards of one run are merged (same release, implementation, "
                        + "profile, faults and generator)"
                )
            }
            if a.harness != b.harness { try differ("opconform", a.harness, b.harness) }
            if a.impl != b.impl || a.implArguments != b.implArguments {
                try differ(
                    "the implementation", a.implArguments.joined(separator: " "), b.implArguments.joined(separator: " ")
                )
            }
            if a.profile != b.profile { try differ("the profile", a.profile.rawValue, b.profile.rawValue) }
            if a.faults != b.faults {
                try differ(
                    "the faults", a.faults.map(\.rawValue).joined(separator: ",").ifEmpty("none"),
                           b.faults.map(\.rawValue).joined(separator: ",").ifEmpty("none"))
            }
            if a.generatorVersion != b.generatorVersion || a.generator != b.generator {
                try differ(
                    "the generator",
                    "v\(a.generatorVersion) " + Self.oneLine(a.generator),
                    "v\(b.generatorVersion) " + Self.oneLine(b.generator)
                )
            }
            if a.strict != b.strict { try differ("--strict", a.strict ? "on" : "off", b.strict ? "on" : "off") }
            if a.statistics.map(\.id) != b.statistics.map(\.id) {
                try differ("the rules", "\(a.statistics.count) rules", "\(b.statistics.count) rules")
            }
        }
        // Per seed, in the order first given: every shard once, of one split.
        var seeds: [UInt64] = []
        for s in shards where !seeds.contains(s.record.seed) { seeds.append(s.record.seed) }
        var coverage: [Coverage] = []
        for seed in seeds {
            let mine = shards.filter { $0.record.seed == seed }
            let split = mine[0].record.shardNumbers!.count, count = mine[0].record.count
            var present: [Int] = []
            for s in mine {
                let n = s.record.shardNumbers!
                if n.count != split || s.record.count != count {
                    throw InputError(
                        "merge: \(s.folder) is shard \(s.record.shard) of \(s.record.count) cases, but "
                            + "\(mine[0].folder) is "
                            + "\(mine[0].record.shard) of \(count): the shards of seed \(seed) must split one run")
                }
                if present.contains(n.index) {
                    let other = mine.first { $0.record.shardNumbers!.index == n.index }!.folder
                    throw InputError(
                        "merge: shard \(s.record.shard) of seed \(seed) is given twice: \(other) and \(s.folder)")
                }
                present.append(n.index)
            }
            let c = Coverage(
                seed: seed, shards: split, present: present.sorted(), casesRun: mine.map(\.record.cases).reduce(0, +),
                count: count)
            if !c.complete && !allowMissing {
                throw InputError(
                    "merge: \(c.line); a verdict without them would pass cases nobody ran. Give every shard's folder, "
                        + "or --allow-missing to join what there is (the report then says what is missing)")
            }
            coverage.append(c)
        }
        return (joined(shards, seeds: seeds), coverage)
    }

    /// The joined result (the shards are known to be of one run): the configuration, the
    /// rules' counts, the findings by cause, the known divergences and the unconfirmed findings,
    /// each joined as a run decides it, then the endings and times.
    static func joined(_ shards: [Shard], seeds: [UInt64]) -> RunResult {
        let first = shards[0].record
        let order = first.statistics.map(\.id) + Finding.pseudoRules.map(\.id)
        let (findings, causes) = joinedFindings(shards, seeds: seeds, order: order)
        var endings: [String: Int] = [:]
        var deaths: [String: Int] = [:]
        for s in shards {
            for (k, v) in s.record.endings { endings[k, default: 0] += v }
            for (k, v) in s.record.deathCases { deaths[k, default: 0] += v }
        }
        var result = RunResult(
            configuration: joinedConfiguration(shards, seeds: seeds), statistics: joinedStatistics(shards),
            findings: findings, endings: endings,
            cases: shards.map(\.record.cases).reduce(0, +),
            seconds: shards.map(\.record.seconds).max() ?? 0,
            shrinkSeconds: shards.map(\.record.shrinkSeconds).max() ?? 0)
        result.known = joinedKnown(shards, seeds: seeds, order: order)
        result.unconfirmed = joinedUnconfirmed(shards, seeds: seeds, order: order)
        result.otherCauses = causes
        result.deathCases = deaths
        result.interrupted = shards.contains { $0.record.interrupted }
        let cpus = shards.compactMap(\.record.cpu)
        if cpus.count == shards.count {
            result.cpu = CPUTime(harnessMicroseconds: cpus.map(\.harnessMicroseconds).reduce(0, +),
                                 driversMicroseconds: cpus.map(\.driversMicroseconds).reduce(0, +))
        }
        return result
    }

    /// A case's place in the run's order: seeds as given, then case index.
    private static func rank(_ seed: UInt64, _ index: Int, seeds: [UInt64]) -> (Int, Int) {
        (seeds.firstIndex(of: seed) ?? 0, index)
    }

    /// The run's configuration as the shards ran it, over the whole run's count.
    private static func joinedConfiguration(_ shards: [Shard], seeds: [UInt64]) -> RunConfiguration {
        let first = shards[0].record
        let impl = RecordedImplementation(record: first)
        let ids = first.statistics.map(\.id)
        // The count of the whole run: each seed's once.
        let count = seeds.map { seed in shards.first { $0.record.seed == seed }!.record.count }.reduce(0, +)
        var configuration = RunConfiguration(
            impl: impl, profile: first.profile, faults: first.faults, seed: seeds[0], count: count,
            rules: RuleBook.all.filter { ids.contains($0.rule.id) }, shrink: false)
        // As the shards ran them (the stand-in's capabilities would otherwise set options).
        configuration.generator = first.generator
        configuration.strict = first.strict
        configuration.knownSource = shards.compactMap(\.record.knownSource).first
        return configuration
    }

    /// The rules' counts summed over the shards, each status decided as a run decides it.
    private static func joinedStatistics(_ shards: [Shard]) -> [RuleStatistics] {
        let first = shards[0].record
        var statistics = first.statistics.map { s in
            var z = RuleStatistics(id: s.id)
            z.status = s.status
            z.reason = s.reason
            return z
        }
        for s in shards {
            for (n, x) in s.record.statistics.enumerated() {
                statistics[n].hits += x.hits
                statistics[n].cases += x.cases
                statistics[n].violations += x.violations
                statistics[n].known += x.known
                statistics[n].unconfirmed += x.unconfirmed
            }
        }
        for n in statistics.indices
        where statistics[n].status != .notApplicable && statistics[n].status != .notObservable {
            let severity = RuleBook.check(id: statistics[n].id)?.rule.severity ?? .failure
            let s = statistics[n]
            statistics[n].status =
                s.violations > 0
                ? (severity == .failure ? .fail : .warn)
                : s.unconfirmed > 0
                    ? .unconfirmed
                    : s.known > 0 ? .known : (s.hits > 0 ? .pass : .notReached)
        }
        return statistics
    }

    /// The findings and further causes, joined by cause.
    private static func joinedFindings(
        _ shards: [Shard], seeds: [UInt64], order: [String]
    ) -> (findings: [Finding], causes: [OtherCause]) {
        // Findings by cause, as a run tells causes apart (`CauseGroups`: the sentence with its
        // numbers set aside): a cause's cases are summed over the shards and its finding is the
        // one whose case comes first; a rule's first cause is its finding, the next ones (up to
        // the run's limit) its further causes. A shard's finding counts the rule's cases its
        // further causes do not.
        struct Cause { var signature: String; var finding: Finding; var rank: (Int, Int); var cases: Int }
        var causesByRule: [String: [Cause]] = [:]
        for s in shards {
            for f in s.findings {
                let mine = s.otherCauses.filter { $0.finding.rule == f.rule }
                let total =
                    s.record.statistics.first { $0.id == f.rule }?.violations ?? s.record.deathCases[f.rule] ?? 0
                var all = [OtherCause(finding: f, cases: max(0, total - mine.map(\.cases).reduce(0, +)))]
                all += mine
                for o in all {
                    let signature = cause(of: o.finding)
                    let r = rank(o.finding.runSeed, o.finding.caseIndex, seeds: seeds)
                    if let i = causesByRule[o.finding.rule]?.firstIndex(where: { $0.signature == signature }) {
                        causesByRule[o.finding.rule]![i].cases += o.cases
                        if r < causesByRule[o.finding.rule]![i].rank {
                            causesByRule[o.finding.rule]![i].finding = o.finding
                            causesByRule[o.finding.rule]![i].rank = r
                        }
                    } else {
                        causesByRule[o.finding.rule, default: []].append(
                            Cause(signature: signature, finding: o.finding, rank: r, cases: o.cases))
                    }
                }
            }
        }
        var findings: [Finding] = []
        var causes: [OtherCause] = []
        for rule in order {
            guard let list = causesByRule[rule]?.sorted(by: { $0.rank < $1.rank }).prefix(CauseGroups.limit),
                let head = list.first
            else { continue }
            findings.append(head.finding)
            causes += list.dropFirst().map { OtherCause(finding: $0.finding, cases: $0.cases) }
        }
        return (findings, causes)
    }

    /// Known divergences: per rule and entry, counts summed, the first case the run's first.
    private static func joinedKnown(_ shards: [Shard], seeds: [UInt64], order: [String]) -> [KnownDivergence] {
        var known: [KnownDivergence] = []
        var knownRanks: [(Int, Int)] = []
        for s in shards {
            for k in s.record.known {
                let r = rank(s.record.seed, k.first.index, seeds: seeds)
                if let i = known.firstIndex(where: { $0.rule == k.rule && $0.entry == k.entry }) {
                    known[i].cases += k.cases
                    if r < knownRanks[i] { known[i].first = failing(k.first); knownRanks[i] = r }
                } else {
                    known.append(
                        KnownDivergence(
                            rule: k.rule, entry: k.entry, cases: k.cases, first: failing(k.first), owner: k.owner))
                    knownRanks.append(r)
                }
            }
        }
        // In catalog order, each rule's entries as first met (a stable sort, by position).
        known = known.enumerated().sorted {
            ((order.firstIndex(of: $0.element.rule) ?? 0), $0.offset) < (
                (order.firstIndex(of: $1.element.rule) ?? 0), $1.offset
            )
        }
            .map(\.element)
        return known
    }

    /// The unconfirmed findings: one per rule, counts summed, the first case the run's first.
    private static func joinedUnconfirmed(
        _ shards: [Shard], seeds: [UInt64], order: [String]
    ) -> [UnconfirmedFinding] {
        var unconfirmed: [UnconfirmedFinding] = []
        var unconfirmedRanks: [(Int, Int)] = []
        for s in shards {
            for u in s.record.unconfirmed {
                let r = rank(s.record.seed, u.first.index, seeds: seeds)
                if let i = unconfirmed.firstIndex(where: { $0.rule == u.rule }) {
                    unconfirmed[i].cases += u.cases
                    if r < unconfirmedRanks[i] { unconfirmed[i].first = failing(u.first); unconfirmedRanks[i] = r }
                } else {
                    unconfirmed.append(UnconfirmedFinding(rule: u.rule, cases: u.cases, first: failing(u.first)))
                    unconfirmedRanks.append(r)
                }
            }
        }
        unconfirmed.sort { (order.firstIndex(of: $0.rule) ?? 0) < (order.firstIndex(of: $1.rule) ?? 0) }
        return unconfirmed
    }

    /// Generator options as the one JSON line a finding file holds them in.
    private static func oneLine(_ options: GeneratorOptions) -> String {
        String(decoding: JSONCodec.line(options).utf8, as: UTF8.self).trimmingCharacters(in: .newlines)
    }

    /// A finding's cause: its violation's sentence, numbers set aside, as the run grouped it.
    static func cause(of finding: Finding) -> String {
        let observed = finding.message.components(separatedBy: "; required: ").first ?? finding.message
        return CauseGroups.cause(of: Violation(rule: finding.rule, observed: observed, expected: "", witnesses: []))
    }

    private static func failing(_ first: RunRecord.FirstCase) -> FailingCase {
        FailingCase(
            index: first.index, identity: first.identity, scenario: first.identity.scenario(),
            violation: first.violation)
    }
}

/// The implementation a merged result speaks of: its name and the words that name it again on a
/// command line, as the shards recorded them. Nothing is run on it.
struct RecordedImplementation: Implementation {
    let name: String
    let replayArguments: [String]
    let launch: DriverLaunch?
    var capabilities: [Observation] { [] }
    var isDeterministic: Bool { name == "reference" }
    init(record: RunRecord) {
        name = record.impl
        replayArguments = record.implArguments
        launch = record.driver
    }
    func run(_ scenario: Scenario, scheduleSeed: UInt64) -> Trace {
        // A merged result is reports only: nothing asks it to run a case.
        Trace(impl: name, scheduleSeed: scheduleSeed, capabilities: [], events: [])
    }
}

extension String {
    fileprivate func ifEmpty(_ other: String) -> String { isEmpty ? other : self }
}
