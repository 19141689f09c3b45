import OperationSpec

/// The tallies of a run's cases, folded in index order: the first phase of `Runner.run`.
///
/// Each case's outcome (already run, checked, attributed and confirmed by the case pipeline)
/// adds to the rules' statistics, keeps each rule's and each death's first failing case and
/// the further causes, and counts what known divergences and unconfirmed violations explained.
/// A rule's first failing case is handed to the early shrinks as it is found. `result` turns
/// the tallies into the run's result once its findings are shrunk.
struct CaseFold {
    /// What one case added: the rules it broke (the tested code's), the rules a known
    /// divergence excused, and the first broken rule's message, for the case's record.
    struct Folded {
        var broken: [String] = []
        var known: [String] = []
        var message: String?
    }

    let runner: Runner
    var configuration: RunConfiguration { runner.configuration }
    /// The shrinks begun beside the cases, when the run has them (`EarlyShrinks`).
    let early: EarlyShrinks?
    var stats: [RuleStatistics]
    /// Each rule's first failing case, in catalog order.
    var first: [FailingCase?]
    /// The first case that crashed, raced, broke memory, hung, or whose driver broke the
    /// protocol, in the order of `ShrinkTarget.deaths`: findings of their own.
    var deaths: [FailingCase?]
    var deathCases: [Int]
    /// The tested code's failures by cause, per rule (catalog order, then the deaths').
    var causes: [CauseGroups]
    /// Per known divergence: the first case it excused, and how many. Keyed by the entry's
    /// place in the file: a rule with an entry for each of its causes (Foundation's two hangs)
    /// shows each cause apart (issue 29, one finding per cause). A platform limit (not in the
    /// file) is placed below 0, by its rule. Looked up, and read in sorted order.
    var knownFirst: [Int: FailingCase] = [:]
    var knownCount: [Int: Int] = [:]
    var knownEntry: [Int: Expectations.Entry] = [:]
    /// Per rule: the first case whose violation did not show again in a patient run, and how many.
    var unconfirmedFirst: [String: FailingCase] = [:]
    var unconfirmedCount: [String: Int] = [:]
    /// How many cases ended each way (`Trace.Ending`), and the first one cut short.
    var endings: [String: Int] = [:]
    var firstCut: (index: Int, why: String)?
    /// Cases that broke a rule, and cases folded.
    var broken = 0, done = 0

    init(runner: Runner, early: EarlyShrinks?) {
        self.runner = runner
        self.early = early
        let c = runner.configuration
        let deathTargets = ShrinkTarget.deaths
        stats = c.rules.map { RuleStatistics(id: $0.rule.id) }
        first = Array(repeating: nil, count: c.rules.count)
        deaths = Array(repeating: nil, count: deathTargets.count)
        deathCases = Array(repeating: 0, count: deathTargets.count)
        causes = Array(repeating: CauseGroups(), count: c.rules.count + deathTargets.count)
    }

    /// The place of a known divergence's entry (see `knownFirst`), remembering the entry.
    private mutating func place(_ entry: Expectations.Entry) -> Int {
        let n = configuration.known?.expected.firstIndex(of: entry)
            ?? -1 - (Attribution.unheardFinishRules.firstIndex(of: entry.rule) ?? 0)
        knownEntry[n] = entry
        return n
    }

    private mutating func countKnown(_ entry: Expectations.Entry, _ failing: @autoclosure () -> FailingCase) {
        let n = place(entry)
        knownCount[n, default: 0] += 1
        if knownFirst[n] == nil { knownFirst[n] = failing() }
    }

    /// A rule's (or, after the rules, a death's) first failing case, handed to the early shrinks.
    private func firstSeen(_ key: Int, _ failing: FailingCase, _ target: ShrinkTarget) {
        guard let early, configuration.stopRules?.contains(target.id) ?? true else { return }
        early.begin(key, Runner.ShrinkJob(failing: failing, fallback: nil, target: target))
    }

    /// Folds one case into the tallies.
    mutating func fold(_ outcome: Runner.CaseOutcome) -> Folded {
        let k = outcome.index
        endings[outcome.ending.rawValue, default: 0] += 1
        if firstCut == nil, let why = outcome.cutShort { firstCut = (k, why) }
        func failing(_ v: Violation) -> FailingCase {
            FailingCase(index: k, identity: outcome.identity, scenario: outcome.scenario, violation: v)
        }
        var folded = Folded()
        for v in outcome.unconfirmed {
            unconfirmedCount[v.rule, default: 0] += 1
            if unconfirmedFirst[v.rule] == nil { unconfirmedFirst[v.rule] = failing(v) }
            if let n = configuration.rules.firstIndex(where: { $0.rule.id == v.rule }) { stats[n].unconfirmed += 1 }
        }
        if let v = outcome.death { foldDeath(v, outcome, failing(v), &folded) }
        for (n, v) in outcome.verdicts.enumerated() { foldVerdict(n, v, outcome, failing, &folded) }
        done += 1
        if !folded.broken.isEmpty { broken += 1 }
        return folded
    }

    private mutating func foldDeath(_ v: Violation, _ outcome: Runner.CaseOutcome, _ failing: FailingCase,
                                    _ folded: inout Folded) {
        if v.rule != Finding.protocolRule, let entry = runner.attribute(v, outcome.scenario, unheard: outcome.unheard) {
            folded.known.append(v.rule)
            countKnown(entry, failing)
            return
        }
        let deathTargets = ShrinkTarget.deaths
        if let d = deathTargets.firstIndex(where: { $0.id == v.rule }) {
            if deaths[d] == nil {
                deaths[d] = failing
                deaths[d]?.witness = Finding.keepsWitness(outcome.trace)
                firstSeen(configuration.rules.count + d, failing, deathTargets[d])
            }
            deathCases[d] += 1
            if v.rule != Finding.protocolRule {
                causes[configuration.rules.count + d].add(failing, witness: Finding.keepsWitness(outcome.trace))
            }
        }
        folded.broken.append(v.rule)
        folded.message = v.observed
    }

