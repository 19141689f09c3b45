import ConformanceFormats
import Foundation
import OperationDriverKit
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
    /// The release of OperationDriverKit the driver says it was built with (its hello's
    /// `harness`); nil for a driver that does not say (one not built with the kit).
    public var driverRelease: String?
    /// What the tested code provides and what it builds on, from the hello's `platform`.
    public var setting = Attribution.Setting.ownEverything
    /// The protocol the driver speaks: 3 serves case after case in one process while each
    /// case leaves nothing behind (Specs/driver-protocol.md, "Sessions"); 2 runs each case in
    /// a process of its own. The probe finds it for a driver named by path.
    package var protocolVersion: Int
    /// Variables set in each driver process's environment on top of the harness's own: a
    /// sanitizer's options (`Sanitizer.environment`, `expectConformance(driver:sanitize:)`).
    public var environment: [String: String] = [:]
    /// Driver processes waiting for their next case (protocol 3), shared by the copies of this
    /// value: a run's cases, its shrinker and its replays take turns on them.
    let pool = DriverPool()
    /// Seconds the child may go without writing anything (once it has started) before it is
    /// killed and the case reported as a hang. Drivers declare their own hangs much sooner; this
    /// is the backstop for a driver whose watchdog is stuck too.
    public var timeout: TimeInterval { limits.timeout }
    public var unitMicroseconds: Int { limits.unitMicroseconds }

    public init(
        name: String, capabilities: [Observation], command: [String], limits: DriverLimits, launch: DriverLaunch? = nil,
        protocolVersion: Int = DriverProtocol.oneCaseVersion
    ) {
        self.protocolVersion = protocolVersion
        self.name = name
        self.capabilities = capabilities
        self.command = command
        self.limits = limits
        self.launch = launch
    }

    public init(
        name: String, capabilities: [Observation], command: [String],
        timeout: TimeInterval = DriverLimits.standard.timeout,
        unitMicroseconds: Int = DriverLimits.standard.unitMicroseconds,
        caseDeadline: TimeInterval = DriverLimits.standard.caseDeadline, launch: DriverLaunch? = nil,
        protocolVersion: Int = DriverProtocol.oneCaseVersion
    ) {
        self.protocolVersion = protocolVersion
        self.name = name
        self.capabilities = capabilities
        self.command = command
        self.limits = DriverLimits(timeout: timeout, caseDeadline: caseDeadline, unitMicroseconds: unitMicroseconds)
        self.launch = launch
    }

    public func endSessions() { pool.retireAll() }

    /// A copy whose driver is asked for `patience` (`DriverLimits.patience`) and whose own
    /// limits (silence, case deadline) are stretched as much. It shares the driver processes
    /// waiting between cases: the request carries the patience.
    public func patient(_ patience: Int) -> any Implementation {
        var copy = self
        let p = min(max(1, patience), DriverLimits.patienceLevels.upperBound)
        copy.limits.patience = p
        copy.limits.timeout = limits.timeout * Double(p)
        copy.limits.caseDeadline = limits.caseDeadline * Double(p)
        return copy
    }

    public var noise: Int { limits.noise }
    public var replayArguments: [String] { (launch?.replayArguments ?? ["--impl", name]) + limits.replayArguments }

    /// Starts a driver known only by its command: sends the probe (an empty scenario and no
    /// `impl`) and takes the driver's name and capabilities from its `hello`. Every way the
    /// probe can go wrong is one sentence that says what the driver did and where to read more.
    ///
    /// The probe asks for protocol 3 first; a driver that refuses it with `error` (a driver of
    /// protocol 2 must) is probed again with protocol 2, and then runs each case in a process
    /// of its own.
    package static func probing(
        _ launch: DriverLaunch, limits: DriverLimits = .standard
    ) throws(InputError) -> ChildProcessImplementation {
        if case .found(let impl) = try probe(launch, limits: limits, version: DriverProtocol.sessionVersion) {
            return impl
        }
        switch try probe(launch, limits: limits, version: DriverProtocol.oneCaseVersion) {
        case .found(let impl): return impl
        case .refused(let why):
            throw InputError("\(who(launch)) refused the probe (an empty scenario, no impl): \(why)" + more(launch))
        }
    }

    /// What a probe found: the driver, or its refusal (`error`) of the request.
    private enum Probe { case found(ChildProcessImplementation), refused(String) }

    private static func who(_ launch: DriverLaunch) -> String { "the driver \(ShellWords.join(launch.command))" }
    private static func more(_ launch: DriverLaunch) -> String {
        " (Specs/driver-protocol.md; 'opconform driver-check \(ShellWords.quote(launch.executable))' "
            + "checks a driver in detail)"
    }

    private static func probe(_ launch: DriverLaunch, limits: DriverLimits, version: Int) throws(InputError) -> Probe {
        let request = DriverProtocol.Request(
            impl: nil, scenario: Scenario(name: "probe"), scheduleSeed: 0, unitMicroseconds: limits.unitMicroseconds,
            protocol: version)
        let firstLine = FirstLine()
        let outcome = ChildProcess.run(
            launch.command, input: JSONCodec.line(request), limits: limits, consume: firstLine.take)
        let who = who(launch), more = more(launch)
        if outcome.status == -1, let why = outcome.lastError { throw InputError("\(who) could not be started: \(why)") }
        guard let first = firstLine.value else {
            let words = outcome.lastError.map { "; its last words on standard error: \($0)" } ?? ""
            let ended =
                outcome.killed
                ?? (outcome.signal.map { "it was killed by signal \($0)" } ?? "it exited with status \(outcome.status)")
            throw InputError("\(who) wrote nothing in answer to the probe: \(ended)\(words)" + more)
        }
        guard
            let message = try? JSONCodec.decode(
                DriverProtocol.Message.self, from: Data(first.utf8), source: "the driver's first line")
        else {
            throw InputError(
                "\(who) answered the probe with a line that is not a protocol message: \(first.prefix(160))" + more)
        }
        switch message {
        case .hello(let said, let impl, let capabilities, let subclass, let platform, let release):
            // A driver of protocol 2 that answers a probe of 3 with its own hello is one of 2.
            guard said == version || said == DriverProtocol.oneCaseVersion else {
                throw InputError(
                    "\(who) says hello in protocol \(said) to a probe of protocol \(version); this harness speaks "
                        + DriverProtocol.versions.map(String.init).joined(separator: " and ") + more)
            }
            guard !impl.isEmpty else {
                throw InputError("\(who) gave an empty implementation name in its hello" + more)
            }
            var found = ChildProcessImplementation(
                name: impl, capabilities: capabilities, command: launch.command, limits: limits, launch: launch,
                protocolVersion: said)
            found.subclass = subclass
            found.driverRelease = release
            if let platform {
                guard !platform.name.isEmpty, platform.owns.allSatisfy(DriverProtocol.Platform.parts.contains) else {
                    throw InputError(
                        "\(who)'s hello names the platform \(JSONDiagnosis.quoted(platform.name)) owning "
                            + "\(platform.owns.map { JSONDiagnosis.quoted($0) }.joined(separator: ", ")); a platform "
                            + "has a name, "
                            + "and owns holds only " + DriverProtocol.Platform.parts.joined(separator: " and ") + more)
                }
                // A platform is a name of the harness's list, never a path: its name chooses the
                // known divergences a run applies (`Fixtures/expectations/NAME.json`), and a claim
                // the harness does not know would excuse by a file of the driver's choosing.
                guard Attribution.platforms.contains(platform.name) else {
                    throw InputError(
                        "\(who)'s hello claims the platform \(JSONDiagnosis.quoted(platform.name)), which is not one "
                            + "this harness knows (" + Attribution.platforms.joined(separator: ", ") + ")" + more)
                }
                found.setting = Attribution.Setting(platform: platform.name, owns: platform.owns)
            }
            return .found(found)
        case .error(let why):
            return .refused(why)
        case .event, .done:
            throw InputError("\(who) answered the probe without a hello first" + more)
        }
    }

    /// Whether the drivers run under a sanitizer: its options, as the harness sets them, are
    /// in `environment` (`expectConformance(driver:sanitize:)`) or in the harness's own
    /// environment, which every driver inherits (`opconform --sanitize`).
    var sanitized: Bool {
        let inherited = ProcessInfo.processInfo.environment
        return Sanitizer.allCases.contains { sanitizer in
            let key = sanitizer.optionsVariable, ours = sanitizer.environment[key]!
            return environment[key] != nil || inherited[key]?.hasSuffix(ours) == true
        }
    }

    /// Seconds a sanitized session's process is watched after each case for a late report:
    /// the timer of Examples/async-operation's TimeoutAsyncOperation fires 20 ms after its
    /// operation starts. Measured in Specs/sanitizers.md.
    static let sanitizerSettle: TimeInterval = 0.05

    /// Whether the driver ends a livelock itself: the built-in drivers and every driver built
    /// with the kit (its hello says its release) have a watchdog that ends a case whose call
    /// runs past four times the scenario's work, and then asks each operation whether it
    /// finished ("After a hang: the subclass's own word"). Cutting such a driver first would
    /// lose that word, and with it the difference between a queue that never heard a finish
    /// (Linux's limit) and an operation that never finished (the tested code's).
    var watchesItsOwnLivelock: Bool { launch == nil || driverRelease != nil }

    /// How long a case may go on writing only repeated reads before it is a hang
    /// (`DriverTraceReader`), for a driver without a watchdog of its own
    /// (`watchesItsOwnLivelock`): the silence timeout, or four times all the scenario's work when
    /// that is longer (a poller may read for as long as a dependency works), times the patience
    /// a confirmation asks for. A correct case is never held this long by reads alone.
    static func livelockWindow(_ scenario: Scenario, limits: DriverLimits) -> TimeInterval {
        let work = Double(scenario.totalWork) * Double(limits.unitMicroseconds) / 1_000_000
        return max(limits.timeout, 4 * work) * Double(max(1, limits.patience))
    }

    public func run(_ scenario: Scenario, scheduleSeed: UInt64) -> Trace {
        let line = JSONCodec.line(
            DriverProtocol.Request(
                impl: name, scenario: scenario, scheduleSeed: scheduleSeed, unitMicroseconds: unitMicroseconds,
                protocol: protocolVersion, noise: limits.noise, patience: limits.patience))
        // Protocol 3: the case goes to a process that served earlier ones when one waits, and
        // the process waits for the next case if this one leaves nothing behind.
        // Under a sanitizer a driver of protocol 3 is run as a session even for one case, so
        // that it waits after the case and can be watched for a late report.
        let session = protocolVersion == DriverProtocol.sessionVersion && (limits.casesPerDriver > 1 || sanitized)
        var retried = false
        while true {
            let reader = DriverTraceReader(
                name: name, capabilities: capabilities, maxEvents: limits.maxEvents, version: protocolVersion,
                session: session,
                livelock: watchesItsOwnLivelock ? nil : Self.livelockWindow(scenario, limits: limits))
            let reused = session ? pool.take() : nil
            let process: DriverProcess
            if let reused {
                process = reused
            } else {
                pool.countStart()
                do { process = try DriverProcess.start(command, adding: environment) } catch {
                    return trace(
                        reader: reader, outcome: .cannotStart(command, error), scenario: scenario,
                        scheduleSeed: scheduleSeed)
                }
            }
            // The last case a process is given closes its input: the driver exits after it. Under
            // a sanitizer, a session's process is watched a moment after each case, its last too
            // (then retired): a late callback's report is the case's own (`DriverProcess.serve`).
            let last = !session || process.cases + 1 >= limits.casesPerDriver
            let settle = session && sanitized ? Self.sanitizerSettle : 0
            let outcome = process.serve(line, limits: limits, closingInput: last && settle == 0, settle: settle,
                                        consume: reader.read, next: { reader.next })
            if outcome.reusable { if last { process.retire() } else { pool.give(process) } }
            // A process that served an earlier case and did not begin this one with its hello
            // cannot be judged by it: what the earlier case left ended it (a late callback that
            // trapped), or it wrote between cases and that output reached the reader only after
            // the request was sent. This case is run again in a fresh process, once.
            if reused != nil && !retried && !reader.saidHello && outcome.killed == nil && !outcome.reusable {
                retried = true
                continue
            }
            return trace(reader: reader, outcome: outcome, scenario: scenario, scheduleSeed: scheduleSeed)
        }
    }

    /// The case's trace: the reader's events, ended by how the driver ended when it did not
    /// write the trace's last event itself (Specs/driver-protocol.md, "When a driver misbehaves").
    /// How a `cut` event of a case the machine failed begins (`Trace.isMachineFailure`).
    package static let machineFailure = "the machine failed the case, not the implementation: "

    private func trace(
        reader: DriverTraceReader, outcome: ChildProcess.Outcome, scenario: Scenario, scheduleSeed: UInt64
    ) -> Trace {
        var (events, caps, problem, runaway) = reader.result
        // `apiSurface3` and the rest of `Observation.performedOnly` say what the driver performs,
        // not what its traces show (no rule needs them), and a trace that listed one would need a
        // newer trace format: left out, as the engine leaves them out, so a trace without one of
        // their constructs keeps its format and bytes.
        caps.removeAll { Observation.performedOnly.contains($0) }
        func append(_ kind: EventKind) {
            events.append(TraceEvent(seq: events.count, thread: events.last?.thread ?? 0, kind))
        }
        // An event that names an operation, queue or step the scenario lacks is a driver's lie,
        // whatever else the trace says: the checkers index by those numbers, so it is not judged.
        if problem == nil, let lie = DriverCheck.referenceFailure(events, scenario) {
            if events.last?.kind.endsTrace ?? false { events.removeLast() }
            append(.breach(lie))
            return Trace(impl: name, scheduleSeed: scheduleSeed, capabilities: caps, events: events)
        }
        // A sanitizer's report after a whole trace (a late callback of the case's operations,
        // seen while the process was watched after it) ends the case in its place: a crash of
        // the case, which says it came after the end.
        if events.last?.kind == .end, outcome.signal == nil, Int(outcome.status) == Sanitizer.exitStatus,
           let words = outcome.lastError, Sanitizer.report(in: words) != nil {
            events.removeLast()
            let message = "the driver exited with status \(outcome.status) after the end of the trace: " + words
            append(.crash(signal: 0, message: message))
            return Trace(impl: name, scheduleSeed: scheduleSeed, capabilities: caps, events: events)
        }
        // The machine failed the case (no driver could be started, or one never ended): its own
        // ending, cut, never a rule's verdict nor a driver's breach (issue 43).
        if let machine = outcome.machine {
            if events.last?.kind.endsTrace ?? false { events.removeLast() }
            append(.cut(Self.machineFailure + machine))
            return Trace(impl: name, scheduleSeed: scheduleSeed, capabilities: caps, events: events)
        }
        // A case that asked more of the machine than a case may is cut short too: not judged,
        // whatever its trace says so far, and no run that holds it passes (`RunResult.noVerdict`).
        if let overLimit = outcome.overLimit {
            if events.last?.kind.endsTrace ?? false { events.removeLast() }
            append(.cut(overLimit))
            return Trace(impl: name, scheduleSeed: scheduleSeed, capabilities: caps, events: events)
        }
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
                let ended =
                    outcome.signal.map { "was killed by signal \($0)" } ?? "exited with status \(outcome.status)"
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
            append(
                .crash(
                    signal: 0,
                    message: "the driver exited with status \(outcome.status) before the end of the trace"
                        + (outcome.lastError.map { ": " + $0 } ?? "")))
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
        if !events.contains(where: {
            if case .stepIssued = $0.kind { return true }; return false
        }) {
            return "the driver had issued no driver step"
        }
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

extension Trace {
    /// Whether the machine failed this case (no driver could be started, or a killed one was
    /// never seen to end): a `cut` event that says so, written by `ChildProcessImplementation`.
    package var isMachineFailure: Bool {
        guard case .cut(let why)? = events.last?.kind else { return false }
        return why.hasPrefix(ChildProcessImplementation.machineFailure)
    }
}
