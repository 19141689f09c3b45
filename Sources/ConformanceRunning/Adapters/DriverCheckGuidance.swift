import ConformanceFormats
import OperationDriverKit
/// What a driver author changes when a `driver-check` check fails, and where the protocol says so.
///
/// A failure sentence says what the driver did and what the protocol requires; the guidance
/// says what to change in the driver, and names the section of `Specs/driver-protocol.md` to
/// read, so that a newcomer need not search a thousand-line contract (issue 32, item 3). A test
/// holds every check to one entry and every section to a heading of the spec.
package struct DriverCheckGuidance: Sendable, Equatable {
    /// What to change in the driver, in one sentence.
    public let change: String
    /// A section heading of Specs/driver-protocol.md, as written there.
    public let section: String

    /// The line printed under a failing check.
    public var line: String { "     fix: \(change) (Specs/driver-protocol.md, \"\(section)\")" }

    /// The guidance for a check of `DriverCheck.checks`.
    package static func forCheck(_ check: String) -> DriverCheckGuidance? {
        table.first { $0.check == check }?.guidance
    }

    static let refusal = DriverCheckGuidance(
        change:
            "read the first line; when it is not a request you can run, write one {\"error\":{\"_0\":\"why\"}} line "
            + "and nothing else (no hello), and exit with status 2",
        section: "The request (harness to driver)")

    static let protocolRefusal = DriverCheckGuidance(
        change: "compare the request's protocol with the versions you serve (3, and 2 if you keep it) and refuse "
            + "any other with one error line and exit 2",
        section: "The request (harness to driver)")

    /// One entry per check, in `DriverCheck.checks` order.
    static let table: [(check: String, guidance: DriverCheckGuidance)] = [
        ("probe", DriverCheckGuidance(
            change: "answer a request whose scenario is empty and that names no impl: a hello with the protocol the "
                    + "request asked for, a non-empty impl and only capabilities you observe, then "
                    + "end, then done, and exit 0",
            section: "The probe")),
        ("refuse-empty-line", refusal),
        ("refuse-not-json", refusal),
        ("refuse-no-scenario", DriverCheckGuidance(
                change:
                    "decode the request strictly: a request without its scenario is refused with "
                        + "one error line and exit 2",
            section: "The request (harness to driver)")),
        ("refuse-protocol-1", protocolRefusal),
        ("refuse-protocol-99", protocolRefusal),
        ("refuse-other-impl", DriverCheckGuidance(
            change: "when the request names an impl, compare it with the name your hello gives and refuse another "
                + "with one error line and exit 2 (a request without impl is the probe: answer it)",
            section: "The request (harness to driver)")),
        ("refuse-missing-operation", DriverCheckGuidance(
            change: "validate the scenario before running it: a dependency, step or action that names an operation "
                + "or queue the scenario does not have is refused with one error line and exit 2",
            section: "The request (harness to driver)")),
        ("refuse-unknown-step", DriverCheckGuidance(
            change: "decode steps and actions strictly: a kind you do not know is refused with one error line and "
                + "exit 2, never skipped (a step you know but cannot perform is logged as unsupported)",
            section: "The request (harness to driver)")),
        ("smoke", DriverCheckGuidance(
            change: "log each thread's threadStarted before its first event, number events from seq 0 without gaps, "
                + "log every call's return or throw on the thread that made it, and end with end, then done",
            section: "What a driver records, and when")),
        ("streaming", DriverCheckGuidance(
            change: "write and flush each line as it happens (line-buffered or flushed output), not all at exit",
            section: "Transport")),
        ("session", DriverCheckGuidance(
            change: "after done, read the next request on the same standard input: say next true when the case left "
                + "nothing behind, number each case's events from seq 0, and exit 0 at the end of the input "
                + "(or refuse protocol 3 with one error line and exit 2, and be served as a driver of protocol 2)",
            section: "Sessions (protocol 3): many cases in one process")),
        ("json-lines", DriverCheckGuidance(
            change: "write nothing on standard output but protocol messages, one JSON object a line "
                + "(diagnostics go to standard error)",
            section: "Encoding")),
        ("exits", DriverCheckGuidance(
            change: "exit once the request is answered and standard input is closed: end every thread you started, "
                + "or make them daemon threads, and do not wait for more input after done unless next is true",
            section: "Ending")),
    ]
}
