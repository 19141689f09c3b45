import ConformanceFormats
import ConformanceRunning
import OperationDriverKit
import OperationSpec

/// What a shrink candidate must still show: a rule's violation, or a run that dies or stalls
/// the same way (the RUN-CRASH and RUN-HANG pseudo-rules, which are not in the catalog).
public struct ShrinkTarget: Sendable {
    public let id: String
    /// Observations the implementation must declare for the target to be judged at all.
    public let needs: [Observation]
    public let violations: @Sendable (CheckContext) -> [Violation]

    public init(id: String, needs: [Observation], violations: @escaping @Sendable (CheckContext) -> [Violation]) {
        self.id = id
        self.needs = needs
        self.violations = violations
    }

    public init(_ check: RuleCheck) {
        self.init(id: check.rule.id, needs: check.rule.needs) { check.check($0).violations }
    }

    /// The case died (RUN-CRASH), a sanitizer stopped it (DATA-RACE, MEMORY-ERROR, `Sanitizer`),
    /// it stalled (RUN-HANG) or its driver broke the protocol (DRIVER-PROTOCOL): the same death
    /// again, its sentence the signal and the last words, the report, or what was pending.
    public static let crash = dying(Finding.crashRule)
    public static let dataRace = dying(Finding.dataRaceRule)
    public static let memoryError = dying(Finding.memoryErrorRule)
    public static let hang = dying(Finding.hangRule)
    public static let breach = dying(Finding.protocolRule)
    /// The targets of a case's death, in the order findings are made of them.
    public static let deaths: [ShrinkTarget] = [.crash, .dataRace, .memoryError, .hang, .breach]
    /// The death target named `id`, if it is one.
    public static func death(_ id: String) -> ShrinkTarget? { deaths.first { $0.id == id } }

    /// The target of the pseudo-rule `id`: a trace whose death is of that rule.
    static func dying(_ id: String) -> ShrinkTarget {
        ShrinkTarget(id: id, needs: []) { c in death(of: c.trace).filter { $0.rule == id } }
    }

    /// The violation of RUN-CRASH or RUN-HANG a trace shows, if it ended that way. Memory
    /// addresses in a crash message (`<MainOperation: 0x55e07f136da0>`) are blanked: they differ
    /// from run to run, and a shrink candidate must show "the same" crash.
    public static func death(of trace: Trace) -> [Violation] {
        guard let last = trace.events.last else { return [] }
        switch last.kind {
        case .crash(let signal, let message):
            let kind = EventKind.crash(signal: signal, message: blankingAddresses(message))
            // A sanitizer that stops a driver exits it with status 66 (`Sanitizer.environment`),
            // never by a signal: a report seen earlier by a driver that went on (built with a
            // sanitizer, run without --sanitize) does not make a later crash a race.
            switch signal == 0 && message.contains("exited with status 66") ? Sanitizer.report(in: message) : nil {
            case .thread?:
                return [
                    Violation(
                        rule: Finding.dataRaceRule, observed: Sanitizer.sentence(message),
                        expected:
                            "no data race: the state properties and everything the operations share are synchronised "
                            + "(004 2.5.3 Table 2-2: safe to call from other threads simultaneously)", witnesses: [last]
                    )
                ]
            case .address?:
                return [Violation(rule: Finding.memoryErrorRule, observed: Sanitizer.sentence(message),
                        expected: "no memory error: nothing is used after it was freed, or outside what was allocated",
                                  witnesses: [last])]
            case nil:
                // The calls open when it died are the crash's evidence: whose call it was (a start
                // by hand, a queue's start) decides whose duty broke (`Cause.during`).
                let open = openCalls(trace)
                let expected = open.isEmpty ? "no crash: every call returns and the run ends"
                    : "no crash during " + open.compactMap { e -> String? in
                        guard case .call(let call) = e.kind else { return nil }
                        return "\(call)"
                    }.joined(separator: ", ")
                        + ": the call returns, and a misuse, if it is one, is reported, not fatal (004 2.7.2)"
                return [Violation(rule: Finding.crashRule, observed: kind.description, expected: expected,
                                  witnesses: open + [last])]
            }
        case .hang:
            return [
                Violation(
                    rule: Finding.hangRule, observed: last.kind.description,
                    expected: "every call returns and the run ends", witnesses: [last])
            ]
        case .breach:
            return [Violation(rule: Finding.protocolRule, observed: last.kind.description,
                    expected:
                        "the driver keeps the protocol it said hello in (Specs/driver-protocol.md; opconform "
                            + "driver-check checks a driver)",
                              witnesses: [last])]
        default:
            return []
        }
    }

    /// The calls made and not returned (nor thrown) when the trace ended, in order.
    static func openCalls(_ trace: Trace) -> [TraceEvent] {
        var open: [TraceEvent] = []
        for event in trace.events {
            switch event.kind {
            case .call: open.append(event)
            case .returned(let call), .threw(let call, _, _):
                if let i = open.lastIndex(where: { $0.thread == event.thread && $0.kind == .call(call) }) {
                    open.remove(at: i)
                }
            default: continue
            }
        }
        return open
    }

    /// `0x` followed by hex digits becomes `0x…`.
    static func blankingAddresses(_ s: String) -> String {
        var out = "", chars = Array(s), i = 0
        while i < chars.count {
            if chars[i] == "0", i + 1 < chars.count, chars[i + 1] == "x" {
                var j = i + 2
                while j < chars.count, chars[j].isHexDigit { j += 1 }
                if j > i + 2 { out += "0x…"; i = j; continue }
            }
            out.append(chars[i]); i += 1
        }
        return out
    }
}
