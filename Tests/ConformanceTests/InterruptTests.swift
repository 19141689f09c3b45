@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
import Foundation
import OperationSpec
import Testing

/// Ctrl-C in the middle of a run (issue 15, D11): the run stops, kills its drivers, writes what
/// it had decided (findings not fully shrunk are marked), prints its summary and exits 130.
/// Before, a SIGINT while shrinking lost every finding, the summary and the JSON.
@Suite("Interrupting a run")
struct InterruptTests {
    static let binary = FoundationIsolationTests.driver
    static var available: Bool { FoundationIsolationTests.available }

    /// `opconform ARGS` started in `folder`, its output collected.
    final class Started: @unchecked Sendable {
        // `@unchecked Sendable` is sound: `out` is written by the reader thread and read only
        // after `finished` has been waited for; `child` is immutable.
        let child: SpawnedProcess
        private var out = Data()
        private let finished = DispatchSemaphore(value: 0)
        init(_ arguments: [String], in folder: String) throws {
            var environment = ProcessInfo.processInfo.environment
            environment["SWIFT_BACKTRACE"] = "enable=no"
            child = try SpawnedProcess.start(["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", folder, InterruptTests.binary] + arguments,
                                             environment: environment)
            child.send(Data())
            Thread { [self] in
                SpawnedProcess.drain(child.output) { out.append($0) }
                finished.signal()
            }.start()
            Thread { [child] in SpawnedProcess.drain(child.errors) { _ in } }.start()
        }
        /// Waits for the end: the exit status and the standard output.
        func end() -> (Int32, String) {
            let ending = child.wait()
            finished.wait()
            guard case .exited(let status) = ending else { return (-1, String(decoding: out, as: UTF8.self)) }
            return (status, String(decoding: out, as: UTF8.self))
        }
    }

    /// Waits (a liveness wait, generous: the machine may be busy) until `file` has `lines` lines.
    static func waitForLines(_ file: String, _ lines: Int) -> Bool {
        for _ in 0..<1200 {
            if let text = try? String(contentsOfFile: file, encoding: .utf8), text.split(separator: "\n").count >= lines { return true }
            usleep(50_000)
        }
        return false
    }

