import ConformanceFormats
import Foundation
import OperationDriverKit
import OperationSpec

/// A test suite for a driver someone else wrote (`opconform driver-check`): it starts the driver
/// once per request and checks, line by line, that it keeps the driver protocol
/// (`Specs/driver-protocol.md`). The harness itself is forgiving on purpose (a driver that dies
/// becomes a `crash`, a stray line ends the case), so a driver author learns about a broken
/// protocol only as odd findings; here each requirement is one named check with one sentence
/// that says what the driver did and what the protocol requires.
///
/// Each run is bounded by `timeLimit`, so a driver that hangs fails a check instead of hanging
/// the suite. The runs are made one after another: the streaming check times line arrivals, and
/// a second driver running beside it would blur them.
package struct DriverCheck: Sendable {
    /// One check's outcome.
    public struct Result: Sendable, Equatable {
        public let check: String
        /// Why it failed, in one sentence; nil when it passed.
        public let failure: String?
        public init(check: String, failure: String?) {
            self.check = check
            self.failure = failure
        }
        public var passed: Bool { failure == nil }
        /// What to change, for a failed check; nil when it passed.
        package var guidance: DriverCheckGuidance? { passed ? nil : DriverCheckGuidance.forCheck(check) }
        /// The line `driver-check` prints: `ok   NAME`, or `FAIL NAME: sentence` and under it what
        /// to change with the protocol's section to read.
        public var line: String {
            guard let failure else { return "ok   \(check)" }
            return "FAIL \(check): \(failure)" + (guidance.map { "\n" + $0.line } ?? "")
        }
    }

    /// Every check, in the order they run and are reported. `json-lines` and `exits` come last
    /// because they judge the output of every other check's run.
    public static let checks =
        ["probe"] + refusals.map(\.check) + ["smoke", "streaming", "session", "json-lines", "exits"]

    /// The driver executable and its arguments.
    public let command: [String]
    /// Seconds one run of the driver may take before it is killed and its check fails.
    package var timeLimit: TimeInterval

    public init(command: [String], timeLimit: TimeInterval = 10) {
        precondition(!command.isEmpty, "a driver command needs an executable")
        self.command = command
        self.timeLimit = timeLimit
    }

    /// Runs every check, in `checks` order; `report` gets each result as soon as it is known
    /// (a command prints it at once, so a slow driver shows progress).
    public func run(report: (Result) -> Void = { _ in }) -> [Result] {
        var results: [Result] = []
        var runs: [(check: String, run: DriverRun)] = []
        func judged(_ check: String, _ failure: String?) {
            let result = Result(check: check, failure: failure)
            results.append(result)
            report(result)
        }

        let probe = start(Self.probeRequest)
        runs.append(("probe", probe))
        let greeting = Conversation(probe)
        judged("probe", probeFailure(probe, greeting))
        // Every later request names the implementation the probe announced, as the harness does,
        // so that each refusal is asked for one reason only.
        let name = greeting.hello.flatMap { $0.impl }.flatMap { $0.isEmpty ? nil : $0 }

        // The valid case first, judged in its place: a refusal proves something only from a
        // driver that answers a valid request (one that refuses everything passes no refusal).
        let smoke = start(
            JSONCodec.line(
                DriverProtocol.Request(
                    impl: name, scenario: Self.smokeScenario, scheduleSeed: 1, unitMicroseconds: 1000)))
        let control = Self.refused(probe, "the probe") ?? Self.refused(smoke, "the smoke case")
        for refusal in Self.refusals {
            let run = start(refusal.request(name))
            runs.append((refusal.check, run))
            judged(refusal.check, refusalFailure(run, asked: refusal.asked, control: control))
        }
        runs.append(("smoke", smoke))
        judged("smoke", smokeFailure(smoke))

        // A machine that does not run this process for a while delays every line it reads, and
        // can make a streaming driver look like a buffering one; a second run must agree.
        var streaming = start(Self.streamingRequest(name))
        runs.append(("streaming", streaming))
        var verdict = streamingFailure(streaming)
        if verdict.retry {
            streaming = start(Self.streamingRequest(name))
            runs.append(("streaming", streaming))
            verdict = streamingFailure(streaming)
        }
        judged("streaming", verdict.failure)

        // Protocol 3: the probe and two smoke cases, one after another on one standard input.
        let session = start(Self.sessionRequests(name))
        runs.append(("session", session))
        judged("session", sessionFailure(session))

        judged("json-lines", jsonLinesFailure(runs))
        judged("exits", exitsFailure(runs))
        return results
    }

    private func start(_ input: String) -> DriverRun { DriverRun.run(command, input: input, limit: timeLimit) }

    // MARK: The requests

    /// The harness's probe: an empty scenario and no `impl`.
    static let probeRequest = JSONCodec.line(
        DriverProtocol.Request(
            impl: nil, scenario: Scenario(name: "driver-check probe"), scheduleSeed: 1, unitMicroseconds: 1000))

    /// One serial queue; op 1 depends on op 0; both added, then the driver waits for the queue.
    /// Small enough to pass on any faithful implementation, big enough to have worker threads,
    /// calls that return, and rules to keep.
    package static let smokeScenario = Scenario(
        name: "driver-check smoke", queues: [QueueConfig(maxConcurrent: 1)],
        operations: [OperationConfig(kind: .main([.work(1)])), OperationConfig(kind: .main([.work(1)]))],
        dependencies: [Edge(1, on: 0)],
        driver: [
            DriverStep(.add(op: 0, queue: 0)), DriverStep(.add(op: 1, queue: 0)),
            DriverStep(.waitUntilAllFinished(queue: 0))
        ])

    /// One operation working 0.4 s (400 units of 1 ms): the hello and the first events are made
    /// before the work and the trace's end after it, so a driver that writes as it goes delivers
    /// them 0.4 s apart, and one that holds its output back delivers them together.
    package static let streamingScenario = Scenario(
        name: "driver-check streaming", queues: [QueueConfig()],
        operations: [OperationConfig(kind: .main([.work(400)]))],
        driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.waitUntilAllFinished(queue: 0))])
    static let streamingWork = 0.4
    /// The least time by which the hello and first event must precede the trace's end: a quarter
    /// of the work, so neither a slow reader here nor a driver's slow exit decides.
    static let streamingMargin = 0.1

    static func streamingRequest(_ impl: String?) -> String {
        JSONCodec.line(
            DriverProtocol.Request(impl: impl, scenario: streamingScenario, scheduleSeed: 1, unitMicroseconds: 1000))
    }

    /// A session (protocol 3, Specs/driver-protocol.md, "Sessions"): the probe, then the smoke
    /// case twice, the three lines at once (a driver reads the next one after its `done`).
    static func sessionRequests(_ impl: String?) -> String {
        let v = DriverProtocol.sessionVersion
        return JSONCodec.line(
            DriverProtocol.Request(
                impl: nil, scenario: Scenario(name: "driver-check session"), scheduleSeed: 1, unitMicroseconds: 1000,
                protocol: v))
            + String(
                repeating: JSONCodec.line(
                    DriverProtocol.Request(
                        impl: impl, scenario: smokeScenario, scheduleSeed: 1, unitMicroseconds: 1000, protocol: v)),
                count: 2)
    }

    /// A driver of protocol 2 refuses the session's first request with `error` (then the check
    /// passes: sessions are optional). One of protocol 3 answers all three: each case `hello`
    /// in protocol 3, its events from seq 0, and `done`; the first two `done`s say `next` (the
    /// smoke case leaves nothing behind), and the driver exits 0 at the end of its input.
    func sessionFailure(_ run: DriverRun) -> String? {
        if let why = run.startError { return "the driver could not be started: \(why)" }
        let decoder = JSONDecoder()
        var messages: [DriverProtocol.Message] = []
        for line in run.lines where !line.bytes.isEmpty {
            guard let m = try? decoder.decode(DriverProtocol.Message.self, from: Data(line.bytes)) else {
                return "in a session (protocol 3), the driver wrote a line that is not a protocol message: "
                    + Conversation.quote(line.text ?? "(not UTF-8)")
            }
            messages.append(m)
        }
        if case .error? = messages.first, messages.count == 1 { return nil }   // protocol 2: one process per case
        var cases: [[DriverProtocol.Message]] = []
        for m in messages {
            if case .hello = m { cases.append([]) }
            guard !cases.isEmpty else { return "in a session (protocol 3), the driver's first line is not a hello" }
            cases[cases.count - 1].append(m)
        }
        guard cases.count == 3 else {
            return
                "a session of three requests (the probe, then the smoke case twice, protocol 3) got \(cases.count) "
                    + "answers; after `done` with `next: true` a driver reads its next request"
                + (run.killed
                    ? " (it was killed at the time limit: does it wait for the end of its input before answering?)"
                    : "")
        }
        for (n, answer) in cases.enumerated() {
            let which = ["the probe", "the first smoke case", "the second smoke case"][n]
            guard case .hello(let version, _, _, _, _, _) = answer[0], version == DriverProtocol.sessionVersion else {
                return "in a session, the hello for \(which) does not say protocol 3"
            }
            let events = answer.compactMap { if case .event(let e) = $0 { return e }; return nil }
            guard events.first?.seq == 0, events.enumerated().allSatisfy({ $0.offset == $0.element.seq }) else {
                return
                    "in a session, the events for \(which) do not count seq from 0 without "
                        + "gaps: each case starts afresh"
            }
            guard case .done(let next)? = answer.last else {
                return "in a session, the answer to \(which) does not end with done"
            }
            if n < 2 && next != true {
                return
                    "in a session, done after \(which) does not say next: true, though the case leaves nothing behind "
                        + "(then the driver must exit, and did it?)"
            }
        }
        if run.killed { return "the driver did not exit when its input ended after a session" }
        if run.signal != nil || run.status != 0 {
            return "the driver exited with status \(run.status) at the end of a session's input; it must exit 0"
        }
        return nil
    }

    /// A request the driver must refuse, with what it is, for the sentence.
    struct Refusal: Sendable {
        let check: String
        let asked: String
        let request: @Sendable (_ impl: String?) -> String
    }

    /// A request without a scenario (the rest as usual).
    private struct NoScenario: Encodable {
        var impl: String?
        var `protocol` = DriverProtocol.oneCaseVersion
        var scheduleSeed: UInt64 = 1
        var unitMicroseconds = 1000
    }

    static let refusals: [Refusal] = [
        Refusal(check: "refuse-empty-line", asked: "an empty request line") { _ in "\n" },
        Refusal(check: "refuse-not-json", asked: "a request line that is not JSON") { _ in "this is not JSON\n" },
        Refusal(check: "refuse-no-scenario", asked: "a request without a scenario") { impl in
            JSONCodec.line(NoScenario(impl: impl))
        },
        Refusal(check: "refuse-protocol-1", asked: "a request for protocol 1") { impl in
            var r = DriverProtocol.Request(
                impl: impl, scenario: Scenario(name: "driver-check"), scheduleSeed: 1, unitMicroseconds: 1000)
            r.protocol = 1
            return JSONCodec.line(r)
        },
        Refusal(check: "refuse-protocol-99", asked: "a request for protocol 99") { impl in
            var r = DriverProtocol.Request(
                impl: impl, scenario: Scenario(name: "driver-check"), scheduleSeed: 1, unitMicroseconds: 1000)
            r.protocol = 99
            return JSONCodec.line(r)
        },
        Refusal(check: "refuse-other-impl", asked: "a request for another implementation") { impl in
            JSONCodec.line(
                DriverProtocol.Request(
                    impl: "not-" + (impl ?? "this-driver"), scenario: Scenario(name: "driver-check"), scheduleSeed: 1,
                    unitMicroseconds: 1000))
        },
        Refusal(
            check: "refuse-missing-operation",
            asked: "a scenario whose dependency names an operation that does not exist"
        ) { impl in
            let s = Scenario(
                name: "driver-check", operations: [OperationConfig(kind: .main([]))], dependencies: [Edge(0, on: 1)])
            return JSONCodec.line(
                DriverProtocol.Request(impl: impl, scenario: s, scheduleSeed: 1, unitMicroseconds: 1000))
        },
        Refusal(check: "refuse-unknown-step", asked: "a scenario with an unknown step kind (frobnicate)") { impl in
            // Made from a valid scenario, so that only the step's kind is wrong.
            let s = Scenario(name: "driver-check", operations: [OperationConfig(kind: .main([.work(1)]))])
            let valid = JSONCodec.line(
                DriverProtocol.Request(impl: impl, scenario: s, scheduleSeed: 1, unitMicroseconds: 1000))
            let unknown = valid.replacingOccurrences(of: #"{"work":{"_0":1}}"#, with: #"{"frobnicate":{"_0":1}}"#)
            precondition(unknown != valid, "the scenario format no longer spells work as {\"work\":{\"_0\":1}}")
            return unknown
        },
    ]

    // MARK: The judgments

    private func exitPhrase(_ run: DriverRun) -> String {
        if run.killed { return "was still running after \(Self.number(timeLimit)) s (killed)" }
        if let s = run.signal { return "was killed by signal \(s)" + run.lastWords }
        return "exited with status \(run.status)" + (run.status == 0 ? "" : run.lastWords)
    }

    private func notStarted(_ run: DriverRun) -> String? {
        run.startError.map { "the driver could not be started (\($0)); driver-check needs a program it can run" }
    }

    /// What every run of a valid request shows: hello first, then events, the last of them `end`
    /// and none after it, then `done` and nothing more, and exit status 0. `helloCheck` judges
    /// the hello between the first requirement and the rest (the probe's own business).
    private func shapeFailure(
        _ run: DriverRun, _ c: Conversation, for what: String,
        helloCheck: (Conversation.Hello) -> String? = { _ in nil }
    ) -> String? {
        if let failure = notStarted(run) { return failure }
        if run.killed {
            return
                "the driver was still running \(Self.number(timeLimit)) s after \(what) and was killed; the protocol "
                    + "requires it to write its trace, then done, and exit"
        }
        guard let first = c.said.first else {
            return
                "the driver wrote no protocol message for \(what) and \(exitPhrase(run)); the protocol requires hello, "
                    + "the trace, then done"
        }
        guard case .hello(let hello) = first.what else {
            if case .error(let why) = first.what {
                return
                    "the driver refused \(what) (\(Conversation.quote(why))); the protocol requires it to answer a "
                        + "valid request with hello, the trace, then done"
            }
            return "the driver's first message for \(what) is \(first.what); the protocol requires hello first"
        }
        if let failure = helloCheck(hello) { return failure }
        var events: [TraceEvent] = []
        var rest = c.said.dropFirst()
        while let next = rest.first, case .event(let e) = next.what { events.append(e); rest = rest.dropFirst() }
        guard let after = rest.first else {
            return
                "the driver wrote no done after the trace for \(what) and \(exitPhrase(run)); the protocol requires "
                    + "done after the trace's last event"
        }
        guard case .done = after.what else {
            return "the driver wrote \(after.what) after its hello for \(what); after hello come only events, then done"
        }
        if let extra = rest.dropFirst().first {
            return "the driver wrote \(extra.what) after done for \(what); nothing may follow done"
        }
        guard let last = events.last else {
            return "the driver wrote hello and done with no event between for \(what); the trace must end with end"
        }
        if let early = events.dropLast().first(where: { Self.ends($0.kind) }) {
            return
                "the trace for \(what) goes on after event \(early); the trace's last event is its "
                    + "only end, hang, crash or cut"
        }
        guard last.kind == .end else {
            return "the trace for \(what) ends with \(last) instead of end; a run that finishes ends its trace with end"
        }
        guard run.signal == nil, run.status == 0 else {
            return
                "the driver \(exitPhrase(run)) after the trace for \(what); a driver that ran its "
                    + "request exits with status 0"
        }
        return nil
    }

    /// Seconds as a person writes them: 10, 0.4.
    static func number(_ x: Double) -> String { x == x.rounded() ? String(Int(x)) : String(x) }

    /// The events that end a trace: a trace has one, as its last event.
    static func ends(_ kind: EventKind) -> Bool {
        switch kind {
        case .end, .hang, .crash, .cut, .breach: return true
        default: return false
        }
    }

    private func probeFailure(_ run: DriverRun, _ c: Conversation) -> String? {
        shapeFailure(run, c, for: "the probe (an empty scenario, no impl)") { hello in
            guard let version = hello.protocol else {
                return
                    "the driver's hello gives no protocol version; the hello must say protocol "
                        + "\(DriverProtocol.oneCaseVersion)"
            }
            guard version == DriverProtocol.oneCaseVersion else {
                return
                    "the driver's hello says protocol \(version); driver-check asked for protocol "
                        + "\(DriverProtocol.oneCaseVersion), and a hello must say the protocol its request asked for"
            }
            guard let impl = hello.impl, !impl.trimmingCharacters(in: .whitespaces).isEmpty else {
                return
                    "the driver's hello gives no implementation name; the hello must name the "
                        + "implementation it runs (impl)"
            }
            guard let capabilities = hello.capabilities else {
                return
                    "the driver's hello has no capabilities list; the hello must list what the driver observes (an "
                        + "empty list if nothing)"
            }
            if let unknown = capabilities.first(where: { Observation(rawValue: $0) == nil }) {
                return
                    "the driver's hello declares the capability \"\(unknown)\", which the protocol does not know; "
                        + "capabilities are among: "
                    + Observation.allCases.map(\.rawValue).joined(separator: ", ")
            }
            return nil
        }
    }

    private func refusalFailure(_ run: DriverRun, asked: String, control: (what: String, why: String)?) -> String? {
        if let failure = notStarted(run) { return failure }
        let said = Conversation(run).said
        let required =
            "the protocol requires exactly one error line (no hello) and exit status 2 (Specs/driver-protocol.md, "
                + "\"The messages\")"
        if said.count == 1, case .error(let why) = said[0].what {
            if why.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                return
                    "given \(asked), the driver wrote an error line with no sentence; the error "
                        + "must say why in one sentence"
            }
            if !run.killed && run.signal == nil && run.status == 2 {
                guard let control else { return nil }
                return "the driver refused \(asked), but it refused a valid request too (\(control.what): "
                    + "\(Conversation.quote(control.why))), so the refusal shows nothing; answer a valid request with "
                    + "hello, the trace, "
                    + "then done (Specs/driver-protocol.md, \"The request\" and \"The messages\"), and "
                    + "refuse only what is wrong"
            }
        }
        return "given \(asked), the driver wrote \(Conversation.summary(said)) and \(exitPhrase(run)); \(required)"
    }

    /// What a valid request's run says when the driver refused it: which request, and why.
    private static func refused(_ run: DriverRun, _ what: String) -> (what: String, why: String)? {
        let said = Conversation(run).said
        guard let first = said.first, case .error(let why) = first.what else { return nil }
        return (what, why)
    }

    private func smokeFailure(_ run: DriverRun) -> String? {
        let c = Conversation(run)
        if let failure = shapeFailure(run, c, for: "the smoke scenario") { return failure }
        let events = c.events
        let scenario = Self.smokeScenario
        if let failure = Self.traceFailure(events, in: scenario) { return "in the smoke trace, " + failure }
        // The trace is well formed, so the checkers can read it. The guide's profile: the
        // documents' main reading, and the smoke scenario reaches no rule whose profiles differ.
        let hello = c.hello
        let trace = Trace(
            impl: hello?.impl ?? "driver", scheduleSeed: 1,
            capabilities: (hello?.capabilities ?? []).compactMap(Observation.init(rawValue:)), events: events)
        for (rule, verdict) in RuleBook.verdicts(scenario: scenario, trace: trace, profile: .guide) {
            if case .checked(let result) = verdict, let v = result.violations.first {
                return "the smoke scenario broke \(rule.id): \(v.observed); required: \(v.expected)"
            }
        }
        return nil
    }

    /// The first way `events` (a whole trace) breaks the protocol's form, as a sentence; nil when
    /// it keeps it: `seq` counts from 0 without gaps, thread numbers appear in order, each first
    /// with `threadStarted`, every call ends in `returned` or `threw` on its thread, the driving
    /// thread's own events are on thread 0, and every operation, queue and driver step named
    /// exists in `scenario`. The checkers assume all of this, so a trace is judged by the rules
    /// only after it passes here.
    package static func traceFailure(_ events: [TraceEvent], in scenario: Scenario) -> String? {
        sequenceFailure(events) ?? threadFailure(events) ?? callFailure(events) ?? placeFailure(events)
            ?? referenceFailure(events, scenario)
    }

    /// Events that only the driving thread records are on thread 0: what `isSuspended` returned
    /// to a `readSuspended` action, the `addOperationWithBlock:` call of an `addBlock` action
    /// (API surface 2), what `operations` returned to a `readOperations` action and the
    /// `releaseQueue` call (API surface 3), what a `readMainQueue` or `readQueueDeallocated`
    /// action read (API surface 4): all driver actions, never operation code. Checked for these
    /// only: older events on other threads were never required to be elsewhere.
    static func placeFailure(_ events: [TraceEvent]) -> String? {
        for e in events where e.thread != 0 {
            switch e.kind {
            case .suspended, .call(.addBlock), .returned(.addBlock), .threw(.addBlock, _, _), .operations,
                 .call(.releaseQueue), .returned(.releaseQueue), .threw(.releaseQueue, _, _),
                 .mainQueue, .queueDeallocated:
                return "event \(e) is on thread \(e.thread); a readSuspended, addBlock, readOperations, releaseQueue, "
                    + "readMainQueue or readQueueDeallocated action is performed by the driving thread, thread 0"
            default: continue
            }
        }
        return nil
    }

    /// `seq` counts from 0 without gaps.
    static func sequenceFailure(_ events: [TraceEvent]) -> String? {
        for (i, e) in events.enumerated() where e.seq != i {
            return "event \(i) has seq \(e.seq); seq counts from 0 without gaps"
        }
        return nil
    }

    /// Thread numbers appear in order (0, 1, 2, ...), each first with `threadStarted`.
    static func threadFailure(_ events: [TraceEvent]) -> String? {
        var seen = 0
        for e in events where e.thread >= seen || e.thread < 0 {
            guard e.thread == seen else {
                return
                    "event #\(e.seq) is on thread \(e.thread) before any event on thread \(seen); thread numbers count "
                        + "from 0 in order of first appearance"
            }
            guard case .threadStarted = e.kind else {
                return "the first event on thread \(e.thread) is \(e); each thread's first event is threadStarted"
            }
            seen += 1
        }
        return nil
    }

    /// Every `call` ends in a `returned` or `threw` on its thread, and every end has its call:
    /// matched like the checkers match them, with the innermost open call of the same kind.
    /// Needs `threadFailure` to have passed (thread numbers are 0..<n).
    static func callFailure(_ events: [TraceEvent]) -> String? {
        var open: [[TraceEvent]] = []   // by thread number: the calls not yet ended, in order
        for e in events {
            while open.count <= e.thread { open.append([]) }
            switch e.kind {
            case .call: open[e.thread].append(e)
            case .returned(let c), .threw(let c, _, _):
                guard let k = open[e.thread].lastIndex(where: { $0.kind == .call(c) }) else {
                    return
                        "event \(e) ends a call that was not made on thread \(e.thread); every returned or threw ends "
                            + "a call made on the same thread"
                }
                open[e.thread].remove(at: k)
            default: break
            }
        }
        if let unended = open.joined().min(by: { $0.seq < $1.seq }) {
            return "event \(unended) has no returned or threw after it; every call ends in one, on the same thread"
        }
        return nil
    }

    /// Every operation, queue and driver step an event names exists in the scenario (the
    /// checkers index by them).
    static func referenceFailure(_ events: [TraceEvent], _ scenario: Scenario) -> String? {
        for e in events {
            let (ops, queues, steps) = references(e.kind)
            if let o = ops.first(where: { !scenario.operations.indices.contains($0) }) {
                return
                    "event \(e) names operation \(o), but the scenario has \(scenario.operations.count); events name "
                        + "the scenario's operations"
            }
            if case .operations(_, let list) = e.kind, let o = list.first(where: { $0 < -1 }) {
                return
                    "event \(e) lists operation \(o); an operations event lists the scenario's operations, or -1 for "
                        + "one the driver does not hold"
            }
            if let q = queues.first(where: { !scenario.queues.indices.contains($0) }) {
                return
                    "event \(e) names queue \(q), but the scenario has \(scenario.queues.count); events name the "
                        + "scenario's queues"
            }
            if let s = steps.first(where: { !scenario.driver.indices.contains($0) }) {
                return
                    "event \(e) names driver step \(s), but the scenario has \(scenario.driver.count); events name the "
                        + "scenario's steps"
            }
        }
        return nil
    }

    /// The operations, queues and driver steps an event names (`EventReferences`).
    static func references(_ kind: EventKind) -> (ops: [Int], queues: [Int], steps: [Int]) {
        EventReferences.of(kind)
    }

    /// Whether the hello and the first event reached standard output well before the trace's
    /// end; `retry` when only their timing failed (the one judgment a busy machine can upset).
    private func streamingFailure(_ run: DriverRun) -> (failure: String?, retry: Bool) {
        if let failure = notStarted(run) { return (failure, false) }
        let c = Conversation(run)
        guard let hello = c.said.first(where: { if case .hello = $0.what { return true }; return false }),
              let first = c.said.first(where: { if case .event = $0.what { return true }; return false }) else {
            return (
                "the driver wrote no hello and event for the streaming scenario (it wrote "
                    + "\(Conversation.summary(c.said)) and \(exitPhrase(run))), so their arrival could not be timed; "
                    + "the protocol requires hello and events as they happen",
                false
            )
        }
        // The trace's end: its `end` line, else whatever came last, else the end of the output.
        let endLine =
            c.said.last(where: {
                if case .event(let e) = $0.what { return Self.ends(e.kind) }; return false
            }) ?? c.said.last
        guard let end = endLine.map({ run.lines[$0.line].at }) ?? run.outputEnded else {
            return (
                "the driver's output for the streaming scenario never ended, so it could not be timed; the protocol "
                    + "requires the trace, then done, then exit",
                false
            )
        }
        let early = max(run.lines[hello.line].at, run.lines[first.line].at)
        let lead = end - early
        guard lead < Self.streamingMargin else { return (nil, false) }
        return (
            "the hello and the first event reached standard output \(String(format: "%.2f", max(0, lead))) s before "
                + "the trace's end, though the operation works \(Self.number(Self.streamingWork)) s between them: the "
                + "driver holds its output back; the protocol requires it to write and flush every "
                + "line as soon as it has it",
            true
        )
    }

    private func jsonLinesFailure(_ runs: [(check: String, run: DriverRun)]) -> String? {
        let decoder = JSONDecoder()
        for (check, run) in runs {
            for (n, line) in run.lines.enumerated() {
                let shown = line.text.map { "`\($0.prefix(100))`" } ?? "(not UTF-8)"
                let problem: String?
                if line.overlong {
                    problem =
                        "is longer than \(DriverLimits.maxLine >> 20) MB, the most a line may hold (it begins \(shown))"
                } else if line.text == nil {
                    problem = "is not UTF-8"
                } else if line.text!.trimmingCharacters(in: .whitespaces).isEmpty {
                    problem = "is empty"
                } else if let object = try? JSONSerialization.jsonObject(
                    with: Data(line.bytes), options: .fragmentsAllowed)
                {
                    if object is [String: Any] {
                        do {
                            _ = try decoder.decode(DriverProtocol.Message.self, from: Data(line.bytes)); problem = nil
                        }
                        catch where (try? decoder.decode(Conversation.HelloLine.self, from: Data(line.bytes))) != nil {
                            // A hello this build cannot read strictly (a capability it does not
                            // know): the probe check says what is wrong with it.
                            problem = nil
                        } catch {
                            // The decoder's own sentence, without its "source: " lead.
                            let detail = InputError.decoding(error, source: "").message.drop { $0 == ":" || $0 == " " }
                            problem = "is not a protocol message \(shown) (\(detail))"
                        }
                    } else {
                        problem = "is JSON but not an object \(shown)"
                    }
                } else {
                    problem = "is not JSON \(shown)"
                }
                if let problem {
                    return
                        "in the \(check) run, line \(n + 1) of standard output \(problem); every line must be one JSON "
                            + "object that decodes as hello, event, done or error"
                }
            }
        }
        return nil
    }

    private func exitsFailure(_ runs: [(check: String, run: DriverRun)]) -> String? {
        guard let (check, _) = runs.first(where: { $0.run.killed }) else { return nil }
        return
            "in the \(check) run the driver was still running \(Self.number(timeLimit)) s after its request was "
                + "written and standard input closed, and was killed; a driver must exit once it has answered, without "
                + "waiting for more input"
    }
}

