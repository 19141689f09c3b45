import Conformance
import Foundation
import OperationSpec
import Synchronization

/// How long a user waits from `run` to a minimised, confirmed finding of a planted defect
/// (`opconform bench --detect`, issue 31): each defect's run stops at the first case that breaks
/// the defect's rule, as `run --first` does, and shrinks it. The figures are the time to that
/// first sighting, the time to the finding, and the shrink's share of it.
package enum TimeToFinding {
    /// A planted defect and the run that looks for it.
    package struct Defect: Sendable {
        /// What is planted, in words (`flaw state-after-dispatch`, `python --bug add-ignores-suspension`).
        package var name: String
        /// The run: its implementation, generator options and the defect's rules (`rules`,
        /// `stopRules`); `measure` makes it stop at the first failure.
        package var configuration: RunConfiguration
        /// Why the defect cannot be measured here, when it cannot (a driver not built).
        package var unavailable: String?

        package init(name: String, configuration: RunConfiguration, unavailable: String? = nil) {
            self.name = name
            self.configuration = configuration
            self.unavailable = unavailable
        }

        /// A defect whose run cannot be made here, and why.
        package static func unavailable(_ name: String, why: String) -> Defect {
            Defect(
                name: name, configuration: RunConfiguration(impl: ReferenceImplementation(), count: 1), unavailable: why
            )
        }
    }

    /// One defect's figures.
    package struct Row: Codable, Sendable, Equatable {
        package var defect: String
        package var impl: String
        /// found, missed (no case of the cap broke a rule of the defect), not-observable (the
        /// implementation cannot observe any of its rules), unavailable.
        package var status: String
        package var rule: String?
        /// Cases decided up to the first that broke the defect's rule.
        package var cases: Int?
        /// Seconds from the start of the run to the first sighting, and to the minimised finding.
        package var firstSeconds: Double?
        package var findingSeconds: Double?
        /// Seconds spent shrinking (the whole shrink phase, the measured replay rates included).
        package var shrinkSeconds: Double?
        package var originalOperations: Int?
        package var operations: Int?
        package var reproduced: Int?
        package var attempts: Int?
        package var reason: String?
    }

    /// Runs the defect's cases until one breaks its rule, shrinks that case, and times both.
    package static func measure(_ defect: Defect) -> Row {
        var c = defect.configuration
        var row = Row(defect: defect.name, impl: c.impl.name, status: "missed")
        if let why = defect.unavailable { row.status = "unavailable"; row.reason = why; return row }
        let ruleIDs = c.stopRules ?? c.rules.map(\.rule.id)
        let blind = c.rules.filter { check in !check.rule.needs.allSatisfy(c.impl.capabilities.contains) }
        if blind.count == c.rules.count {
            row.status = "not-observable"
            row.reason =
                c.impl.name + " cannot observe "
                + blind.map { $0.rule.id + " (needs " + $0.rule.needs.map(\.rawValue).joined(separator: ", ") + ")" }
                .joined(separator: "; ")
            return row
        }
        c.stopAtFirstFailure = true
        c.stopRules = ruleIDs
        let clock = ContinuousClock()
        let start = clock.now
        let seen = Mutex<(cases: Int, at: Duration)?>(nil)
        let result = Runner(c).run(record: { record in
            guard record.broken.contains(where: ruleIDs.contains) else { return }
            seen.withLock { $0 = $0 ?? (record.index + 1, clock.now - start) }
        })
        let end = clock.now - start
        row.cases = result.cases
        guard let first = seen.withLock({ $0 }),
            let finding = result.findings.first(where: { ruleIDs.contains($0.rule) })
        else { return row }
        row.status = "found"
        row.rule = finding.rule
        row.cases = first.cases
        row.firstSeconds = first.at.seconds
        row.findingSeconds = end.seconds
        row.shrinkSeconds = result.shrinkSeconds
        row.originalOperations = finding.originalOperations
        row.operations = finding.operations
        row.reproduced = finding.reproduced
        row.attempts = finding.attempts
        return row
    }

    /// The median and the worst time to a finding of the defects found, and which was worst.
    package static func summary(_ rows: [Row]) -> (median: Double, worst: Double, worstDefect: String)? {
        let found = rows.compactMap { row in row.findingSeconds.map { (row.defect, $0) } }.sorted { $0.1 < $1.1 }
        guard let worst = found.last else { return nil }
        let n = found.count
        let median = n % 2 == 1 ? found[n / 2].1 : (found[n / 2 - 1].1 + found[n / 2].1) / 2
        return (median, worst.1, worst.0)
    }

    /// The table `bench --detect` prints.
    package static func table(_ rows: [Row]) -> String {
        func s(_ x: Double?) -> String { x.map { String(format: "%.1f", $0) } ?? "" }
        var lines = [
            "time to a minimised finding, per planted defect (each run stops at the first case that breaks the "
                + "defect's rule, then shrinks it)",
            "",
            pad("defect", 40) + pad("impl", 14) + pad("rule", 30) + pad("cases", 7) + pad("first s", 9)
                + pad("finding s", 11)
                + pad("shrink", 8) + pad("ops", 8) + "replays"
        ]
        for r in rows {
            var line = pad(r.defect, 40) + pad(r.impl, 14)
            if r.status == "found" {
                let share = (r.shrinkSeconds ?? 0) / max(r.findingSeconds ?? 1, 0.001) * 100
                line +=
                    pad(r.rule ?? "", 30) + pad(r.cases.map(String.init) ?? "", 7) + pad(s(r.firstSeconds), 9)
                    + pad(s(r.findingSeconds), 11)
                line += pad(String(format: "%.0f %%", share), 8)
                line +=
                    pad("\(r.originalOperations ?? 0)→\(r.operations ?? 0)", 8)
                    + "\(r.reproduced ?? 0)/\(r.attempts ?? 0)"
            } else {
                line += r.status + (r.cases.map { " in \($0) cases" } ?? "") + (r.reason.map { ": " + $0 } ?? "")
            }
            lines.append(line)
        }
        if let (median, worst, which) = summary(rows) {
            let found = rows.filter { $0.status == "found" }.count
            lines += [
                "",
                "\(found) of \(rows.count) found; time to a minimised finding: median \(s(median)) s, worst "
                    + "\(s(worst)) s (\(which))"
            ]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
