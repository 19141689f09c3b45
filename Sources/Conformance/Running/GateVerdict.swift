import OperationSpec

/// What a gate decided: the rules this run broke, held against the expected divergences.
/// A broken rule that only warns (`Severity.warning`) is told apart from one that fails: with no
/// expectation it is an unexpected warning, which fails the gate only under `--strict`.
public struct GateVerdict: Sendable {
    /// Rules that fail the run (must-rules, crashes, hangs) broken with no expectation: the gate
    /// fails.
    public var unexpected: [String]
    /// Rules that warn broken with no expectation: said; the gate fails on them under `--strict`.
    public var unexpectedWarnings: [String]
    /// Expected divergences that this run did not show (rare ones left out: `notSeenRare`).
    public var nowPassing: [String]
    /// Expected divergences marked rare (`Entry.rare`) that this run did not show: said, not failed.
    package var notSeenRare: [String]
    /// Expected divergences this run showed.
    public var confirmed: [String]
    /// Rules broken only by absence or time that a patient run did not show again
    /// (`Confirmation`): said; the gate fails on them under `--strict`.
    public var unconfirmed: [String]
    /// The known divergences (entries, one a cause) the run excused: a rule with two causes in
    /// the file counts twice here and once in `confirmed`, as the run's summary counts them.
    package var seenEntries = 0
    /// Entries with a measured rate that this run showed far more often (`Expectations.Rate`):
    /// the gate fails, since a frequent defect of the rule may hide behind a rare flake's entry.
    public var exceeded: [(rule: String, seen: Int, cases: Int, rate: Expectations.Rate, bound: Int)] = []

    /// A run given the expectations (`RunConfiguration.known`) has already told each violation's
    /// cause apart (`Attribution`): what they excused is confirmed, and every other broken rule
    /// is unexpected, an expected rule included. A run made without them is held to them by
    /// rule alone, as gates did before causes.
    public init(result: RunResult, expectations: Expectations) {
        var broken = result.statistics.filter(\.broken).map(\.id)
        broken += result.findings.map(\.rule).filter { Finding.pseudoEnding($0) != nil && $0 != Finding.protocolRule }
        var expected: [String] = []
        for rule in expectations.expected.map(\.rule) where !expected.contains(rule) { expected.append(rule) }
        let seen: [String]
        if result.configuration.known != nil {
            seen = result.known.map(\.rule).reduce(into: [String]()) { list, rule in
                if !list.contains(rule) { list.append(rule) }
            }
            unexpected = broken.filter { Finding.severity(of: $0) == .failure }
            unexpectedWarnings = broken.filter { Finding.severity(of: $0) == .warning }
        } else {
            seen = broken.filter { expected.contains($0) }
            let surprising = broken.filter { !expected.contains($0) }
            unexpected = surprising.filter { Finding.severity(of: $0) == .failure }
            unexpectedWarnings = surprising.filter { Finding.severity(of: $0) == .warning }
        }
        confirmed = seen
        seenEntries = result.configuration.known != nil ? result.known.count : seen.count
        unconfirmed = result.unconfirmed.map(\.rule)
        for entry in expectations.expected {
            guard let rate = entry.rate else { continue }
            // The cases this entry excused, and any the rule broke unexcused (already unexpected).
            let shown = result.known.filter { $0.entry == entry }.map(\.cases).reduce(0, +)
            let bound = rate.bound(cases: result.cases)
            if shown > bound { exceeded.append((entry.rule, shown, result.cases, rate, bound)) }
        }
        let rare = expectations.expected.filter { $0.rare != nil }.map(\.rule)
        nowPassing = expected.filter { !seen.contains($0) && !rare.contains($0) }
        notSeenRare = expected.filter { !seen.contains($0) && rare.contains($0) }
    }

    /// `strict`: nothing is let go: unexpected warnings and expected divergences no longer
    /// seen fail the gate too.
    public func passes(strict: Bool) -> Bool {
        unexpected.isEmpty && exceeded.isEmpty
            && (!strict || (nowPassing.isEmpty && unexpectedWarnings.isEmpty && unconfirmed.isEmpty))
    }
}
