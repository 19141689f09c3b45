/// What a checker sees: the scenario, the trace, the profile, and the facts indexed from the trace.
///
/// A class, though nothing in it changes: every checker is handed the same context, and as a
/// struct (the facts hold some thirty arrays) it was copied for a call wherever the compiler
/// could not prove it unneeded, a retain and a release per array each time: a quarter of the
/// bench's rule-by-rule timing, which hands each checker contexts kept in an array. Immutable
/// (`let` only, all of it `Sendable`), so sharing it across threads is sound.
public final class CheckContext: Sendable {
    public let scenario: Scenario
    public let trace: Trace
    public let profile: Profile
    public let facts: TraceFacts

    /// Each start called on an operation whose class overrides start once it had finished, and
    /// what the class did then (`Restart`), read from the whole trace.
    public let restarts: [Restart]

    /// The context of `trace`, without a start of a finished operation whose class overrides
    /// start, nor what the class did when it ran again (`withoutRestarts`).
    public init(scenario: Scenario, trace: Trace, profile: Profile) {
        self.scenario = scenario
        self.profile = profile
        let facts = TraceFacts(scenario: scenario, trace: trace)
        let restarts = Self.restarts(scenario, trace, facts)
        self.restarts = restarts
        if restarts.isEmpty {
            self.trace = trace
            self.facts = facts
        } else {
            let judged = Self.withoutRestarts(trace, facts, restarts)
            self.trace = judged
            self.facts = TraceFacts(scenario: scenario, trace: judged)
        }
    }

    /// A start called by the driver or an operation's code on a finished operation whose class
    /// overrides start.
    ///
    /// The guide calls it an error of the caller's, which the default start reports by throwing
    /// (004 2.7.2), and says nothing of what a class's own start does then: its own Listing 2-6
    /// runs the task again. The class reference says the default start of a finished operation
    /// returns without running anything. So no rule of the documents judges what follows (the
    /// context leaves it out), and START-FINISHED-OWN, a warning under the `class-reference`
    /// profile, tells a user whose class runs again.
    public struct Restart: Sendable {
        public let op: Int
        /// The evidence that it had finished, and the start call.
        public let finished: TraceEvent, call: TraceEvent
        /// The first sign that it ran again (its task began, or it reported isExecuting YES or
        /// isFinished NO), if any.
        public let again: TraceEvent?
        /// Where the call, its return and the first sign of a run again are in the whole trace.
        let position: Int, end: Int?, rerun: Int?
    }

    static func restarts(_ scenario: Scenario, _ trace: Trace, _ facts: TraceFacts) -> [Restart] {
        var found: [Restart] = []
        for op in scenario.operations.indices where scenario.operations[op].kind.overridesStart {
            // A start by a caller, not by a queue: a queue that starts a finished operation
            // again breaks a duty of its own, and stays judged.
            guard let finished = facts.finishedAt[op],
                  let call = facts.starts(op).first(where: { $0.by != .queue && facts.settled(finished, before: $0.i) })
            else { continue }
            // The first sign it ran again (the rule's witness), and the first event of the
            // class's doing after the call (where the judged trace stops for it): also a
            // will-change, which a start that finishes a cancelled operation again sends too.
            // Not a did-change or an announced key: the first run's may still be on its way
            // when the call is made (the driver acts on the first evidence of finished).
            func first(_ sign: (EventKind) -> Bool) -> Int? {
                facts.opEvents[op].first { $0 > call.i && sign(trace.events[$0].kind) }
            }
            let again = first { kind in
                switch kind {
                case .mainBegan, .blockBegan,
                     .read(_, .isExecuting, .bool(true)), .didChange(_, .isExecuting, .bool(true)),
                     .read(_, .isFinished, .bool(false)), .didChange(_, .isFinished, .bool(false)),
                     .set(_, .isExecuting, true), .set(_, .isFinished, false):
                    return true
                default: return false
                }
            }
            let moved = first { kind in
                if case .willChange(_, let key, _) = kind { return key == .isExecuting || key == .isFinished }
                return false
            }
            let rerun = [again, moved].compactMap { $0 }.min()
            found.append(Restart(op: op, finished: trace.events[finished], call: trace.events[call.i],
                                 again: again.map { trace.events[$0] }, position: call.i,
                                 end: call.end, rerun: rerun))
        }
        return found
    }

