import Foundation
import OperationSpec

/// An implementation run case by case in a child process speaking the driver protocol, so that a
/// trap, a crash or a deadlock costs one case, not the run. Events stream back as they happen:
/// whatever the child said before it died is kept, and its death is the trace's last event
/// (`crash` with the signal and its last words on standard error, or `hang` with what was pending).
public struct ChildProcessImplementation: Implementation {
    public let name: String
    public let capabilities: [Observation]
    public var isDeterministic: Bool { false }
    /// The driver executable and its arguments (e.g. `opconform driver`).
    public let command: [String]
    /// The driver the user named by path, when it was (`--impl exec:PATH`); nil for the
    /// built-in ones, which replay lines name by `--impl NAME`.
    public var launch: DriverLaunch?
    public var limits: DriverLimits
    /// The driver's own subclass, from its hello (`DriverProtocol.Message.hello`).
    public var subclass: String?
    /// Seconds the child may go without writing anything (once it has started) before it is
    /// killed and the case reported as a hang. Drivers declare their own hangs much sooner; this
    /// is the backstop for a driver whose watchdog is stuck too.
    public var timeout: TimeInterval { limits.timeout }
    public var unitMicroseconds: Int { limits.unitMicroseconds }

    public init(name: String, capabilities: [Observation], command: [String], timeout: TimeInterval = DriverLimits.standard.timeout,
                unitMicroseconds: Int = DriverLimits.standard.unitMicroseconds,
                caseDeadline: TimeInterval = DriverLimits.standard.caseDeadline, launch: DriverLaunch? = nil) {
        self.name = name
        self.capabilities = capabilities
        self.command = command
        self.limits = DriverLimits(timeout: timeout, caseDeadline: caseDeadline, unitMicroseconds: unitMicroseconds)
        self.launch = launch
    }

    public var replayArguments: [String] { (launch?.replayArguments ?? ["--impl", name]) + limits.replayArguments }

    /// Starts a driver known only by its command: sends the probe (an empty scenario and no
    /// `impl`) and takes the driver's name and capabilities from its `hello`. Every way the
    /// probe can go wrong is one sentence that says what the driver did and where to read more.
    public static func probing(_ launch: DriverLaunch, limits: DriverLimits = .standard) throws(InputError) -> ChildProcessImplementation {
        let request = DriverProtocol.Request(impl: nil, scenario: Scenario(name: "probe"), scheduleSeed: 0, unitMicroseconds: limits.unitMicroseconds)
        let outcome = ChildProcess.run(launch.command, input: JSONCodec.line(request), timeout: limits.timeout, deadline: limits.caseDeadline)
        let who = "the driver \(ShellWords.join(launch.command))"
        let more = " (Specs/driver-protocol.md; 'opconform driver-check \(ShellWords.quote(launch.executable))' checks a driver in detail)"
        if outcome.status == -1, let why = outcome.lastError { throw InputError("\(who) could not be started: \(why)") }
        guard let first = outcome.lines.first else {
            let words = outcome.lastError.map { "; its last words on standard error: \($0)" } ?? ""
            let ended = outcome.killed ?? (outcome.signal.map { "it was killed by signal \($0)" } ?? "it exited with status \(outcome.status)")
            throw InputError("\(who) wrote nothing in answer to the probe: \(ended)\(words)" + more)
        }
        guard let message = try? JSONCodec.decode(DriverProtocol.Message.self, from: Data(first.utf8), source: "the driver's first line") else {
            throw InputError("\(who) answered the probe with a line that is not a protocol message: \(first.prefix(160))" + more)
        }
        switch message {
        case .hello(let version, let impl, let capabilities, let subclass):
            guard version == DriverProtocol.version else {
                throw InputError("\(who) says hello in protocol \(version); this harness speaks \(DriverProtocol.version)" + more)
            }
            guard !impl.isEmpty else { throw InputError("\(who) gave an empty implementation name in its hello" + more) }
            var found = ChildProcessImplementation(name: impl, capabilities: capabilities, command: launch.command, timeout: limits.timeout,
                                                   unitMicroseconds: limits.unitMicroseconds, caseDeadline: limits.caseDeadline, launch: launch)
            found.subclass = subclass
            return found
        case .error(let why):
            throw InputError("\(who) refused the probe (an empty scenario, no impl): \(why)" + more)
        case .event, .done:
            throw InputError("\(who) answered the probe without a hello first" + more)
        }
    }

