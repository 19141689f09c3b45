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
    /// Seconds the child may go without writing anything (once it has started) before it is
    /// killed and the case reported as a hang. Drivers declare their own hangs much sooner; this
    /// is the backstop for a driver whose watchdog is stuck too.
    public var timeout: TimeInterval
    public var unitMicroseconds: Int

    public init(name: String, capabilities: [Observation], command: [String], timeout: TimeInterval = 5, unitMicroseconds: Int = 1000) {
        self.name = name
        self.capabilities = capabilities
        self.command = command
        self.timeout = timeout
        self.unitMicroseconds = unitMicroseconds
    }

    public func run(_ scenario: Scenario, scheduleSeed: UInt64) -> Trace {
        let request = DriverProtocol.Request(impl: name, scenario: scenario, scheduleSeed: scheduleSeed, unitMicroseconds: unitMicroseconds)
        let outcome = ChildProcess.run(command, input: JSONCodec.line(request), timeout: timeout)
        var events: [TraceEvent] = []
        var caps = capabilities
        var done = false
        var problem: String?
        for line in outcome.lines {
            guard let message = try? JSONCodec.decode(DriverProtocol.Message.self, from: Data(line.utf8), source: "driver output") else {
                problem = "the driver wrote a line that is not a protocol message: \(line.prefix(120))"
                break
            }
            switch message {
            case .hello(_, _, let declared): caps = declared
            case .event(let e): events.append(e)
            case .done: done = true
            case .error(let m): problem = "the driver refused the case: \(m)"
            }
        }
        func append(_ kind: EventKind) { events.append(TraceEvent(seq: events.count, thread: events.last?.thread ?? 0, kind)) }
        let last = events.last?.kind
        let ended: Bool = { if case .end? = last { return true }; if case .hang? = last { return true }; return false }()
        if let problem {
            append(.crash(signal: 0, message: problem))
        } else if let killed = outcome.killed {
            append(.hang(killed + "; " + pending(events, scenario: scenario)))
        } else if let signal = outcome.signal {
            append(.crash(signal: Int(signal), message: outcome.lastError ?? "killed by signal \(signal)"))
        } else if !done || !ended {
            append(.crash(signal: 0, message: "the driver exited with status \(outcome.status) before the end of the trace" + (outcome.lastError.map { ": " + $0 } ?? "")))
        }
        return Trace(impl: name, scheduleSeed: scheduleSeed, capabilities: caps, events: events)
    }

    /// What the driver was doing when it stopped: the last step issued and not done.
    private func pending(_ events: [TraceEvent], scenario: Scenario) -> String {
        var open: Int?
        for e in events {
            if case .stepIssued(let i) = e.kind { open = i }
            if case .stepDone(let i) = e.kind, open == i { open = nil }
        }
        guard let i = open else { return "the driver had finished its steps; operations never finished" }
        return "driver step \(i) (\(scenario.driver[i].action)) never returned"
    }
}

/// Runs a command with input, collecting standard output lines as they come, with a deadline.
enum ChildProcess {
    /// Held while a process is started. Foundation's `Process.run()` on Linux is not safe to call
    /// from two threads at once: with `--jobs 2` a run of 1,000 Foundation cases died at case 703
    /// with SIGSEGV in `memmove` inside `Process.run()` (swift-corelibs-foundation 6.3.1; SwiftPM
    /// tracked the same class of problem as SR-3625, "Make Process class thread safe"). Starting
    /// takes about a millisecond; the cases still run side by side.
    static let spawning = NSLock()

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

    /// Runs `command` with `input` on standard input. The child is killed (`killed`) when it
    /// has written nothing on standard output for `timeout` seconds once it has started talking,
    /// or nothing at all within `startupAllowance`: a deadline on progress, not on the whole run,
    /// so a slow machine stretches a case instead of turning it into a hang.
    static func run(_ command: [String], input: String, timeout: TimeInterval) -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        // No backtraces in a driver: a trap is an expected outcome, reported by its message.
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let collected = Collected()
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        do { try spawning.withLock { try process.run() } } catch {
            return Outcome(lines: [], status: -1, signal: nil, killed: nil, lastError: "cannot start \(command[0]): \(error)")
        }
        let readers = DispatchGroup()
        DispatchQueue.global().async(group: readers) {
            let handle = stdout.fileHandleForReading
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                collected.appendOut(chunk)
            }
        }
        DispatchQueue.global().async(group: readers) { collected.setErr(stderr.fileHandleForReading.readDataToEndOfFile()) }
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try? stdin.fileHandleForWriting.close()
        var killed: String?
        let started = Date(), lifetime = startupAllowance + 20 * timeout
        while finished.wait(timeout: .now() + 0.05) == .timedOut {
            let now = Date()
            if let last = collected.lastOutput {
                if now.timeIntervalSince(last) > timeout { killed = "no progress within \(Int(timeout)) s" }
            } else if now.timeIntervalSince(started) > startupAllowance {
                killed = "no output within \(Int(startupAllowance)) s of starting"
            }
            // A child that talks for ever (a livelock that keeps logging) is stopped too.
            if killed == nil && now.timeIntervalSince(started) > lifetime { killed = "still running after \(Int(lifetime)) s" }
            if killed != nil {
                kill(process.processIdentifier, SIGKILL)
                finished.wait()
                break
            }
        }
        _ = readers.wait(timeout: .now() + 5)
        let (out, err) = collected.values
        let lines = String(decoding: out, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        // The child's last words: its fatal error if it printed one, else its last line.
        let errLines = String(decoding: err, as: UTF8.self).split(separator: "\n").map(String.init)
        let lastError = errLines.last { $0.contains("Fatal error") } ?? errLines.last
        let bySignal = process.terminationReason == .uncaughtSignal
        return Outcome(lines: lines, status: process.terminationStatus, signal: bySignal && killed == nil ? process.terminationStatus : nil,
                       killed: killed, lastError: lastError)
    }

    /// The child's output, filled by reader threads. `@unchecked Sendable` is sound: every value
    /// is read and written only under `lock`.
    final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var out = Data(), err = Data()
        /// When standard output last grew (`nil`: not yet).
        private var lastOutputTime: Date?
        func appendOut(_ d: Data) { lock.lock(); out.append(d); lastOutputTime = Date(); lock.unlock() }
        var lastOutput: Date? { lock.lock(); defer { lock.unlock() }; return lastOutputTime }
        func setErr(_ d: Data) { lock.lock(); err = d; lock.unlock() }
        var values: (Data, Data) { lock.lock(); defer { lock.unlock() }; return (out, err) }
    }
}
