import Dispatch
import Foundation
import OperationSpec
import ReferenceEngine
import Synchronization

/// What a run is asked to do.
public struct RunConfiguration: Sendable {
    public var impl: any Implementation
    public var profile: Profile
    public var faults: [Fault]
    public var seed: UInt64
    public var count: Int
    public var generator: GeneratorOptions
    public var rules: [RuleCheck]
    public var shrink: Bool
    /// Attempts per shrink candidate on a nondeterministic implementation.
    public var attempts: Int?
    /// Stop at the first case that breaks a rule whose breaking fails the run (for "is this bug
    /// caught, and how soon").
    package var stopAtFirstFailure = false
    /// Stop (with `stopAtFirstFailure`) only at a case that breaks one of these rules, and shrink
    /// only their findings (nil: any rule whose breaking fails the run, and every finding). A
    /// flaw probe waits for its flaw's rules: a hang the implementation has anyway
    /// (Foundation's known RUN-HANG) must neither end it nor cost it a shrink.
    package var stopRules: [String]?
    /// Guided generation (`Guidance`, `--guide`): every other case of each round after the
    /// first leans towards the parts of the API that reach the rules reached least so far.
    package var guided = false
    /// Warnings fail the run too (`--strict`): a broken documented example, piece of advice or
    /// observed-only rule (`Severity.warning`) counts as a failure.
    public var strict = false
    /// Cases run at once. Cases are folded into the result in index order whatever finishes
    /// first, so the result (statistics, first failures, findings) does not depend on it.
    public var jobs = 1
    /// The jobs a run of `impl` uses when none is asked for. The reference engine keeps a core
    /// busy for the whole of a case: one job per core. A case of the built-in drivers (Foundation,
    /// GNUstep) mostly waits (units of `work`, rendezvous, a stall window of half a second on a
    /// hang) and costs the machine some 14 ms of CPU in a session (protocol 3), so sixteen per
    /// core keep the cores busy: on 2 cores, 200 Foundation cases took 18.7 s with 2 jobs and
    /// 3.0 s with 16 (one process per case); 400 in sessions took 6.1 s with 16 and 4.2 s with 32
    /// (issue 16). At most 64.
    /// A driver named by path costs what it costs: the Python example took 110 ms of CPU a
    /// case in a process of its own (about 10 ms in sessions since issue 45), and 32 of its cases
    /// at once on 2 cores starved its rendezvous windows (a false BLOCK-CONCURRENT in a gate of
    /// 100 cases). It gets one job per core, as before issue 16; `--jobs` raises it for a driver
    /// known to be light.
    package static func defaultJobs(
        for impl: any Implementation, cores: Int = ProcessInfo.processInfo.activeProcessorCount
    ) -> Int {
        impl is ChildProcessImplementation && impl.launch == nil ? min(64, 16 * max(1, cores)) : max(1, cores)
    }
    /// Run only the cases whose index is `shard.index` modulo `shard.count` (CI machines split a
    /// run; the shards' cases together are the whole run's).
    public var shard = Shard.whole
    /// How replay lines start opconform where the user is (`ReplayProgram`).
    public var replayProgram = ReplayProgram.default
    /// Set to stop the run early (SIGINT at the command line): see `StopRequest`.
    public var stop: StopRequest?
    /// Known divergences (of the platform the tested code builds on, and a gate's own): a
    /// violation one of them excuses (`Attribution`) is counted apart, reported as known,
    /// never shrunk, and fails nothing; every other one is the tested code's.
    public var known: Expectations?
    /// Where `known` came from, for the report (a file's path, or the platform's file).
    public var knownSource: String?
    /// Why the run follows `profile`, when it was not asked for (the report's header says it).
    public var profileReason: String?
    /// Minima found by earlier runs on this implementation (the last run's folder, an
    /// expectations file's findings), offered to the shrinker after this run's own: a failure
    /// found again starts from its old minimum instead of shrinking from scratch (issue 31).
    /// Used on a nondeterministic implementation only, whose minima vary from run to run anyway;
    /// the reference engine's findings stay the same bytes for the same seed.
    package var earlierMinima: [Shrinker.Hint] = []

    public init(
        impl: any Implementation, profile: Profile = .guide, faults: [Fault] = [], seed: UInt64 = 1, count: Int = 100,
        generator: GeneratorOptions = GeneratorOptions(), rules: [RuleCheck] = RuleBook.all, shrink: Bool = true,
        attempts: Int? = nil
    ) {
        self.impl = impl
        self.profile = profile
        self.faults = faults
        self.seed = seed
        self.count = count
        // An implementation with a subclass of its own is tested through it.
        self.generator = generator
        if impl.subclass != nil { self.generator.subclass = true }
        // A driver that performs API surface 2 is given it to perform.
        if impl.capabilities.contains(.apiSurface2) { self.generator.surface2 = true }
        // An implementation that cannot report misuse as an error dies of the first: each misuse
        // case then misuses once, early or late, so that the late misuse is reached at all.
        if !impl.capabilities.contains(.thrownErrors) { self.generator.splitMisuse = true }
        // A user's subclass or queue is taken down the paths a first run used to miss (issue 44).
        if GeneratorOptions.reaches(impl) { self.generator.reach = true }
        self.rules = rules
        self.shrink = shrink
        self.attempts = attempts
    }
}