    public func run(_ scenario: Scenario, scheduleSeed: UInt64) -> Trace {
        let request = DriverProtocol.Request(impl: name, scenario: scenario, scheduleSeed: scheduleSeed, unitMicroseconds: unitMicroseconds)
        let outcome = ChildProcess.run(command, input: JSONCodec.line(request), timeout: limits.timeout, deadline: limits.caseDeadline)
        var events: [TraceEvent] = []
        var caps = capabilities
        var threads = 0
        var problem: String?
        // Reading stops at the trace's last event, at a refusal and at the first line that breaks
        // the protocol: a trace has one last event, and positions are its events' `seq`.
        reading: for line in outcome.lines {
            guard let message = try? JSONCodec.decode(DriverProtocol.Message.self, from: Data(line.utf8), source: "driver output") else {
                problem = "the driver wrote a line that is not a protocol message: \(line.prefix(120))"
                break
            }
            switch message {
            case .hello(let version, let impl, let declared, _):
                guard version == DriverProtocol.version, impl == name else {
                    problem = "the driver said hello as \(impl) in protocol \(version), not as \(name) in protocol \(DriverProtocol.version)"
                    break reading
                }
                caps = declared
            case .event(let e):
                guard e.seq == events.count else {
                    problem = "the driver numbered its event \(events.count) as \(e.seq) (seq counts from 0 without gaps)"
                    break reading
                }
                // Threads are numbered from 0 in order of first appearance: a new one is the next.
                guard e.thread >= 0 && e.thread <= threads else {
                    problem = "the driver put event \(e.seq) on thread \(e.thread), but threads are numbered from 0 in order of first appearance (next: \(threads))"
                    break reading
                }
                if e.thread == threads { threads += 1 }
                events.append(e)
                if e.kind.endsTrace { break reading }
            case .done: break
            case .error(let m):
                problem = "the driver refused the case: \(m)"
                break reading
            }
        }
        func append(_ kind: EventKind) { events.append(TraceEvent(seq: events.count, thread: events.last?.thread ?? 0, kind)) }
        // A trace that has its last event (`end`, `hang`, `crash`, `cut`) is whole, whatever the
        // driver did after it (a missing `done` is for driver-check to point out).
        if events.last?.kind.endsTrace ?? false {
            return Trace(impl: name, scheduleSeed: scheduleSeed, capabilities: caps, events: events)
        }
        if let problem {
            append(.crash(signal: 0, message: problem))
        } else if let killed = outcome.killed {
            append(.hang(killed + "; " + pending(events, scenario: scenario) + activity(events)))
        } else if let signal = outcome.signal {
            append(.crash(signal: Int(signal), message: outcome.lastError ?? "killed by signal \(signal)"))
        } else {
            append(.crash(signal: 0, message: "the driver exited with status \(outcome.status) before the end of the trace" + (outcome.lastError.map { ": " + $0 } ?? "")))
        }
        return Trace(impl: name, scheduleSeed: scheduleSeed, capabilities: caps, events: events)
    }

    /// What the driver kept doing at the end, when it was cut while still writing: the most
    /// frequent of its last 100 events (a queue polling a getter shows as that read, over and
    /// over).
    private func activity(_ events: [TraceEvent]) -> String {
        let tail = events.suffix(100).map { $0.kind.description }
        guard tail.count >= 10 else { return "" }
        var counts: [String: Int] = [:]   // looked up only; the winner is chosen by count, then text
        for d in tail { counts[d, default: 0] += 1 }
        let top = tail.max { a, b in (counts[a]!, b) < (counts[b]!, a) }!
        return "; of its last \(tail.count) events, \(counts[top]!) were: \(top)"
    }

    /// What the driver was doing when it stopped: the last step issued and not done.
    private func pending(_ events: [TraceEvent], scenario: Scenario) -> String {
        var open: Int?
        for e in events {
            if case .stepIssued(let i) = e.kind { open = i }
            if case .stepDone(let i) = e.kind, open == i { open = nil }
        }
        if events.isEmpty { return "the driver wrote no event" }
        guard let i = open else { return "the driver had finished its steps; operations never finished" }
        return "driver step \(i) (\(scenario.driver[i].action)) never returned"
    }
}

/// Runs a command with input, collecting standard output lines as they come, with deadlines.
enum ChildProcess {
    struct Outcome {
        var lines: [String]
        var status: Int32
        var signal: Int32?
        /// Why the child was killed for taking too long ("no progress within 5 s"), if it was.
        var killed: String?
        var lastError: String?
    }

    /// How long a child may take to say anything at all. Starting a process from a cold disk
    /// while a test suite starts dozens of others can take seconds on a CI machine; that is not
    /// the implementation hanging, so it does not count against `timeout`.
    static let startupAllowance: TimeInterval = 60

    /// The most a child may write, in lines, before it is stopped: a driver that logs for ever
    /// must not exhaust the harness's memory before its case deadline.
    static let lineLimit = 2_000_000

