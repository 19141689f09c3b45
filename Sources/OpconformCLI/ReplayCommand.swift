import Conformance
import ConformanceReports
import Foundation
import OperationSpec
import ReferenceEngine

/// `opconform replay FILE | --seed S`: re-runs one case and prints its trace and verdict.
/// FILE is a scenario or a finding written by `run`. A finding's case seed is regenerated and
/// compared with the stored scenario's hash: if the generator changed, replay says so and runs
/// the stored (minimised) scenario anyway.
enum ReplayCommand {
    static func run(_ input: Arguments, _ console: Console) throws -> Int32 {
        func print(_ s: String) { console.out(s + "\n") }
        var input = input
        // What replay has to say about a finding goes to standard output, or to standard error
        // when standard output carries JSON.
        var note: (String) -> Void = print
        let args = try input.parse()
        if args.flags.contains("--help") { print(Help.replay); return 0 }
        if args.flags.contains("--json") { note = { console.err($0 + "\n") } }
        // Options first, so a typo in one is reported before any file is read.
        if let path = args.options["--trace"] { try RunCommand.writable(file: path) }
        let profile = try args.profile()
        let faults = try args.faults()
        let checks = try args.rules()
        var replay: ReplayCase
        if let caseSeed = args.options["--seed"] {
            replay = try regeneratedCase(caseSeed, args, profile: profile, faults: faults)
        } else {
            replay = try storedCase(args, profile: profile, faults: faults, note: note)
        }
        var limits = try args.limits()
        if let n = replay.foundNoise { limits.noise = n }
        let impl = try implementation(for: replay, args, limits: limits)
        replay.fitRegenerated(to: impl)
        if let sanitizer = try args.sanitizer() ?? replay.foundSanitizer { try args.sanitize(impl, with: sanitizer) }
        if let why = impl.refusal(of: replay.scenario) { throw InputError("replay: \(why)") }
        let seed = try args.seed("--schedule-seed", default: replay.seed)
        let trace = impl.run(replay.scenario, scheduleSeed: seed)
        let file = TraceFile(scenario: replay.scenario, trace: trace)
        if let path = args.options["--trace"] {
            try RunCommand.write(String(decoding: TraceFormat.encode(file), as: UTF8.self), to: path)
        }
        let label =
            "\(impl.name), schedule seed \(seed), profile \(replay.profile.rawValue)"
            + (replay.faults.isEmpty ? "" : ", faults " + replay.faults.map(\.rawValue).joined(separator: ","))
        let html = args.options["--html"].map {
            HTMLTarget(
                dir: $0, source: args.positionals.first ?? "case seed \(args.options["--seed"] ?? "")", input: input)
        }
        return try verdict(
            on: file, label: label, profile: replay.profile, checks: checks, json: args.flags.contains("--json"),
            strict: args.flags.contains("--strict"),
            recorded: replay.recorded, html: html, note: note, console: console)
    }

    /// The case replay runs, and what the finding it came from says to run it with.
    private struct ReplayCase {
        var scenario: Scenario
        var seed: UInt64
        var profile: Profile
        var faults: [Fault]
        var implName: String
        /// The rule the finding broke, when the case is a finding's.
        var recorded: String?
        /// The driver a finding was found with, when it was started by path.
        var launch: DriverLaunch?
        /// The timing noise a finding was found under, applied unless --noise says otherwise.
        var foundNoise: Int?
        var foundSanitizer: Sanitizer?
        /// The case `--seed` regenerates: it is built again once the implementation is known,
        /// for one with a subclass of its own (its asynchronous operations are instances of it).
        var regenerated: CaseIdentity?

        /// A case run on `--impl` (the reference when none is given), with the options' profile and faults.
        init(scenario: Scenario, seed: UInt64, profile: Profile, faults: [Fault], _ args: Arguments) {
            self.scenario = scenario
            self.seed = seed
            self.profile = profile
            self.faults = faults
            implName = args.options["--impl"] ?? "reference"
        }

        /// Builds a case named by its seed again as a run on `impl` builds it.
        /// That is with its subclass, and with API surface 2 when it performs it.
        mutating func fitRegenerated(to impl: any Implementation) {
            guard var identity = regenerated else { return }
            let subclass = impl.subclass != nil, surface2 = impl.capabilities.contains(.apiSurface2)
            if (subclass && !identity.options.subclass) || (surface2 && !identity.options.surface2) {
                identity.options.subclass = identity.options.subclass || subclass
                identity.options.surface2 = identity.options.surface2 || surface2
                scenario = identity.scenario()
            }
        }
    }

    /// Regenerates the case `--seed` names, with the generator options given.
    private static func regeneratedCase(
        _ caseSeed: String, _ args: Arguments, profile: Profile, faults: [Fault]
    ) throws(InputError) -> ReplayCase {
        guard args.positionals.isEmpty else { throw InputError("replay takes a file or --seed, not both") }
        var options = try args.generatorOptions()
        options.splitMisuse = args.flags.contains("--split-misuse")
        // Said, not inferred, as the split is: a run with --no-reach made version 2's cases on
        // a driver that gets the episodes by default.
        options.reach = args.flags.contains("--reach")
        let identity = CaseIdentity(
            caseSeed: try args.seed("--seed", default: UInt64(caseSeed) ?? 0), options: options)
        var replay = ReplayCase(
            scenario: identity.scenario(), seed: identity.scheduleSeed, profile: profile, faults: faults, args)
        replay.regenerated = identity
        return replay
    }