/// The first failing case of a rule, before shrinking.
public struct FailingCase: Sendable {
    public var index: Int
    public var identity: CaseIdentity
    public var scenario: Scenario
    public var violation: Violation
    /// The trace the run saw, for the first case of a finding: the witness as it happened, kept
    /// beside the finding (`Finding.witness`) because a rare failure may never show again.
    public var witness: Trace? = nil
}

/// A rule broken in a run only in ways a known divergence excuses: reported apart, as the
/// platform's, with its first case (not shrunk: the entry's finding is the minimum).
public struct KnownDivergence: Sendable {
    public var rule: String
    /// The entry that excused the first case.
    public var entry: Expectations.Entry
    /// Cases that broke the rule this way.
    public var cases: Int
    public var first: FailingCase
    /// Whose divergence: the platform the tested code builds on, or the expectations' impl.
    public var owner: String
}

/// A rule broken in a run only by violations that rest on absence or time and did not show
/// again when their cases were run with patience (`Confirmation`): reported with its first
/// case and how often, failing the run only under `--strict`.
public struct UnconfirmedFinding: Sendable {
    public var rule: String
    public var cases: Int
    public var first: FailingCase
}

/// What a run found.
public struct RunResult: Sendable {
    public var configuration: RunConfiguration
    public var statistics: [RuleStatistics]
    /// The tested code's failures and warnings, one a rule (and a crash, a hang, a breach).
    public var findings: [Finding]
    /// Rules broken only in ways known divergences excuse, in catalog order, then crashes and
    /// hangs.
    public var known: [KnownDivergence] = []
    /// Rules (and RUN-HANG) broken only in ways a patient run did not confirm, in catalog order.
    public var unconfirmed: [UnconfirmedFinding] = []
    /// The tested code's failures of a rule that `findings` does not show, one per further
    /// cause (`CauseGroups`), in finding order: each shrunk, and counted.
    public var otherCauses: [OtherCause] = []
    /// Cases that died each way the tested code's (RUN-CRASH, DATA-RACE, MEMORY-ERROR, RUN-HANG,
    /// DRIVER-PROTOCOL), by pseudo-rule; looked up only.
    public var deathCases: [String: Int] = [:]
    public var endings: [String: Int]
    /// The first case cut short (`Trace.Ending.truncated`) and why, when one was.
    package var firstCut: (index: Int, why: String)?
    /// Cases run: the configured count, or fewer when stopping at the first failure.
    public var cases: Int
    public var seconds: Double
    public var shrinkSeconds: Double
    /// The CPU the case phase used: the harness's own and its reaped drivers' (`CPUTime`). Not
    /// the shrinking after the cases; the shrinks begun beside them are in it (`shrunkBesideCases`).
    public var cpu: CPUTime?
    /// Shrinks begun while the cases ran (`EarlyShrinks`): 0 on the reference engine, with
    /// `--jobs 1`, or when no case failed.
    public var shrunkBesideCases = 0
    /// The run was stopped early (`RunConfiguration.stop`): `cases` says how many were decided,
    /// and findings not fully shrunk say so (`Finding.interrupted`).
    public var interrupted = false
    /// Whether the run fails: a must-rule broken, a crash, a hang, or a driver that broke the
    /// protocol; under `--strict` (`RunConfiguration.strict`) a warning too.
    public var failed: Bool {
        (configuration.strict ? !findings.isEmpty || !unconfirmed.isEmpty : !failures.isEmpty) || !exceededRates.isEmpty
    }

    /// Known divergences this run excused far more often than their entry's measured rate
    /// allows (`Expectations.Rate.bound`, the gate's test): a frequent defect of the tested code
    /// may hide behind a rare flake's entry, so `run` fails on them as `gate` does (issue 42).
    package var exceededRates: [(entry: Expectations.Entry, seen: Int, bound: Int)] {
        guard let known = configuration.known else { return [] }
        return known.expected.compactMap { entry in
            guard let rate = entry.rate else { return nil }
            let seen = self.known.filter { $0.entry == entry }.map(\.cases).reduce(0, +)
            let bound = rate.bound(cases: cases)
            return seen > bound ? (entry, seen, bound) : nil
        }
    }
    /// Findings that fail the run whatever `--strict` says.
    public var failures: [Finding] { findings.filter { $0.severity == .failure } }
    /// Findings of rules that are documented examples, advice or observed only: reported, and
    /// failing the run only under `--strict`.
    public var warnings: [Finding] { findings.filter { $0.severity == .warning } }

    /// Why the run gives no verdict on the implementation, if it does not: its driver broke the
    /// protocol in some case (those cases were not judged, and the driver's account of the
    /// others is in doubt), a case was cut short and nothing failed elsewhere, or no rule was
    /// reached at all (nothing was checked). Such a run
    /// must never pass a gate: `run` and `gate` exit 4.
    public var noVerdict: String? {
        if let breaches = endings[Trace.Ending.breach.rawValue], breaches > 0 {
            let first = findings.first { $0.rule == Finding.protocolRule }
            return "the driver broke the protocol in \(breaches) of \(cases) cases, which were not judged"
                + (first.map {
                    "; first in case \($0.caseIndex): "
                        + ($0.message.components(separatedBy: "; required: ").first ?? $0.message)
                } ?? "")
                + (configuration.impl.launch.map {
                    "; 'opconform driver-check \(ShellWords.quote($0.executable))' checks the driver"
                } ?? "")
        }
        // A case cut short (the machine could not run it, or it asked more of the machine than a
        // case may) was not judged: a green over it would claim cases nobody checked (issue 43).
        // A failure found in another case stands: the cut takes nothing from it.
        if let cut = endings[Trace.Ending.truncated.rawValue], cut > 0, failures.isEmpty {
            return "\(cut) of \(cases) cases were cut short and not judged"
                + (firstCut.map { "; first in case \($0.index): \($0.why)" } ?? "")
        }
        if findings.isEmpty && !statistics.contains(where: { $0.status == .pass || $0.broken }) {
            return "no rule was reached in \(cases) cases: nothing was checked"
                + (statistics.count < RuleBook.all.count
                    ? " (--rules chose \(statistics.count); try more cases or other rules)" : "")
        }
        return nil
    }
}

