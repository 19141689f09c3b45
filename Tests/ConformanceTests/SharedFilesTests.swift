@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
import Foundation
import OpconformCLI
import OperationSpec
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files made to be shared (findings, expectations, scenarios) are data (issue 28): reading one
/// never starts a program the user did not allow, a key given twice is refused, an expectation
/// names real evidence beside it, a driver that lies gets no verdict from `replay` either, and
/// what a driver starts outside its process group ends with its case.
@Suite("Shared files are data")
struct SharedFilesTests {
    /// A folder outside the package (the tests' current folder), as a file from elsewhere is.
    static func elsewhere() -> String {
        let dir = NSTemporaryDirectory() + "opconform-shared-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A finding of the reference engine (PRIORITY-NORMALIZE, broken by a fault), as a JSON
    /// object to tamper with.
    static func referenceFinding(in dir: String) throws -> [String: Any] {
        let r = opconform("run", "--count", "40", "--fault", "priority-not-normalised", "--no-shrink", "--out", dir + "/found")
        #expect(r.status == 1, "\(r.out)\(r.err)")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: dir + "/found")
            .filter { $0.hasSuffix(".json") && $0 != "summary.json" }.sorted().first)
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/found/" + name))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func write(_ object: [String: Any], to path: String) throws {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
    }

    @Test("replay of a finding from elsewhere does not run the command it names, until the user allows it")
    func replayAsksFirst() throws {
        let dir = Self.elsewhere()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var finding = try Self.referenceFinding(in: dir)
        let marker = dir + "/ran"
        finding["impl"] = "evil"
        finding["driver"] = ["executable": "/bin/sh", "arguments": ["-c", "touch \(marker)"]]
        let file = dir + "/finding.json"
        try Self.write(finding, to: file)

        let refused = opconform("replay", file)
        #expect(refused.status == 2, "\(refused.out)\(refused.err)")
        #expect(refused.err.contains("asks to run the driver command `/bin/sh -c 'touch \(marker)'`"), "\(refused.err)")
        #expect(refused.err.contains("add --trust-driver"), "\(refused.err)")
        #expect(!FileManager.default.fileExists(atPath: marker), "the finding's command ran without consent")

        // Allowed, it runs (and, being no driver, gives no verdict).
        let allowed = opconform("replay", file, DriverConsent.trustOption)
        #expect(FileManager.default.fileExists(atPath: marker), "\(allowed.out)\(allowed.err)")
        #expect(allowed.status == 2 || allowed.status == 4, "\(allowed.out)\(allowed.err)")
    }

    @Test("a driver inside the current folder, or an interpreter's script there, needs no consent")
    func ownDriversNeedNoFlag() throws {
        let here = FileManager.default.currentDirectoryPath
        #expect(DriverConsent.isAllowed(DriverLaunch(executable: here + "/Package.swift"), directory: here))
        #expect(DriverConsent.isAllowed(DriverLaunch(executable: "/usr/bin/env", arguments: ["Package.swift"]), directory: here))
        #expect(!DriverConsent.isAllowed(DriverLaunch(executable: "/bin/sh", arguments: ["-c", "id"]), directory: here))
        #expect(!DriverConsent.isAllowed(DriverLaunch(executable: "/bin/sh", arguments: ["/etc/hostname"]), directory: here))
        // `..` and links are resolved before the comparison.
        #expect(!DriverConsent.isAllowed(DriverLaunch(executable: here + "/../../bin/sh"), directory: here))
        let link = here + "/.build/opconform-consent-link-\(UUID().uuidString)"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/bin/sh")
        defer { try? FileManager.default.removeItem(atPath: link) }
        #expect(!DriverConsent.isAllowed(DriverLaunch(executable: link), directory: here))
    }

