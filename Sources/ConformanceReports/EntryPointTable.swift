import Conformance
import OperationSpec
import ReferenceEngine

/// Which rules read each entry point of the API (issue 30, item 3), measured, not declared: on
/// generated cases of the reference engine, a rule reads an entry point when taking that entry
/// point's calls out of the trace (its `call`, `returned` and `threw` events) changes what the
/// rule's checker says (how many judgements it made, or its violations). `Specs/api-surface.md`
/// holds the table (`opconform rules --entry-points`), and a test keeps the two equal and keeps
/// every pair of `required` in it: the holes between the rules and the API that issue 30 found
/// stay closed.
public enum EntryPointTable {
    /// One way into the API, by the calls the trace records for it.
    public struct EntryPoint: Sendable {
        /// As the class reference names it.
        public let name: String
        /// What the row says the events are, in the trace format's words.
        public let calls: String
        let matches: @Sendable (EventKind) -> Bool

        init(name: String, calls: String, matches: @escaping @Sendable (EventKind) -> Bool) {
            self.name = name
            self.calls = calls
            self.matches = matches
        }

        /// An entry point made of calls: their `call`, `returned` and `threw` events.
        init(name: String, calls: String, call: @escaping @Sendable (Call) -> Bool) {
            self.init(name: name, calls: calls) { EntryPointTable.call(of: $0).map(call) ?? false }
        }
    }

    public static let entryPoints: [EntryPoint] = [
        EntryPoint(
            name: "addOperation:", calls: "addOperation", call: { if case .addOperation = $0 { true } else { false } }),
        EntryPoint(name: "addOperations:waitUntilFinished:", calls: "addOperations", call: {
            if case .addOperations = $0 { true } else { false } }),
        EntryPoint(name: "addOperationWithBlock:", calls: "addBlock", call: {
            if case .addBlock = $0 { true } else { false } }),
        EntryPoint(name: "start", calls: "start", call: { if case .start = $0 { true } else { false } }),
        EntryPoint(name: "cancel", calls: "cancel", call: { if case .cancel = $0 { true } else { false } }),
        EntryPoint(
            name: "cancelAllOperations", calls: "cancelAll", call: { if case .cancelAll = $0 { true } else { false } }),
        EntryPoint(
            name: "setSuspended:", calls: "setSuspended", call: { if case .setSuspended = $0 { true } else { false } }),
        EntryPoint(name: "setMaxConcurrentOperationCount:", calls: "setMaxConcurrent", call: {
            if case .setMaxConcurrent = $0 { true } else { false } }),
        EntryPoint(
            name: "addDependency:", calls: "addDependency",
            call: { if case .addDependency = $0 { true } else { false } }),
        EntryPoint(name: "removeDependency:", calls: "removeDependency", call: {
            if case .removeDependency = $0 { true } else { false } }),
        EntryPoint(name: "waitUntilFinished", calls: "waitUntilFinished", call: {
            if case .waitUntilFinished = $0 { true } else { false } }),
        EntryPoint(name: "waitUntilAllOperationsAreFinished", calls: "waitUntilAllFinished", call: {
            if case .waitUntilAllFinished = $0 { true } else { false } }),
        EntryPoint(name: "setQueuePriority:", calls: "setQueuePriority", call: {
            if case .setQueuePriority = $0 { true } else { false } }),
        EntryPoint(name: "setCompletionBlock:", calls: "setCompletionBlock", call: {
            if case .setCompletionBlock = $0 { true } else { false } }),
        EntryPoint(name: "addExecutionBlock:", calls: "addExecutionBlock", call: {
            if case .addExecutionBlock = $0 { true } else { false } }),
        EntryPoint(name: "setThreadPriority:", calls: "setThreadPriority", call: {
            if case .setThreadPriority = $0 { true } else { false } }),
        // Not calls of the API, but where an operation's own code and getters meet the rules.
        EntryPoint(name: task, calls: "mainBegan, mainEnded") {
            switch $0 { case .mainBegan, .mainEnded: true; default: false } },
        EntryPoint(name: getters, calls: "read") {
            if case .read(_, let key, _) = $0 {
                [.isReady, .isExecuting, .isFinished, .isCancelled].contains(key)
            } else {
                false
            }
        }
    ]

