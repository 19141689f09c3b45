import Foundation
import OperationDriverKit
import OperationSpec
import ReferenceEngine

/// A rule broken by a generated case, minimised, with everything needed to reproduce it months
/// later on another machine. Written as JSON next to the run (`--out`), read by `replay FILE`
/// (`FindingFile`: `fileData` writes one, `JSONCodec.decode(Finding.self, ...)` reads one).
///
/// Encodable only: a finding of format 3 holds its scenario in format 2, which the synthesized
/// decoder cannot read, so reading goes through `FindingFile`, never through `Decodable`.
public struct Finding: Sendable, Encodable, Equatable {
    /// 1: a built-in implementation. 2: adds `driver`, the command of a driver the harness
    /// started by path (`--impl exec:PATH`). 3: the scenario is in scenario format 2 (the one
    /// people write by hand), with or without a driver. 4: every seed of the finding's own
    /// fields (`runSeed`, `scheduleSeed`, `identity.caseSeed`) is a string (`SeedText`). Every
    /// finding is written as 4; 1 to 3 are still read (`opconform convert` rewrites them), and a
    /// reader refuses anything newer.
    public static let formatVersion = 4
    public static let newestFormat = 4
    /// Pseudo-rules for runs that died or stalled: not in the catalog, reported like rules.
    public static let crashRule = RuleID.runCrash, hangRule = RuleID.runHang
    /// The pseudo-rule for a case whose driver broke the protocol (a trace ending `breach`):
    /// the driver's fault, not the implementation's; a run with one gives no verdict.
    public static let protocolRule = RuleID.driverProtocol
    /// Pseudo-rules for a driver built with a sanitizer that stopped it (issue 30): a data race
    /// ThreadSanitizer saw, a memory error AddressSanitizer saw. Observed, not from the
    /// documents; each fails a run as RUN-CRASH does, and is a crash of its own kind, so a run
    /// tells it apart from a trap and shrinks it to the same report.
    public static let dataRaceRule = RuleID.dataRace, memoryErrorRule = RuleID.memoryError
    /// The pseudo-rules, each with the trace ending that shows it.
    public static let pseudoRules: [(id: String, ending: Trace.Ending)] = [
        (crashRule, .crash), (dataRaceRule, .crash), (memoryErrorRule, .crash), (hangRule, .hang),
        (protocolRule, .breach)
    ]
    /// The trace ending a pseudo-rule stands for; nil for a rule of the catalog.
    public static func pseudoEnding(_ rule: String) -> Trace.Ending? { pseudoRules.first { $0.id == rule }?.ending }
    /// The format the finding was read in (1 to 3), or 3 for one made by this build. Whatever
    /// it says, a finding is written in the newest format.
    public var format = Finding.formatVersion
    public var rule: String
    /// The violation on the minimised scenario.
    public var message: String
    public var impl: String
    /// The command that started the implementation's driver (absolute executable path first,
    /// then its arguments), when it was started by path rather than by a built-in name: replay
    /// starts the same driver again.
    public var driver: DriverLaunch?
    public var profile: Profile
    public var faults: [Fault]
    public var runSeed: UInt64
    public var caseIndex: Int
    public var identity: CaseIdentity
    /// The generated scenario's hash: if the generator no longer rebuilds it, replay says so.
    public var originalHash: String
    public var originalOperations: Int
    /// The minimised scenario and the schedule seed under which it breaks the rule.
    public var scenario: Scenario
    public var scheduleSeed: UInt64
    /// For a nondeterministic implementation: in how many of `attempts` runs the minimised
    /// scenario broke the rule (1 of 1 on the reference engine).
    public var reproduced: Int
    public var attempts: Int
    public var shrinkSteps: Int
    /// The shrinker's budget ran out: a smaller case may exist.
    public var shrinkExhausted: Bool
    /// A measurement, so not part of the file: finding files are the same bytes on every run.
    public var shrinkMilliseconds: Int = 0
    /// The trace of the case that first showed the failure, as the run saw it (before any
    /// shrinking), with its scenario: not part of the finding's file but written beside it
    /// (`witnessFolder`, trace format 2, which `opconform check` judges again). A race seen
    /// once in 2,000 cases may never replay; its witness is then the only account of it.
    /// Not compared: a finding read back from its file has none, and is the same finding.
    public var witness: TraceFile? {
        get { witnessAside.value }
        set { witnessAside.value = newValue }
    }
    var witnessAside = Aside<TraceFile?>(value: nil)
    /// The minimum of another finding of the same run that this finding's shrink started from
    /// (`Shrinker.Hint`): that minimum, replayed, broke this rule too, so this finding may
    /// follow from the other's bug (`Story`). Not part of the file, and not compared.
    public var startedFrom: ShrinkHint? {
        get { startedFromAside.value }
        set { startedFromAside.value = newValue }
    }
    var startedFromAside = Aside<ShrinkHint?>(value: nil)
    /// True when the run was interrupted (SIGINT, SIGTERM) before this finding was fully
    /// shrunk: `scenario` is the smallest case confirmed so far (the failing case itself if
    /// shrinking had not begun), and `reproduced` is 1 of 1, the run that showed it. Absent
    /// otherwise, so findings of whole runs keep their bytes.
    public var interrupted: Bool?
    /// For a nondeterministic implementation: in how many of `attempts` runs the original,
    /// unminimised case broke the rule, measured before shrinking (issue 18). A minimum that
    /// replays less often than this is not kept (`Shrinker`), so `reproduced` is at least this
    /// unless the run was interrupted. Absent for a deterministic implementation (the reference
    /// engine: 1 of 1), so its findings keep their bytes.
    public var originalReproduced: Int?
    /// The timing noise the run asked its driver for (`--noise`, 1 to 3), so that `replay FILE`
    /// and the `--seed` line run the case as it was found; absent for none, so findings of quiet
    /// runs keep their bytes.
    public var noise: Int?
    /// The release of the harness that wrote the finding (`HarnessVersion`); absent in files
    /// written before 0.9.0, which keep their bytes.
    public var harness: String?
    /// The platform the tested code built on, and which of its parts were the tested code's:
    /// the driver's `hello` said so (`{"name": "foundation-linux", "owns": ["queue"]}`). Absent
    /// when the implementation is all one party's (a platform itself, or a driver's own model),
    /// so those findings keep their bytes. `export` reads it: a finding of a user's queue is
    /// exported to build that queue, not the platform's.
    public var platform: DriverProtocol.Platform?
    /// Accepted shrink steps given up because the smallest case replayed less often than the
    /// original (`Shrinker.Result.walkedBack`): 0 when the minimum held up. A measurement of the
    /// run that wrote the finding, like `shrinkMilliseconds`, so not part of the file.
    public var shrinkWalkedBack = 0