    /// The processes whose parent is `pid` (from /proc).
    static func children(of pid: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { p in
            guard let stat = try? String(contentsOfFile: "/proc/\(p)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && Int32(fields[1]) == pid
        }
    }

    static func folder() -> String {
        let path = NSTemporaryDirectory() + "opconform-interrupt-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// SIGHUP is a closed terminal or a CI runner's cancel: it stops a run as SIGINT does, and
    /// the run's words to a terminal that is gone are dropped, not fatal (issue 43).
    @Test("a SIGINT, SIGTERM or SIGHUP mid-run writes the findings so far, unshrunk and marked, the summary, and exits 130",
          .enabled(if: available, "build opconform first"), arguments: [SIGINT, SIGTERM, SIGHUP])
    func midRun(signal: Int32) throws {
        let dir = Self.folder()
        let run = try Started(["run", "--impl", "reference", "--fault", "priority-ignored", "--count", "100000000", "--json", "run.json"], in: dir)
        #expect(Self.waitForLines(dir + "/opconform-findings/latest/cases.jsonl", 300))
        let sent = Date()
        kill(run.child.pid, signal)
        let (status, out) = run.end()
        print("signal \(signal) mid-run: exited after \(Int(Date().timeIntervalSince(sent) * 1000)) ms")
        #expect(status == 130, "\(out)")
        #expect(out.contains("INTERRUPTED after ") && out.contains("FAIL PRIORITY-ORDER"), "\(out)")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir + "/opconform-findings/latest").filter { $0.hasPrefix("PRIORITY-ORDER-") }
        let file = try #require(files.first, "the finding file is written")
        let finding = try JSONCodec.decode(Finding.self, from: Data(contentsOf: URL(fileURLWithPath: dir + "/opconform-findings/latest/" + file)), source: file)
        #expect(finding.interrupted == true && finding.shrinkSteps == 0, "not shrunk, and marked so")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/run.json"))) as? [String: Any])
        #expect(report["interrupted"] as? Bool == true)
        // What was written is a real finding: it breaks again.
        let replay = ConformanceTests.opconform("replay", dir + "/opconform-findings/latest/" + file)
        #expect(replay.status == 1, "\(replay.out)\(replay.err)")
    }

    @Test("a SIGINT, SIGTERM or SIGHUP while shrinking on a real implementation kills its drivers and keeps every finding",
          .enabled(if: available, "build opconform first"), arguments: [SIGINT, SIGTERM, SIGHUP])
    func whileShrinking(signal: Int32) throws {
        let dir = Self.folder()
        // Flawed subclasses on Foundation break several rules in 20 cases; shrinking each on a
        // real implementation takes seconds (a process per candidate run).
        let run = try Started(["run", "--impl", "foundation", "--flaw-rate", "60", "--count", "20", "--seed", "11"], in: dir)
        #expect(Self.waitForLines(dir + "/opconform-findings/latest/cases.jsonl", 21))
        usleep(300_000)
        let sent = Date()
        kill(run.child.pid, signal)
        let (status, out) = run.end()
        let took = Date().timeIntervalSince(sent)
        print("signal \(signal) while shrinking: exited after \(Int(took * 1000)) ms")
        #expect(status == 130, "\(out)")
        // The promise is 2 s; 5 leaves room for a loaded machine. Writing a polling case's 6 MB
        // witness three times once took 6-8 s here.
        #expect(took < 5, "stopped in \(took) s")
        #expect(out.contains("INTERRUPTED after 20 of 20 cases"), "\(out)")
        let findings = try FileManager.default.contentsOfDirectory(atPath: dir + "/opconform-findings/latest").filter { $0.hasSuffix(".json") && $0 != RunRecord.fileName }
        // A story's root at the start of its line, its knock-ons indented under it (`Story`).
        let lines = out.components(separatedBy: "\n").map { $0.drop { $0 == " " } }
        let failed = lines.filter { $0.hasPrefix("FAIL ") }.count
        // A rule's further causes have files of their own (none once the run was stopped).
        let others = lines.filter { $0.hasPrefix("another cause, in ") }.count
        #expect(failed > 0 && findings.count == failed + others, "every finding of the summary is written: \(findings) for \(failed) + \(others)")
        // And the run's record beside them, for `merge`: an interrupted shard says so.
        let record = try JSONCodec.decode(RunRecord.self, from: try #require(FileManager.default.contents(atPath: dir + "/opconform-findings/latest/" + RunRecord.fileName)),
                                          source: RunRecord.fileName)
        #expect(record.interrupted && record.findings.count == failed)
        #expect(Self.children(of: run.child.pid).isEmpty, "no driver outlives the run")
    }

    /// The confirmation phase: a case whose hang rests on time is run again with patience, and
    /// a signal then stops that run too (issue 43: each signal in each phase).
    @Test("a SIGINT, SIGTERM or SIGHUP while a case is confirmed with patience ends its driver and writes the record",
          .enabled(if: available, "build opconform first"), arguments: [SIGINT, SIGTERM, SIGHUP])
    func whileConfirming(signal: Int32) throws {
        let dir = Self.folder()
        let marker = dir + "/patient-run-started"
        // The case hangs as a driver reports it (nothing happened for a while: time, so the
        // run confirms it); the patient run, asked with "patience", takes a minute.
        let driver = ExternalDriverTests.script(#"""
            read -r request
            printf '%s\n' '{"hello":{"capabilities":[],"impl":"slow","protocol":2}}'
            case "$request" in
            *'"impl"'*) ;;
            *) printf '%s\n' '{"event":{"_0":{"kind":{"end":{}},"seq":0,"thread":0}}}' '{"done":{}}'; exit 0 ;;
            esac
            case "$request" in
            *'"patience"'*) touch "\#(marker)"; sleep 60 ;;
            esac
            printf '%s\n' '{"event":{"_0":{"kind":{"threadStarted":{"name":"main"}},"seq":0,"thread":0}}}' \
              '{"event":{"_0":{"kind":{"hang":{"_0":"driver step 0 (waitUntilAllFinished(queue: 0)) never returned; nothing happened for 0.50 s"}},"seq":1,"thread":0}}}' \
              '{"done":{}}'
            """#)
        let run = try Started(["run", "--impl", "exec:" + driver, "--count", "3", "--seed", "1", "--no-shrink"], in: dir)
        var started = false
        for _ in 0..<600 where !started { started = FileManager.default.fileExists(atPath: marker); if !started { usleep(50_000) } }
        #expect(started, "the patient run began")
        let sent = Date()
        kill(run.child.pid, signal)
        let (status, out) = run.end()
        let took = Date().timeIntervalSince(sent)
        print("signal \(signal) while confirming: exited after \(Int(took * 1000)) ms")
        #expect(status == 130 && took < 10, "\(out)")
        #expect(out.contains("INTERRUPTED"), "\(out)")
        let record = try JSONCodec.decode(RunRecord.self, from: try #require(FileManager.default.contents(atPath: dir + "/opconform-findings/latest/" + RunRecord.fileName)),
                                          source: RunRecord.fileName)
        #expect(record.interrupted)
        #expect(Self.children(of: run.child.pid).isEmpty, "no driver outlives the run")
    }

    /// Whether process `pid` is opconform and catches `signal` (its /proc status's SigCgt mask):
    /// opconform's handlers are in place once it does (Dispatch's signal sources catch it).
    /// The process starts as `/bin/sh -c ... exec opconform`, and dash catches SIGINT itself
    /// while it runs `-c`; a SIGINT sent then killed the shell before its exec (one fresh-clone
    /// CI run: "exited -1 after 1 ms"), so the mask counts only once the exec has happened.
    static func catches(_ pid: pid_t, _ signal: Int32) -> Bool {
        var path = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/\(pid)/exe", &path, path.count - 1)
        guard length > 0, String(decoding: path[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .hasSuffix("/opconform") else { return false }
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
              let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16) else { return false }
        return mask & (1 << UInt64(signal - 1)) != 0
    }

    /// The merge phase: no driver runs, but files are written; a signal stops the merge before
    /// its next file, and every file it wrote is whole, with no temporary file left.
    @Test("a SIGINT, SIGTERM or SIGHUP during merge stops it before its next file; what it wrote is whole",
          .enabled(if: available && FileManager.default.fileExists(atPath: "/proc/self/status"), "build opconform first; needs /proc"),
          arguments: [SIGINT, SIGTERM, SIGHUP])
    func whileMerging(signal: Int32) throws {
        let dir = Self.folder()
        for i in 1...2 {
            let r = ConformanceTests.opconform("run", "--impl", "reference", "--fault", "priority-ignored", "--count", "1000", "--seed", "1",
                                               "--no-shrink", "--shard", "\(i)/2", "--out", dir + "/s\(i)")
            #expect(r.status == 1, "\(r.err)")
        }
        let merge = try Started(["merge", "s1", "s2", "--out", "m", "--json", "m.json", "--junit", "m.xml", "--html", "mh"], in: dir)
        var ready = false
        for _ in 0..<2000 where !ready { ready = Self.catches(merge.child.pid, signal); if !ready { usleep(1000) } }
        let sent = Date()
        kill(merge.child.pid, signal)
        let (status, out) = merge.end()
        print("signal \(signal) while merging: exited \(status) after \(Int(Date().timeIntervalSince(sent) * 1000)) ms")
        #expect(ready, "the merge's handlers were seen in place")
        #expect(status == 130 || status == 1, "stopped, or finished first: \(out)")
        if status == 130 { #expect(out.contains("merge INTERRUPTED"), "\(out)") }
        // Whatever was written is whole: the JSON reads, the record reads, nothing temporary is left.
        if let json = FileManager.default.contents(atPath: dir + "/m.json") { #expect((try? JSONSerialization.jsonObject(with: json)) != nil) }
        if let record = FileManager.default.contents(atPath: dir + "/m/" + RunRecord.fileName) {
            #expect((try? JSONCodec.decode(RunRecord.self, from: record, source: "m")) != nil)
        }
        let left = (FileManager.default.enumerator(atPath: dir)?.allObjects as? [String] ?? []).filter { $0.contains(".opconform-") }
        #expect(left.isEmpty, "temporary files left: \(left)")
    }
}
