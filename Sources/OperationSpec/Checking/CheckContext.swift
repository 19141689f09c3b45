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

    public init(scenario: Scenario, trace: Trace, profile: Profile) {
        self.scenario = scenario
        self.trace = trace
        self.profile = profile
        self.facts = TraceFacts(scenario: scenario, trace: trace)
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