    enum CodingKeys: String, CodingKey, CaseIterable {
        case format, rule, message, impl, driver, profile, faults, runSeed, caseIndex, identity, originalHash,
            originalOperations
        case scenario, scheduleSeed, reproduced, attempts, originalReproduced, shrinkSteps, shrinkExhausted,
            interrupted, noise, harness, platform
    }

    /// "replays 4 of 5 (the original: 5 of 5)": how often the finding's scenario breaks the rule
    /// again, beside the original's rate when it was measured; nil for a finding of a
    /// deterministic implementation (one run decides, 1 of 1).
    public var replayRate: String? {
        guard attempts > 1 || originalReproduced != nil else { return nil }
        return "replays \(reproduced) of \(attempts)"
            + (originalReproduced.map { " (the original: \($0) of \(attempts))" } ?? "")
    }

    public var operations: Int { scenario.operations.count }

    /// Written in the newest format whatever `format` says (the fields as they are, the scenario
    /// as a format-2 tree, the seeds as strings), so a finding that passes through any encoder is a
    /// format-4 finding.
    public func encode(to encoder: Encoder) throws { try encode(to: encoder, scenarioAs: .format2) }

    /// How `encode(to:scenarioAs:)` writes the scenario: as a format-2 tree (a finding file), in
    /// the synthesized form of format 1 (to compare the keys of an old file with), or not at all
    /// (the fields alone, whose keys `FindingFile` compares apart from the scenario's).
    enum ScenarioForm { case format2, synthesized, omitted }