/// What a driver said in one run: the lines that are protocol messages, in order, each with its
/// line number. A hello whose capabilities this build does not know still counts as a hello
/// (the probe says which capability is wrong); other lines that are not messages are left to
/// the `json-lines` check, so that each defect fails the check it belongs to.
struct Conversation {
    /// A hello read leniently: each field optional, capabilities as plain strings.
    struct Hello: Decodable {
        var `protocol`: Int?
        var impl: String?
        var capabilities: [String]?
    }
    fileprivate struct HelloLine: Decodable { var hello: Hello }

    enum Said: CustomStringConvertible {
        case hello(Hello), event(TraceEvent), done, error(String)
        var description: String {
            switch self {
            case .hello: return "hello"
            case .event(let e): return "event \(e)"
            case .done: return "done"
            case .error(let why): return "error \(Conversation.quote(why))"
            }
        }
    }

    var said: [(line: Int, what: Said)] = []

    init(_ run: DriverRun) {
        let decoder = JSONDecoder()
        for (n, line) in run.lines.enumerated() {
            let data = Data(line.bytes)
            if let message = try? decoder.decode(DriverProtocol.Message.self, from: data) {
                switch message {
                case .hello(let p, let impl, let caps, _, _, _):
                    said.append((n, .hello(Hello(protocol: p, impl: impl, capabilities: caps.map(\.rawValue)))))
                case .event(let e): said.append((n, .event(e)))
                case .done: said.append((n, .done))
                case .error(let why): said.append((n, .error(why)))
                }
            } else if let loose = try? decoder.decode(HelloLine.self, from: data) {
                said.append((n, .hello(loose.hello)))
            }
        }
    }

