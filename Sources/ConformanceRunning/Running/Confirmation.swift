import ConformanceFormats
import OperationDriverKit
import OperationSpec

/// Telling a slow case from a broken one (issue 29, "load-proof verdicts").
///
/// Two kinds of evidence break a rule. A violation whose witnesses are in the trace (executing
/// and finished at once, a start while suspended) is proof, however rarely it replays: a real
/// race may show once in twenty runs, and it stays a failure. A violation that rests on
/// absence or time (a hang after a silence, "it never finished", "the blocks did not meet in
/// time") proves something only if the case was not merely slow: on a machine loaded to many
/// times its cores, correct code misses windows. Such a violation is a finding only when the
/// case, run again with patience (`Implementation.patient`: every silence window, rendezvous
/// timeout and deadline `patience` times as long), breaks the same rule again. Otherwise it is
/// **unconfirmed**: counted and reported with its first case, failing the run only under
/// `--strict`.
///
/// The rules that judge absence judge a hung trace too (`CheckContext.settled`): a real deadlock
/// leaves an operation never finished. Their violations there are held to the patient run like
/// the hang itself, so a slow case cut after a silence reports neither.
public enum Confirmation {
    /// How many times longer the confirming run waits. Four times the driver's half-second
    /// stall window is two seconds of silence, which no correct case on a loaded machine was
    /// seen to need (the load test, `Scripts/load.sh`).
    public static let patience = 4

    /// The rules some of whose violations rest on absence or time.
    static let absenceRules: [String] = [
        RuleID.blockConcurrent, RuleID.blockEachOnce, RuleID.cancelBeforeStartFinishes, RuleID.cancelNotStop,
        RuleID.completionOnce, RuleID.kvoBalanced, RuleID.kvoCancelledStart, RuleID.kvoFinishAlways,
        RuleID.kvoSetBracketed, RuleID.queueAddBlockRuns, RuleID.queueProgress, RuleID.queueSuspendRunningContinue,
        RuleID.stateFinishedRegardless,
        // The announcement it misses may be on its way: a reader saw the stored YES before the
        // class's did-change, and the case ended first (seen once under a loaded suite).
        RuleID.subclassFinishAnnounced,
    ]

    /// Words of a violation's sentence that say it rests on something not seen.
    static let absenceWords = [
        "never", "timed out", " ran 0 times", "without a did-change", "announcing no change", "announcing only"
    ]

    /// Words of the hang of a case cut at its deadline while its driver was still writing.
    static let runawayWords = "while the driver was still writing"

    /// Whether `violation` is the hang of a case that ran its whole deadline writing (a minute by
    /// default, against scenarios of milliseconds): it is its own witness, and a patient run would
    /// only hold the case `patience` times longer to show the same (issue 43: a driver writing an
    /// event every half second held one case for 300 s). Words a driver forges here make its own
    /// hang count at once, never excuse anything.
    package static func isRunaway(_ violation: Violation) -> Bool {
        violation.rule == Finding.hangRule && violation.observed.contains(runawayWords)
    }

    /// Whether `violation` rests on absence or time rather than on witnesses of what happened:
    /// a hang (RUN-HANG), or a violation of an absence rule whose sentence says so.
    package static func restsOnAbsence(_ violation: Violation) -> Bool {
        if violation.rule == Finding.hangRule { return true }
        guard absenceRules.contains(violation.rule) else { return false }
        return absenceWords.contains { violation.observed.contains($0) }
    }

    /// Whether the patient run of the same case (`trace` with its `verdicts`) breaks `rule`
    /// again: for RUN-HANG, it hung again. Only a violation no known divergence excuses counts
    /// (`excused`): a platform's own violation of the same rule in the patient run confirms
    /// nothing about the tested code's (issue 42: a GNUstep concurrent operation's completion
    /// block that never runs "confirmed" a block operation's completion cut off by a slow case).
    package static func confirms(_ rule: String, trace: Trace, verdicts: [(rule: Rule, verdict: Verdict)],
                         excused: (Violation) -> Bool = { _ in false }) -> Bool {
        if rule == Finding.hangRule { return trace.ending == .hang }
        return verdicts.contains { v in
            guard v.rule.id == rule, case .checked(let r) = v.verdict else { return false }
            return r.violations.contains { restsOnAbsence($0) && !excused($0) }
        }
    }
}
