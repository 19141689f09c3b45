import Conformance
import Foundation
import OpconformCLI
import OperationSpec
import Testing

/// `opconform driver-check` passes a good driver and names exactly the checks a broken one
/// fails. The broken drivers are the Foundation driver behind a small Python wrapper that breaks
/// the protocol one way each, so every other check still sees a faithful driver.
/// Serialized: each test starts a dozen drivers, and the streaming check times their lines.
@Suite("driver-check", .serialized)
struct DriverCheckTests {
    /// The opconform executable of this build: beside the test binary, else the default build's.
    static let executable: String? = {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("opconform").path
        return [beside, FoundationIsolationTests.driver].first { FileManager.default.isExecutableFile(atPath: $0) }
    }()
    static var available: Bool { executable != nil }

    /// Runs the good driver given as its arguments and breaks one thing, named by its first
    /// argument. Flushes every line it passes on, except in `buffers`.
    static let wrapper = #"""
        #!/usr/bin/env python3
        import json, subprocess, sys, time

        mode, command = sys.argv[1], sys.argv[2:]
        request = sys.stdin.readline()
        try:
            asked = json.loads(request)
        except ValueError:
            asked = None
        def bad_kind():
            """Which refusal check's request this is, or None for a valid one."""
            if request.strip() == "":
                return "refuse-empty-line"
            if asked is None:
                return "refuse-not-json"
            if "scenario" not in asked:
                return "refuse-no-scenario"
            if asked.get("protocol") in (1, 99):
                return "refuse-protocol-%d" % asked["protocol"]
            if str(asked.get("impl", "")).startswith("not-"):
                return "refuse-other-impl"
            scenario = asked["scenario"]
            if any(d["on"] >= len(scenario["operations"]) for d in scenario["dependencies"]):
                return "refuse-missing-operation"
            if "frobnicate" in request:
                return "refuse-unknown-step"
            return None
        # "accepts-CHECK": runs (as far as it says) the one kind of bad request that CHECK sends.
        if mode.startswith("accepts-") and bad_kind() == mode[len("accepts-"):]:
            for line in ['{"hello":{"capabilities":[],"impl":"foundation","protocol":2}}',
                         '{"event":{"_0":{"kind":{"threadStarted":{"name":"main"}},"seq":0,"thread":0}}}',
                         '{"event":{"_0":{"kind":{"end":{}},"seq":1,"thread":0}}}', '{"done":{}}']:
                sys.stdout.write(line + "\n")
            sys.exit(0)
        if mode == "refuses-everything":
            sys.stdout.write('{"error":{"_0":"refused by the wrapper"}}\n')
            sys.exit(2)
        # A driver of protocol 2: it refuses a session, except in "one-case-session", which
        # relays the first request of one and exits after its done, though that said next.
        if isinstance(asked, dict) and asked.get("protocol") == 3 and mode != "one-case-session":
            sys.stdout.write('{"error":{"_0":"protocol 3 requested; this driver speaks 2"}}\n')
            sys.exit(2)
        child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        child.stdin.write(request.encode())
        child.stdin.close()
        held = []

        def say(line):
            if mode == "buffers":
                held.append(line)
            else:
                sys.stdout.write(line + "\n")
                sys.stdout.flush()

        def line_of(message):
            return json.dumps(message, sort_keys=True, separators=(",", ":"))

