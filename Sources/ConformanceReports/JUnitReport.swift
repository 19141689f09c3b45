import Conformance
import OperationSpec

/// `run --junit FILE`: one test case per rule, with the rule's strength as a property; a failing
/// rule carries its finding and replay line; a broken rule that only warns (a documented
/// example, advice, observed only) passes with the finding in its `system-out`, marked WARNING,
/// unless `--strict` makes it a failure (JUnit has no warning status that CI tools agree on);
/// not-observable, not-applicable and not-reached rules are skipped with the reason.
public enum JUnitReport {
    /// The report: the suite's counts, then one test case per rule and one per pseudo-rule.
    public static func xml(_ r: RunResult, files: [String: String]) -> String {
        let storyLine = storyLines(r)
        var out = suiteHeader(r)
        for s in r.statistics { out += ruleCase(s, r, files: files, storyLine: storyLine) }
        for (rule, ending) in Finding.pseudoRules.map({ ($0.id, $0.ending.rawValue) }) {
            out += runCase(rule, ending: ending, r, files: files, storyLine: storyLine)
        }
        out += "  </testsuite>\n</testsuites>\n"
        return out
    }

    /// The opening of the document and its suite, with the counts of the test cases below.
    private static func suiteHeader(_ r: RunResult) -> String {
        let strict = r.configuration.strict
        // The counts are of the test cases below: one per rule, and one per pseudo-rule (RUN-CRASH,
        // RUN-HANG, ...), failing when the run has its finding (issue 45: "tests=7 failures=1"
        // around 12 test cases with 2 failures).
        let runFailures = Finding.pseudoRules.filter { p in r.findings.contains { $0.rule == p.id } }.count
        let failures =
            r.statistics.filter { $0.status == .fail || (strict && ($0.status == .warn || $0.status == .unconfirmed)) }
            .count
            + runFailures
        let skipped = r.statistics.filter {
            !$0.broken && $0.status != .pass && $0.status != .known && $0.status != .unconfirmed
        }.count
        let tests = r.statistics.count + Finding.pseudoRules.count
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"opconform\" tests=\"\(tests)\" failures=\"\(failures)\" skipped=\"\(skipped)\">\n"
        out +=
            "  <testsuite name=\"\(escape(r.configuration.impl.name)) seed \(r.configuration.seed)\" "
                + "tests=\"\(tests)\" failures=\"\(failures)\" skipped=\"\(skipped)\" time=\"\(r.seconds)\">\n"
        out += "    <properties><property name=\"harness\" value=\"\(HarnessVersion.current)\"/></properties>\n"
        return out
    }

    /// The line each rule of a story adds to its test case (issue 45): a knock-on's names its
    /// root, a root's names its knock-ons.
    private static func storyLines(_ r: RunResult) -> [String: String] {
        var storyLine: [String: String] = [:]
        for story in r.stories where !story.knockOns.isEmpty {
            storyLine[story.root.rule] =
                "the same case then breaks: " + story.knockOns.map(\.rule).joined(separator: ", ")
                + " (knock-ons of this one, most likely)\n"
            for k in story.knockOns {
                storyLine[k.rule] =
                    "knock-on of \(story.root.rule), most likely: the same case broke \(story.root.rule) first\n"
            }
        }
        return storyLine
    }

    /// The test case of one rule: passed, known, unconfirmed, failed, warned or skipped.
    private static func ruleCase(
        _ s: RuleStatistics, _ r: RunResult, files: [String: String], storyLine: [String: String]
    ) -> String {
        let strict = r.configuration.strict
        var out = ""
        let family = s.id.split(separator: "-").first.map(String.init) ?? s.id
        let strength = RuleBook.check(id: s.id)?.rule.strength.rawValue ?? "run"
        out += "    <testcase classname=\"\(family)\" name=\"\(s.id)\">"
        out += "\n      <properties><property name=\"strength\" value=\"\(escape(strength))\"/></properties>\n    "
        switch s.status {
        case .pass: break
        case .known:
            // The platform's, not the tested code's: a pass that says so.
            let k = r.known.first { $0.rule == s.id }
            let line =
                "KNOWN on \(k?.owner ?? "the platform"): \(s.known) of \(r.cases) cases; \(k?.entry.reason ?? "")"
            out += "  <system-out>" + escape(line) + "</system-out>\n    "
        case .unconfirmed:
            // Absence or time, not seen again with patience: a failure only under --strict.
            let line = "UNCONFIRMED: \(s.unconfirmed) of \(r.cases) cases broke \(s.id) only by absence or time, "
                + "and a patient run did not show it again"
            out += strict ? "  <failure message=\"\(escape(line))\">\(escape(line))</failure>\n    "
                : "  <system-out>" + escape(line) + "</system-out>\n    "
        case .fail, .warn:
            let f = r.findings.first { $0.rule == s.id }
            let message = f?.message ?? "\(s.violations) violating cases"
            var body = "\(s.violations) of \(r.cases) cases broke \(s.id) [\(strength)]\n" + (storyLine[s.id] ?? "")
            if let f {
                body +=
                    "replay: \(f.replayLine(file: files[s.id], program: r.configuration.replayProgram))\nminimised "
                        + "to \(f.operations) operations from \(f.originalOperations)\n"
                    + (f.replayRate.map { $0 + "\n" } ?? "")
            }
            if s.status == .fail || strict {
                out += "  <failure message=\"\(escape(message))\">" + escape(body) + "</failure>\n    "
            } else {
                out += "  <system-out>" + escape("WARNING: " + message + "\n" + body) + "</system-out>\n    "
            }
        case .notObservable, .notApplicable, .notReached:
            out +=
                "  <skipped message=\"\(escape(s.status.rawValue + (s.reason.map { ": " + $0 } ?? "")))\"/>\n    "
        }
        out += "</testcase>\n"
        return out
    }

    /// The test case of one of the run's own failures (RUN-CRASH, RUN-HANG, ...), failing when the run
    /// has its finding.
    private static func runCase(
        _ rule: String, ending: String, _ r: RunResult, files: [String: String], storyLine: [String: String]
    ) -> String {
        var out = ""
        out += "    <testcase classname=\"RUN\" name=\"\(rule)\">"
        if let f = r.findings.first(where: { $0.rule == rule }) {
            out += "\n      <failure message=\"\(escape(f.message))\">"
            out += escape(
                "\(r.deathCases[rule] ?? r.endings[ending] ?? 0) of \(r.cases) cases ended in "
                    + "\(f.endingPhrase ?? "a " + ending)\n"
                    + (storyLine[rule] ?? "")
                    + "replay: \(f.replayLine(file: files[rule], program: r.configuration.replayProgram))\n"
                    + (f.replayRate.map { $0 + "\n" } ?? ""))
            out += "</failure>\n    "
        }
        out += "</testcase>\n"
        return out
    }

    static func escape(_ s: String) -> String { Markup.escape(s) }
}