    @Test("gate with an expectations file from elsewhere does not start its driver without consent")
    func gateAsksFirst() throws {
        let dir = Self.elsewhere()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let marker = dir + "/ran"
        let file = dir + "/expectations.json"
        try Self.write(["format": 2, "impl": "evil", "profile": "guide", "expected": [],
                        "driver": ["path": "/bin/sh", "arguments": ["-c", "touch \(marker)"]]], to: file)
        let r = opconform("gate", "--expectations", file, "--count", "2", "--out", dir + "/out")
        #expect(r.status == 2, "\(r.out)\(r.err)")
        #expect(r.err.contains("asks to run the driver command `/bin/sh -c 'touch \(marker)'`"), "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: marker), "the expectations file's command ran without consent")
    }

    @Test("a key given twice is refused in findings, format-1 scenarios and expectations files")
    func duplicateKeys() throws {
        let dir = Self.elsewhere()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let finding = try Self.referenceFinding(in: dir)
        let text = String(decoding: try JSONSerialization.data(withJSONObject: finding, options: [.sortedKeys]), as: UTF8.self)
        let twice = dir + "/twice.json"
        try Data(("{\"rule\": \"STATE-EXCLUSIVE\"," + text.dropFirst()).utf8).write(to: URL(fileURLWithPath: twice))
        let r = opconform("replay", twice)
        #expect(r.status == 2 && r.err.contains("has the key \"rule\" twice"), "\(r.out)\(r.err)")

        let scenario = dir + "/format1.json"
        let old = #"{"format": 1, "name": "n", "name": "m", "operations": [], "queues": [], "driver": []}"#
        try Data(old.utf8).write(to: URL(fileURLWithPath: scenario))
        let s = opconform("replay", scenario)
        #expect(s.status == 2 && s.err.contains("the top level has the key \"name\" twice, at line 1"), "\(s.out)\(s.err)")

        let expectations = dir + "/expectations.json"
        try Data(#"{"format": 1, "impl": "reference", "impl": "foundation", "profile": "guide", "expected": []}"#.utf8)
            .write(to: URL(fileURLWithPath: expectations))
        let g = opconform("gate", "--expectations", expectations, "--count", "1")
        #expect(g.status == 2 && g.err.contains("has the key \"impl\" twice"), "\(g.out)\(g.err)")
    }

    @Test("an expectation's finding must exist, lie beside the file, and be a finding of its rule",
          arguments: ["missing.json", "../../../../../../etc/passwd", "other-rule.json", "not-a-finding.json"])
    func expectationEvidence(finding: String) throws {
        let dir = Self.elsewhere()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var found = try Self.referenceFinding(in: dir)
        found["rule"] = "STATE-EXCLUSIVE"
        try Self.write(found, to: dir + "/other-rule.json")
        try Data("{\"operations\": []}".utf8).write(to: URL(fileURLWithPath: dir + "/not-a-finding.json"))
        let file = dir + "/expectations.json"
        try Self.write(["format": 1, "impl": "reference", "profile": "guide",
                        "expected": [["rule": "PRIORITY-NORMALIZE", "kind": "bug", "reason": "r", "finding": finding]]], to: file)
        let r = opconform("gate", "--expectations", file, "--count", "1", "--out", dir + "/out")
        #expect(r.status == 2, "\(r.out)\(r.err)")
        let said = switch finding {
        case "missing.json": "which does not exist"
        case "other-rule.json": "a finding of STATE-EXCLUSIVE, not of PRIORITY-NORMALIZE"
        case "not-a-finding.json": "which is not a finding"
        default: "which lies outside the expectations file's folder"
        }
        #expect(r.err.contains("expected[0] (PRIORITY-NORMALIZE) names") && r.err.contains(said), "\(r.err)")
    }

    /// A driver that names an operation the scenario lacks, and one that says `end` having run
    /// nothing: `run` gives them no verdict, and so must `replay`.
    @Test("replay gives a lying driver no verdict, as run does", arguments: ["names op 7", "runs nothing"])
    func replayOfLyingDriver(lie: String) throws {
        let dir = Self.elsewhere()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let all = Observation.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ",")
        let hello = #"{"hello":{"capabilities":[\#(all)],"impl":"liar","protocol":2}}"#
        let read = MisbehavingDriverTests.event(1, #"{"mainEnded":{"op":7}}"#)
        let lines = lie == "names op 7"
            ? [hello, MisbehavingDriverTests.started, read, MisbehavingDriverTests.end(2), MisbehavingDriverTests.done]
            : [hello, MisbehavingDriverTests.started, MisbehavingDriverTests.end(1), MisbehavingDriverTests.done]
        let driver = ExternalDriverTests.script("cat > /dev/null\n" + MisbehavingDriverTests.say(lines[0], lines[1], lines[2], lines[3])
                                                + (lines.count > 4 ? "\n" + MisbehavingDriverTests.say(lines[4]) : ""))
        let scenario = dir + "/scenario.json"
        try Data(#"{"format": 2, "operations": [{"kind": {"main": [{"work": 1}]}}], "driver": [{"action": {"add": {"op": 0, "queue": 0}}}, {"action": {"waitUntilAllFinished": 0}}], "queues": [{}]}"#.utf8)
            .write(to: URL(fileURLWithPath: scenario))
        let r = opconform("replay", scenario, "--impl", "exec:" + driver)
        #expect(r.status == 4, "\(r.out)\(r.err)")
        #expect(r.out.contains("NO VERDICT"), "\(r.out)")
        if lie == "names op 7" { #expect(r.out.contains("names operation 7, but the scenario has 1"), "\(r.out)") }
    }

    /// A driver that starts a child in a session of its own (`setsid`), and one that daemonises
    /// it (a double fork into a new session, the child's parent gone): neither is in the
    /// driver's process group, and both must end with the case.
    @Test("what a driver starts outside its process group ends with its case", .enabled(if: MisbehavingDriverTests.hasProc, "needs /proc"),
          arguments: ["setsid", "double fork"])
    func escapedChildrenEnd(how: String) throws {
        let dir = Self.elsewhere()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let start = how == "setsid"
            ? "setsid sh -c 'echo $$ > \(dir)/child; exec sleep 1000' < /dev/null > /dev/null 2>&1 &"
            : "( setsid sh -c 'sh -c \"echo \\$$ > \(dir)/child; exec sleep 1000\" &' < /dev/null > /dev/null 2>&1 & )"
        let impl = MisbehavingDriverTests.driver("""
            cat > /dev/null
            \(start)
            while [ ! -s \(dir)/child ]; do sleep 0.05; done
            \(MisbehavingDriverTests.say(MisbehavingDriverTests.hello, MisbehavingDriverTests.started, MisbehavingDriverTests.end(1), MisbehavingDriverTests.done))
            """)
        let t = impl.run(MisbehavingDriverTests.scenario, scheduleSeed: 1)
        #expect(t.events.last?.kind == .end, "\(t.events)")
        let child = try #require(MisbehavingDriverTests.number(in: dir + "/child"))
        defer { if !MisbehavingDriverTests.ended(child) { kill(child, SIGKILL) } }
        #expect(MisbehavingDriverTests.eventually { MisbehavingDriverTests.ended(child) }, "\(how): process \(child) outlived its case")
    }

    /// driver-check reads a driver's output itself; a line of 3 MB (200 MB made it hold 3 GB)
    /// is kept as its first 4 KB and marked, and standard error keeps only its end.
    @Test("driver-check never holds an over-long line whole")
    func overlongLineInDriverCheck() throws {
        let driver = ExternalDriverTests.script("cat > /dev/null\nhead -c 3145728 /dev/zero | tr '\\0' 'a'\necho\n"
                                                + "head -c 3145728 /dev/zero | tr '\\0' 'e' >&2\necho '{\"done\":{}}'")
        let run = DriverRun.run([driver], input: "{}\n", limit: 30)
        #expect(run.lines.count == 2, "\(run.lines.map(\.bytes.count))")
        let first = try #require(run.lines.first)
        #expect(first.overlong && first.bytes.count == 4096, "\(first.bytes.count)")
        #expect(run.lines.last.map { !$0.overlong && $0.text == "{\"done\":{}}" } == true)
    }
}
