import Conformance
import Foundation
import OperationSpec

/// `--html DIR`: a run, a gate, a matrix or a replay as a folder of self-contained pages
/// (`HTMLPage`): `index.html` with the summary and every rule's status, filterable by status and
/// family, and one page per finding with the rule, what happened against what was required, the
/// minimised scenario, the lines that replay it, and its trace as a timeline (`TimelineView`).
///
/// A finding file holds a scenario and seeds, not a trace, so the writer runs each minimised
/// scenario again on the implementation (up to five times on a nondeterministic one, until the
/// rule breaks) and draws the trace that shows the failure; the page says when no run did.
public enum HTMLReport {
    /// The pages of a run (or a gate: `gate` adds its verdict) in `dir`; returns the index's path.
    @discardableResult
    public static func write(
        run result: RunResult, files: [String: String], gate: GateVerdict? = nil, to dir: String
    ) throws(InputError) -> String {
        try make(dir)
        let impl = result.configuration.impl
        try save(index(result, gate: gate, title: gate == nil ? "run" : "gate"), in: dir, as: "index.html")
        for story in result.stories {
            for f in story.findings {
                let page = findingPage(
                    f, impl: impl, file: files[f.rule], back: "index.html", story: story.knockOns.isEmpty ? nil : story)
                try save(page, in: dir, as: pageName(f.rule))
            }
        }
        return PathText.join(dir, "index.html")
    }

    /// The matrix as a page: rules down, implementations across, each failing cell a link to its
    /// finding's page (in a folder per implementation).
    @discardableResult
    public static func write(matrix: MatrixReport, to dir: String) throws(InputError) -> String {
        try make(dir)
        var body = "<h1>Conformance matrix</h1>\n"
        guard let first = matrix.columns.first else {
            try save(HTMLPage.page(title: "matrix", body: body), in: dir, as: "index.html")
            return PathText.join(dir, "index.html")
        }
        let c = first.result
        body +=
            "<p class=\"meta\">The same \(c.cases) generated cases (run seed \(c.configuration.seed), generator "
                + "v\(ScenarioGenerator.version), size \(c.configuration.generator.size), misuse "
                + "\(c.configuration.generator.misuseRate)%) on each implementation, profile "
                + "\(c.configuration.profile.rawValue).</p>\n"
        body +=
            "<table><tr><th>rule</th>"
            + matrix.columns.map { "<th>\(HTMLPage.escape($0.result.configuration.impl.name))</th>" }.joined()
            + "</tr>\n"
        // A folder per column, numbered: two columns may run the same implementation.
        func folder(_ k: Int) -> String { "\(k + 1)-" + Self.folder(matrix.columns[k].result.configuration.impl.name) }
        for (k, column) in matrix.columns.enumerated() where !column.result.findings.isEmpty {
            try make(PathText.join(dir, folder(k)))
            for f in column.result.findings {
                try save(
                    findingPage(
                        f, impl: column.result.configuration.impl, file: column.files[f.rule], back: "../index.html"),
                    in: PathText.join(dir, folder(k)), as: pageName(f.rule))
            }
        }
        var rows: [String] = c.statistics.map(\.id)
        for column in matrix.columns {
            for f in column.result.findings where !rows.contains(f.rule) { rows.append(f.rule) }
        }
        for rule in rows {
            body += "<tr><td><code>\(HTMLPage.escape(rule))</code></td>"
            for (k, column) in matrix.columns.enumerated() {
                let status =
                    column.result.statistics.first { $0.id == rule }?.status.rawValue
                    ?? (column.result.findings.contains { $0.rule == rule } ? "fail" : "pass")
                let cell = "<span class=\"pill s-\(status)\">\(status)</span>"
                if column.result.findings.contains(where: { $0.rule == rule }) {
                    body += "<td><a href=\"\(folder(k))/\(pageName(rule))\">\(cell)</a></td>"
                } else {
                    body += "<td>\(cell)</td>"
                }
            }
            body += "</tr>\n"
        }
        body += "</table>\n"
        try save(HTMLPage.page(title: "Conformance matrix", body: body), in: dir, as: "index.html")
        return PathText.join(dir, "index.html")
    }

