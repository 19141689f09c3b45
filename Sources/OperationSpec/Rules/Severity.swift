/// What breaking a rule means for a run's verdict. Only what the documents require can fail an
/// implementation: a must-rule broken is a failure. A documented example (a listing's order of
/// notifications), a piece of advice, or behaviour the documents do not state but
/// implementations show (`observed only`) is worth telling a user about and is reported, but
/// code that departs from it can still be correct: it is a warning. A run fails on warnings only
/// when asked (`--strict`).
public enum Severity: String, Sendable, Codable, CaseIterable {
    case failure
    case warning
}

extension Strength {
    /// The severity of breaking a rule of this strength: must-rules fail, the rest warn.
    public var severity: Severity {
        switch self {
        case .documentedMust: return .failure
        case .documentedExample, .documentedAdvice, .observedOnly: return .warning
        }
    }
}

extension Severity {
    /// How a report heads a broken rule of this severity: `FAIL`, `WARN`, or `FAIL (--strict)`
    /// for a warning that `--strict` makes fail.
    public func label(strict: Bool) -> String {
        self == .failure ? "FAIL" : strict ? "FAIL (--strict)" : "WARN"
    }
}

extension Rule {
    public var severity: Severity { strength.severity }
}
