import OperationSpec

extension Finding {
    /// The strength of the finding's rule; nil for the pseudo-rules (RUN-CRASH, RUN-HANG,
    /// DRIVER-PROTOCOL), which are no statement of the documents.
    public var strength: Strength? { RuleBook.check(id: rule)?.rule.strength }

    /// Whether the finding fails the run or warns (`Severity`). A crash, a hang and a broken
    /// protocol always fail.
    public var severity: Severity { Self.severity(of: rule) }

    public static func severity(of rule: String) -> Severity {
        RuleBook.check(id: rule)?.rule.severity ?? .failure
    }

    /// "documented must", "documented example", …, or "run" for a pseudo-rule: what every
    /// report shows beside a finding's rule.
    public var strengthLabel: String { strength?.rawValue ?? "run" }
}
