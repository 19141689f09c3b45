import Foundation

/// The sanitizers a Swift driver can be built with (issue 30), and what the harness does with
/// them: it runs the driver so that the sanitizer stops it at its first report, finds the
/// report in its standard error, and makes it a finding of its own (DATA-RACE, MEMORY-ERROR)
/// instead of an unexplained crash.
///
/// The harness does not build the driver: a user builds it with the sanitizer
/// (`swift build -Xswiftc -sanitize=thread`, or `=address`) and names it with `--sanitize`,
/// which checks that the executable is instrumented before any case runs. Foundation, Dispatch
/// and the Swift runtime are not instrumented on Linux, so a report needs at least one access
/// in instrumented code: the user's class or queue, their driver, and this package's driver
/// side. Races wholly inside Foundation are not seen (`Specs/sanitizers.md`).
public enum Sanitizer: String, Sendable, CaseIterable {
    case thread, address

    /// The environment variable the sanitizer reads its options from, and the options: stop
    /// at the first report (so the report ends the case that showed it, not the session), and
    /// for AddressSanitizer no leak report at exit (a driver that serves case after case keeps
    /// what it needs until its session ends; leaks are not a rule).
    public var environment: [String: String] {
        switch self {
        case .thread: return [optionsVariable: "halt_on_error=1 exitcode=\(Self.exitStatus) second_deadlock_stack=1"]
        case .address: return [optionsVariable: "halt_on_error=1 detect_leaks=0 exitcode=\(Self.exitStatus)"]
        }
    }

    /// The status a sanitizer exits a driver with when it stops it (`environment`).
    public static let exitStatus = 66

    /// The environment variable the sanitizer's runtime reads its options from.
    public var optionsVariable: String { self == .thread ? "TSAN_OPTIONS" : "ASAN_OPTIONS" }

    /// The name the sanitizer's runtime gives itself in its reports.
    package var reporter: String { self == .thread ? "ThreadSanitizer" : "AddressSanitizer" }

    /// How the executable must be built for `--sanitize` with this sanitizer.
    public var buildHint: String {
        "build it with the sanitizer: swift build -Xswiftc -sanitize=\(rawValue) (Specs/sanitizers.md)"
    }

    /// The sanitizer whose report `text` (a crash's last words) holds, if any.
    public static func report(in text: String) -> Sanitizer? {
        allCases.first { text.contains("\($0.reporter):") }
    }

    /// A finding's sentence for the report in `message`: the report's own words, with what
    /// differs from run to run (addresses, pids, thread numbers, build ids) left out, so two
    /// runs of one race say the same, and a shrink keeps the same race.
    public static func sentence(_ message: String) -> String {
        var parts: [String] = []
        // The report, not what the harness said of the driver's exit before it.
        let heads = allCases.flatMap { ["WARNING: \($0.reporter)", "ERROR: \($0.reporter)"] }
        let start = heads.compactMap { message.range(of: $0)?.lowerBound }.min() ?? message.startIndex
        for line in message[start...].components(separatedBy: " | ") {
            var text = line
            for pattern in varying {
                text = text.replacingOccurrences(of: pattern, with: "", options: .regularExpression)
            }
            text = text.replacingOccurrences(of: #"\s+"#, with: " ", options: .regularExpression)
                .trimmingCharacters(in: .whitespaces)
            if !text.isEmpty { parts.append(text) }
        }
        return parts.joined(separator: " | ")
    }

    /// What differs from one run of a report to the next: registers, pids, build ids, binary
    /// offsets, addresses, thread numbers, mutex names, source paths and lines.
    static let varying = [
        #" at pc 0x[0-9a-f]+ bp 0x[0-9a-f]+ sp 0x[0-9a-f]+"#, #"\(pid=\d+\)"#, #" \(BuildId: [0-9a-f]+\)"#,
        #"\([^()]*\+0x[0-9a-f]+\)"#, #" at 0x[0-9a-f]+"#, #" on address 0x[0-9a-f]+"#, #" by thread T\d+"#,
        #" by main thread"#, #" thread T\d+"#, #" \(mutexes: [^)]*\)"#, #" \(pc 0x[0-9a-f]+[^)]*\)"#,
        #" (pc|bp|sp) 0x[0-9a-f]+"#, #" on unknown address 0x[0-9a-f]+"#, #"^==\d+=="#,
        #"0x[0-9a-f]+ in "#, #" [/][^ ]*:\d+(:\d+)?"#, #" 0x[0-9a-f]+"#,
    ]

    /// Gathers a sanitizer's report from a driver's standard error, line by line: its first
    /// line, the head of each stack it prints (the two accesses of a race, the use and the free
    /// of a memory error), and its summary; joined with ` | ` as the crash's last words.
    package struct ReportReader: Sendable {
        package private(set) var lines: [String] = []
        private var reading = false
        private var framesLeft = 0
        package private(set) var complete = false

        package init() {}

        /// Takes one line of standard error.
        package mutating func take(_ line: String) {
            if !reading {
                guard Sanitizer.allCases.contains(where: { line.contains("\($0.reporter):") }),
                      line.contains("WARNING:") || line.contains("ERROR:") else { return }
                reading = true
                complete = false
                // From "WARNING:" or "ERROR:" on: ASan's "==23795==" prefix is a pid.
                let from = (line.range(of: "WARNING:") ?? line.range(of: "ERROR:"))?.lowerBound ?? line.startIndex
                lines = [String(line[from...]).trimmingCharacters(in: .whitespaces)]
                return
            }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("SUMMARY:") {
                lines.append(trimmed)
                reading = false
                complete = true
            } else if trimmed.hasPrefix("#") {
                if framesLeft > 0 { lines.append(trimmed); framesLeft -= 1 }
            } else if Self.isStackHead(Self.withoutPid(trimmed)) {
                // The head of a stack: "Write of size 8 at 0x... by thread T2:", "freed by thread T1 here:".
                lines.append(Self.withoutPid(trimmed))
                framesLeft = 3
            } else if trimmed.isEmpty {
                // A stack ends with a blank line; a note inside it ("==23795==Hint: address
                // points to the zero page.") does not end it.
                framesLeft = 0
            }
        }

        /// Whether `line` heads a stack worth keeping: an access ("Write of size 8 at … by thread
        /// T2:", AddressSanitizer's "READ of size 8 …"), a free or an allocation; not the
        /// creation of a thread or a mutex, or where a heap block lies.
        static func isStackHead(_ line: String) -> Bool {
            // A deadly signal's stack follows "The signal is caused by a READ memory access."
            let access = ["READ of size", "WRITE of size", "The signal is caused by"].contains { line.hasPrefix($0) }
            guard line.hasSuffix(":") || access else { return false }
            return !["Thread T", "Location", "Mutex", "Register values"].contains { line.hasPrefix($0) }
        }

        /// `line` without AddressSanitizer's "==23795==" prefix, a pid.
        static func withoutPid(_ line: String) -> String {
            line.replacingOccurrences(of: #"^==\d+=="#, with: "", options: .regularExpression)
        }

        /// The report so far, or nil before one began.
        package var text: String? { lines.isEmpty ? nil : String(lines.joined(separator: " | ").prefix(4096)) }
    }
}
