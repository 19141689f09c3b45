import OperationSpec

/// Findings that one minimal case shows, told as one story: the rule it breaks first, then the
/// rules it breaks after (issue 45: one bug read as four failures).
///
/// Each finding is shrunk on its own, and a bug's knock-ons (a cancelled operation that never
/// finishes, then the wait on it that never returns) first show in the same case as their
/// cause and often shrink to the same minimum. Findings whose minimised scenarios are equal,
/// that the same case showed first, or one of which was shrunk from the other's minimum (that
/// minimum, replayed, broke both rules), are one story. Its root is the rule the case
/// showed broken first: each rule of the story is judged again on the witness trace of the
/// story's earliest case, and the rule whose breach was complete earliest (its last witness
/// event) leads. The run's own failures (a crash, a hang) come last: they end a case. A
/// failure leads before a warning, since the failure decides the exit status. Knock-ons are
/// the harness's best reading of one trace, not proof that the root causes them; each keeps
/// its own replay.
public struct Story: Sendable, Equatable {
    public var root: Finding
    public var knockOns: [Finding]

    public var findings: [Finding] { [root] + knockOns }

    /// The stories of `findings`, in the order of their roots' first appearance in `findings`.
    public static func tell(_ findings: [Finding], profile: Profile) -> [Story] {
        var groups: [[Finding]] = []
        for f in findings {
            let joined = { (g: Finding) in sameCase(g, f) || follows(g, f) || follows(f, g) }
            if let g = groups.firstIndex(where: { $0.contains(where: joined) }) {
                groups[g].append(f)
            } else {
                groups.append([f])
            }
        }
        return groups.map { group in
            guard group.count > 1 else { return Story(root: group[0], knockOns: []) }
            let evident = evidentPoints(group, profile: profile)
            let ordered = group.enumerated().sorted { a, b in
                let ka = key(a.element, position: a.offset, evident)
                let kb = key(b.element, position: b.offset, evident)
                return ka < kb
            }.map(\.element)
            return Story(root: ordered[0], knockOns: Array(ordered.dropFirst()))
        }
    }

    /// Whether two findings are one story: their minimal cases are the same, or the same case
    /// first showed both (so one trace witnesses both, and the later breach may follow from
    /// the earlier).
    static func sameCase(_ a: Finding, _ b: Finding) -> Bool {
        guard a.impl == b.impl else { return false }
        return a.scenario == b.scenario || (a.caseIndex == b.caseIndex && a.identity.caseSeed == b.identity.caseSeed)
    }

    /// Whether `later`'s shrink started from `earlier`'s minimum (`Finding.startedFrom`): that
    /// minimum, which isolates `earlier`'s failure, broke `later`'s rule too when replayed.
    static func follows(_ earlier: Finding, _ later: Finding) -> Bool {
        guard let from = later.startedFrom, let minimum = Shrinker.Hint(minimumOf: earlier) else { return false }
        return from == minimum
    }

    /// How a story orders its findings: failures first, the run's own failures last, then by
    /// the point their breach was complete in the story's witness, then as the run listed them.
    static func key(_ f: Finding, position: Int, _ evident: [String: Int]) -> (Int, Int, Int, Int) {
        let severity = f.severity == .failure ? 0 : 1
        let runOwn = Finding.pseudoEnding(f.rule) == nil ? 0 : 1
        return (severity, runOwn, evident[f.rule] ?? Int.max, position)
    }

    /// For each catalog rule of `group`: the sequence number at which its first breach in the
    /// witness of the group's earliest case was complete. Rules that trace does not show broken
    /// are absent.
    static func evidentPoints(_ group: [Finding], profile: Profile) -> [String: Int] {
        guard let first = group.filter({ $0.witness != nil }).min(by: { $0.caseIndex < $1.caseIndex }),
              let witness = first.witness else { return [:] }
        let checks = RuleBook.all.filter { check in group.contains { $0.rule == check.rule.id } }
        var points: [String: Int] = [:]
        let verdicts = RuleBook.verdicts(scenario: witness.scenario, trace: witness.trace, profile: profile,
                                         rules: checks)
        for (rule, verdict) in verdicts {
            guard case .checked(let result) = verdict else { continue }
            let ends = result.violations.compactMap { $0.witnesses.map(\.seq).max() }
            if let earliest = ends.min() { points[rule.id] = earliest }
        }
        return points
    }
}

extension RunResult {
    /// The run's findings as stories (`Story`): failures' roots first, as the run lists them.
    public var stories: [Story] { Story.tell(failures + warnings, profile: configuration.profile) }
}
