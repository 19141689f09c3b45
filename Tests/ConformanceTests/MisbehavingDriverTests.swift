@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
import ConformanceTesting
import Foundation
import OpconformCLI
import OperationSpec
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The harness against drivers that misbehave in the ways a real driver does (issue 15): one that
/// forks a helper and leaves it behind (D3), one the machine stops with SIGSTOP (D5), one that
/// writes for ever or a line without end, one that says things out of order, one that dies
/// before or in the middle of a line, and whole runs of drivers that lie or prove nothing (D8).
/// `DriverProtocolTests` covers the simpler lies (garbage, refusals, numbering, threads,
/// silence); these are the ones that need a process to misbehave as a process.
///
/// Every driver is a small /bin/sh script. Nothing here measures time: where a process must die,
/// the test waits for it at most 10 s (a bound on liveness, not a measure) and asserts that it did.
@Suite("Drivers that misbehave")
struct MisbehavingDriverTests {
    static let name = "misbehaving"
    static let hello = #"{"hello":{"capabilities":["threadIdentity"],"impl":"misbehaving","protocol":2}}"#
    static let done = #"{"done":{}}"#
    static func event(_ seq: Int, _ kind: String, thread: Int = 0) -> String {
        #"{"event":{"_0":{"kind":\#(kind),"seq":\#(seq),"thread":\#(thread)}}}"#
    }
    static let started = event(0, #"{"threadStarted":{"name":"main"}}"#)
    static func end(_ seq: Int) -> String { event(seq, #"{"end":{}}"#) }
    /// A shell line that writes `lines`, one a line (none holds a single quote).
    static func say(_ lines: String...) -> String { "printf '%s\\n' " + lines.map { "'\($0)'" }.joined(separator: " ") }

    static let scenario = Scenario(operations: [OperationConfig(kind: .main([]))], driver: [DriverStep(.start(0))])
    static let threadStarted = EventKind.threadStarted(name: "main", queue: nil)

    /// A driver: `body` as an executable /bin/sh script, under these limits.
    static func driver(_ body: String, timeout: TimeInterval = 5, maxEvents: Int = DriverLimits.standard.maxEvents) -> ChildProcessImplementation {
        ChildProcessImplementation(name: name, capabilities: [.threadIdentity], command: [ExternalDriverTests.script(body)],
                                   limits: DriverLimits(timeout: timeout, caseDeadline: 60, unitMicroseconds: 1000, maxEvents: maxEvents))
    }

    /// A fresh folder for a test's files (the pids its driver writes, markers); the test removes it.
    static func folder() -> String {
        let dir = NSTemporaryDirectory() + "opconform-misbehave-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// The number a driver wrote into `file`.
    static func number(in file: String) -> pid_t? {
        (try? String(contentsOfFile: file, encoding: .utf8)).flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    static let hasProc = FileManager.default.fileExists(atPath: "/proc/self/stat")

    /// The fields of `/proc/PID/stat` after the command name (state, ppid, pgrp, ...); nil when
    /// there is no such process.
    static func stat(_ pid: pid_t) -> [Substring]? {
        let fd = open("/proc/\(pid)/stat", O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        let text = String(decoding: buffer[0..<n], as: UTF8.self)
        // "PID (COMM) STATE ...": COMM may hold spaces and parentheses; the state follows the last ')'.
        guard let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }

    /// Whether process `pid` has ended: there is no such process, or it is a zombie (its new
    /// parent, the init process of a container, may never reap it).
    static func ended(_ pid: pid_t) -> Bool {
        if kill(pid, 0) == -1 && errno == ESRCH { return true }
        guard let fields = stat(pid) else { return true }
        return fields.first == "Z" || fields.first == "X"
    }

    /// The processes of process group `group` that have not ended.
    static func living(inGroup group: pid_t) -> [pid_t] {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { pid_t($0) } ?? []
        return all.filter { pid in
            guard let f = stat(pid), f.count > 2 else { return false }
            return f[0] != "Z" && f[0] != "X" && pid_t(f[2]) == group
        }
    }

    /// Waits until `condition` holds, at most 10 s, and says whether it did.
    static func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<1000 {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    // MARK: D3: a driver's helpers

    /// A shell's background job keeps the driver's standard output and error open. Before the
    /// harness killed the driver's whole process group, a driver that ended (or whose trace
    /// ended) left such a helper running, and the harness waited 5 s for the pipes it held.
    @Test("D3: a helper the driver forked dies with its case, however the case ends",
          .enabled(if: hasProc, "needs /proc"), arguments: ["exits", "ends", "goes silent"])
    func forkedHelper(how: String) throws {
        let dir = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let tail = switch how {
        case "exits": "exit 3"
        case "ends": Self.say(Self.end(1), Self.done)
        default: "wait"   // for the helper: silent for ever
        }
        let impl = Self.driver("""
            cat > /dev/null
            echo $$ > \(dir)/driver
            sleep 1000 &
            echo $! > \(dir)/helper
            \(Self.say(Self.hello, Self.started))
            \(tail)
            """, timeout: 1)
        let t = impl.run(Self.scenario, scheduleSeed: 1)
        let helper = try #require(Self.number(in: dir + "/helper"))
        defer { if !Self.ended(helper) { kill(helper, SIGKILL) } }
        let group = try #require(Self.number(in: dir + "/driver"))
        #expect(t.events.first?.kind == Self.threadStarted && t.events.count == 2, "\(t.events)")
        switch (how, t.events.last?.kind) {
        case ("exits", .crash(0, let m)?): #expect(m.hasPrefix("the driver exited with status 3 before the end of the trace"), "\(m)")
        case ("ends", .end?): break
        case ("goes silent", .hang(let m)?): #expect(m.hasPrefix("no progress within 1 s"), "\(m)")
        default: Issue.record("\(how): \(t.events)")
        }
        #expect(Self.eventually { Self.ended(helper) }, "the helper \(helper) outlived its driver")
        #expect(Self.eventually { Self.living(inGroup: group).isEmpty }, "left in the driver's group: \(Self.living(inGroup: group))")
    }

    // MARK: D5: a driver the machine stops

    /// The driver stops itself with SIGSTOP, and a helper resumes it 3 s after it is stopped:
    /// three times the 1 s silence timeout of wall time, no active time. A backstop on the wall
    /// clock kills it as a hang.
    @Test("D5: a driver stopped by SIGSTOP for three times the timeout finishes its case", .enabled(if: hasProc, "needs /proc"))
    func stoppedDriver() throws {
        let dir = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let impl = Self.driver("""
            cat > /dev/null
            \(Self.say(Self.hello, Self.started))
            driver=$$
            (
              until [ "$(cut -d' ' -f3 /proc/$driver/stat)" = T ]; do sleep 0.01; done
              sleep 3
              echo resumed > \(dir)/resumed
              kill -CONT $driver
            ) &
            kill -STOP $$
            \(Self.say(Self.end(1), Self.done))
            """, timeout: 1)
        let t = impl.run(Self.scenario, scheduleSeed: 1)
        #expect(t.events.map(\.kind) == [Self.threadStarted, .end], "\(t.events)")
        #expect(FileManager.default.fileExists(atPath: dir + "/resumed"), "the driver was stopped for 3 s and resumed")
    }

    // MARK: Runaways

    /// A driver that keeps numbering its events correctly, for ever: only --max-events stops it.
    @Test("a driver that writes events for ever is cut at --max-events: a hang that says it ran away, that many events kept, the driver killed",
          .enabled(if: hasProc, "needs /proc"))
    func runaway() throws {
        let dir = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let impl = Self.driver(#"""
            cat > /dev/null
            echo $$ > \#(dir)/driver
            \#(Self.say(Self.hello, Self.started))
            exec awk 'BEGIN { for (n = 1; ; n++) printf "{\"event\":{\"_0\":{\"kind\":{\"work\":{\"op\":0,\"units\":1}},\"seq\":%d,\"thread\":0}}}\n", n }'
            """#, maxEvents: 5000)
        let t = impl.run(Self.scenario, scheduleSeed: 1)
        let driver = try #require(Self.number(in: dir + "/driver"))
        defer { if !Self.ended(driver) { kill(driver, SIGKILL) } }
        // Booleans and counts only: a harness that kept millions of events must not make the
        // failure message print them.
        let kept = t.events.dropLast()
        let count = kept.count
        #expect(count == 5000, "events before the last")
        let numbered = kept.indices.allSatisfy { kept[$0].seq == $0 }
        let working = kept.dropFirst().allSatisfy { $0.kind == .work(op: 0, units: 1) }
        #expect(numbered && working, "numbered 0 to 4999, all work after threadStarted")
        let last = String(describing: t.events.last).prefix(300)
        guard case .hang(let what)? = t.events.last?.kind else { Issue.record("\(last)"); return }
        #expect(what.hasPrefix("the driver ran away: it wrote more than 5000 events (--max-events); "), "\(what)")
        #expect(what.hasSuffix("; of its last 100 events, 100 were: \(EventKind.work(op: 0, units: 1))"), "\(what)")
        #expect(Self.eventually { Self.ended(driver) && Self.living(inGroup: driver).isEmpty }, "the runaway driver was not killed")
    }

    /// Counts the longest line the harness handed over. `@unchecked Sendable` is sound: `value`
    /// is read and written only under `lock`.
    final class Longest: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func note(_ line: Substring) -> Bool { lock.withLock { value = max(value, line.utf8.count) }; return true }
        var longest: Int { lock.withLock { value } }
    }

    /// 2 MB without a newline, then the rest of a correct trace: the harness stops reading at
    /// 1 MB, whether the driver then waits or exits at once.
    @Test("a line over 1 MB is a hang naming the line limit, and the harness never holds it", arguments: ["waits", "exits"])
    func overlongLine(after: String) throws {
        let path = ExternalDriverTests.script("""
            cat > /dev/null
            \(Self.say(Self.hello, Self.started))
            head -c 2097152 /dev/zero | tr '\\0' x
            printf '\\n'
            \(Self.say(Self.end(1), Self.done))
            \(after == "waits" ? "exec sleep 30" : "exit 0")
            """)
        let impl = ChildProcessImplementation(name: Self.name, capabilities: [], command: [path], limits: DriverLimits(timeout: 5, caseDeadline: 60, unitMicroseconds: 1000))
        let t = impl.run(Self.scenario, scheduleSeed: 1)
        // Short strings only in the messages: a harness that kept the line would quote 2 MB.
        let seen = String(t.events.map(\.kind.description).joined(separator: "; ").prefix(300))
        let first = t.events.first?.kind, count = t.events.count
        #expect(count == 2 && first == Self.threadStarted, "\(seen)")
        guard case .hang(let sentence)? = t.events.last?.kind else { Issue.record("\(seen)"); return }
        let what = String(sentence.prefix(300))
        #expect(what.hasPrefix("the driver wrote a line of more than 1 MB; "), "\(what)")
        #expect(!what.contains("xxxx"))

        // What the harness was handed: every line but the long one, which it never held whole.
        let longest = Longest()
        let request = JSONCodec.line(DriverProtocol.Request(impl: Self.name, scenario: Self.scenario, scheduleSeed: 1, unitMicroseconds: 1000))
        let outcome = ChildProcess.run([path], input: request, limits: impl.limits, consume: longest.note)
        #expect(outcome.killed?.hasPrefix("the driver wrote a line of more than 1 MB") == true, "\(String(describing: outcome.killed))")
        #expect(outcome.lines == 2 && longest.longest < 1000, "\(outcome.lines) lines, the longest \(longest.longest) bytes")
        #expect(outcome.unfinishedLine == nil)
    }

    /// Lines of 1 MB less a little (a correct event, then JSON whitespace), for ever: the events
    /// stay few, the bytes do not. Reading stops at exactly 512 MB: the trace holds the events
    /// whose lines ended within it, however late the watch loop kills the driver.
    @Test("a driver that writes more than 512 MB is cut there: a hang that says so, with the events of the first 512 MB",
          .enabled(if: RunnerTests.long, "set OPCONFORM_LONG=1 (writes 512 MB through a pipe)"))
    func flood() {
        let pad = 1_000_000
        let t = Self.driver(#"""
            cat > /dev/null
            \#(Self.say(Self.hello, Self.started))
            exec awk 'BEGIN { pad = " "; while (length(pad) < \#(pad)) pad = pad pad; pad = substr(pad, 1, \#(pad))
              for (n = 1; ; n++) { printf "{\"event\":{\"_0\":{\"kind\":{\"work\":{\"op\":0,\"units\":1}},\"seq\":%d,\"thread\":0}}}", n; print pad } }'
            """#).run(Self.scenario, scheduleSeed: 1)
        // The events whose newline falls within the first 512 MB.
        var bytes = Self.hello.utf8.count + 1 + Self.started.utf8.count + 1, events = 1
        while bytes + Self.event(events, #"{"work":{"op":0,"units":1}}"#).utf8.count + pad + 1 <= DriverLimits.maxBytes {
            bytes += Self.event(events, #"{"work":{"op":0,"units":1}}"#).utf8.count + pad + 1
            events += 1
        }
        let count = t.events.count
        #expect(count == events + 1, "\(count) events, expected \(events) and the hang")
        let last = String(String(describing: t.events.last).prefix(300))
        guard case .hang(let what)? = t.events.last?.kind else { Issue.record("\(last)"); return }
        #expect(what.hasPrefix("the driver ran away: it wrote more than 512 MB; the driver had issued no driver step"), "\(what.prefix(300))")
    }

    // MARK: Out of order

    @Test("messages out of order end the trace with a breach that names the fault, keeping what came before", arguments: [
        ([started, end(1), done], "the driver wrote an event before its hello", 0),
        ([done, hello, started, end(1), done], "the driver wrote done before its hello", 0),
        ([hello, started, hello, end(1), done], "the driver said hello twice in one case", 1),
        ([hello, started, done, end(1), done], "the driver wrote done before the trace's last event (end, hang or crash)", 1),
        ([hello, started, event(1, #"{"breach":{"_0":"my queue is broken"}}"#), done],
         "the driver wrote a breach event, which only the harness writes", 1),
        ([hello, started, event(1, #"{"cut":{"_0":"budget"}}"#), done],
         "the driver wrote a cut event, which only the harness and the reference engine write", 1),
    ])
    func outOfOrder(lines: [String], sentence: String, kept: Int) {
        let body = "cat > /dev/null\n" + lines.map { Self.say($0) }.joined(separator: "\n")
        let t = Self.driver(body).run(Self.scenario, scheduleSeed: 1)
        #expect(t.events.map(\.kind) == Array([Self.threadStarted].prefix(kept)) + [.breach(sentence)], "\(t.events)")
        #expect(t.events.last?.seq == kept && t.events.last?.thread == 0)
        #expect(t.ending == .breach)
    }

    // MARK: Deaths

    /// A request bigger than a pipe holds, to a driver that never reads it: the harness's write
    /// fails (EPIPE, not SIGPIPE in the harness) and the driver's own ending tells.
    static let bigScenario = Scenario(queues: [QueueConfig()], operations: Array(repeating: OperationConfig(kind: .main([.work(1)])), count: 3000),
                                      driver: [DriverStep(.add(op: 0, queue: 0))])

    @Test("a driver that dies before its hello broke the protocol, quoting its last words; one killed by a signal after it crashed")
    func deaths() throws {
        #expect(JSONCodec.line(DriverProtocol.Request(impl: Self.name, scenario: Self.bigScenario, scheduleSeed: 1, unitMicroseconds: 1000)).utf8.count > 100_000,
                "more than a pipe holds (64 KB on Linux)")
        let unread = Self.driver("""
            echo 'loading the queue library' >&2
            echo 'cannot load libqueue.so: no such file' >&2
            exit 2
            """).run(Self.bigScenario, scheduleSeed: 1)
        #expect(unread.events.map(\.kind) == [.breach("the driver exited with status 2 before its hello; its last words on standard error: cannot load libqueue.so: no such file")],
                "\(unread.events)")

        let segvBefore = Self.driver("cat > /dev/null\nulimit -c 0\nkill -SEGV $$").run(Self.scenario, scheduleSeed: 1)
        #expect(segvBefore.events.map(\.kind) == [.breach("the driver was killed by signal 11 before its hello")], "\(segvBefore.events)")

        // The last line that says `Fatal error` is the crash's message, whatever follows it.
        let segvAfter = Self.driver("""
            cat > /dev/null
            \(Self.say(Self.hello, Self.started))
            echo 'Fatal error: first trap' >&2
            echo 'queue.c:42: Fatal error: index out of range' >&2
            echo 'backtrace follows' >&2
            ulimit -c 0
            kill -SEGV $$
            """).run(Self.scenario, scheduleSeed: 1)
        #expect(segvAfter.events.map(\.kind) == [Self.threadStarted, .crash(signal: 11, message: "queue.c:42: Fatal error: index out of range")],
                "\(segvAfter.events)")
    }

    /// Killed between the two halves of a line: what was whole is kept, the half is dropped, and
    /// the death is the implementation's (a crash with SIGKILL), not a garbled line.
    @Test("a driver killed in the middle of a line crashed with signal 9; the half line is dropped")
    func killedMidLine() {
        let t = Self.driver("""
            cat > /dev/null
            \(Self.say(Self.hello, Self.started))
            printf '%s' '{"event":{"_0":{"kind":{"end":{}},"se'
            kill -KILL $$
            """).run(Self.scenario, scheduleSeed: 1)
        #expect(t.events.map(\.kind) == [Self.threadStarted, .crash(signal: 9, message: "killed by signal 9")], "\(t.events)")
    }

    // MARK: D8: whole runs

    /// Answers every request, the probe included, with a hello and a trace whose numbering skips
    /// from 0 to 2.
    static func lyingDriver() -> String {
        ExternalDriverTests.script("cat > /dev/null\n" + say(hello, started, end(2), done))
    }

    /// Answers every request with hello, threadStarted, end: nothing happened, so no rule's
    /// antecedent is reached, whatever the driver can observe.
    static func idleDriver() -> String {
        let all = Observation.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ",")
        return ExternalDriverTests.script("cat > /dev/null\n" + say(#"{"hello":{"capabilities":[\#(all)],"impl":"misbehaving","protocol":2}}"#, started, end(1), done))
    }

    @Test("D8: a run whose driver lies has a DRIVER-PROTOCOL finding and no verdict, and is not shrunk")
    func lyingRun() throws {
        let impl = ChildProcessImplementation(name: Self.name, capabilities: [.threadIdentity], command: [Self.lyingDriver()], limits: .standard)
        var c = RunConfiguration(impl: impl, seed: 1, count: 4)
        c.jobs = 2
        let result = Runner(c).run()
        #expect(result.endings == ["breach": 4], "\(result.endings)")
        #expect(result.findings.map(\.rule) == [Finding.protocolRule], "\(result.findings.map(\.rule))")
        let finding = try #require(result.findings.first)
        #expect(finding.message.hasPrefix("the driver broke the protocol: the driver numbered its event 1 as 2 (seq counts from 0 without gaps)"), "\(finding.message)")
        #expect(finding.caseIndex == 0 && finding.shrinkSteps == 0 && finding.operations == finding.originalOperations)
        #expect(!result.statistics.contains { $0.status == .pass || $0.status == .fail }, "a breached case is not judged")
        let why = try #require(result.noVerdict)
        #expect(why.hasPrefix("the driver broke the protocol in 4 of 4 cases, which were not judged; first in case 0: the driver broke the protocol: the driver numbered its event 1 as 2"), "\(why)")
    }

    @Test("D8: run --impl exec: of a lying driver exits 4 and says NO VERDICT; so does a run that reached no rule")
    func noVerdictAtTheCommandLine() throws {
        let out = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let lying = Self.lyingDriver()
        let json = out + "/run.json"
        let r = opconform("run", "--impl", "exec:" + lying, "--count", "3", "--out", out + "/lying", "--json", json)
        #expect(r.status == 4, "\(r.out)\(r.err)")
        #expect(r.out.contains("DRIVER-PROTOCOL") && r.out.contains("\nNO VERDICT: the driver broke the protocol in 3 of 3 cases"), "\(r.out)")
        #expect(r.out.contains("'opconform driver-check \(lying)' checks the driver"), "\(r.out)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        #expect((report["noVerdict"] as? String)?.hasPrefix("the driver broke the protocol in 3 of 3 cases") == true, "\(report)")
        #expect((report["endings"] as? [String: Int]) == ["breach": 3], "\(String(describing: report["endings"]))")

        let idle = opconform("run", "--impl", "exec:" + Self.idleDriver(), "--count", "20", "--out", out + "/idle")
        #expect(idle.status == 4, "\(idle.out)\(idle.err)")
        #expect(idle.out.contains("endings: complete 20") && idle.out.contains("0 pass, 0 fail, 0 warn, 0 known, 0 unconfirmed, 0 not observable"), "\(idle.out)")
        #expect(idle.out.contains("\nNO VERDICT: no rule was reached in 20 cases: nothing was checked"), "\(idle.out)")
    }

    // MARK: Soak (OPCONFORM_LONG=1)

    /// Thousands of drivers started 16 at a time on however few cores: posix_spawn, the pipes,
    /// the reader threads and the process groups hold up, and no case is lost or misread. Each
    /// driver also leaves a helper behind that holds its pipes (D3): every one must be gone.
    @Test("soak: 3,000 cases of a correct driver that forks a helper, at --jobs 16: all complete, no helper left",
          .enabled(if: RunnerTests.long && hasProc, "set OPCONFORM_LONG=1"))
    func soak() throws {
        let dir = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let all = Observation.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ",")
        let driver = ExternalDriverTests.script("""
            cat > /dev/null
            sleep 1000 &
            echo $! >> \(dir)/helpers
            \(Self.say(#"{"hello":{"capabilities":[\#(all)],"impl":"misbehaving","protocol":2}}"#, Self.started, Self.end(1), Self.done))
            """)
        let impl = ChildProcessImplementation(name: Self.name, capabilities: Observation.allCases, command: [driver], limits: .standard)
        var c = RunConfiguration(impl: impl, seed: 5, count: 3000, shrink: false)
        c.jobs = 16
        var records = 0, odd: [String] = []
        let result = Runner(c).run(record: { r in
            records += 1
            if r.ending != "complete" && odd.count < 5 { odd.append("\(r.index): \(r.ending) \(r.message ?? "")") }
        })
        let helpers = try String(contentsOfFile: dir + "/helpers", encoding: .utf8).split(separator: "\n").compactMap { pid_t($0) }
        defer { for pid in helpers where !Self.ended(pid) { kill(pid, SIGKILL) } }
        #expect(records == 3000 && helpers.count == 3000, "\(records) cases, \(helpers.count) helpers")
        #expect(result.endings == ["complete": 3000], "\(result.endings): \(odd)")
        #expect(result.findings.isEmpty, "\(result.findings.map(\.message))")
        let gone = Self.eventually { helpers.allSatisfy(Self.ended) }
        #expect(gone, "\(helpers.filter { !Self.ended($0) }.count) of 3000 helpers outlived their drivers")
    }

    /// The Foundation driver (`opconform driver`) of this build, if it was built.
    static let foundationDriver: String? = {
        let beside = try? DriverExecutable.locate("opconform")
        return [beside, FoundationIsolationTests.driver].compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// D4: `--jobs` must never change a verdict. `RunnerTests.jobs` shows it on the reference
    /// engine, `FoundationIsolationTests.manyJobs` that 16 jobs report no false crash; this runs
    /// the same Foundation cases one at a time and 16 at a time and compares each case's ending
    /// and the findings of deaths. (Rules Foundation breaks only now and then may differ run to
    /// run whatever the jobs, so only the deterministic outcomes are compared.)
    @Test("D4: Foundation cases end the same way at --jobs 1 and --jobs 16",
          .enabled(if: RunnerTests.long && foundationDriver != nil, "set OPCONFORM_LONG=1 and build opconform"))
    func foundationJobs() throws {
        let driver = try #require(Self.foundationDriver)
        func run(_ jobs: Int) -> (RunResult, [CaseRecord]) {
            let impl = ChildProcessImplementation(name: "foundation", capabilities: FoundationDriver.capabilities, command: [driver, "driver"], timeout: 3)
            var c = RunConfiguration(impl: impl, seed: 1, count: 40, shrink: false)
            c.jobs = jobs
            // Without the split misuse Foundation gets (it traps on misuse): a split case's
            // late misuse starts an operation once it reports isFinished, and Foundation traps or
            // not depending on whether its own finish got from .finishing to .finished first
            // (Operation.swift 330-338), so that ending is Foundation's race, not the harness's.
            c.generator.splitMisuse = false
            var records: [CaseRecord] = []
            return (Runner(c).run(record: { records.append($0) }), records)
        }
        let (one, oneRecords) = run(1), (many, manyRecords) = run(16)
        #expect(one.endings == many.endings, "\(one.endings) vs \(many.endings)")
        #expect(oneRecords.map(\.ending) == manyRecords.map(\.ending))
        let deaths = [Finding.crashRule, Finding.hangRule, Finding.protocolRule]
        func dead(_ r: RunResult) -> [String] { r.findings.filter { deaths.contains($0.rule) }.map { "\($0.rule) \($0.caseIndex)" } }
        #expect(dead(one) == dead(many))
        #expect(one.endings["breach"] == nil && one.noVerdict == nil, "\(one.endings)")
    }
}
