import Foundation
import OperationSpec

/// Guided generation (issue 18 item 4; Specs/generator.md, "Guided generation"). A run with
/// `guided` goes in rounds of `round` cases. After each round, the rules reached least so far
/// (fewest hits; a rule not yet reached has none) that a part of the generator can lean towards
/// name up to three foci, and every other case of the next round leans towards one of them in
/// turn (`GeneratorFocus`); the rest are drawn as an unguided run draws them. The foci come
/// from the folded results of whole rounds only, in case order, so a guided run makes the same
/// cases whatever its `--jobs`, and each case records its focus in its options: its seed and
/// options rebuild it, as for any case.
package enum Guidance {
    /// Cases per round: enough for the tallies to mean something, few enough to steer often.
    public static let round = 100

    /// The part of the generator that reaches each rule more often, in catalog order. A rule not
    /// listed is reached by every case alike (or by what no knob reaches) and is not steered for.
    package static let steering: [(rule: String, focus: GeneratorFocus)] = [
        (RuleID.startNotReadyThrows, .misuse), (RuleID.startExecutingThrows, .misuse), (RuleID.startFinished, .misuse),
        (RuleID.readyCancelled, .cancel), (RuleID.cancelSetsFlag, .cancel), (RuleID.cancelBeforeStartFinishes, .cancel),
        (RuleID.cancelBeforeStartSkipsMain, .cancel), (RuleID.cancelAll, .cancelAll),
        (RuleID.depRemoveRestores, .removeDependency), (RuleID.depSelf, .misuse), (RuleID.depDuplicate, .misuse),
        (RuleID.depCycle, .misuse),
        (RuleID.completionLateThrows, .misuse), (RuleID.blockLateAddThrows, .misuse),
        (RuleID.priorityNormalize, .priority), (RuleID.priorityOrder, .priority), (RuleID.kvoQueuePriority, .priority),
        (RuleID.queueAddWait, .waitingAdd), (RuleID.queueSuspendRunningContinue, .suspendRunning),
        (RuleID.queueOwnership, .misuse)
    ]

    /// The foci for the next round: the foci of the (up to) three least-reached steerable rules
    /// that can be judged here (not `not-applicable` nor `not-observable`), fewest hits first,
    /// ties in catalog order; a focus once. `misuse` is offered only when the run misuses at
    /// all (a rate above 0): the focus raises that rate and never makes one from nothing, so it
    /// would only take a slot.
    package static func foci(after stats: [RuleStatistics], misuse: Bool = true) -> [GeneratorFocus] {
        var candidates: [(hits: Int, order: Int, focus: GeneratorFocus)] = []
        for (order, s) in stats.enumerated() where s.status != .notApplicable && s.status != .notObservable {
            guard let focus = steering.first(where: { $0.rule == s.id })?.focus, misuse || focus != .misuse else {
                continue
            }
            candidates.append((s.hits, order, focus))
        }
        var out: [GeneratorFocus] = []
        for c in candidates.sorted(by: { ($0.hits, $0.order) < ($1.hits, $1.order) }) where !out.contains(c.focus) {
            out.append(c.focus)
            if out.count == 3 { break }
        }
        return out
    }

    /// The focus of the case at `position` (within its shard), given its round's foci: every
    /// other case, the foci in turn.
    package static func focus(position: Int, foci: [GeneratorFocus]) -> GeneratorFocus? {
        guard !foci.isEmpty, position % 2 == 1 else { return nil }
        return foci[(position / 2) % foci.count]
    }
}

/// The foci of each round of a guided run, published by the fold as each round ends and waited
/// for by the jobs that generate the next round's cases (`CasePipeline`).
///
/// `@unchecked Sendable` is sound: `rounds` and `closed` are read and written only under
/// `condition`'s lock.
final class GuidanceBoard: @unchecked Sendable {
    private let condition = NSCondition()
    private var rounds: [[GeneratorFocus]] = [[]]   // round 0 is unguided: nothing is known yet
    private var closed = false

    /// Publishes the foci of the next round.
    func publish(_ foci: [GeneratorFocus]) {
        condition.lock()
        rounds.append(foci)
        condition.broadcast()
        condition.unlock()
    }

    /// The foci of round `r`, waiting until the fold has published them; none once the run is
    /// over (a case generated then is never folded).
    func foci(round r: Int) -> [GeneratorFocus] {
        condition.lock()
        defer { condition.unlock() }
        while rounds.count <= r && !closed { condition.wait() }
        return r < rounds.count ? rounds[r] : []
    }

    /// Wakes every job still waiting: the run ended or stopped.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
