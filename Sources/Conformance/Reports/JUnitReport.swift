import OperationSpec

/// `run --junit FILE`: one test case per rule; a failing rule carries its finding and replay
/// line; not-observable, not-applicable and not-reached rules are skipped with the reason.
public enum JUnitReport {
    public static func xml(_ r: RunResult, files: [String: String]) -> String {
        let failures = r.statistics.filter { $0.status == .fail }.count
        let skipped = r.statistics.filter { $0.status != .fail && $0.status != .pass }.count
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"opconform\" tests=\"\(r.statistics.count)\" failures=\"\(failures)\" skipped=\"\(skipped)\">\n"
        out += "  <testsuite name=\"\(escape(r.configuration.impl.name)) seed \(r.configuration.seed)\" tests=\"\(r.statistics.count)\" failures=\"\(failures)\" skipped=\"\(skipped)\" time=\"\(r.seconds)\">\n"
        for s in r.statistics {
            let family = s.id.split(separator: "-").first.map(String.init) ?? s.id
            out += "    <testcase classname=\"\(family)\" name=\"\(s.id)\">"
            switch s.status {
            case .pass: break
            case .fail:
                let f = r.findings.first { $0.rule == s.id }
                let message = f?.message ?? "\(s.violations) violating cases"
                out += "\n      <failure message=\"\(escape(message))\">"
                out += escape("\(s.violations) of \(r.cases) cases broke \(s.id)\n")
                if let f { out += escape("replay: \(f.replayLine(file: files[s.id], program: r.configuration.replayProgram))\nminimised to \(f.operations) operations from \(f.originalOperations)\n") }
                out += "</failure>\n    "
            case .notObservable, .notApplicable, .notReached:
                out += "\n      <skipped message=\"\(escape(s.status.rawValue + (s.reason.map { ": " + $0 } ?? "")))\"/>\n    "
            }
            out += "</testcase>\n"
        }
        for (rule, ending) in Finding.pseudoRules.map({ ($0.id, $0.ending.rawValue) }) {
            out += "    <testcase classname=\"RUN\" name=\"\(rule)\">"
            if let f = r.findings.first(where: { $0.rule == rule }) {
                out += "\n      <failure message=\"\(escape(f.message))\">"
                out += escape("\(r.endings[ending] ?? 0) of \(r.cases) cases ended in a \(ending)\nreplay: \(f.replayLine(file: files[rule], program: r.configuration.replayProgram))\n")
                out += "</failure>\n    "
            }
            out += "</testcase>\n"
        }
        out += "  </testsuite>\n</testsuites>\n"
        return out
    }

    static func escape(_ s: String) -> String {
        var o = ""
        for ch in s {
            switch ch {
            case "&": o += "&amp;"
            case "<": o += "&lt;"
            case ">": o += "&gt;"
            case "\"": o += "&quot;"
            default: o.append(ch)
            }
        }
        return o
    }
}
