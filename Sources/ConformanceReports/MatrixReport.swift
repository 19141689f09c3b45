import Conformance
import OperationSpec

/// Rules down, implementations across: the same generated cases run on each implementation,
/// every cell the rule's status there, every failing cell tied to the line that replays it.
/// Nothing in it depends on time or order of completion, so the same runs give the same bytes.
public struct MatrixReport {
    public struct Column {
        public var result: RunResult
        /// rule id -> finding file, for the replay lines.
        public var files: [String: String]
        public init(result: RunResult, files: [String: String]) { self.result = result; self.files = files }
        var name: String { result.configuration.impl.name }
    }

    public let columns: [Column]
    public init(columns: [Column]) { self.columns = columns }

    /// Every rule of the runs, then RUN-CRASH, RUN-HANG and DRIVER-PROTOCOL when some
    /// implementation crashed or hung, or its driver broke the protocol.
    var rows: [String] {
        guard let first = columns.first else { return [] }
        var ids = first.result.statistics.map(\.id)
        for (pseudo, _) in Finding.pseudoRules
        where columns.contains(where: { c in c.result.findings.contains { $0.rule == pseudo } }) {
            ids.append(pseudo)
        }
        return ids
    }

    /// A failing cell: its finding, numbered in reading order (rows, then columns).
    struct Failure { var number: Int; var rule: String; var column: Int; var finding: Finding; var text: String }

    var failures: [Failure] {
        var out: [Failure] = []
        for rule in rows {
            for (n, column) in columns.enumerated() {
                guard let f = column.result.findings.first(where: { $0.rule == rule }) else { continue }
                out.append(Failure(number: out.count + 1, rule: rule, column: n, finding: f, text: cell(rule, column)))
            }
        }
        return out
    }

    /// The cell of `rule` for one implementation: status, and for a failure how often.
    func cell(_ rule: String, _ column: Column) -> String {
        let r = column.result
        if let ending = Finding.pseudoEnding(rule) {
            let n = r.endings[ending.rawValue] ?? 0
            return n > 0 ? "fail \(n)/\(r.cases)" : "pass"
        }
        guard let s = r.statistics.first(where: { $0.id == rule }) else { return "" }
        switch s.status {
        case .fail: return "fail \(s.violations)/\(r.cases)"
        case .warn: return "warn \(s.violations)/\(r.cases)"
        case .pass: return "pass"
        case .known: return "known \(s.known)/\(r.cases)"
        case .unconfirmed: return "unconfirmed \(s.unconfirmed)/\(r.cases)"
        case .notObservable: return "not observable"
        case .notApplicable: return "not applicable"
        case .notReached: return "not reached"
        }
    }

    /// Per implementation: how many rules have each status (the README's summary).
    public func summary() -> [(
        impl: String, pass: Int, fail: Int, warn: Int, notObservable: Int, notReached: Int, notApplicable: Int,
        crashes: Int, hangs: Int
    )] {
        columns.map { c in
            let count = { (s: RuleStatistics.Status) in c.result.statistics.filter { $0.status == s }.count }
            return (
                c.name, count(.pass), count(.fail), count(.warn), count(.notObservable), count(.notReached),
                count(.notApplicable),
                c.result.endings["crash"] ?? 0, c.result.endings["hang"] ?? 0
            )
        }
    }

