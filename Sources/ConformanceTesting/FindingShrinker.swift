import Conformance
import OperationSpec

/// Shrinks one finding of a run made without shrinking, the way the runner shrinks its own
/// (`Runner.finding(for:target:)`, which is not public): `expectConformance(driver:)` shrinks
/// only the unexpected findings, not the platform's known divergences, which on a real queue
/// cost a stall window per attempt and are already minimised in the harness's `Fixtures/`.
struct FindingShrinker {
    let configuration: RunConfiguration
    init(_ configuration: RunConfiguration) { self.configuration = configuration }

    /// The finding with its scenario minimised; unchanged when the minimum did not reproduce
    /// (the runner reports the original case then too) or the rule is unknown.
    func shrunk(_ finding: Finding) -> Finding {
        let target: ShrinkTarget
        switch finding.rule {
        case Finding.crashRule: target = .crash
        case Finding.hangRule: target = .hang
        default:
            guard let check = RuleBook.check(id: finding.rule) else { return finding }
            target = ShrinkTarget(check)
        }
        var shrinker = Shrinker(impl: configuration.impl, profile: configuration.profile, target: target, attempts: configuration.attempts)
        // As the runner does: a run that stalls costs the driver's stall window, so a death is
        // shrunk on a smaller budget than a rule.
        if finding.rule == Finding.crashRule || finding.rule == Finding.hangRule { shrinker.budget = min(shrinker.budget, 120) }
        // (A failure that depends on timing gets `attempts` tries to show again before the
        // search starts: the shrinker's own rule for real implementations.)
        let result = shrinker.shrink(finding.scenario, scheduleSeed: finding.scheduleSeed)
        guard result.reproduced > 0 else { return finding }
        var out = finding
        out.scenario = result.scenario
        out.scenario.name = "\(finding.rule) minimised from case \(finding.caseIndex)"
        out.scheduleSeed = result.scheduleSeed
        out.message = result.violation.observed + "; required: " + result.violation.expected
        out.reproduced = result.reproduced
        out.attempts = result.attempts
        out.shrinkSteps = result.accepted
        out.shrinkExhausted = result.exhausted
        out.shrinkMilliseconds = result.milliseconds
        return out
    }
}