    var hello: Hello? { said.lazy.compactMap { if case .hello(let h) = $0.what { return h }; return nil }.first }
    var events: [TraceEvent] { said.compactMap { if case .event(let e) = $0.what { return e }; return nil } }

    static func quote(_ s: String) -> String { "\"" + (s.count > 100 ? String(s.prefix(100)) + "..." : s) + "\"" }

    /// "hello, 12 events, done", "error \"...\"", "nothing": what a run wrote, for a sentence.
    static func summary(_ said: [(line: Int, what: Said)]) -> String {
        var parts: [String] = []
        var events = 0
        func flush() { if events > 0 { parts.append(events == 1 ? "1 event" : "\(events) events"); events = 0 } }
        for s in said {
            if case .event = s.what { events += 1; continue }
            flush()
            parts.append(s.what.description)
        }
        flush()
        return parts.isEmpty ? "no protocol message" : parts.joined(separator: ", ")
    }
}

/// One run of a driver: its standard output as lines, each with the time it arrived, and how
/// the process ended. Its own runner rather than `ChildProcess`'s, which keeps no arrival times
/// and judges progress the harness's way; this one has a plain time limit.
struct DriverRun: Sendable {
    struct Line: Sendable {
        /// The line's bytes; for a line over `DriverLimits.maxLine`, only its first 4 KB.
        let bytes: [UInt8]
        /// Seconds after the start when the line's newline (or the end of output) was read.
        let at: Double
        /// Whether the line was longer than `DriverLimits.maxLine` (and `bytes` holds its start).
        var overlong = false
        var text: String? { String(bytes: bytes, encoding: .utf8) }
    }
    var lines: [Line] = []
    /// Why the process could not be started; nil when it was.
    var startError: String?
    var status: Int32 = -1
    /// The signal that ended the process, when one did (not counting the kill at the limit).
    var signal: Int32?
    /// Killed by driver-check at the time limit.
    var killed = false
    /// Seconds after the start when standard output was closed; nil when it never was.
    var outputEnded: Double?
    /// "; its last words on standard error: ..." or nothing.
    var lastWords = ""