    /// `trace` without each restart's call and, from the first sign that the operation ran
    /// again, the events about it. What the first run does after the call stays: its
    /// completion block and its announcements may come late (Foundation runs the block after
    /// the finish it was told of), and a verdict on them is the first run's; so does the first
    /// completion block, wherever it falls, since a run again cannot make it happen earlier.
    static func withoutRestarts(_ trace: Trace, _ facts: TraceFacts, _ restarts: [Restart]) -> Trace {
        var drop = [Bool](repeating: false, count: trace.events.count)
        for restart in restarts {
            drop[restart.position] = true
            if let end = restart.end { drop[end] = true }
            guard let rerun = restart.rerun else { continue }
            // The first completion block's two marks are kept wherever they fall.
            let events = facts.opEvents[restart.op]
            let began = events.first { if case .completionBegan = trace.events[$0].kind { return true }; return false }
            let ended = began.flatMap { b in
                events.first { if case .completionEnded = trace.events[$0].kind { return $0 > b }; return false }
            }
            for i in events where i >= rerun && i != began && i != ended { drop[i] = true }
        }
        var judged = trace
        judged.events = trace.events.indices.filter { !drop[$0] }.map { trace.events[$0] }
        return judged
    }

    public var events: [TraceEvent] { trace.events }
    public func event(_ i: Int) -> TraceEvent { trace.events[i] }
    public func kind(_ op: Int) -> OperationKind { scenario.operations[op].kind }
    /// The run ended on its own (normally or by a hang), so "never happened" is meaningful.
    /// After a crash or a cut, liveness rules have nothing to say. A hang on a real
    /// implementation may be a slow case cut after a silence: the runner holds every
    /// violation that rests on absence to a patient run of the case (`Confirmation`), so what
    /// a slow case did not do yet is not reported as what it never does.
    public var settled: Bool { trace.ending == .complete || trace.ending == .hang }

    /// The run hung while op's notification for `key` was under way: its will-change is in the
    /// trace and its did-change is not. A thread stuck inside the implementation's KVO (a
    /// deadlock) may be holding that did-change, so its absence proves nothing.
    public func inFlight(_ op: Int, _ key: StateKey) -> Bool {
        guard trace.ending == .hang else { return false }
        var open = 0
        for i in facts.opEvents[op] {
            switch event(i).kind {
            case .willChange(_, key, _): open += 1
            case .didChange(_, key, _): open = max(0, open - 1)
            default: break
            }
        }
        return open > 0
    }

    public func violation(_ rule: String, _ observed: String, _ expected: String, _ witnesses: [Int?]) -> Violation {
        Violation(rule: rule, observed: observed, expected: expected,
                  witnesses: witnesses.compactMap { $0 }.map { trace.events[$0] })
    }
}

/// One rule with its checker: `(Scenario, Trace) -> [Violation]`, pure, linear in the trace
/// (after the shared `TraceFacts` pass).
///
/// A class for the same reason as `CheckContext`: walking the catalog copied each entry, and
/// a rule's strings and lists made that a dozen retains and releases per rule per trace (a
/// sixteenth of checking small traces). Immutable and all `Sendable`.
public final class RuleCheck: Sendable {
    public let rule: Rule
    public let check: @Sendable (CheckContext) -> CheckResult
    public init(_ rule: Rule, _ check: @escaping @Sendable (CheckContext) -> CheckResult) {
        self.rule = rule
        self.check = check
    }
}