/// Runs generated cases on an implementation, checks every rule, and shrinks the first failure
/// of each broken rule. Progress is reported through a callback so the console stays outside.
public struct Runner: Sendable {
    public let configuration: RunConfiguration
    public init(_ configuration: RunConfiguration) { self.configuration = configuration }

    /// Runs the cases and shrinks what they found, in three phases a reader can find by name:
    /// the cases (`foldCases`: each run, checked, attributed and confirmed by the case pipeline,
    /// then folded in index order into a `CaseFold`), the shrinking of each broken rule's first
    /// case (`shrinkFirstFailures`) and of its further causes (`shrinkOtherCauses`), and the
    /// result (`CaseFold.result`). Reports are written by the caller, from the result.
    public func run(progress: (Int, Int, Int) -> Void = { _, _, _ in },
                    record: (CaseRecord) -> Void = { _ in },
                    shrinking: (String) -> Void = { _ in }) -> RunResult {
        let c = configuration
        let clock = ContinuousClock()
        let start = clock.now
        let cpuAtStart = CPUTime.now()
        // This run's minima first, then earlier runs' (`earlierMinima`): the hints of every shrink.
        let earlier = c.impl.isDeterministic ? [] : c.earlierMinima
        let early = EarlyShrinks.apply(to: c)
            ? EarlyShrinks(runner: self, workers: Self.shrinkWorkers(c, findings: .max), hints: earlier) : nil
        var fold = CaseFold(runner: self, early: early)
        let (cases, interrupted) = foldCases(into: &fold, progress: progress, record: record)
        fold.settleStatistics()
        // Drivers still waiting for a case are ended first: a child's CPU is counted once it is
        // reaped. The shrinker starts its own.
        c.impl.endSessions()
        let mid = clock.now
        let cpu = CPUTime.now() - cpuAtStart
        let shrunkBeside = early?.begunSoFar ?? 0
        var shrinks = Shrinks(earlier: earlier)
        shrinkFirstFailures(fold.firstFailures(), early: early, into: &shrinks, shrinking: shrinking)
        let others =
            c.stopAtFirstFailure ? [] : shrinkOtherCauses(fold.causes, hints: shrinks.hints, shrinking: shrinking)
        let end = clock.now
        var result = fold.result(cases: cases, findings: shrinks.findings, others: others,
                                 seconds: (mid - start).seconds, shrinkSeconds: (end - mid).seconds)
        result.interrupted = interrupted || c.stop?.isRequested == true
        result.cpu = cpu
        result.shrunkBesideCases = shrunkBeside
        return result
    }

    /// The first phase: every case of the shard, in index order, folded into `fold`; each
    /// recorded and reported as it is folded. Returns how many cases count (all of them, or
    /// those folded before a stop) and whether the run was asked to stop.
    private func foldCases(into fold: inout CaseFold, progress: (Int, Int, Int) -> Void,
                           record: (CaseRecord) -> Void) -> (cases: Int, interrupted: Bool) {
        let c = configuration
        // Positions within the shard, not an array of indices: a run may have 100 million cases.
        let total = c.shard.cases(of: c.count)
        let board = c.guided ? GuidanceBoard() : nil
        let pipeline = CasePipeline(runner: self, total: total, board: board)
        defer {
            board?.close()
            pipeline.finish()
        }
        for position in 0..<total {
            if c.stop?.isRequested == true { return (fold.done, true) }
            let outcome = pipeline.take(position)
            // A case that was running when the run was stopped lost its driver with the stop:
            // its ending says nothing about the implementation, so it is not counted.
            if outcome.interrupted { return (fold.done, true) }
            let folded = fold.fold(outcome)
            // A round is over: its tallies choose the next round's foci, before any case of it
            // is folded (and, with jobs, before any is generated: they wait for the board).
            if let board, fold.done % Guidance.round == 0 {
                board.publish(Guidance.foci(after: fold.stats, misuse: c.generator.misuseRate > 0))
            }
            record(caseRecord(outcome, folded))
            progress(fold.done, total, fold.broken)
            if c.stopAtFirstFailure && folded.broken.contains(where: { rule in
                c.stopRules.map { $0.contains(rule) } ?? (c.strict || Finding.severity(of: rule) == .failure)
            }) { return (fold.done, false) }
        }
        return (total, false)
    }

    /// The record of one folded case (the case log's line).
    private func caseRecord(_ outcome: CaseOutcome, _ folded: CaseFold.Folded) -> CaseRecord {
        let c = configuration
        let quiet = folded.broken.isEmpty && folded.known.isEmpty && outcome.unconfirmed.isEmpty
        let replay = quiet ? nil : Finding.replayLine(identity: outcome.identity, implArguments: c.impl.replayArguments,
                                                      profile: c.profile, faults: c.faults, program: c.replayProgram)
        return CaseRecord(
            index: outcome.index, caseSeed: outcome.identity.caseSeed, operations: outcome.scenario.operations.count,
            ending: outcome.ending.rawValue, broken: folded.broken, message: folded.message,
            known: folded.known.isEmpty ? nil : folded.known,
            unconfirmed: outcome.unconfirmed.isEmpty ? nil : outcome.unconfirmed.map(\.rule), replay: replay)
    }