    /// Runs `command` with `input` on standard input, closed after it; kills its process group
    /// (SIGKILL) when it has not exited within `limit` seconds.
    static func run(_ command: [String], input: String, limit: TimeInterval) -> DriverRun {
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let output = Output()
        let started = ContinuousClock.now
        // posix_spawn, as the harness's cases (`SpawnedProcess` says why not Foundation's Process).
        let child: SpawnedProcess
        do { child = try SpawnedProcess.start(command, environment: environment) } catch {
            return DriverRun(startError: error.message)
        }
        // Blocking reads on threads of their own, not the global queues' (see ChildProcess.run).
        let readers = DispatchGroup()
        readers.enter()
        Thread { output.collect(from: child.output, since: started); readers.leave() }.start()
        readers.enter()
        Thread { SpawnedProcess.drain(child.errors) { output.appendErrors($0) }; readers.leave() }.start()
        // SpawnedProcess ignores SIGPIPE for the process: a driver that exits without reading
        // the request makes this write fail with EPIPE, not kill driver-check.
        child.send(Data(input.utf8))
        var run = DriverRun()
        var ending: SpawnedProcess.Ending?
        while ending == nil {
            ending = child.poll()
            if ending == nil && (ContinuousClock.now - started).seconds > limit {
                run.killed = true
                child.stop()
                ending = child.wait()
            }
            if ending == nil { usleep(5_000) }
        }
        // A grandchild that kept standard output open would keep the readers waiting; what was
        // read so far is the run's output.
        _ = readers.wait(timeout: .now() + 2)
        (run.lines, run.outputEnded) = output.stdout
        switch ending! {
        case .exited(let status): run.status = status
        case .signalled(let signal):
            run.status = signal
            if !run.killed { run.signal = signal }
        }
        let errLines = String(decoding: output.errors, as: UTF8.self).split(separator: "\n").map(String.init)
        if let last = errLines.last(where: { $0.contains("Fatal error") }) ?? errLines.last {
            run.lastWords = "; its last words on standard error: " + last.prefix(200)
        }
        return run
    }