    private mutating func foldVerdict(_ n: Int, _ v: (rule: Rule, verdict: Verdict), _ outcome: Runner.CaseOutcome,
                                      _ failing: (Violation) -> FailingCase, _ folded: inout Folded) {
        switch v.verdict {
        case .notApplicable:
            stats[n].status = .notApplicable
            stats[n].reason =
                "applies under profile " + v.rule.profiles.map(\.rawValue).joined(separator: ", ") + " only"
        case .notObservable(let reason):
            stats[n].status = .notObservable
            stats[n].reason = reason
        case .checked(let r):
            stats[n].hits += r.hits
            if r.hits > 0 { stats[n].cases += 1 }
            // The tested code's when any violation is not excused; else known.
            var excusedBy: Expectations.Entry?
            let own = r.violations.first { violation in
                guard let entry = runner.attribute(violation, outcome.scenario, unheard: outcome.unheard) else {
                    return true
                }
                if excusedBy == nil { excusedBy = entry }
                return false
            }
            if let violation = own {
                stats[n].violations += 1
                folded.broken.append(v.rule.id)
                if folded.message == nil { folded.message = violation.observed }
                let f = failing(violation)
                if first[n] == nil {
                    first[n] = f
                    first[n]?.witness = Finding.keepsWitness(outcome.trace)
                    firstSeen(n, f, ShrinkTarget(configuration.rules[n]))
                }
                causes[n].add(f, witness: Finding.keepsWitness(outcome.trace))
            } else if let entry = excusedBy, let violation = r.violations.first {
                stats[n].known += 1
                folded.known.append(v.rule.id)
                countKnown(entry, failing(violation))
            }
        }
    }

    /// Each rule's status, once every case is folded.
    mutating func settleStatistics() {
        for n in stats.indices where stats[n].status != .notApplicable && stats[n].status != .notObservable {
            let broken: RuleStatistics.Status = configuration.rules[n].rule.severity == .failure ? .fail : .warn
            stats[n].status = stats[n].violations > 0 ? broken : stats[n].unconfirmed > 0 ? .unconfirmed
                : stats[n].known > 0 ? .known : (stats[n].hits > 0 ? .pass : .notReached)
        }
    }

    /// The shrink jobs of each broken rule's first case (catalog order), then each death's, keyed
    /// as the early shrinks are: a rule's place in the catalog, or after it a death's. A run that
    /// waits for some rules only (a flaw probe) shrinks those only.
    func firstFailures() -> [(key: Int, job: Runner.ShrinkJob)] {
        let c = configuration
        var firsts: [(key: Int, job: Runner.ShrinkJob)] = []
        for (n, failing) in first.enumerated() {
            guard let f = failing, c.stopRules?.contains(c.rules[n].rule.id) ?? true else { continue }
            firsts.append(
                (n, Runner.ShrinkJob(failing: f, fallback: causes[n].fallback, target: ShrinkTarget(c.rules[n]))))
        }
        for (d, (f, target)) in zip(deaths, ShrinkTarget.deaths).enumerated() {
            guard let f, c.stopRules?.contains(target.id) ?? true else { continue }
            let job = Runner.ShrinkJob(failing: f, fallback: causes[c.rules.count + d].fallback, target: target)
            firsts.append((c.rules.count + d, job))
        }
        return firsts
    }

    /// The run's result: the tallies, with the findings and further causes shrunk from them.
    func result(
        cases: Int, findings: [Finding], others: [OtherCause], seconds: Double, shrinkSeconds: Double
    ) -> RunResult {
        let c = configuration
        var result = RunResult(
            configuration: c, statistics: stats, findings: findings, endings: endings, cases: cases,
            seconds: seconds, shrinkSeconds: shrinkSeconds)
        result.firstCut = firstCut
        result.otherCauses = others
        for (d, target) in ShrinkTarget.deaths.enumerated() where deathCases[d] > 0 {
            result.deathCases[target.id] = deathCases[d]
        }
        result.unconfirmed = (c.rules.map(\.rule.id) + [Finding.hangRule]).compactMap { rule in
            unconfirmedFirst[rule].map { UnconfirmedFinding(rule: rule, cases: unconfirmedCount[rule] ?? 0, first: $0) }
        }
        // Per rule in catalog order (then crashes and hangs): its entries in the file's order,
        // then the platform limit that explained it, if one did.
        let owner = c.impl.setting.platform ?? c.known?.impl ?? c.impl.name
        let deathRules = [Finding.crashRule, Finding.dataRaceRule, Finding.memoryErrorRule, Finding.hangRule]
        result.known = (c.rules.map(\.rule.id) + deathRules).flatMap { rule in
            knownEntry.keys.filter { knownEntry[$0]?.rule == rule }
                .sorted { ($0 < 0 ? 1 : 0, $0) < ($1 < 0 ? 1 : 0, $1) }
                .compactMap { n in
                    knownFirst[n].map {
                        KnownDivergence(
                            rule: rule, entry: knownEntry[n]!, cases: knownCount[n] ?? 0, first: $0, owner: owner)
                    }
                }
        }
        return result
    }
}