    /// The findings shrunk so far, and the minima they give the shrinks after them: one case
    /// often breaks several rules for one cause, and a sibling's minimum is a shorter way down
    /// when it shows the next rule's failure too.
    struct Shrinks {
        var findings: [Finding] = []
        /// This run's minima, in finding order (catalog order, then the pseudo-rules).
        var minima: [Shrinker.Hint] = []
        /// Earlier runs' minima (`RunConfiguration.earlierMinima`).
        let earlier: [Shrinker.Hint]
        var hints: [Shrinker.Hint] { minima + earlier.filter { !minima.contains($0) } }

        init(earlier: [Shrinker.Hint]) { self.earlier = earlier }

        mutating func found(_ finding: Finding) {
            findings.append(finding)
            if let hint = Shrinker.Hint(minimumOf: finding), !minima.contains(hint) { minima.append(hint) }
        }
    }

    /// The second phase: each broken rule's first case (catalog order), then each death's,
    /// shrunk into its finding: taken from the early shrinks when they began it beside the
    /// cases, else one after another, or on several workers at once.
    private func shrinkFirstFailures(_ firsts: [(key: Int, job: ShrinkJob)], early: EarlyShrinks?,
                                     into shrinks: inout Shrinks, shrinking: (String) -> Void) {
        let workers = Self.shrinkWorkers(configuration, findings: firsts.count)
        if let early {
            // Begun beside the cases: taken in the run's order, each waited for if need be.
            for (key, job) in firsts {
                shrinking(job.target.id)
                shrinks.found(replayingFinding(job, hints: shrinks.hints, begun: early.finding(key)))
            }
        } else if workers <= 1 {
            for (_, job) in firsts {
                shrinking(job.target.id)
                shrinks.found(replayingFinding(job, hints: shrinks.hints))
            }
        } else {
            for (_, job) in firsts { shrinking(job.target.id) }
            for finding in shrunk(firsts.map(\.job), workers: workers, hints: shrinks.hints) { shrinks.found(finding) }
        }
    }

    /// The third phase: each rule's further causes, shrunk the same way, after every rule's
    /// first, so that a run stopped early has its main findings first. (A run that stops at its
    /// first failure, a flaw probe or a gate's first failure, wants none: the caller skips it.)
    private func shrinkOtherCauses(_ causes: [CauseGroups], hints: [Shrinker.Hint],
                                   shrinking: (String) -> Void) -> [OtherCause] {
        let c = configuration
        let targets = c.rules.map(ShrinkTarget.init) + ShrinkTarget.deaths
        var others: [OtherCause] = []
        for (n, groups) in causes.enumerated() {
            for group in groups.others {
                if c.stop?.isRequested == true { return others }
                shrinking(targets[n].id)
                // A smaller budget than a rule's first cause: on a real implementation a
                // shrink costs a process per run, and these come after what a user waits for.
                let further = finding(for: group.first, target: targets[n], hints: hints,
                                      budget: c.impl.isDeterministic ? nil : CauseGroups.shrinkBudget)
                others.append(OtherCause(finding: further, cases: group.cases))
            }
        }
        return others
    }

    /// One case, run and checked, before it is folded into the result.
    struct CaseOutcome: Sendable {
        var index: Int
        var identity: CaseIdentity
        var scenario: Scenario
        var ending: Trace.Ending
        /// RUN-CRASH, RUN-HANG or DRIVER-PROTOCOL when the case died, stalled, or its driver
        /// broke the protocol.
        var death: Violation?
        var verdicts: [(rule: Rule, verdict: Verdict)]
        /// The run was asked to stop before this case was decided.
        var interrupted = false
        /// Violations (a hang among them) that rested on absence or time and did not show again
        /// in a patient run (`Confirmation`): taken out of `death` and `verdicts`.
        var unconfirmed: [Violation] = []
        /// A subclass operation said isFinished YES and the queue never acted on it
        /// (`Attribution.unheardFinish`), and what the case proves of whose that is.
        var unheard = Attribution.UnheardFinish.none
        /// Why the case was cut short, when it was (`Trace.Ending.truncated`).
        var cutShort: String?
        /// The trace the case was judged on.
        var trace: Trace?
    }

    /// The known divergence or platform limit that explains `v`, if one does: an entry of the
    /// run's known divergences whose cause it shows, or Foundation on Linux's unheard finish.
    func attribute(_ v: Violation, _ scenario: Scenario, unheard: Attribution.UnheardFinish) -> Expectations.Entry? {
        let c = configuration
        if v.rule == Finding.protocolRule { return nil }
        return Attribution.excuse(v, in: scenario, known: c.known, setting: c.impl.setting)
            ?? (c.known == nil ? nil : Attribution.limit(v, setting: c.impl.setting, unheard: unheard))
    }