    static let task = "the task (main, or a concurrent subclass's task)"
    static let getters = "the state getters (isReady, isExecuting, isFinished, isCancelled)"

    /// Pairs the table must hold: each names a hole issue 30 found between the rules and the API.
    public static let required: [(entryPoint: String, rule: String)] = [
        // Suspension holds for every way of adding.
        ("addOperation:", RuleID.queueSuspended), ("addOperations:waitUntilFinished:", RuleID.queueSuspended),
        ("addOperationWithBlock:", RuleID.queueSuspended),
        // cancelAllOperations reaches every operation of the queue, executing ones too.
        ("cancelAllOperations", RuleID.cancelAll),
        // An operation reports executing while its task runs, and finished only once it is done.
        (task, RuleID.stateExecutingDuringTask), (task, RuleID.stateFinishedAfterTask),
        // A getter never moves an operation's state backwards.
        (getters, RuleID.stateFinishedMonotonic), (getters, RuleID.stateCancelledMonotonic),
        (getters, RuleID.readyExecutingFinished)
    ]

    /// One row: an entry point, the rules that read it, and in how many cases it was called.
    public struct Row: Sendable, Equatable {
        public let entryPoint: String
        public let calls: String
        public let rules: [String]
        public let cases: Int
    }

    /// Measures the table on `count` generated cases from `seed` (API surface 2 on; half of
    /// them with the subclass kind), under every profile.
    public static func measure(count: Int = 120, seed: UInt64 = 1) -> [Row] {
        var read = Array(repeating: [Bool](repeating: false, count: RuleBook.all.count), count: entryPoints.count)
        var cases = Array(repeating: 0, count: entryPoints.count)
        let engine = ReferenceEngine()
        for k in 0..<count {
            let options = GeneratorOptions(subclass: k % 2 == 1, surface2: true)
            let caseSeed = SplitMix64.derive(seed, UInt64(k))
            let scenario = ScenarioGenerator(options: options).generate(seed: caseSeed)
            let trace = engine.run(scenario, scheduleSeed: caseSeed)
            for profile in Profile.allCases {
                let before = RuleBook.verdicts(scenario: scenario, trace: trace, profile: profile)
                for (e, entry) in entryPoints.enumerated() {
                    var ablated = trace
                    ablated.events.removeAll { entry.matches($0.kind) }
                    guard ablated.events.count < trace.events.count else { continue }
                    if profile == Profile.allCases.first { cases[e] += 1 }
                    let after = RuleBook.verdicts(scenario: scenario, trace: ablated, profile: profile)
                    for r in before.indices where Self.outcome(before[r].verdict) != Self.outcome(after[r].verdict) {
                        read[e][r] = true
                    }
                }
            }
        }
        return entryPoints.enumerated().map { e, entry in
            Row(entryPoint: entry.name, calls: entry.calls,
                rules: RuleBook.all.indices.filter { read[e][$0] }.map { RuleBook.all[$0].rule.id }, cases: cases[e])
        }
    }

    static func call(of kind: EventKind) -> Call? {
        switch kind {
        case .call(let c), .returned(let c), .threw(let c, _, _): return c
        default: return nil
        }
    }

    /// What a verdict says, for the comparison: judgements made and violations found.
    static func outcome(_ verdict: Verdict) -> [Int] {
        if case .checked(let r) = verdict { return [r.hits, r.violations.count] }
        return []
    }

    /// The table as Specs/api-surface.md holds it.
    public static func markdown(_ rows: [Row], count: Int = 120, seed: UInt64 = 1) -> String {
        var out = "| entry point | trace events | cases | rules that read it |\n|---|---|---|---|\n"
        for row in rows {
            let rules = row.rules.isEmpty ? "none" : row.rules.joined(separator: ", ")
            out += "| `\(row.entryPoint)` | `\(row.calls)` | \(row.cases) of \(count) | \(rules) |\n"
        }
        out += "\nMeasured on \(count) generated cases of the reference engine from seed \(seed) (API surface 2 on, "
            + "every second case with the subclass kind), under every profile: a rule reads an entry point when "
            + "taking that entry point's events (for a call: its `call`, `returned` and `threw`) out of the trace "
            + "changes what its "
            + "checker says. Regenerate with `opconform rules --entry-points`.\n"
        return out
    }
}