        refused = False
        for n, raw in enumerate(child.stdout):
            line = raw.decode().rstrip("\n")
            message = json.loads(line)
            if mode == "protocol-1" and "hello" in message:
                message["hello"]["protocol"] = 1
                line = line_of(message)
            if mode == "unknown-capability" and "hello" in message:
                message["hello"]["capabilities"].append("frobs")
                line = line_of(message)
            if mode == "skips-seq" and "event" in message and message["event"]["_0"]["seq"] >= 2:
                message["event"]["_0"]["seq"] += 1
                line = line_of(message)
            if mode == "never-refuses" and "error" in message:
                refused = True
                say('{"hello":{"capabilities":[],"impl":"foundation","protocol":2}}')
                say(line_of({"event": {"_0": {"kind": {"threadStarted": {"name": "main"}}, "seq": 0, "thread": 0}}}))
                say(line_of({"event": {"_0": {"kind": {"end": {}}, "seq": 1, "thread": 0}}}))
                say('{"done":{}}')
                continue
            say(line)
            if mode == "debug-line" and n == 0:
                say('{"debug":"JSON, but not a protocol message"}')
        status = child.wait()
        for line in held:
            sys.stdout.write(line + "\n")
        sys.stdout.flush()
        if mode == "lingers" and isinstance(asked, dict) and asked.get("scenario", {}).get("name") == "driver-check streaming":
            time.sleep(600)
        sys.exit(0 if refused else status)
        """#

    /// The wrapper as an executable file in a fresh folder.
    static func wrapperPath() -> String {
        let dir = NSTemporaryDirectory() + "opconform-driver-check-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/broken-driver.py"
        precondition(FileManager.default.createFile(atPath: path, contents: Data(wrapper.utf8), attributes: [.posixPermissions: 0o755]))
        return path
    }

    static let refusals = DriverCheck.checks.filter { $0.hasPrefix("refuse-") }

    @Test("the Foundation driver passes every check, one line each, then the summary", .enabled(if: available, "build opconform first"))
    func foundation() throws {
        let r = opconform("driver-check", "--driver-arg", "driver", try #require(Self.executable))
        #expect(r.out == DriverCheck.checks.map { "ok   \($0)\n" }.joined() + "\(DriverCheck.checks.count) passed, 0 failed\n", "\(r.out)")
        #expect(r.status == 0 && r.err.isEmpty)
        #expect(Self.refusals.count == 8)
    }

    struct Broken: Sendable, CustomTestStringConvertible {
        let mode: String
        /// The checks it must fail, and no others.
        let fails: [String]
        /// A phrase of the first failure's sentence.
        let says: String
        var timeLimit: TimeInterval = 10
        var testDescription: String { mode }
    }

    static let broken = [
        Broken(mode: "protocol-1", fails: ["probe"], says: "the driver's hello says protocol 1; driver-check asked for protocol 2"),
        Broken(mode: "unknown-capability", fails: ["probe"], says: #"declares the capability "frobs", which the protocol does not know"#),
        Broken(mode: "never-refuses", fails: refusals, says: "given an empty request line, the driver wrote hello, 2 events, done and exited with status 0"),
        // Refuses every request with a sentence and status 2: each refusal check passed for it
        // before the control; now the probe and the smoke case fail, and every refusal says why.
        // (A driver of protocol 2 may refuse a session: that check passes.)
        Broken(mode: "refuses-everything", fails: ["probe"] + refusals + ["smoke", "streaming"], says: "refused by the wrapper"),
        Broken(mode: "skips-seq", fails: ["smoke"], says: "in the smoke trace, event 2 has seq 3; seq counts from 0 without gaps"),
        Broken(mode: "buffers", fails: ["streaming"], says: "the protocol requires it to write and flush every line as soon as it has it"),
        Broken(mode: "debug-line", fails: ["json-lines"], says: "in the probe run, line 2 of standard output is not a protocol message"),
        Broken(mode: "one-case-session", fails: ["session"], says: "got 1 answers; after `done` with `next: true` a driver reads its next request"),
        // Hangs after answering the streaming case only, so that one run, not every one, waits
        // out the limit, and no other check judges that run's exit.
        Broken(mode: "lingers", fails: ["exits"], says: "in the streaming run the driver was still running 4 s", timeLimit: 4),
    ] + refusals.map { check in
        // Accepts the one kind of bad request its check sends, and refuses every other.
        Broken(mode: "accepts-" + check, fails: [check], says: "the driver wrote hello, 2 events, done and exited with status 0")
    }

    @Test("every check has a broken driver that fails that check alone, and a fix with a section of the protocol")
    func everyCheckHasItsMutant() throws {
        for check in DriverCheck.checks {
            #expect(Self.broken.contains { $0.fails == [check] }, "no broken driver fails \(check) alone")
        }
        let spec = try String(contentsOf: SpecsDriftTests.root.appendingPathComponent("Specs/driver-protocol.md"), encoding: .utf8)
        let headings = Set(spec.components(separatedBy: "\n").filter { $0.hasPrefix("#") }
            .map { $0.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces) })
        for check in DriverCheck.checks {
            let guidance = try #require(DriverCheckGuidance.forCheck(check), "\(check) has no fix")
            #expect(headings.contains(guidance.section), "\(check)'s fix names \"\(guidance.section)\", not a heading of Specs/driver-protocol.md")
        }
    }

    @Test("a driver broken one way fails exactly the checks about it", .enabled(if: available, "build opconform first"), arguments: broken)
    func brokenDriver(_ broken: Broken) throws {
        let check = DriverCheck(command: [Self.wrapperPath(), broken.mode, try #require(Self.executable), "driver"], timeLimit: broken.timeLimit)
        let results = check.run()
        #expect(results.map(\.check) == DriverCheck.checks)
        let failed = results.filter { !$0.passed }
        #expect(failed.map(\.check) == broken.fails, "\(failed.map(\.line))")
        #expect(failed.first?.failure?.contains(broken.says) == true, "\(failed.first?.line ?? "nothing failed")")
        for result in failed {
            #expect(result.line.contains("\n     fix: ") && result.line.contains("(Specs/driver-protocol.md, \""), "\(result.line)")
        }
        if broken.mode == "refuses-everything" {
            let refusal = try #require(failed.first { $0.check == "refuse-empty-line" }?.failure)
            #expect(refusal.contains("it refused a valid request too (the probe") && refusal.contains("so the refusal shows nothing"), "\(refusal)")
        }
    }

    /// `cat` echoes the request: no message at all, but it exits. Needs no build of opconform.
    @Test("a driver that only echoes its request fails every check but exits, in text and in JSON")
    func echo() throws {
        let text = opconform("driver-check", "exec:cat")
        #expect(text.status == 1)
        let all = text.out.split(separator: "\n").map(String.init)
        let lines = all.filter { !$0.hasPrefix("     fix: ") }
        #expect(lines.count == DriverCheck.checks.count + 1)
        // Under each failing check, what to change and where the protocol says so.
        #expect(all.count == lines.count + DriverCheck.checks.count - 1)
        #expect(all.contains("     fix: write nothing on standard output but protocol messages, one JSON object a line (diagnostics go to standard error) (Specs/driver-protocol.md, \"Encoding\")"))
        #expect(lines.filter { $0.hasPrefix("ok   ") } == ["ok   exits"])
        #expect(lines.last == "1 passed, \(DriverCheck.checks.count - 1) failed")
        #expect(lines.contains("FAIL refuse-not-json: given a request line that is not JSON, the driver wrote no protocol message and exited with status 0; the protocol requires exactly one error line (no hello) and exit status 2 (Specs/driver-protocol.md, \"The messages\")"))

        let json = opconform("driver-check", "--json", "cat")
        #expect(json.status == 1)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        #expect(report["passed"] as? Int == 1 && report["failed"] as? Int == DriverCheck.checks.count - 1)
        let checks = try #require(report["checks"] as? [[String: Any]])
        #expect(checks.compactMap { $0["check"] as? String } == DriverCheck.checks)
        #expect(checks.last?["status"] as? String == "ok" && checks.first?["status"] as? String == "fail")
        #expect((checks.first?["failure"] as? String)?.contains("the probe") == true)
        #expect(checks.first?["section"] as? String == "The probe" && (checks.first?["fix"] as? String)?.isEmpty == false)
        #expect(checks.last?["fix"] == nil)
    }

    @Test("a trace's form: seq without gaps, threads in order and announced, calls ended, names that exist")
    func traceForm() {
        func trace(_ kinds: [(thread: Int, kind: EventKind)]) -> [TraceEvent] {
            kinds.enumerated().map { TraceEvent(seq: $0.offset, thread: $0.element.thread, $0.element.kind) }
        }
        let main = EventKind.threadStarted(name: "main", queue: nil), worker = EventKind.threadStarted(name: "worker", queue: 0)
        let add = Call.addOperation(0, queue: 0)
        let good = trace([(0, main), (0, .call(add)), (1, worker), (0, .returned(add)), (1, .mainBegan(op: 0, threadPriority: -1)), (0, .end)])
        let s = DriverCheck.smokeScenario
        #expect(DriverCheck.traceFailure(good, in: s) == nil)

        var gap = good
        gap[3].seq = 4
        #expect(DriverCheck.traceFailure(gap, in: s) == "event 3 has seq 4; seq counts from 0 without gaps")
        let skipped = trace([(0, main), (2, worker), (0, .end)])
        #expect(DriverCheck.traceFailure(skipped, in: s)?.hasPrefix("event #1 is on thread 2 before any event on thread 1") == true)
        let unannounced = trace([(0, main), (1, .work(op: 0, units: 1)), (0, .end)])
        #expect(DriverCheck.traceFailure(unannounced, in: s)?.hasPrefix("the first event on thread 1 is #1 t1") == true)
        let elsewhere = trace([(0, main), (0, .call(add)), (1, worker), (1, .returned(add)), (0, .end)])
        #expect(DriverCheck.traceFailure(elsewhere, in: s)?.hasSuffix("ends a call that was not made on thread 1; every returned or threw ends a call made on the same thread") == true)
        let unended = trace([(0, main), (0, .call(add)), (0, .end)])
        #expect(DriverCheck.traceFailure(unended, in: s)?.hasSuffix("has no returned or threw after it; every call ends in one, on the same thread") == true)
        let nowhere = trace([(0, main), (0, .mainBegan(op: 7, threadPriority: -1)), (0, .end)])
        #expect(DriverCheck.traceFailure(nowhere, in: s)?.hasSuffix("names operation 7, but the scenario has 2; events name the scenario's operations") == true)
        let noQueue = trace([(0, main), (0, .operationCount(queue: 3, 0)), (0, .end)])
        #expect(DriverCheck.traceFailure(noQueue, in: s)?.hasSuffix("names queue 3, but the scenario has 1; events name the scenario's queues") == true)
    }

    @Test("bad usage is one sentence on standard error and exit status 2")
    func usage() {
        #expect(opconform("driver-check").status == 2)
        let two = opconform("driver-check", "cat", "cat")
        #expect(two.status == 2 && two.err.contains("--driver-arg") && two.out.isEmpty)
        #expect(opconform("driver-check", "./no-such-driver-here").status == 2)
        #expect(opconform("driver-check", "--timeout", "3", "cat").status == 2)
        #expect(opconform("help", "driver-check").out.contains("refuse-unknown-step"))
        #expect(opconform("driver-check", "--help").out.hasPrefix("opconform driver-check [--driver-arg ARG]... [--json] PATH"))
    }
}