    /// Runs and checks case `k`, leaning towards `focus` if a guided run chose one for it.
    func evaluate(_ k: Int, focus: GeneratorFocus? = nil) -> CaseOutcome {
        let c = configuration
        var options = c.generator
        options.focus = focus ?? options.focus
        let identity = CaseIdentity.of(run: c.seed, index: k, options: options)
        let scenario = identity.scenario()
        let trace = c.impl.run(scenario, scheduleSeed: identity.scheduleSeed)
        var death = ShrinkTarget.death(of: trace).first
        // A driver that broke the protocol gave no account of the implementation to judge.
        var verdicts =
            trace.ending == .breach
            ? [] : RuleBook.verdicts(scenario: scenario, trace: trace, profile: c.profile, rules: c.rules)
        var unconfirmed: [Violation] = []
        let unheard = c.impl.setting.owns.contains("subclass") ? Attribution.unheardFinish(in: trace, scenario) : .none
        setAsideIfUnproven(unheard, death: &death, verdicts: &verdicts, unconfirmed: &unconfirmed)
        if !c.impl.isDeterministic && trace.ending != .breach && c.stop?.isRequested != true {
            confirm(
                scenario, seed: identity.scheduleSeed, unheard: unheard, death: &death, verdicts: &verdicts,
                unconfirmed: &unconfirmed)
        }
        var outcome = CaseOutcome(
            index: k, identity: identity, scenario: scenario, ending: trace.ending, death: death, verdicts: verdicts,
            interrupted: c.stop?.isRequested == true)
        outcome.unconfirmed = unconfirmed
        outcome.unheard = unheard
        if case .cut(let why)? = trace.events.last?.kind { outcome.cutShort = why }
        outcome.trace = trace
        return outcome
    }

    /// Runs the case again with patience when all it showed of a rule (or its hang) rests on
    /// absence or time (`Confirmation`), and moves what the patient run does not show again
    /// from `death` and `verdicts` to `unconfirmed`.
    /// Moves the violations of `rules` (a hang among them) from `death` and `verdicts` to
    /// `unconfirmed`, each saying `why`: what the case cannot prove is neither a failure nor
    /// excused (a platform limit the case has no evidence for).
    static func setAside(_ rules: [String], because why: String, death: inout Violation?,
                         verdicts: inout [(rule: Rule, verdict: Verdict)], unconfirmed: inout [Violation]) {
        func doubted(_ v: Violation) -> Violation {
            var v = v
            v.observed += " (unconfirmed: \(why))"
            return v
        }
        if let d = death, rules.contains(d.rule) {
            unconfirmed.append(doubted(d))
            death = nil
        }
        for n in verdicts.indices where rules.contains(verdicts[n].rule.id) {
            guard case .checked(var r) = verdicts[n].verdict, let first = r.violations.first else { continue }
            unconfirmed.append(doubted(first))
            r.violations = []
            verdicts[n].verdict = .checked(r)
        }
    }

    /// A finish the case shows went unheard, and cannot prove whose (`UnheardFinish.unproven`):
    /// the rules it breaks are set aside as unconfirmed, in a run that applies known divergences.
    func setAsideIfUnproven(_ unheard: Attribution.UnheardFinish, death: inout Violation?,
                            verdicts: inout [(rule: Rule, verdict: Verdict)], unconfirmed: inout [Violation]) {
        guard case .unproven(let why) = unheard, configuration.known != nil else { return }
        Self.setAside(
            Attribution.unheardFinishRules, because: why, death: &death, verdicts: &verdicts, unconfirmed: &unconfirmed)
    }

    func confirm(
        _ scenario: Scenario, seed: UInt64, unheard: Attribution.UnheardFinish, death: inout Violation?,
        verdicts: inout [(rule: Rule, verdict: Verdict)],
        unconfirmed: inout [Violation]
    ) {
        let c = configuration
        // What a known divergence excuses needs no confirming: it fails nothing either way, and
        // a platform that deadlocks in every tenth case would pay a patient run for each.
        func known(_ v: Violation) -> Bool { attribute(v, scenario, unheard: unheard) != nil }
        // A case that wrote until its deadline cut it needs no patient run: the absences it shows
        // come from that cut, and the cut is witnessed (`Confirmation.isRunaway`).
        if let d = death, Confirmation.isRunaway(d) { return }
        var doubtful: [String] = []
        if let d = death, d.rule == Finding.hangRule, !known(d) { doubtful.append(d.rule) }
        for v in verdicts {
            guard case .checked(let r) = v.verdict, !r.violations.isEmpty,
                r.violations.allSatisfy(Confirmation.restsOnAbsence),
                !r.violations.allSatisfy(known)
            else { continue }
            doubtful.append(v.rule.id)
        }
        guard !doubtful.isEmpty else { return }
        let again = c.impl.patient(Confirmation.patience).run(scenario, scheduleSeed: seed)
        let againVerdicts =
            again.ending == .breach
            ? [] : RuleBook.verdicts(scenario: scenario, trace: again, profile: c.profile, rules: c.rules)
        let unheardAgain =
            c.impl.setting.owns.contains("subclass") ? Attribution.unheardFinish(in: again, scenario) : .none
        // The patient run shows what a loaded machine can keep the first from showing: every
        // started operation of the class saying isFinished YES (read by the driver's watchdog
        // within a window that may pass before a starved thread answers). Its evidence that the
        // finish went unheard, unprovably, sets the same rules aside as the first run's would.
        setAsideIfUnproven(unheardAgain, death: &death, verdicts: &verdicts, unconfirmed: &unconfirmed)
        let excusedAgain = { (v: Violation) in self.attribute(v, scenario, unheard: unheardAgain) != nil }
        for rule in doubtful
        where !Confirmation.confirms(rule, trace: again, verdicts: againVerdicts, excused: excusedAgain) {
            if rule == Finding.hangRule, let d = death {
                unconfirmed.append(d)
                death = nil
            } else if let n = verdicts.firstIndex(where: { $0.rule.id == rule }),
                case .checked(var r) = verdicts[n].verdict,
                let first = r.violations.first
            {
                unconfirmed.append(first)
                r.violations = []
                verdicts[n].verdict = .checked(r)
            }
        }
    }

