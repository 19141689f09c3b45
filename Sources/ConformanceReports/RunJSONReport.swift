import Conformance
import OperationSpec

/// `run --json FILE`: the output contract of `Specs/run-output.md`. Scripts depend on it.
public struct RunJSONReport: Codable, Sendable {
    public struct FindingEntry: Codable, Sendable {
        public var rule: String
        /// "failure" or "warning" (`Severity`): whether the finding fails the run without `--strict`.
        public var severity: String
        /// The rule's strength ("documented must", "documented example", …), or "run" for
        /// RUN-CRASH, RUN-HANG and DRIVER-PROTOCOL.
        public var strength: String
        public var message: String
        @SeedText public var caseSeed: UInt64
        public var caseIndex: Int
        public var replay: String
        public var scenarioFile: String?
        public var operations: Int
        public var originalOperations: Int
        public var reproduced: String
        /// On a nondeterministic implementation: the original case's replay rate, `k/n` over the
        /// same `n` as `reproduced` (issue 18). Absent on a deterministic one.
        public var originalReproduced: String?
        /// Accepted shrink steps given up because the smallest case replayed less often than the
        /// original. Absent when none were.
        public var shrinkWalkedBack: Int?
        public var shrinkMilliseconds: Int
        public var shrinkExhausted: Bool
        /// On an entry of `otherCauses` only: the cases that broke the rule this way.
        public var causeCases: Int?
        /// On a knock-on only (`Story`): the rule that leads its story, which the same case
        /// showed broken first. Absent on a story's root and on a finding that stands alone.
        public var knockOnOf: String?
    }
    /// 2: every seed is a string (`SeedText`); 1 (no `format` key): seeds were numbers.
    public var format = RunJSONReport.formatVersion
    public static let formatVersion = 2
    /// The release of the harness that made the report (`HarnessVersion`).
    public var harness: String
    public var impl: String
    public var profile: String
    public var faults: [String]
    @SeedText public var seed: UInt64
    public var cases: Int
    public var generatorVersion: Int
    public var generator: GeneratorOptions
    public var endings: [String: Int]
    public var rules: [RuleStatistics]
    public var findings: [FindingEntry]
    /// Further causes of the findings' rules, one entry each (issue 29), in finding order.
    /// Absent when there are none.
    public var otherCauses: [FindingEntry]?
    public var seconds: Double
    public var shrinkSeconds: Double
    /// CPU seconds of the case phase (not the shrinking), user plus system: the harness's
    /// process and its reaped drivers (`CPUTime`). Absent when the run did not measure it.
    public var cpuSeconds: CPUSeconds?
    public struct CPUSeconds: Codable, Sendable, Equatable {
        public var harness: Double
        public var drivers: Double
    }
    /// Why the run gave no verdict (exit 4), when it did not: absent otherwise.
    public var noVerdict: String?
    /// True when the run was interrupted (SIGINT, SIGTERM): `cases` were decided. Absent otherwise.
    public var interrupted: Bool?
    /// True when warnings fail the run (`--strict`). Absent otherwise.
    public var strict: Bool?
    /// Whether the run failed (exit 1): a failure, or under `--strict` any finding.
    public var failed: Bool

    public init(_ r: RunResult, files: [String: String]) {
        let c = r.configuration
        noVerdict = r.noVerdict
        interrupted = r.interrupted ? true : nil
        strict = c.strict ? true : nil
        failed = r.failed
        harness = HarnessVersion.current
        impl = c.impl.name
        profile = c.profile.rawValue
        faults = c.faults.map(\.rawValue)
        seed = c.seed
        cases = r.cases
        generatorVersion = ScenarioGenerator.version
        generator = c.generator
        endings = r.endings
        rules = r.statistics
        seconds = r.seconds
        shrinkSeconds = r.shrinkSeconds
        cpuSeconds = r.cpu.map { CPUSeconds(harness: $0.harnessSeconds, drivers: $0.driversSeconds) }
        // Story order: each root, then its knock-ons (issue 45), failures' stories first.
        findings = r.stories.flatMap { story in
            [Self.entry(story.root, file: files[story.root.rule], r)] + story.knockOns.map { k in
                var entry = Self.entry(k, file: files[k.rule], r)
                entry.knockOnOf = story.root.rule
                return entry
            }
        }
        otherCauses = r.otherCauses.isEmpty ? nil : r.otherCauses.map { other in
            var entry = Self.entry(other.finding, file: files[other.finding.fileName], r)
            entry.causeCases = other.cases
            return entry
        }
    }

    static func entry(_ f: Finding, file: String?, _ r: RunResult) -> FindingEntry {
        FindingEntry(
            rule: f.rule, severity: f.severity.rawValue, strength: f.strengthLabel, message: f.message,
            caseSeed: f.identity.caseSeed, caseIndex: f.caseIndex,
            replay: f.replayLine(file: file, program: r.configuration.replayProgram), scenarioFile: file,
            operations: f.operations,
            originalOperations: f.originalOperations, reproduced: "\(f.reproduced)/\(f.attempts)",
            originalReproduced: f.originalReproduced.map { "\($0)/\(f.attempts)" },
            shrinkWalkedBack: f.shrinkWalkedBack > 0 ? f.shrinkWalkedBack : nil,
            shrinkMilliseconds: f.shrinkMilliseconds, shrinkExhausted: f.shrinkExhausted)
    }
}
