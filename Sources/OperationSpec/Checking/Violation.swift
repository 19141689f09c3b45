/// A rule broken by a run: which rule, what happened, what the rule required, and the few events
/// that witness it. Reads like a bug report: "READY-DEPS-UNFINISHED: op 3 reported ready while
/// its dependency op 1 had not finished; required: not ready until every dependency finished."
public struct Violation: Sendable, Codable, Equatable, CustomStringConvertible {
    public var rule: String
    /// What happened, in one sentence.
    public var observed: String
    /// What the rule required, in one sentence.
    public var expected: String
    /// The events that show it, in trace order.
    public var witnesses: [TraceEvent]

    public init(rule: String, observed: String, expected: String, witnesses: [TraceEvent]) {
        self.rule = rule
        self.observed = observed
        self.expected = expected
        self.witnesses = witnesses.sorted { $0.seq < $1.seq }
    }

    public var description: String {
        var s = "\(rule): \(observed); required: \(expected)"
        for w in witnesses { s += "\n    \(w)" }
        return s
    }
}

/// What one checker found in one trace: how often the rule's antecedent was reached (a rule
/// never reached proves nothing), and its violations.
public struct CheckResult: Sendable, Equatable {
    public var hits: Int
    public var violations: [Violation]
    public init(hits: Int = 0, violations: [Violation] = []) { self.hits = hits; self.violations = violations }
}

/// A checker's verdict for one rule on one trace.
public enum Verdict: Sendable, Equatable {
    case checked(CheckResult)
    /// The implementation cannot observe what the rule needs; never reported as a pass.
    case notObservable(reason: String)
    /// The rule does not apply under the chosen profile.
    case notApplicable
}