    /// The output as it is read, filled by the reader threads. `@unchecked Sendable` is sound:
    /// every stored property is read and written only while holding `lock`, which guards no
    /// other lock and is never held across a read from the pipe.
    final class Output: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [Line] = []
        private var partial: [UInt8] = []
        /// The line being read is over `DriverLimits.maxLine`: its start is in `partial`, and
        /// the rest is passed over up to its newline (never held whole: a 200 MB line made
        /// driver-check hold 3 GB).
        private var skipping = false
        /// Bytes of standard output read; past `DriverLimits.maxBytes` the rest is passed over.
        private var total = 0
        private var ended: Double?
        private var err = Data()
        /// How much of standard error is kept: its end, which holds the last words.
        private static let errorsKept = 65_536

        /// Reads standard output to its end, stamping each line with the time its newline arrived.
        func collect(from fd: Int32, since start: ContinuousClock.Instant) {
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                let at = (ContinuousClock.now - start).seconds
                lock.lock()
                if n <= 0 {
                    if !partial.isEmpty { lines.append(Line(bytes: partial, at: at, overlong: skipping)); partial = [] }
                    ended = at
                    lock.unlock()
                    return
                }
                total += n
                if total <= DriverLimits.maxBytes {
                    for byte in buffer[0..<n] {
                        if byte == UInt8(ascii: "\n") {
                            lines.append(Line(bytes: partial, at: at, overlong: skipping))
                            partial = []
                            skipping = false
                        } else if !skipping {
                            partial.append(byte)
                            if partial.count > DriverLimits.maxLine {
                                partial = Array(partial.prefix(4096))
                                skipping = true
                            }
                        }
                    }
                }
                lock.unlock()
            }
        }

        func appendErrors(_ data: Data) {
            lock.lock()
            err.append(data)
            if err.count > 2 * Self.errorsKept { err = err.suffix(Self.errorsKept) }
            lock.unlock()
        }
        var stdout: ([Line], Double?) { lock.lock(); defer { lock.unlock() }; return (lines, ended) }
        var errors: Data { lock.lock(); defer { lock.unlock() }; return err }
    }
}