    func finding(for f: FailingCase, rule: RuleCheck, hints: [Shrinker.Hint] = []) -> Finding {
        finding(for: f, target: ShrinkTarget(rule), hints: hints)
    }

    /// How many findings a run shrinks at once: one on a deterministic implementation, whose
    /// minima then follow each other's hints in a fixed order (same seed, same bytes); on a real
    /// one, where a shrink mostly waits for drivers (silence windows, deadlines, patience), up to
    /// `parallelShrinks`, and no more than `--jobs`.
    static func shrinkWorkers(_ c: RunConfiguration, findings: Int) -> Int {
        c.impl.isDeterministic ? 1 : max(1, min(parallelShrinks, c.jobs, findings))
    }

    /// Shrinks of distinct findings that run side by side on a real implementation. Four on two
    /// cores: a shrink candidate's driver spends 10-30 ms of CPU and then waits; more at once
    /// would load the machine enough to make slow candidates look stuck.
    package static let parallelShrinks = 4

    /// The minima of `jobs`, in their order, shrunk `workers` at a time: each worker takes the
    /// next job and starts from the minima finished so far (the hints a sequential run would
    /// have had, as far as they are known).
    func shrunk(_ jobs: [ShrinkJob], workers: Int, hints: [Shrinker.Hint]) -> [Finding] {
        let results = Mutex<[Finding?]>(Array(repeating: nil, count: jobs.count))
        let known = Mutex<[Shrinker.Hint]>(hints)
        let next = Atomic<Int>(0)
        let runner = self
        // Threads of their own, not Dispatch's pool: on Linux that has about as many threads as
        // cores, and a shrink blocks its thread for as long as its drivers run.
        let finished = DispatchGroup()
        for _ in 0..<workers {
            finished.enter()
            let thread = Thread {
                defer { finished.leave() }
                work()
            }
            thread.name = "opconform shrink job"
            thread.start()
        }
        finished.wait()
        return results.withLock { $0 }.compactMap { $0 }

        @Sendable func work() {
            while true {
                let k = next.add(1, ordering: .relaxed).oldValue
                guard k < jobs.count else { return }
                let finding = runner.replayingFinding(jobs[k], hints: known.withLock { $0 })
                results.withLock { $0[k] = finding }
                guard let hint = Shrinker.Hint(minimumOf: finding) else { continue }
                known.withLock { if !$0.contains(hint) { $0.append(hint) } }
            }
        }
    }

    /// The shrinker the runner uses for `target`. A run that stalls costs the driver's stall
    /// window (half a second or more): a death is shrunk on a smaller budget than a rule.
    /// The failing case shrunk on the reference engine, when the engine shows the same failure:
    /// the first hint of a real implementation's shrink (issue 31). A failure that is the
    /// scenario's own (a flawed subclass: the bug is in the operation code the case runs) shows
    /// on the engine too, which shrinks it in milliseconds; the real shrink then confirms that
    /// minimum in a few runs and searches on from it, instead of taking every step with runs of
    /// real threads (43 s for a flawed subclass on Foundation, 8 operations to 1). A failure of
    /// the implementation's own does not show on the engine, and nothing changes.
    func modelMinimum(of f: FailingCase, target: ShrinkTarget) -> Shrinker.Hint? {
        let c = configuration
        guard Finding.pseudoEnding(target.id) == nil else { return nil }
        let engine = ReferenceImplementation(options: EngineOptions(profile: c.profile))
        var model = Shrinker(impl: engine, profile: c.profile, target: unexcused(target))
        model.stop = c.stop
        let signature = Shrinker.signature(f.violation)
        // The engine's interleaving under the case's schedule seed, or under one of a few others.
        let seeds = [f.identity.scheduleSeed] + (1..<8).map { SplitMix64.derive(f.identity.scheduleSeed, UInt64($0)) }
        guard let seed = seeds.first(where: { model.run(f.scenario, scheduleSeed: $0, signature: signature).0 != nil })
        else { return nil }
        let minimum = model.shrink(f.scenario, scheduleSeed: seed)
        guard minimum.accepted > 0, Shrinker.signature(minimum.violation) == signature else { return nil }
        return Shrinker.Hint(scenario: minimum.scenario, scheduleSeed: f.identity.scheduleSeed)
    }

    package func shrinker(for target: ShrinkTarget) -> Shrinker {
        let c = configuration
        var shrinker = Shrinker(impl: c.impl, profile: c.profile, target: unexcused(target), attempts: c.attempts)
        shrinker.stop = c.stop
        // No more trials side by side than the run's own cases: a driver named by path gets a
        // job per core, since its cases may cost CPU (a Python driver of protocol 2: 38 to 110 ms),
        // and trials beyond that only compete for it.
        if shrinker.parallelism > 1 && c.jobs < shrinker.parallelism {
            shrinker.parallelism = max(1, c.jobs)
        }
        if Finding.pseudoEnding(target.id) != nil { shrinker.budget = min(shrinker.budget, 120) }
        return shrinker
    }

