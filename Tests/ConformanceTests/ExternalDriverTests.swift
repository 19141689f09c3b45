import Conformance
import Foundation
import OpconformCLI
import OperationSpec
import Testing

/// Drivers the user names by path (`--impl exec:PATH`): how they are found, probed, limited,
/// recorded in findings and named again in replay lines.
@Suite("Drivers named by path")
struct ExternalDriverTests {
    /// An executable shell script in a fresh folder; returns its path.
    static func script(_ body: String, name: String = "driver") -> String {
        let dir = NSTemporaryDirectory() + "opconform-exec-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/" + name
        precondition(FileManager.default.createFile(atPath: path, contents: Data("#!/bin/sh\n\(body)\n".utf8),
                                                    attributes: [.posixPermissions: 0o755]))
        return path
    }

    static let executable = FoundationIsolationTests.driver

    @Test("exec: finds a driver by path or on PATH, and says what is wrong in one sentence")
    func resolving() throws {
        let path = Self.script("exit 0")
        let dir = (path as NSString).deletingLastPathComponent
        #expect(try DriverLaunch.resolve("exec:driver", directory: "/", searchPath: "/nonexistent:" + dir).executable == path)
        #expect(try DriverLaunch.resolve("exec:./driver", arguments: ["-v"], directory: dir).command == [path, "-v"])
        #expect(throws: InputError("exec:./nothing: no driver at \(dir)/nothing")) { try DriverLaunch.resolve("exec:./nothing", directory: dir) }
        #expect(throws: InputError("exec:nothing: no executable named nothing on PATH; give a path (./nothing) instead")) {
            try DriverLaunch.resolve("exec:nothing", searchPath: dir)
        }
        let plain = dir + "/plain.py"
        _ = FileManager.default.createFile(atPath: plain, contents: Data("print()".utf8), attributes: [.posixPermissions: 0o644])
        #expect(throws: InputError("exec:\(plain): \(plain) is not executable; give it a #! line and chmod +x, or name its interpreter: --impl exec:python3 --driver-arg \(plain)")) {
            try DriverLaunch.resolve("exec:" + plain)
        }
    }

    @Test("the probe takes the name and capabilities from hello, and refuses a driver that does not say it")
    func probing() throws {
        let good = Self.script(#"""
            cat > /dev/null
            printf '%s\n' '{"hello":{"capabilities":["threadIdentity","finishing"],"impl":"tiny","protocol":2}}'
            printf '%s\n' '{"event":{"_0":{"kind":{"end":{}},"seq":0,"thread":0}}}' '{"done":{}}'
            """#)
        let impl = try Implementations.external(command: [good])
        #expect(impl.name == "tiny" && impl.capabilities == [.threadIdentity, .finishing])
        #expect(impl.replayArguments == ["--impl", "exec:" + good])
        #expect(impl.launch == DriverLaunch(executable: good))

        let old = Self.script(#"cat > /dev/null; printf '%s\n' '{"hello":{"capabilities":[],"impl":"old","protocol":1}}'"#)
        #expect(throws: InputError.self) { try Implementations.external(command: [old]) }
        do { _ = try Implementations.external(command: [old]) } catch {
            #expect(error.message.contains("says hello in protocol 1 to a probe of protocol 3; this harness speaks 2 and 3"), "\(error)")
            #expect(error.message.contains("driver-check"), "it points at the tool that says more")
        }
        let mute = Self.script("cat > /dev/null; echo 'no such module' >&2; exit 3")
        do { _ = try Implementations.external(command: [mute]); Issue.record("a mute driver was accepted") } catch {
            #expect(error.message.contains("wrote nothing in answer to the probe: it exited with status 3; its last words on standard error: no such module"), "\(error)")
        }
        let refusing = Self.script(#"cat > /dev/null; printf '%s\n' '{"error":{"_0":"impl is missing"}}'; exit 2"#)
        do { _ = try Implementations.external(command: [refusing]); Issue.record("a refusing driver was accepted") } catch {
            #expect(error.message.contains("refused the probe (an empty scenario, no impl): impl is missing"), "\(error)")
        }
    }

    /// A queue that polls a getter for ever keeps its driver writing: the silence deadline never
    /// fires, so the case deadline must, and the hang must say what the driver kept doing.
    @Test("a driver that keeps writing for ever is cut at the case deadline, and the hang names what it did")
    func caseDeadline() throws {
        let path = Self.script(#"""
            cat > /dev/null
            printf '%s\n' '{"hello":{"capabilities":[],"impl":"poller","protocol":2}}'
            printf '%s\n' '{"event":{"_0":{"kind":{"threadStarted":{"name":"main"}},"seq":0,"thread":0}}}'
            i=1
            while :; do
              printf '{"event":{"_0":{"kind":{"read":{"_1":"isFinished","_2":{"bool":{"_0":false}},"op":0}},"seq":%d,"thread":0}}}\n' $i
              i=$((i+1))
              sleep 0.002
            done
            """#)
        let impl = try Implementations.external(command: [path], timeout: 5, caseDeadline: 1)
        let scenario = Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .main([]))],
                                driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.waitUntilAllFinished(queue: 0))])
        let trace = impl.run(scenario, scheduleSeed: 1)
        #expect(trace.events.count > 10)
        guard case .hang(let what)? = trace.events.last?.kind else { Issue.record("\(trace.events.suffix(3))"); return }
        #expect(what.hasPrefix("the case ran past its deadline of 1 s while the driver was still writing (--case-deadline)"), "\(what)")
        #expect(what.contains("were: op 0 isFinished read NO"), "\(what)")
        #expect(impl.replayArguments == ["--impl", "exec:" + path, "--case-deadline", "1"])
    }

    /// A poller whose reads repeat is recognised from the trace: nothing progressed for the
    /// silence timeout, so the case is a hang then, not at the case deadline a minute later
    /// (issue 31: a hanging shrink candidate of such a driver waited out the whole deadline).
    /// Reads that change keep it going, to the deadline.
    @Test("a driver that writes only repeated reads hangs after the silence timeout; changing reads run to the deadline")
    func livelockFromTheTrace() throws {
        /// `value`: shell code that sets `v` to the read's value in the i-th line.
        func poller(_ value: String) -> String {
            Self.script(#"""
            cat > /dev/null
            printf '%s\n' '{"hello":{"capabilities":[],"impl":"poller","protocol":2}}'
            printf '%s\n' '{"event":{"_0":{"kind":{"threadStarted":{"name":"main"}},"seq":0,"thread":0}}}'
            i=1
            while :; do
              \#(value)
              printf '{"event":{"_0":{"kind":{"read":{"_1":"isReady","_2":{"bool":{"_0":%s}},"op":0}},"seq":%d,"thread":0}}}\n' $v $i
              i=$((i+1))
              sleep 0.002
            done
            """#)
        }
        let scenario = Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .main([]))],
                                driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.waitUntilAllFinished(queue: 0))])
        let started = ContinuousClock.now
        let repeated = try Implementations.external(command: [poller("v=false")], timeout: 1, caseDeadline: 30)
        let trace = repeated.run(scenario, scheduleSeed: 1)
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        guard case .hang(let what)? = trace.events.last?.kind else { Issue.record("\(trace.events.suffix(3))"); return }
        #expect(what.hasPrefix("nothing progressed for 1.0 s: the driver wrote only reads that repeated earlier ones (op 0 isReady)"), "\(what)")
        #expect(seconds < 20, "the poller was cut after \(seconds) s, not at the silence timeout")
        // Reads whose value alternates are not a poll of a state that no longer changes: the
        // case deadline ends it.
        let changing = try Implementations.external(command: [poller("if [ $((i % 2)) -eq 0 ]; then v=true; else v=false; fi")],
                                                    timeout: 1, caseDeadline: 3)
        guard case .hang(let why)? = changing.run(scenario, scheduleSeed: 1).events.last?.kind else { Issue.record("no hang"); return }
        #expect(why.hasPrefix("the case ran past its deadline of 3 s while the driver was still writing"), "\(why)")
    }

    /// A driver that writes for ever is cut at the case deadline, and that cut is its own
    /// witness: the hang fails the run at once, without a patient run that would hold the case
    /// four times longer (issue 43: a driver writing every half second held a case for 300 s).
    @Test("a case cut at its deadline while the driver still wrote is a confirmed hang, run once")
    func runawayIsNotRunAgain() throws {
        let starts = NSTemporaryDirectory() + "opconform-runaway-\(UUID().uuidString).log"
        let path = Self.script(#"""
            read -r request
            case "$request" in
            *'"impl"'*) ;;
            *) printf '%s\n' '{"hello":{"capabilities":[],"impl":"writer","protocol":2}}' \
                 '{"event":{"_0":{"kind":{"end":{}},"seq":0,"thread":0}}}' '{"done":{}}'; exit 0 ;;
            esac
            echo start >> "\#(starts)"
            printf '%s\n' '{"hello":{"capabilities":[],"impl":"writer","protocol":2}}'
            printf '%s\n' '{"event":{"_0":{"kind":{"threadStarted":{"name":"main"}},"seq":0,"thread":0}}}'
            i=1
            while :; do
              if [ $((i % 2)) -eq 0 ]; then v=true; else v=false; fi
              printf '{"event":{"_0":{"kind":{"read":{"_1":"isReady","_2":{"bool":{"_0":%s}},"op":0}},"seq":%d,"thread":0}}}\n' $v $i
              i=$((i+1))
              sleep 0.1
            done
            """#)
        let dir = NSTemporaryDirectory() + "opconform-runaway-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir); try? FileManager.default.removeItem(atPath: starts) }
        let r = opconform("run", "--impl", "exec:" + path, "--case-deadline", "1", "--count", "2", "--seed", "1", "--no-shrink", "--out", dir)
        #expect(r.status == 1, "\(r.out)\(r.err)")
        #expect(r.out.contains("FAIL RUN-HANG") && r.out.contains(" 0 unconfirmed"), "\(r.out)")
        let started = (try? String(contentsOfFile: starts, encoding: .utf8))?.split(separator: "\n").count
        #expect(started == 2, "each case ran once, no patient run: \(started ?? 0) starts")
    }

    /// The whole route from the command line, on the Foundation driver started by path: the
    /// finding names the driver, the printed lines name it again, and both replay it.
    @Test("run --impl exec:PATH records the driver in its findings and prints lines that replay them")
    func runAndReplay() throws {
        let dir = NSTemporaryDirectory() + "opconform-exec-run-\(UUID().uuidString)"
        // Case 0 of seed 3 breaks BLOCK-CONCURRENT on Foundation (its blocks run one after another).
        let r = opconform("run", "--impl", "exec:" + Self.executable, "--driver-arg", "driver", "--count", "1", "--seed", "3",
                          "--rules", "BLOCK-CONCURRENT", "--no-shrink", "--out", dir)
        #expect(r.status == 1, "\(r.out)\(r.err)")
        #expect(r.out.hasPrefix("foundation: 1 cases from seed 3"), "the name comes from the driver's hello")
        let line = try #require(r.out.split(separator: "\n").first { $0.contains("replay: opconform replay \(dir)/BLOCK-CONCURRENT-") })
        let file = String(line.split(separator: " ").last!)
        let finding = try JSONCodec.decode(Finding.self, from: try Data(contentsOf: URL(fileURLWithPath: file)), source: file)
        #expect(finding.format == Finding.formatVersion && finding.driver == DriverLaunch(executable: Self.executable, arguments: ["driver"]))
        let seedLine = try #require(r.out.split(separator: "\n").first { $0.contains("or: opconform replay --seed") })
        #expect(seedLine.contains("--impl exec:\(Self.executable) --driver-arg driver --size 8"), "\(seedLine)")
        let again = opconform("replay", file, "--rules", "BLOCK-CONCURRENT")
        #expect(again.out.contains("BLOCK-CONCURRENT broke again"), "\(again.out)\(again.err)")
    }

    @Test("a run that finds nothing leaves no case log behind unless asked; one that finds something keeps it")
    func caseLogLeftOnlyWhenUseful() throws {
        let dir = NSTemporaryDirectory() + "opconform-clean-\(UUID().uuidString)/findings"
        #expect(opconform("run", "--count", "20", "--out", dir).status == 0)
        #expect(!FileManager.default.fileExists(atPath: (dir as NSString).deletingLastPathComponent), "the folders the run made are gone")
        let log = NSTemporaryDirectory() + "opconform-asked-\(UUID().uuidString).jsonl"
        #expect(opconform("run", "--count", "20", "--out", dir, "--log", log).status == 0)
        #expect(try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").count == 21)
        #expect(opconform("run", "--count", "40", "--fault", "priority-not-normalised", "--no-shrink", "--out", dir).status == 1)
        #expect(FileManager.default.fileExists(atPath: dir + "/cases.jsonl"))
    }

    @Test("an expectations file may name its driver, so the gate needs nothing else")
    func gateStartsTheNamedDriver() throws {
        let shipped = SpecsDriftTests.root.appendingPathComponent("Fixtures/expectations/foundation-linux.json").path
        var object = try #require(try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: shipped))) as? [String: Any])
        object["format"] = Expectations.newestFormat
        object["driver"] = ["path": Self.executable, "arguments": ["driver"]]
        // Beside a copy of its findings: an expectation's evidence lies in its file's folder.
        let folder = NSTemporaryDirectory() + "opconform-gate-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.copyItem(atPath: SpecsDriftTests.root.appendingPathComponent("Fixtures/expectations/foundation-linux").path,
                                         toPath: folder + "/foundation-linux")
        let file = folder + "/foundation-linux.json"
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: file))
        let r = opconform("gate", "--expectations", file, "--count", "3", "--no-shrink", "--out", NSTemporaryDirectory() + "gate-\(UUID().uuidString)")
        #expect(r.out.hasPrefix("foundation: 3 cases"), "\(r.out)\(r.err)")
        #expect(r.status == 0 && r.out.contains("gate passed"), "\(r.out)\(r.err)")

        object["format"] = 1
        let old = folder + "/format-1.json"
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: old))
        #expect(opconform("gate", "--expectations", old).err.hasPrefix("opconform: \(old): a driver entry needs format 2"))
    }

    @Test("replay lines quote what a shell would split")
    func quoting() {
        #expect(ShellWords.join(["--impl", "exec:/a b/d", "--driver-arg", "it's"]) == #"--impl 'exec:/a b/d' --driver-arg 'it'\''s'"#)
        #expect(ReplayProgram.invoked(as: "opconform") == "opconform")
        #expect(ReplayProgram.invoked(as: "./.build/debug/opconform", directory: "/x", searchPath: "") == "/x/.build/debug/opconform")
    }
}
