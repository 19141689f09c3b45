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

    public init(name: String, capabilities: [Observation], command: [String], limits: DriverLimits, launch: DriverLaunch? = nil) {
        self.name = name
        self.capabilities = capabilities
        self.command = command
        self.limits = limits
        self.launch = launch
    }

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
        let firstLine = FirstLine()
        let outcome = ChildProcess.run(launch.command, input: JSONCodec.line(request), limits: limits, consume: firstLine.take)
        let who = "the driver \(ShellWords.join(launch.command))"
        let more = " (Specs/driver-protocol.md; 'opconform driver-check \(ShellWords.quote(launch.executable))' checks a driver in detail)"
        if outcome.status == -1, let why = outcome.lastError { throw InputError("\(who) could not be started: \(why)") }
        guard let first = firstLine.value else {
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
            var found = ChildProcessImplementation(name: impl, capabilities: capabilities, command: launch.command, limits: limits, launch: launch)
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
        let reader = DriverTraceReader(name: name, capabilities: capabilities, maxEvents: limits.maxEvents)
        let outcome = ChildProcess.run(command, input: JSONCodec.line(request), limits: limits, consume: reader.read)
        var (events, caps, problem, runaway) = reader.result
        func append(_ kind: EventKind) { events.append(TraceEvent(seq: events.count, thread: events.last?.thread ?? 0, kind)) }
        // A trace that has its last event (`end`, `hang`, `crash`) is whole, whatever the driver
        // did after it (a missing `done` is for driver-check to point out).
        if events.last?.kind.endsTrace ?? false {
            return Trace(impl: name, scheduleSeed: scheduleSeed, capabilities: caps, events: events)
        }
        let words = outcome.lastError.map { "; its last words on standard error: " + $0 } ?? ""
        if problem == nil && runaway == nil && outcome.killed == nil {
            // How the driver ended without a last event decides whose fault it is. Before its
            // hello, no implementation code has run: the driver could not start the case. A
            // normal exit is the driver forgetting the protocol; death by a signal or an exit
            // with a failure status is the implementation (a trap, an uncaught error) crashing.
            if outcome.status == -1 {
                problem = (outcome.lastError ?? "the driver could not be started")
            } else if !reader.saidHello {
                let ended = outcome.signal.map { "was killed by signal \($0)" } ?? "exited with status \(outcome.status)"
                problem = "the driver \(ended) before its hello" + words
            } else if outcome.signal == nil && outcome.status == 0 {
                problem = "the driver exited with status 0 before the trace's last event (end, hang or crash)"
                    + (outcome.unfinishedLine.map { "; it left a line unfinished: " + $0.prefix(120) } ?? "")
            }
        }
        if let problem {
            append(.breach(problem))
        } else if let runaway {
            append(.hang(runaway + "; " + pending(events, scenario: scenario) + activity(events)))
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
        if !events.contains(where: { if case .stepIssued = $0.kind { return true }; return false }) { return "the driver had issued no driver step" }
        guard let i = open else { return "the driver had finished its steps; operations never finished" }
        return "driver step \(i) (\(scenario.driver[i].action)) never returned"
    }
}

/// The probe's answer: the driver's first line, kept as it arrives. `@unchecked Sendable` is
/// sound: `line` is read and written only under `lock`.
private final class FirstLine: @unchecked Sendable {
    private let lock = NSLock()
    private var line: String?
    func take(_ l: Substring) -> Bool { lock.withLock { line = String(l.prefix(DriverLimits.maxLine)) }; return false }
    var value: String? { lock.withLock { line } }
}