    /// One scenario run once (`replay FILE --html DIR`): its violations and its trace.
    @discardableResult
    public static func write(
        replay scenario: Scenario, trace: Trace, violations: [Violation], profile: Profile, source: String,
        replayLine: String, to dir: String
    ) throws(InputError) -> String {
        try make(dir)
        var body = "<h1>\(HTMLPage.escape(scenario.name)) on \(HTMLPage.escape(trace.impl))</h1>\n"
        body +=
            "<p class=\"meta\">\(HTMLPage.escape(source)), schedule seed \(trace.scheduleSeed), profile "
                + "\(profile.rawValue): \(violations.count) violation\(violations.count == 1 ? "" : "s"), ended "
                + "\(trace.ending.rawValue).</p>\n"
        body += HTMLPage.copyLine(replayLine)
        body += violationList(violations, profile: profile)
        body += "<h2>Timeline</h2>\n" + TimelineView(scenario: scenario, trace: trace, violations: violations).html()
        body += scenarioSection(scenario)
        try save(HTMLPage.page(title: "\(scenario.name) on \(trace.impl)", body: body), in: dir, as: "index.html")
        return PathText.join(dir, "index.html")
    }

    // MARK: Pages

    /// The run's page: what ran and how it ended, the gate's verdict, the findings as stories, and
    /// the table of rules with their filters.
    static func index(_ result: RunResult, gate: GateVerdict?, title: String) -> String {
        let c = result.configuration
        var body = runMeta(result)
        if let gate { body += gateLine(gate, strict: c.strict) }
        if !result.findings.isEmpty { body += findingsList(result) }
        body += rulesTable(result)
        return HTMLPage.page(title: "\(title): \(c.impl.name)", body: body)
    }