    /// Runs `command` with `input` on standard input. The child is killed (`killed`) when it
    /// has written nothing on standard output for `timeout` seconds once it has started talking,
    /// or nothing at all within `startupAllowance` (a deadline on progress, so a slow machine
    /// stretches a case instead of turning it into a hang), or when it is still writing
    /// `deadline` seconds after its first line (a driver that logs for ever).
    static func run(_ command: [String], input: String, timeout: TimeInterval, deadline: TimeInterval = DriverLimits.standard.caseDeadline) -> Outcome {
        // No backtraces in a driver: a trap is an expected outcome, reported by its message.
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let child: SpawnedProcess
        do { child = try SpawnedProcess.start(command, environment: environment) } catch {
            return Outcome(lines: [], status: -1, signal: nil, killed: nil, lastError: "cannot start \(command[0]): \(error.message)")
        }
        let collected = Collected()
        // Readers, writer and reaper each on a thread of their own, not on the global queues:
        // those also run the cases, and their threads are limited. With `--jobs 16` the readers
        // waited for a thread while the cases held them, the wait for them below timed out, and
        // a case whose output had not been read yet was reported as a crash ("exited with status
        // 0 before the end of the trace", 5 of 40 cases). A child that never reads its input
        // must not block the deadlines either, and the child is reaped the moment it ends.
        let readers = DispatchGroup()
        readers.enter()
        Thread { SpawnedProcess.drain(child.output) { collected.appendOut($0) }; readers.leave() }.start()
        readers.enter()
        Thread { SpawnedProcess.drain(child.errors) { collected.appendErr($0) }; readers.leave() }.start()
        let request = Data(input.utf8)
        Thread { child.send(request) }.start()
        let reaped = Reaped()
        Thread { reaped.set(child.wait()) }.start()
        var killed: String?
        let started = Date()
        while !reaped.wait(seconds: 0.05) {
            let now = Date()
            if let last = collected.lastOutput {
                if now.timeIntervalSince(last) > timeout { killed = "no progress within \(Int(timeout)) s" }
            } else if now.timeIntervalSince(started) > startupAllowance {
                killed = "no output within \(Int(startupAllowance)) s of starting"
            }
            // A child that talks for ever (a livelock that keeps logging) is stopped too, from
            // its first line on, or from the end of the startup allowance at the latest.
            let since = collected.firstOutput ?? started.addingTimeInterval(startupAllowance)
            if killed == nil && now.timeIntervalSince(since) > deadline {
                killed = "the case ran past its deadline of \(DriverLimits.number(deadline)) s while the driver was still writing (--case-deadline)"
            }
            if killed == nil && collected.lines > lineLimit { killed = "the driver wrote more than \(lineLimit) lines" }
            if killed != nil {
                child.stop()
                _ = reaped.wait(seconds: .infinity)
                break
            }
        }
        let ending = reaped.ending
        _ = readers.wait(timeout: .now() + 5)
        let (out, err) = collected.values
        let lines = String(decoding: out, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        // The child's last words: its fatal error if it printed one, else its last line.
        let errLines = String(decoding: err, as: UTF8.self).split(separator: "\n").map(String.init)
        let lastError = errLines.last { $0.contains("Fatal error") } ?? errLines.last
        switch ending {
        case .exited(let status):
            return Outcome(lines: lines, status: status, signal: nil, killed: killed, lastError: lastError)
        case .signalled(let signal):
            return Outcome(lines: lines, status: signal, signal: killed == nil ? signal : nil, killed: killed, lastError: lastError)
        }
    }

    /// How the child ended, handed from the thread that reaps it. `@unchecked Sendable` is
    /// sound: `value` is written once and read only under `condition`.
    final class Reaped: @unchecked Sendable {
        private let condition = NSCondition()
        private var value: SpawnedProcess.Ending?
        func set(_ ending: SpawnedProcess.Ending) { condition.lock(); value = ending; condition.broadcast(); condition.unlock() }
        /// Whether the child has ended, waiting at most `seconds` for it.
        func wait(seconds: Double) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            // No `wait(until: .distantFuture)`: on Linux it traps (the date overflows a timespec).
            if seconds.isInfinite {
                while value == nil { condition.wait() }
                return true
            }
            let deadline = Date().addingTimeInterval(seconds)
            while value == nil { if !condition.wait(until: deadline) { break } }
            return value != nil
        }
        var ending: SpawnedProcess.Ending { condition.lock(); defer { condition.unlock() }; return value! }
    }

    /// The child's output, filled by reader threads. `@unchecked Sendable` is sound: every value
    /// is read and written only under `lock`.
    final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var out = Data(), err = Data()
        /// When standard output last grew (`nil`: not yet).
        private var lastOutputTime: Date?
        /// When standard output first grew (`nil`: not yet).
        private var firstOutputTime: Date?
        private var lineCount = 0
        func appendOut(_ d: Data) {
            let newlines = d.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            lock.lock()
            out.append(d)
            lastOutputTime = Date()
            if firstOutputTime == nil { firstOutputTime = lastOutputTime }
            lineCount += newlines
            lock.unlock()
        }
        var lastOutput: Date? { lock.lock(); defer { lock.unlock() }; return lastOutputTime }
        var firstOutput: Date? { lock.lock(); defer { lock.unlock() }; return firstOutputTime }
        var lines: Int { lock.lock(); defer { lock.unlock() }; return lineCount }
        func appendErr(_ d: Data) { lock.lock(); err.append(d); lock.unlock() }
        var values: (Data, Data) { lock.lock(); defer { lock.unlock() }; return (out, err) }
    }
}