    /// `target`, showing only violations no known divergence or platform limit explains: a
    /// candidate that shows the rule only the way the platform is known to break it is not the
    /// tested code's failure any more, and a minimum must not drift into the platform's cause.
    func unexcused(_ target: ShrinkTarget) -> ShrinkTarget {
        let c = configuration
        guard c.known != nil else { return target }
        let runner = self
        return ShrinkTarget(id: target.id, needs: target.needs) { context in
            let unheard = c.impl.setting.owns.contains("subclass")
                ? Attribution.unheardFinish(in: context.trace, context.scenario) : .none
            return target.violations(context).filter { runner.attribute($0, context.scenario, unheard: unheard) == nil }
        }
    }

    /// A finding of a run made without shrinking, shrunk as the run would have shrunk it (for
    /// callers that shrink only some findings: `expectConformance(driver:)` leaves the
    /// platform's known divergences as found). Unchanged when the minimum did not reproduce, or
    /// the rule is not in the catalog.
    public func shrunk(_ finding: Finding) -> Finding {
        let target: ShrinkTarget
        switch finding.rule {
        case Finding.protocolRule: return finding
        case let rule where ShrinkTarget.death(rule) != nil: target = ShrinkTarget.death(rule)!
        default:
            guard let check = RuleBook.check(id: finding.rule) else { return finding }
            target = ShrinkTarget(check)
        }
        let result = shrinker(for: target).shrink(finding.scenario, scheduleSeed: finding.scheduleSeed)
        guard result.reproduced > 0, !result.interrupted else { return finding }
        var out = finding
        out.scenario = result.scenario
        out.scenario.name = "\(finding.rule) minimised from case \(finding.caseIndex)"
        out.scheduleSeed = result.scheduleSeed
        out.message = result.violation.observed + "; required: " + result.violation.expected
        out.reproduced = result.reproduced
        out.attempts = result.attempts
        out.originalReproduced = result.originalReproduced
        out.shrinkWalkedBack = result.walkedBack
        out.shrinkSteps = result.accepted
        out.shrinkExhausted = result.exhausted
        out.shrinkMilliseconds = result.milliseconds
        return out
    }

    /// A failing case as a finding, not shrunk (a known divergence's first case).
    public func unshrunkFinding(_ f: FailingCase, rule: String) -> Finding {
        var c = configuration
        c.shrink = false
        let target = RuleBook.check(id: rule).map(ShrinkTarget.init) ?? ShrinkTarget.death(rule) ?? .hang
        return Runner(c).finding(for: f, target: target)
    }

    /// A rule's first case to shrink, and the second case of the same cause to shrink instead
    /// when the first does not replay.
    struct ShrinkJob: Sendable {
        var failing: FailingCase
        var fallback: FailingCase?
        var target: ShrinkTarget
    }

    /// The finding of `job`'s first case; on a nondeterministic implementation, when that case
    /// broke the rule once and no replay shows it again (a schedule too rare to meet twice), the
    /// finding of the same cause's second case if that one replays. A finding is what a user
    /// replays and a CI script checks: "replays 0 of 5" tells the truth but proves nothing, and
    /// the second case is the same failure (`CauseGroups.cause`).
    /// `begun`: the first case's finding when it was shrunk beside the cases (`EarlyShrinks`).
    func replayingFinding(_ job: ShrinkJob, hints: [Shrinker.Hint], begun: Finding? = nil) -> Finding {
        let found = begun ?? finding(for: job.failing, target: job.target, hints: hints)
        guard found.reproduced == 0, found.interrupted != true, let fallback = job.fallback,
              configuration.shrink, !configuration.impl.isDeterministic, configuration.stop?.isRequested != true
        else { return found }
        let other = finding(for: fallback, target: job.target, hints: hints)
        return other.reproduced > 0 ? other : found
    }

    /// The failing case, shrunk (unless the run says not to) to the smallest scenario that still
    /// shows the same failure, crashes and hangs included; `hints` are earlier findings' minima
    /// to try first (`Shrinker.shrink(_:scheduleSeed:hints:)`).
    func finding(for f: FailingCase, target: ShrinkTarget, hints: [Shrinker.Hint] = [], budget: Int? = nil) -> Finding {
        let c = configuration
        var shrinker = shrinker(for: target)
        if let budget { shrinker.budget = min(shrinker.budget, budget) }
        var result = Shrinker.Result(
            scenario: f.scenario, scheduleSeed: f.identity.scheduleSeed, violation: f.violation,
            accepted: 0, runs: 0, reproduced: 1, attempts: 1, milliseconds: 0, exhausted: false)
        // A protocol breach is not shrunk: it is the driver's, and the case that showed it is
        // what its author needs (a smaller case may not breach at all).
        // Nor is anything shrunk once the run was stopped.
        let shrinks = c.shrink && target.id != Finding.protocolRule
        var interrupted = c.stop?.isRequested == true
        var startedFrom: Shrinker.Hint?
        if shrinks && !interrupted {
            let model = c.impl.isDeterministic ? [] : modelMinimum(of: f, target: target).map { [$0] } ?? []
            result = shrinker.shrink(f.scenario, scheduleSeed: f.identity.scheduleSeed, hints: model + hints)
            interrupted = result.interrupted
            // Started from another finding's minimum: that minimum breaks this rule too.
            if let taken = result.hint, taken >= model.count, taken - model.count < hints.count {
                startedFrom = hints[taken - model.count]
            }
            if result.reproduced == 0 && !interrupted {
                // The minimum did not hold up: report the original case, measured the same way.
                result.scenario = f.scenario; result.scheduleSeed = f.identity.scheduleSeed;
                result.violation = f.violation
                result.accepted = 0
                result.reproduced = shrinker.reproductions(
                    f.scenario, scheduleSeed: f.identity.scheduleSeed, signature: Shrinker.signature(f.violation))
                result.attempts = shrinker.rateAttempts
                if !c.impl.isDeterministic { result.originalReproduced = result.reproduced }
            }
        }
        var minimal = result.scenario
        minimal.name = "\(target.id) minimised from case \(f.index)"
        var finding = Finding(
            format: c.impl.launch == nil ? Finding.formatVersion : Finding.newestFormat,
            rule: target.id, message: result.violation.observed + "; required: " + result.violation.expected,
            impl: c.impl.name, driver: c.impl.launch, profile: c.profile, faults: c.faults, runSeed: c.seed,
            caseIndex: f.index,
            identity: f.identity, originalHash: ScenarioHash.of(f.scenario),
            originalOperations: f.scenario.operations.count,
            scenario: minimal, scheduleSeed: result.scheduleSeed, reproduced: result.reproduced,
            attempts: result.attempts,
            shrinkSteps: result.accepted, shrinkExhausted: result.exhausted, shrinkMilliseconds: result.milliseconds)
        if interrupted && shrinks { finding.interrupted = true }
        finding.originalReproduced = result.originalReproduced
        if c.impl.noise > 0 { finding.noise = c.impl.noise }
        finding.harness = HarnessVersion.current
        if let platform = c.impl.setting.platform {
            finding.platform = DriverProtocol.Platform(name: platform, owns: c.impl.setting.owns)
        }
        finding.shrinkWalkedBack = result.walkedBack
        finding.witness = f.witness.map { TraceFile(scenario: f.scenario, trace: $0) }
        if result.accepted > 0 { finding.startedFrom = startedFrom }
        return finding
    }
}