    /// The heading and the line of settings, endings, time and harness version.
    private static func runMeta(_ result: RunResult) -> String {
        let c = result.configuration
        var body = "<h1>\(HTMLPage.escape(c.impl.name)): \(result.cases) cases from seed \(c.seed)</h1>\n"
        let g = c.generator
        var options =
            "generator v\(ScenarioGenerator.version), size \(g.size), misuse \(g.misuseRate)%, flaws \(g.flawRate)%"
        if let flaws = g.flaws { options += " (" + flaws.map(\.rawValue).joined(separator: ", ") + ")" }
        if g.surface2 { options += ", API surface 2" }
        if c.impl.noise > 0 { options += ", timing noise \(c.impl.noise)" }
        body += "<p class=\"meta\">\(HTMLPage.escape(options)); profile \(c.profile.rawValue)"
        if !c.faults.isEmpty { body += "; faults " + HTMLPage.escape(c.faults.map(\.rawValue).joined(separator: ", ")) }
        body +=
            ". Endings: "
            + HTMLPage.escape(
                result.endings.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        body += String(format: ". %.1f s. opconform ", result.seconds) + HarnessVersion.current + ".</p>\n"
        return body
    }

    /// The gate's verdict: passed or failed, what was unexpected and how many expected were seen.
    private static func gateLine(_ gate: GateVerdict, strict: Bool) -> String {
        var body = ""
        let ok = gate.passes(strict: strict)
        body += "<p><span class=\"pill \(ok ? "s-pass" : "s-fail")\">gate \(ok ? "passed" : "failed")</span> "
        body +=
            "unexpected: "
            + (gate.unexpected.isEmpty ? "none" : HTMLPage.escape(gate.unexpected.joined(separator: ", ")))
        if !gate.unexpectedWarnings.isEmpty {
            body += "; unexpected warnings: " + HTMLPage.escape(gate.unexpectedWarnings.joined(separator: ", "))
        }
        body += "; expected and seen: \(gate.confirmed.count)</p>\n"
        return body
    }

    /// The findings, one story per bug (`Story`): its root, and the rules the same case broke after it.
    private static func findingsList(_ result: RunResult) -> String {
        var body = "<h2>Findings</h2>\n<ul>\n"
        for story in result.stories {
            let f = story.root
            body +=
                "<li><a href=\"\(pageName(f.rule))\"><code>\(f.rule)</code></a>: \(HTMLPage.escape(f.message)) "
                    + "(case \(f.caseIndex), \(f.originalOperations) → \(f.operations) operations)"
            if !story.knockOns.isEmpty {
                body +=
                    "\n<br><span class=\"meta\">the same case then breaks (knock-ons, most likely):</span><ul>\n"
                for k in story.knockOns {
                    body +=
                        "<li><a href=\"\(pageName(k.rule))\"><code>\(k.rule)</code></a>: "
                            + "\(HTMLPage.escape(k.message))</li>\n"
                }
                body += "</ul>"
            }
            body += "</li>\n"
        }
        body += "</ul>\n"
        return body
    }

    /// The counts by status, the filters by status and family, and one row per rule.
    private static func rulesTable(_ result: RunResult) -> String {
        var body = ""
        let statuses = ["fail", "warn", "pass", "not-observable", "not-applicable", "not-reached"]
        var counts: [String: Int] = [:]
        for s in result.statistics { counts[s.status.rawValue, default: 0] += 1 }
        body +=
            "<p>"
            + statuses.filter { counts[$0] != nil }.map { "<span class=\"pill s-\($0)\">\($0) \(counts[$0]!)</span>" }
            .joined(separator: " ") + "</p>\n"
        body +=
            "<div class=\"filters\">"
            + statuses.map { "<label><input type=\"checkbox\" data-status=\"\($0)\" checked> \($0)</label>" }.joined()
        body +=
            "<select><option value=\"\">every family</option>"
            + Family.allCases.map { "<option value=\"\($0.rawValue)\">\(HTMLPage.escape($0.title))</option>" }.joined()
            + "</select></div>\n"
        body +=
            "<table class=\"rules\"><tr><th>rule</th><th>family</th><th>strength</th><th>status</th>"
                + "<th>hits</th><th>cases</th><th>violations</th><th>why</th></tr>\n"
        for s in result.statistics {
            let rule = RuleBook.check(id: s.id)?.rule
            let name = result.findings.contains { $0.rule == s.id } ? "<a href=\"\(pageName(s.id))\">\(s.id)</a>" : s.id
            body +=
                "<tr data-status=\"\(s.status.rawValue)\" "
                    + "data-family=\"\(rule?.family.rawValue ?? "")\"><td><code>\(name)</code></td>"
                    + "<td>\(rule?.family.rawValue ?? "")</td>"
            body +=
                "<td>\(rule?.strength.rawValue ?? "")</td><td><span class=\"pill "
                    + "s-\(s.status.rawValue)\">\(s.status.rawValue)</span></td>"
            body +=
                "<td class=\"n\">\(s.hits)</td><td class=\"n\">\(s.cases)</td><td "
                    + "class=\"n\">\(s.violations)</td><td>\(HTMLPage.escape(s.reason ?? ""))</td></tr>\n"
        }
        body += "</table>\n"
        return body
    }

    static func findingPage(
        _ f: Finding, impl: any Implementation, file: String?, back: String, story: Story? = nil
    ) -> String {
        let rule = RuleBook.check(id: f.rule)?.rule
        var body = "<p><a href=\"\(back)\">← the run</a></p>\n"
        let status = f.severity == .failure ? "fail" : "warn"
        body += "<h1><code>\(f.rule)</code> <span class=\"pill s-\(status)\">\(status)</span></h1>\n"
        if let rule {
            body += "<p>\(HTMLPage.escape(rule.statement(for: f.profile)))</p>\n"
            body +=
                "<p class=\"meta\">\(rule.strength.rawValue)"
                    + "\(rule.subject == .subclass ? ", the subclass's duty" : ""); "
                    + "\(HTMLPage.escape(rule.family.title)); cites "
            body += HTMLPage.escape(rule.citations.map(\.description).joined(separator: "; ")) + "</p>\n"
        }
        body += "<h2>What happened</h2>\n<p>\(HTMLPage.escape(f.message))</p>\n"
        if let story {
            let link = { (g: Finding) in "<a href=\"\(pageName(g.rule))\"><code>\(g.rule)</code></a>" }
            body +=
                story.root.rule == f.rule
                ? "<p class=\"meta\">The same case then breaks " + story.knockOns.map(link).joined(separator: ", ")
                    + " (knock-ons of this one, most likely).</p>\n"
                : "<p class=\"meta\">A knock-on of " + link(story.root)
                    + ", most likely: the same case broke it first.</p>\n"
        }
        var facts =
            "\(f.impl), case \(f.caseIndex) of run seed \(f.runSeed), case seed \(f.identity.caseSeed), schedule seed "
                + "\(f.scheduleSeed); "
        facts +=
            "minimised from \(f.originalOperations) to \(f.operations) operations; the minimum broke the rule "
                + "\(f.reproduced) of \(f.attempts) times"
        if let o = f.originalReproduced { facts += " (the original: \(o) of \(f.attempts))" }
        body += "<p class=\"meta\">\(HTMLPage.escape(facts)).</p>\n<h2>Replay</h2>\n"
        if let file { body += HTMLPage.copyLine(f.replayLine(file: file)) }
        body += HTMLPage.copyLine(f.replayLine(file: nil))
        let (trace, violations, broke, runs) = traceShowing(f, impl: impl)
        body += "<h2>Timeline</h2>\n"
        if !broke {
            body +=
                "<p class=\"meta\">None of \(runs) runs of the minimised scenario made for this page broke the rule "
                    + "again; the timeline shows the last of them.</p>\n"
        }
        body += violationList(violations, profile: f.profile)
        body += TimelineView(scenario: f.scenario, trace: trace, violations: violations).html()
        body += scenarioSection(f.scenario)
        return HTMLPage.page(title: "\(f.rule) on \(f.impl)", body: body)
    }

    /// Runs the finding's minimised scenario until it breaks its rule (once on a deterministic
    /// implementation, up to five times otherwise): the trace and its violations of that rule.
    static func traceShowing(_ f: Finding, impl: any Implementation) -> (Trace, [Violation], Bool, Int) {
        let runs = impl.isDeterministic ? 1 : 5
        var last: (Trace, [Violation]) = (
            Trace(impl: impl.name, scheduleSeed: f.scheduleSeed, capabilities: [], events: []), []
        )
        for _ in 0..<runs {
            let trace = impl.run(f.scenario, scheduleSeed: f.scheduleSeed)
            // Judged as the runner judges: a crash or a hang as the run's own, a breach not at
            // all (the driver's account cannot be trusted), a rule through its verdict.
            var violations = ShrinkTarget.death(of: trace).filter { $0.rule == f.rule }
            if trace.ending != .breach, let check = RuleBook.check(id: f.rule) {
                violations += RuleBook.verdicts(scenario: f.scenario, trace: trace, profile: f.profile, rules: [check])
                    .flatMap { v -> [Violation] in
                        if case .checked(let r) = v.verdict { return r.violations }; return []
                    }
            }
            last = (trace, violations)
            if !violations.isEmpty { return (trace, violations, true, runs) }
        }
        return (last.0, last.1, false, runs)
    }

    static func violationList(_ violations: [Violation], profile: Profile) -> String {
        guard !violations.isEmpty else { return "<p class=\"meta\">No violation in this trace.</p>\n" }
        var out = "<h3>Violations (click one to ring its witnesses)</h3>\n"
        for (i, v) in violations.enumerated() {
            out +=
                "<div class=\"violation\(i == 0 ? " selected" : "")\" "
                    + "data-index=\"\(i)\"><b><code>\(v.rule)</code></b>: \(HTMLPage.escape(v.observed)); required: "
                    + "\(HTMLPage.escape(v.expected))"
            out +=
                "<br><span class=\"meta\">witnesses: "
                + v.witnesses.map { "<a href=\"#e\($0.seq)\">#\($0.seq)</a>" }.joined(separator: " ")
                + "</span></div>\n"
        }
        return out
    }

    /// The minimised scenario in words, then as the scenario file (format 2) that replays it.
    static func scenarioSection(_ s: Scenario) -> String {
        var out = "<h2>The scenario</h2>\n<ul>\n"
        for (i, q) in s.queues.enumerated() {
            out +=
                "<li>queue \(i): width "
                    + "\(q.maxConcurrent == QueueConfig.defaultMax ? "default" : String(q.maxConcurrent))"
                    + "\(q.suspended ? ", suspended" : "")"
                    + "\(q.name.map { ", named " + HTMLPage.escape($0) } ?? "")</li>\n"
        }
        for (i, o) in s.operations.enumerated() {
            let deps = s.dependencies.filter { $0.op == i }.map { String($0.on) }
            out += "<li>op \(i): \(HTMLPage.escape(o.kind.label))"
            if let q = TimelineView.queue(of: i, in: s) { out += ", in queue \(q)" } else { out += ", not queued" }
            if !deps.isEmpty { out += ", depends on " + deps.joined(separator: ", ") }
            if let p = o.queuePriority { out += ", queue priority \(p)" }
            out += "</li>\n"
        }
        out += "<li>the driver: \(s.driver.count) steps</li>\n</ul>\n"
        out += "<pre>" + HTMLPage.escape(String(decoding: ScenarioFormat.encode(s), as: UTF8.self)) + "</pre>\n"
        return out
    }

    // MARK: Files

    static func pageName(_ rule: String) -> String { "finding-\(rule).html" }
    static func folder(_ impl: String) -> String {
        impl.map { $0.isLetter || $0.isNumber || $0 == "-" ? String($0) : "_" }.joined()
    }

    /// Makes the folder, and removes the pages an earlier report left in it (`finding-*.html`),
    /// so that every page in it is this report's.
    static func make(_ dir: String) throws(InputError) {
        do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
            throw InputError("--html: cannot create the folder \(dir)")
        }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        where name.hasPrefix("finding-") && name.hasSuffix(".html") {
            try? FileManager.default.removeItem(atPath: PathText.join(dir, name))
        }
    }

    static func save(_ text: String, in dir: String, as name: String) throws(InputError) {
        let path = PathText.join(dir, name)
        do { try OutputFile.write(Data(text.utf8), to: path) } catch { throw InputError("--html: " + error.message) }
    }
}
