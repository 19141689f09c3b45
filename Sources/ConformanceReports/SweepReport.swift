import Conformance
import OperationSpec

/// What `sweep` and `samples` print for one scenario run under many schedules: the endings,
/// then each broken rule with its strength, how often it broke, the first schedule seed that
/// broke it, its violation with the witnesses, and the line that replays that schedule.
public enum SweepReport {
    /// - Parameters:
    ///   - replay: the replay line for a schedule seed, or nil when there is none to give.
    ///   - strict: warnings are failures (`--strict`).
    public static func text(
        _ sweep: ScheduleSweep, firstSeed: UInt64, strict: Bool, replay: ((UInt64) -> String)?
    ) -> String {
        var out =
            "  \(sweep.schedules) schedules from seed \(firstSeed); endings: "
            + sweep.endings.keys.sorted().map { "\($0) \(sweep.endings[$0]!)" }.joined(separator: ", ") + "\n"
        for d in sweep.deaths {
            let head = d.ending == "breach" ? "NO VERDICT" : "FAIL RUN-\(d.ending.uppercased())"
            out += "  \(head): first at schedule seed \(d.seed): \(d.what)\n"
            if let replay { out += "    replay: \(replay(d.seed))\n" }
        }
        for t in sweep.failing + sweep.warning {
            let rule = RuleBook.check(id: t.id)?.rule
            out +=
                "  \((rule?.severity ?? .failure).label(strict: strict)) \(t.id) [\(rule?.strength.rawValue ?? "")]: "
                    + "broken under \(t.violatingSeeds) of \(sweep.schedules) schedules; first at schedule seed "
                    + "\(t.firstSeed!)\n"
            if let v = t.firstViolation {
                out += "    " + v.description.replacingOccurrences(of: "\n", with: "\n    ") + "\n"
            }
            if let replay { out += "    replay: \(replay(t.firstSeed!))\n" }
        }
        if sweep.violated.isEmpty && sweep.deaths.isEmpty { out += "  no violation\n" }
        return out
    }

    /// Whether the sweep fails: a must-rule broken, a crash or a hang; any warning under strict.
    public static func fails(_ sweep: ScheduleSweep, strict: Bool) -> Bool {
        !sweep.failing.isEmpty || (strict && !sweep.warning.isEmpty) || sweep.deaths.contains { $0.ending != "breach" }
    }
}