/// Runs a run's cases `jobs` at a time, ahead of the fold, and hands them over in index order:
/// the fold sees the same sequence whatever finishes first, so results do not depend on `jobs`,
/// and each case is reported as soon as every case before it is.
///
/// Each job is a thread of its own that takes the next position and runs its case to the end.
/// Not Dispatch's global queue: a case blocks its thread for as long as its driver runs (a hang
/// for its whole stall window), and on Linux that queue's pool has about as many threads as
/// cores, so `--jobs 8` kept 2 to 6 drivers alive on this 2-core machine and the rest of the
/// cases waited for a thread (issue 16).
///
/// `@unchecked Sendable` is sound: `slots`, `next` and `stopped` are read and written only while
/// holding `condition`; `runner`, `shard`, `total` and `ahead` are immutable.
final class CasePipeline: @unchecked Sendable {
    private let runner: Runner
    private let shard: Shard
    private let total: Int
    private let condition = NSCondition()
    private var slots: [Int: Runner.CaseOutcome] = [:]   // position -> outcome; looked up, never iterated
    /// The next position a job takes, and the position the fold waits for.
    private var next = 0, folded = 0
    private var stopped = false
    private let finished = DispatchGroup()
    private let inline: Bool
    /// How far ahead of the fold a job may run: memory stays bounded however slow one case is.
    private let ahead: Int

    /// A guided run's foci by round, or nil.
    private let board: GuidanceBoard?

    init(runner: Runner, total: Int, board: GuidanceBoard? = nil) {
        self.runner = runner
        self.board = board
        self.shard = runner.configuration.shard
        self.total = total
        let jobs = max(1, runner.configuration.jobs)
        inline = jobs == 1
        ahead = jobs * 32
        guard !inline else { return }
        for _ in 0..<min(jobs, max(total, 1)) {
            finished.enter()
            let thread = Thread { [self] in
                work()
                finished.leave()
            }
            thread.name = "opconform case job"
            thread.start()
        }
    }

    /// One job: takes positions in order until none is left or the run stops.
    private func work() {
        while true {
            condition.lock()
            while !stopped && next < total && next >= folded + ahead { condition.wait() }
            guard !stopped, next < total, runner.configuration.stop?.isRequested != true else {
                condition.unlock()
                return
            }
            let position = next
            next += 1
            condition.unlock()
            let outcome = evaluate(position)
            condition.lock()
            slots[position] = outcome
            condition.broadcast()
            condition.unlock()
        }
    }

    /// The outcome of the case at `position`, waiting for it if needed.
    func take(_ position: Int) -> Runner.CaseOutcome {
        if inline { return evaluate(position) }
        condition.lock()
        defer { condition.unlock() }
        while slots[position] == nil { condition.wait() }
        let outcome = slots.removeValue(forKey: position)!
        folded = position + 1
        condition.broadcast()
        return outcome
    }

    /// The case at `position`, with its focus when the run is guided (waiting, if need be,
    /// until the fold has published its round's foci).
    private func evaluate(_ position: Int) -> Runner.CaseOutcome {
        let focus = board.flatMap {
            Guidance.focus(position: position, foci: $0.foci(round: position / Guidance.round))
        }
        return runner.evaluate(shard.caseIndex(position), focus: focus)
    }

    /// Stops starting cases and waits for those running.
    func finish() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
        finished.wait()
    }
}


extension Shrinker.Hint {
    /// A finding's minimum as a starting point for the next shrink of the run: nil when it was
    /// not shrunk, did not replay, or was cut short. Its name is set aside, so one minimum found
    /// for two rules is one hint.
    public init?(minimumOf finding: Finding) {
        guard finding.shrinkSteps > 0, finding.reproduced > 0, finding.interrupted != true else { return nil }
        self.init(scenario: finding.scenario, scheduleSeed: finding.scheduleSeed)
        scenario.name = ""
    }
}