    /// Reads the case from the one file given: a finding, or a plain scenario run with schedule seed 1.
    private static func storedCase(
        _ args: Arguments, profile: Profile, faults: [Fault], note: (String) -> Void
    ) throws -> ReplayCase {
        guard args.positionals.count == 1 else {
            throw InputError(
                "replay needs one scenario or finding file, or --seed S; given \(args.positionals.count) files")
        }
        let path = args.positionals[0]
        if args.flags.contains("--split-misuse") {
            throw InputError("replay: --split-misuse applies to --seed only; a file carries its own case")
        }
        if args.flags.contains("--reach") {
            throw InputError("replay: --reach applies to --seed only; a file carries its own case")
        }
        for option in ["--size", "--misuse-rate", "--flaw-rate", "--flaws", "--focus"]
        where args.options[option] != nil {
            throw InputError("replay: \(option) applies to --seed only; a file carries its own case")
        }
        if let finding = try loadFinding(path) {
            return try findingCase(finding, path: path, args, profile: profile, faults: faults, note: note)
        }
        let scenario = try JSONCodec.loadScenario(at: path)
        return ReplayCase(scenario: scenario, seed: 1, profile: profile, faults: faults, args)
    }

    /// Takes a finding's case, and the profile, faults, sanitizer, noise and driver it was found with.
    /// An option given on the command line wins over the finding's.
    private static func findingCase(
        _ finding: Finding, path: String, _ args: Arguments, profile: Profile, faults: [Fault],
        note: (String) -> Void
    ) throws(InputError) -> ReplayCase {
        note(
            "finding: \(finding.rule) on \(finding.impl), case \(finding.caseIndex) of run seed "
                + "\(finding.runSeed), case seed \(finding.identity.caseSeed)"
        )
        let original = args.flags.contains("--original")
        noteRegeneration(of: finding, original: original, note: note)
        var replay = ReplayCase(
            scenario: original ? finding.identity.scenario() : finding.scenario,
            seed: original ? finding.identity.scheduleSeed : finding.scheduleSeed,
            profile: profile, faults: faults, args)
        replay.recorded = finding.rule
        if args.options["--profile"] == nil { replay.profile = finding.profile }
        if args.options["--fault"] == nil && !args.flags.contains("--no-faults") { replay.faults = finding.faults }
        if args.options["--sanitize"] == nil, let sanitizer = finding.sanitizer {
            replay.foundSanitizer = sanitizer
            let article = sanitizer == .address ? "an" : "a"
            note(
                "the finding is \(article) \(sanitizer.rawValue) sanitizer's report: replaying with --sanitize "
                    + "\(sanitizer.rawValue)"
            )
        }
        if args.options["--noise"] == nil, let n = finding.noise {
            replay.foundNoise = n
            note("the finding was found under timing noise \(n): replaying with --noise \(n)")
        }
        if args.options["--impl"] == nil {
            replay.implName = finding.impl
            replay.launch = finding.driver
            if replay.launch != nil && !args.values("--driver-arg").isEmpty {
                throw InputError(
                    "replay: \(path) names its driver and its arguments; --driver-arg "
                        + "goes with --impl exec:PATH"
                )
            }
        }
        return replay
    }

    /// Says whether the finding's case seed still regenerates the case that failed.
    /// It warns when the generator changed, and says which case runs then.
    private static func noteRegeneration(of finding: Finding, original: Bool, note: (String) -> Void) {
        let runs =
            original
            ? "running the regenerated case, which is not the one that failed" : "running the stored scenario"
        if !ScenarioGenerator.rebuilds(
            version: finding.identity.generatorVersion, options: finding.identity.options)
        {
            note(
                "warning: the finding was generated by generator v\(finding.identity.generatorVersion), this "
                    + "is v\(ScenarioGenerator.version): case seed \(finding.identity.caseSeed) no longer "
                    + "rebuilds it; \(runs)"
            )
        } else if ScenarioHash.of(finding.identity.scenario()) != finding.originalHash {
            note(
                "warning: case seed \(finding.identity.caseSeed) no longer regenerates the stored case (hash "
                    + "\(finding.originalHash)): the generator changed; \(runs)"
            )
        } else {
            note(
                "case seed \(finding.identity.caseSeed) still regenerates the original case (hash "
                    + "\(finding.originalHash))"
            )
        }
    }

