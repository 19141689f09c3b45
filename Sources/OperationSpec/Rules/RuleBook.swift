/// The catalog: every rule with its checker, in a fixed order (family by family, as listed in
/// `Specs/rules.md`). A test keeps this and `Specs/rules.md` identical.
public enum RuleBook {
    public static let all: [RuleCheck] = {
        let checks = readiness + cancellation + start + kvo + state + dependencies + completion
            + priority + threadPriority + queues + blockOperations + subclasses + subclassMain + invocation
        precondition(Set(checks.map(\.rule.id)).count == checks.count, "rule ids must be unique")
        return checks
    }()

    public static var rules: [Rule] { all.map(\.rule) }

    public static func check(id: String) -> RuleCheck? { all.first { $0.rule.id == id } }

    /// Rules whose id matches a glob with `*` (e.g. `KVO-*`, `*-THROWS`).
    public static func matching(_ glob: String) -> [RuleCheck] {
        all.filter { Glob.matches($0.rule.id, glob) }
    }

    /// Runs every applicable checker on one trace. A rule whose needs the implementation cannot
    /// observe is `notObservable`, never a pass.
    public static func verdicts(scenario: Scenario, trace: Trace, profile: Profile,
                                rules: [RuleCheck] = RuleBook.all) -> [(rule: Rule, verdict: Verdict)] {
        let context = CheckContext(scenario: scenario, trace: trace, profile: profile)
        return rules.map { check in (check.rule, verdict(check, context)) }
    }

    /// All violations of one trace, in catalog order.
    public static func violations(scenario: Scenario, trace: Trace, profile: Profile) -> [Violation] {
        let context = CheckContext(scenario: scenario, trace: trace, profile: profile)
        var found: [Violation] = []
        for check in all {
            if case .checked(let r) = verdict(check, context), !r.violations.isEmpty { found += r.violations }
        }
        return found
    }

    static func verdict(_ check: RuleCheck, _ context: CheckContext) -> Verdict {
        guard check.rule.applies(to: context.profile) else { return .notApplicable }
        // Full KVO shows every did-change a subclass sends: what `announcements` promises.
        let kvo = context.trace.capabilities.contains(.kvo)
        let capabilities = context.trace.capabilities + (kvo ? [.announcements] : [])
        guard check.rule.needs.allSatisfy(capabilities.contains) else {
            let missing = check.rule.needs.filter { !capabilities.contains($0) }
            return .notObservable(
                reason: "\(context.trace.impl) cannot observe " + missing.map(\.rawValue).joined(separator: ", "))
        }
        return .checked(check.check(context))
    }
}

/// `*` matches any run of characters; everything else matches itself.
public enum Glob {
    public static func matches(_ text: String, _ pattern: String) -> Bool {
        let t = Array(text), p = Array(pattern)
        var ti = 0, pi = 0, star = -1, mark = 0
        while ti < t.count {
            if pi < p.count && p[pi] != "*" && p[pi] == t[ti] { ti += 1; pi += 1 }
            else if pi < p.count && p[pi] == "*" { star = pi; mark = ti; pi += 1 }
            else if star >= 0 { pi = star + 1; mark += 1; ti = mark }
            else { return false }
        }
        while pi < p.count && p[pi] == "*" { pi += 1 }
        return pi == p.count
    }
}
