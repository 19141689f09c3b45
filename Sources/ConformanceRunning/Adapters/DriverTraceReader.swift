import ConformanceFormats
import Foundation
import OperationDriverKit
import OperationSpec

/// Reads one case's driver output line by line as it arrives (`ChildProcess.run`), decoding
/// each line once and keeping only the trace: a case's memory is its events, never the raw
/// output. Reading is strict (Specs/driver-protocol.md, "When a driver misbehaves"): it stops at
/// the trace's last event, and at the first line that breaks the protocol, which it names.
///
/// `@unchecked Sendable` is sound: every stored `var` is read and written only under `lock`
/// (`read` runs on the child's stdout reader thread, `result` on the case's thread, and a
/// reader thread may outlive the wait for it when a grandchild holds the pipe).
final class DriverTraceReader: @unchecked Sendable {
    private let lock = NSLock()
    private let name: String
    private let maxEvents: Int
    private let decoder = JSONDecoder()
    private var events: [TraceEvent] = []
    private var capabilities: [Observation]
    private var threads = 0
    private var hello = false
    /// How the driver broke the protocol, if it did (the trace then ends `breach`).
    private var problem: String?
    /// What ran away, if the driver wrote more events than allowed (the trace ends `hang`).
    private var runaway: String?
    /// The protocol of the request: the `hello` must say the same.
    private let version: Int
    /// In a session (protocol 3) reading goes on past the trace's last event to `done`, which
    /// says whether the process takes the next case.
    private let session: Bool
    /// `done` said `next: true` right after the trace's last event.
    private var takesNext = false
    /// How long a driver may write nothing but reads it wrote before (the same getter of the same
    /// operation giving the same value) before the case is a hang; nil: never.
    private let livelock: TimeInterval?
    /// When something last progressed: any event but a read that repeats the previous read of
    /// its getter. Set at the hello.
    private var lastProgress: ContinuousClock.Instant?
    /// The last value each operation's getter gave, to tell a repeated read from a change.
    private var lastRead: [ReadSite: Value] = [:]
    /// The repeated reads since the last progress, for the hang's message (the first few).
    private var polled: [ReadSite] = []

    private struct ReadSite: Hashable { let op: Int; let key: StateKey }

    init(
        name: String, capabilities: [Observation], maxEvents: Int, version: Int = DriverProtocol.oneCaseVersion,
        session: Bool = false,
        livelock: TimeInterval? = nil
    ) {
        self.name = name
        self.capabilities = capabilities
        self.maxEvents = maxEvents
        self.version = version
        self.session = session
        self.livelock = livelock
    }

    /// Whether the event moves the case on: false for a read that gives what the previous read
    /// of the same getter gave. A queue that polls an operation's `isReady` every few
    /// milliseconds keeps writing, so silence never comes; when for `livelock` seconds nothing
    /// but such reads came, the state it polls can no longer change (no step, task, call or
    /// notification is under way), and the case hangs. Called with `lock` held.
    private func progressed(_ kind: EventKind) -> Bool {
        guard case .read(let op, let key, let value) = kind else { return true }
        let site = ReadSite(op: op, key: key)
        defer { lastRead[site] = value }
        guard lastRead[site] == value else { return true }
        if polled.count < 3 && !polled.contains(site) { polled.append(site) }
        return false
    }

    /// Whether the case ended with `done` saying `next`: the process waits for its next request.
    var next: Bool { lock.withLock { takesNext } }

    /// The events so far, the capabilities of the case's hello, the protocol breach and the
    /// runaway, if any.
    var result: (events: [TraceEvent], capabilities: [Observation], problem: String?, runaway: String?) {
        lock.withLock { (events, capabilities, problem, runaway) }
    }

    /// Whether the driver said hello in this case.
    var saidHello: Bool { lock.withLock { hello } }

    /// Takes one line; false when nothing more is to be read.
    func read(_ line: Substring) -> Bool {
        lock.withLock { take(line) }
    }