    /// Starts the implementation the case runs on: the finding's driver by path, or one by name.
    private static func implementation(
        for replay: ReplayCase, _ args: Arguments, limits: DriverLimits
    ) throws -> any Implementation {
        if let launch = replay.launch {
            // A command read from a file runs only with the user's consent (the README's security note).
            try DriverConsent.check(
                launch, namedIn: args.positionals[0], trusted: args.flags.contains(DriverConsent.trustOption))
            guard FileManager.default.isExecutableFile(atPath: launch.executable) else {
                throw InputError(
                    "replay: the finding was found with the driver \(launch.executable), which is not there (or not "
                        + "executable) on this machine; name it with --impl exec:PATH"
                )
            }
            return try Implementations.external(launch, limits: limits)
        }
        return try Implementations.make(
            replay.implName, profile: replay.profile, faults: replay.faults, driver: CLI.driverCommand,
            driverArguments: args.values("--driver-arg"), limits: limits)
    }

    /// `--html DIR` of replay and check: where `verdict` draws the trace, what it came from, and
    /// the command that made the page (the line on it, without `--html`).
    struct HTMLTarget {
        var dir: String
        var source: String
        var replayLine: String
        init(dir: String, source: String, input: Arguments) {
            self.dir = dir
            self.source = source
            replayLine = CLI.replayProgram + " " + ShellWords.join(input.commandLine(without: "--html"))
        }
    }

    /// Judges one trace and prints it as `replay` does (every event, then the verdict), or as
    /// a replay report with `json`; returns the exit status. `check` judges a trace file with it.
    /// With `html`, it also draws the trace as a page, the run's own crash or hang (RUN-CRASH,
    /// RUN-HANG) among its violations, and says where (`note`).
    static func verdict(
        on file: TraceFile, label: String, profile: Profile, checks: [RuleCheck], json: Bool, strict: Bool,
        recorded: String?, html: HTMLTarget? = nil, note: (String) -> Void, console: Console
    ) throws(InputError) -> Int32 {
        func print(_ s: String) { console.out(s + "\n") }
        let (scenario, trace) = (file.scenario, file.trace)
        // A trace whose driver broke the protocol is not judged (Specs/driver-protocol.md).
        let verdicts =
            trace.ending == .breach
            ? [] : RuleBook.verdicts(scenario: scenario, trace: trace, profile: profile, rules: checks)
        let violations = verdicts.flatMap { v -> [Violation] in
            if case .checked(let r) = v.verdict { return r.violations }; return []
        }
        let reached = verdicts.filter {
            if case .checked(let r) = $0.verdict { return r.hits > 0 }; return false
        }.count
        // As a run counts it: a case that reached no rule proved nothing (a driver that says
        // `end` without running anything), so it gives no verdict rather than a pass.
        let provedNothing = trace.ending != .breach && reached == 0 && ShrinkTarget.death(of: trace).isEmpty
        if let html {
            let page = try HTMLReport.write(
                replay: scenario, trace: trace, violations: violations + ShrinkTarget.death(of: trace),
                profile: profile,
                source: html.source, replayLine: html.replayLine, to: html.dir)
            note("html: \(page)")
        }
        if json {
            console.out(
                String(decoding: ReplayReport.encode(file, profile: profile, violations: violations), as: UTF8.self))
        } else {
            for e in trace.events { print(e.description) }
            print("")
            print(
                "\(scenario.name): \(label), \(scenario.operations.count) operations, \(trace.events.count) events, "
                    + "ended \(trace.ending.rawValue)"
            )
            print("\(checks.count) rules checked, \(reached) reached, \(violations.count) violations")
            for v in violations {
                print(v.description)
                if let rule = RuleBook.check(id: v.rule)?.rule, rule.severity == .warning {
                    let article = rule.strength == .observedOnly ? "an" : "a"
                    print(
                        "    (a warning: \(rule.id) is \(article) \(rule.strength.rawValue) rule; it "
                            + "fails only with --strict)"
                    )
                }
            }
            if case .hang(let what)? = trace.events.last?.kind { print("the run hung: \(what)") }
            if case .breach(let what)? = trace.events.last?.kind {
                print("NO VERDICT: the driver broke the protocol: \(what)")
            }
            if provedNothing { print("NO VERDICT: no rule was reached: nothing was checked") }
        }
        if let rule = recorded {
            let again = Finding.pseudoEnding(rule) != nil ? ShrinkTarget.death(of: trace).contains { $0.rule == rule }
                : violations.contains { $0.rule == rule }
            note(again ? "\(rule) broke again" : "\(rule) did not break on this run")
        }
        // A crash or a hang is a failure as `run` counts it (RUN-CRASH, RUN-HANG), though no
        // rule of the catalog says so.
        if trace.ending == .breach || provedNothing { return 4 }
        // A broken rule that only warns (a documented example, advice, observed only) fails the
        // replay only under --strict, as it fails a run.
        let failing = violations.filter { strict || Finding.severity(of: $0.rule) == .failure }
        return failing.isEmpty && ShrinkTarget.death(of: trace).isEmpty ? 0 : 1
    }

    /// The finding in `path` (format 1 to 3, `FindingFile`), or nil when the file is a plain
    /// scenario.
    static func loadFinding(_ path: String) throws(InputError) -> Finding? {
        let data = try JSONCodec.readFile(at: path)
        guard JSONCodec.looksLikeFinding(data) else { return nil }
        let finding = try FindingFile.decode(data, source: path)
        if let problem = finding.scenario.problems().first { throw InputError("\(path): \(problem)") }
        return finding
    }
}