    func encode(to encoder: Encoder, scenarioAs form: ScenarioForm) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Finding.formatVersion, forKey: .format)
        try c.encode(rule, forKey: .rule)
        try c.encode(message, forKey: .message)
        try c.encode(impl, forKey: .impl)
        try c.encodeIfPresent(driver, forKey: .driver)
        try c.encode(profile, forKey: .profile)
        try c.encode(faults, forKey: .faults)
        try c.encode(SeedText(wrappedValue: runSeed), forKey: .runSeed)
        try c.encode(caseIndex, forKey: .caseIndex)
        try c.encode(identity, forKey: .identity)
        try c.encode(originalHash, forKey: .originalHash)
        try c.encode(originalOperations, forKey: .originalOperations)
        switch form {
        case .format2: try c.encode(ScenarioEncoder.value(scenario), forKey: .scenario)
        case .synthesized: try c.encode(scenario, forKey: .scenario)
        case .omitted: break
        }
        try c.encode(SeedText(wrappedValue: scheduleSeed), forKey: .scheduleSeed)
        try c.encode(reproduced, forKey: .reproduced)
        try c.encode(attempts, forKey: .attempts)
        try c.encodeIfPresent(originalReproduced, forKey: .originalReproduced)
        try c.encode(shrinkSteps, forKey: .shrinkSteps)
        try c.encode(shrinkExhausted, forKey: .shrinkExhausted)
        try c.encodeIfPresent(interrupted, forKey: .interrupted)
        try c.encodeIfPresent(noise, forKey: .noise)
        try c.encodeIfPresent(harness, forKey: .harness)
        try c.encodeIfPresent(platform, forKey: .platform)
    }

    /// The bytes of this finding's file: format 4, in the style of scenario files (sorted keys,
    /// two spaces, `"key": value`). What every writer of a finding file should write.
    public var fileData: Data { FindingFile.encode(self) }

    /// The line to paste: `program` is how the user starts opconform where they are
    /// (`ReplayProgram`), the file is the finding, and a seed line names the implementation as
    /// the run did (`--impl exec:PATH` for a driver started by path).
    public func replayLine(file: String?, program: String = ReplayProgram.default) -> String {
        if let file { return "\(program) replay \(ShellWords.quote(file))" }
        let implArguments =
            (driver?.replayArguments ?? ["--impl", impl]) + (noise.map { ["--noise", String($0)] } ?? [])
            + (sanitizer.map { ["--sanitize", $0.rawValue] } ?? [])
        return Self.replayLine(
            identity: identity, implArguments: implArguments, profile: profile, faults: faults, program: program)
    }

    /// The line that regenerates a case from its seed and replays it.
    public static func replayLine(identity: CaseIdentity, implArguments: [String], profile: Profile, faults: [Fault],
                                  program: String = ReplayProgram.default) -> String {
        var line =
            "\(program) replay --seed \(identity.caseSeed) \(ShellWords.join(implArguments)) --size "
                + "\(identity.options.size)"
        if identity.options.misuseRate != GeneratorOptions().misuseRate {
            line += " --misuse-rate \(identity.options.misuseRate)"
        }
        if identity.options.flawRate != GeneratorOptions().flawRate {
            line += " --flaw-rate \(identity.options.flawRate)"
        }
        if let flaws = identity.options.flaws { line += " --flaws " + flaws.map(\.rawValue).joined(separator: ",") }
        if let focus = identity.options.focus { line += " --focus \(focus.rawValue)" }
        // Said, not inferred: a matrix runs an implementation without the split when another
        // column reports misuse as errors, so the implementation alone cannot tell.
        if identity.options.splitMisuse { line += " --split-misuse" }
        if identity.options.reach { line += " --reach" }
        if profile != .guide { line += " --profile \(profile.rawValue)" }
        for f in faults { line += " --fault \(f.rawValue)" }
        return line
    }

    /// The sanitizer whose report the finding is (DATA-RACE, MEMORY-ERROR): replaying it needs
    /// the driver run with that sanitizer's options (`opconform replay FILE` sets them itself).
    public var sanitizer: Sanitizer? {
        switch rule {
        case Self.dataRaceRule: return .thread
        case Self.memoryErrorRule: return .address
        default: return nil
        }
    }

    /// How a case of this pseudo-rule ended, for a count line ("ended in a crash", "ended in a
    /// thread sanitizer's report"); nil for a rule of the catalog.
    public var endingPhrase: String? {
        guard let ending = Self.pseudoEnding(rule) else { return nil }
        guard let sanitizer else { return "a \(ending.rawValue)" }
        return (sanitizer == .address ? "an " : "a ") + "\(sanitizer.rawValue) sanitizer's report"
    }

    /// A file name that says what is in it (faults included, so runs with different faults do
    /// not overwrite each other's findings).
    public var fileName: String {
        "\(rule)-\(identity.caseSeed)" + (faults.isEmpty ? "" : "-" + faults.map(\.rawValue).joined(separator: "+"))
            + ".json"
    }
    /// The folder, beside a run's finding files, that holds their witness traces (`witness`),
    /// each under its finding's file name: a glob of the run folder's `*.json` still finds only
    /// findings.
    public static let witnessFolder = "witnesses"
    /// The most events a kept witness may have. A polling livelock's case can hold 60,000
    /// events (6 MB of trace file, seconds to write in a debug build, once for each rule it
    /// broke); such a case is better read by replaying it, and the run's stop after a signal
    /// must stay within its 2 s.
    package static let witnessMaxEvents = 20_000
    /// `trace`, when it is small enough to keep as a witness (`witnessMaxEvents`).
    package static func keepsWitness(_ trace: Trace?) -> Trace? {
        guard let trace, trace.events.count <= witnessMaxEvents else { return nil }
        return trace
    }

    /// Every stored property, as the memberwise initializer took them (the module's own is internal).
    package init(
        format: Int = Finding.formatVersion, rule: String, message: String, impl: String, driver: DriverLaunch? = nil,
        profile: Profile, faults: [Fault], runSeed: UInt64, caseIndex: Int, identity: CaseIdentity,
        originalHash: String, originalOperations: Int, scenario: Scenario, scheduleSeed: UInt64, reproduced: Int,
        attempts: Int,
        shrinkSteps: Int, shrinkExhausted: Bool, shrinkMilliseconds: Int = 0, interrupted: Bool? = nil,
        originalReproduced: Int? = nil, noise: Int? = nil, harness: String? = nil,
        platform: DriverProtocol.Platform? = nil, shrinkWalkedBack: Int = 0
    ) {
        self.format = format
        self.rule = rule
        self.message = message
        self.impl = impl
        self.driver = driver
        self.profile = profile
        self.faults = faults
        self.runSeed = runSeed
        self.caseIndex = caseIndex
        self.identity = identity
        self.originalHash = originalHash
        self.originalOperations = originalOperations
        self.scenario = scenario
        self.scheduleSeed = scheduleSeed
        self.reproduced = reproduced
        self.attempts = attempts
        self.shrinkSteps = shrinkSteps
        self.shrinkExhausted = shrinkExhausted
        self.shrinkMilliseconds = shrinkMilliseconds
        self.interrupted = interrupted
        self.originalReproduced = originalReproduced
        self.noise = noise
        self.harness = harness
        self.platform = platform
        self.shrinkWalkedBack = shrinkWalkedBack
    }
}