    private func take(_ line: Substring) -> Bool {
        // A session's case is over at its last event; only `done` may follow, and anything else
        // ends the process (the trace is whole, so it is not a breach; driver-check says so).
        if session, events.last?.kind.endsTrace == true {
            if case .done(let next)? = try? decoder.decode(DriverProtocol.Message.self, from: Data(line.utf8)) {
                takesNext = next == true
            }
            return false
        }
        // Event lines, nearly every line, take the fast reader; whatever it is not sure of, the
        // strict decoder reads (EventLine).
        let fast = EventLine.event(line).map(DriverProtocol.Message.event)
        guard let message = fast ?? (try? decoder.decode(DriverProtocol.Message.self, from: Data(line.utf8))) else {
            // What is wrong with it, as the strict reader says it (asked only on this path: a
            // breach ends the case, so its cost is paid once).
            var why = ""
            do {
                _ = try JSONCodec.decode(
                    DriverProtocol.Message.self, from: Data(line.prefix(65_536).utf8), source: "the line")
            } catch {
                why = " (" + error.message + ")"
            }
            problem = "the driver wrote a line that is not a protocol message (standard output is the protocol's; "
                + "debug output belongs on standard error): \(line.prefix(120))" + why
            return false
        }
        switch message {
        case .hello(let version, let impl, let declared, _, _, _):
            guard !hello else { problem = "the driver said hello twice in one case"; return false }
            guard version == self.version, impl == name else {
                problem =
                    "the driver said hello as \(impl) in protocol \(version), not as \(name) in protocol "
                        + "\(self.version)"
                return false
            }
            hello = true
            capabilities = declared
        case .event(let e):
            return takeEvent(e)
        case .done:
            problem =
                hello
                ? "the driver wrote done before the trace's last event (end, hang or crash)"
                : "the driver wrote done before its hello"
            return false
        case .error(let m):
            problem = "the driver refused the case: \(m)"
            return false
        }
        return true
    }

    /// Takes one event: checks its number, thread and kind, keeps it, and watches for a livelock;
    /// whether to read on (in a session, not after the case's last event).
    private func takeEvent(_ e: TraceEvent) -> Bool {
        guard hello else { problem = "the driver wrote an event before its hello"; return false }
        guard e.seq == events.count else {
            problem = "the driver numbered its event \(events.count) as \(e.seq) (seq counts from 0 without gaps)"
            return false
        }
        // Threads are numbered from 0 in order of first appearance: a new one is the next.
        guard e.thread >= 0 && e.thread <= threads else {
            problem =
                "the driver put event \(e.seq) on thread \(e.thread), but threads are numbered from 0 in order of "
                    + "first appearance (next: \(threads))"
            return false
        }
        // `cut` and `breach` are the harness's own last events: a driver ends with `end`,
        // `hang` or `crash`.
        if case .breach = e.kind {
            problem = "the driver wrote a breach event, which only the harness writes"; return false
        }
        if case .cut = e.kind {
            problem = "the driver wrote a cut event, which only the harness and the reference engine write";
            return false
        }
        guard events.count < maxEvents else {
            runaway = "the driver ran away: it wrote more than \(maxEvents) events (--max-events)"
            return false
        }
        if e.thread == threads { threads += 1 }
        events.append(e)
        if let livelock {
            let now = ContinuousClock.now
            if progressed(e.kind) || lastProgress == nil {
                lastProgress = now; polled = []
            } else if let since = lastProgress, (now - since).seconds > livelock {
                let reads = polled.map { "op \($0.op) \($0.key)" }.joined(separator: ", ")
                runaway =
                    "nothing progressed for \(String(format: "%.1f", livelock)) s: the driver wrote only reads "
                    + "that repeated earlier ones (\(reads)), as a wait or a queue does that polls a state that "
                    + "no longer changes"
                return false
            }
        }
        return e.kind.endsTrace ? session : true
    }
}