    public func markdown() -> String {
        guard let first = columns.first?.result.configuration else { return "" }
        let g = first.generator
        var out = "# Conformance matrix\n\n"
        out +=
            "The same \(columns[0].result.cases) generated cases (run seed \(first.seed), generator "
                + "v\(ScenarioGenerator.version), "
        out +=
            "size \(g.size), misuse \(g.misuseRate)%" + (g.flawRate > 0 ? ", flawed subclasses \(g.flawRate)%" : "")
            + (g.surface2 ? ", API surface 2" : "") + ") "
        out += "on each implementation, judged under profile `\(first.profile.rawValue)`. Made by "
        out +=
            "`opconform matrix --impls \(columns.map(\.name).joined(separator: ",")) --count "
                + "\(columns[0].result.cases) --seed \(first.seed)"
        out += (first.profile == .guide ? "" : " --profile \(first.profile.rawValue)") + "`.\n\n"
        out +=
            "## Summary\n\n| | " + columns.map(\.name).joined(separator: " | ") + " |\n|---|"
            + columns.map { _ in "---|" }.joined() + "\n"
        let sums = summary()
        func line(_ label: String, _ value: (Int) -> Int) {
            out += "| \(label) | " + sums.indices.map { String(value($0)) }.joined(separator: " | ") + " |\n"
        }
        line("pass") { sums[$0].pass }
        line("fail") { sums[$0].fail }
        line("warn (examples, advice, observed only)") { sums[$0].warn }
        line("not observable") { sums[$0].notObservable }
        line("not reached") { sums[$0].notReached }
        line("not applicable") { sums[$0].notApplicable }
        line("cases that crashed") { sums[$0].crashes }
        line("cases that hung") { sums[$0].hangs }
        let failures = failures
        out += "\n## Rules\n\nA failing cell gives the cases that broke the rule and points to its finding below.\n\n"
        out +=
            "| rule | " + columns.map(\.name).joined(separator: " | ") + " |\n|---|"
            + columns.map { _ in "---|" }.joined() + "\n"
        for rule in rows {
            let cells = columns.indices.map { n -> String in
                if let f = failures.first(where: { $0.rule == rule && $0.column == n }) {
                    return "**\(f.text)** [F\(f.number)](#f\(f.number))"
                }
                return cell(rule, columns[n])
            }
            out += "| \(rule) | " + cells.joined(separator: " | ") + " |\n"
        }
        if !failures.isEmpty {
            out +=
                "\n## Findings\n\nEach with two lines: the first replays the minimised finding the "
                    + "run wrote (in its findings "
            out += "directory), the second regenerates the original case from its seed anywhere.\n"
            for f in failures {
                let finding = f.finding, column = columns[f.column]
                out +=
                    "\n<a id=\"f\(f.number)\"></a>**F\(f.number). \(f.rule) on \(column.name)** (\(f.text); "
                        + "\(finding.strengthLabel)\(finding.replayRate.map { "; " + $0 } ?? "")): "
                        + "\(finding.message)\n\n"
                out += "```\n\(finding.replayLine(file: column.files[f.rule]))\n\(finding.replayLine(file: nil))\n```\n"
            }
        }
        let notObservable = columns.flatMap { c in
            c.result.statistics.filter { $0.status == .notObservable }.map { (c.name, $0) }
        }
        if !notObservable.isEmpty {
            out += "\n## Why not observable\n\n"
            var seen: [String] = []
            for (impl, s) in notObservable {
                let line = "- \(impl): \(s.reason ?? "")"
                if !seen.contains(line) { seen.append(line); out += line + "\n" }
            }
        }
        return out
    }

    /// The console's version: the summary and the rules whose status differs between
    /// implementations (the ones that tell them apart).
    public func text() -> String {
        var out = "impl".padding(14) + "pass  fail  warn  not-obs  not-reached  not-appl  crashed  hung\n"
        for s in summary() {
            out +=
                s.impl.padding(14) + String(s.pass).leftPadded(4) + String(s.fail).leftPadded(6)
                + String(s.warn).leftPadded(6) + String(s.notObservable).leftPadded(9)
                + String(s.notReached).leftPadded(13) + String(s.notApplicable).leftPadded(10)
                + String(s.crashes).leftPadded(9) + String(s.hangs).leftPadded(6) + "\n"
        }
        let differing = rows.filter { rule in
            Set(columns.map { cell(rule, $0).split(separator: " ").first.map(String.init) ?? "" }).count > 1
        }
        if !differing.isEmpty {
            out += "\nrules that differ:\n" + "rule".padding(36) + columns.map { $0.name.padding(20) }.joined() + "\n"
            for rule in differing {
                out += rule.padding(36) + columns.map { cell(rule, $0).padding(20) }.joined() + "\n"
            }
        }
        for f in failures {
            let column = columns[f.column]
            out +=
                "\nF\(f.number) \(f.rule) [\(f.finding.strengthLabel)] on \(columns[f.column].name): "
                    + "\(f.finding.message)\n\(f.finding.replayRate.map { "  " + $0 + "\n" } ?? "")  replay: "
                    + f.finding.replayLine(
                        file: column.files[f.rule], program: column.result.configuration.replayProgram)
                    + "\n"
        }
        return out
    }
}