extension Finding: CheckedInput {
    /// Every rule id a finding or an expectation may name: the catalog's, and the pseudo-rules.
    package static var knownRules: [String] { RuleBook.rules.map(\.id) + pseudoRules.map(\.id) }

    func inputProblem() -> InputError.FieldProblem? {
        guard (1...Self.newestFormat).contains(format) else {
            return .init(
                path: [.key("format")], what: "is \(format)",
                requirement: ", but this build reads finding formats 1 to \(Self.newestFormat)")
        }
        if format == 1 && driver != nil {
            return .init(path: [.key("driver")]) { _, at in
                "a finding that names a driver is format 2 or 3, not 1 (the driver is\(at.isEmpty ? " there" : at))"
            }
        }
        if caseIndex < 0 {
            return .init(
                path: [.key("caseIndex")], what: "is \(caseIndex)",
                requirement: ", but a case's index in its run is 0 or more")
        }
        if let n = noise, !(1...3).contains(n) {
            return .init(
                path: [.key("noise")], what: "is \(n)",
                requirement: ", but must be 1 to 3, a level of --noise (absent for none)")
        }
        if let o = originalReproduced, !(0...max(0, attempts)).contains(o) {
            return .init(
                path: [.key("originalReproduced")], what: "is \(o)",
                requirement: ", but must be 0 to attempts (\(attempts)): runs of the original that broke the rule")
        }
        return Self.ruleProblem(rule, at: [.key("rule")])
    }

    /// Why `id` at `path` is not a rule id, with the nearest known one; nil when it is one.
    static func ruleProblem(_ id: String, at path: [JSONPathSegment]) -> InputError.FieldProblem? {
        let known = knownRules
        guard !known.contains(id) else { return nil }
        let shown = "'" + JSONDiagnosis.oneLine(id, limit: 60) + "'"
        let others = pseudoRules.map(\.id).joined(separator: ", ")
        guard let nearest = nearest(to: id, among: known) else {
            return .init(
                path: path, what: "names an unknown rule \(shown)",
                requirement: "; 'opconform rules' lists the rules, and \(others) may be named too")
        }
        return .init(path: path, what: "names an unknown rule \(shown)", requirement: "; did you mean \(nearest)?")
    }

    /// The known id closest to `id` (edit distance, case aside), if it is close enough to be
    /// what was meant: at most a third of its letters differ.
    static func nearest(to id: String, among known: [String]) -> String? {
        let a = Array(id.uppercased())
        guard !a.isEmpty && a.count <= 100 else { return nil }
        var best: (id: String, distance: Int)?
        for candidate in known where !candidate.isEmpty {
            let d = KeySuggestion.distance(a, Array(candidate))
            if best == nil || d < best!.distance { best = (candidate, d) }
        }
        guard let best, best.distance <= max(2, best.id.count / 3) else { return nil }
        return best.id
    }
}

/// A value carried with another for its user, not part of what that value says: every two are
/// equal, so a type holding one keeps its synthesised `==` over the rest.
struct Aside<Value: Sendable>: Sendable, Equatable {
    var value: Value
    static func == (lhs: Self, rhs: Self) -> Bool { true }
}
