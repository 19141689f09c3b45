import Conformance
import Foundation
import OpconformCLI
import OperationSpec
import Testing

/// Captures what a command prints.
final class CapturedConsole: Console {
    var stdout = "", stderr = ""
    /// A terminal, for the lines only a person watching is shown (progress, first sightings).
    var interactive = false
    func out(_ text: String) { stdout += text }
    func err(_ text: String) { stderr += text }
}

func opconform(_ args: String...) -> (status: Int32, out: String, err: String) { opconform(args) }

func opconform(_ args: [String]) -> (status: Int32, out: String, err: String) {
    let c = CapturedConsole()
    let status = CLI.main(args, console: c)
    return (status, c.stdout, c.stderr)
}

/// Runs a driver (`command`: its path and arguments) on one raw request line, with standard
/// input closed after it; its output lines and exit status.
func driverAnswer(_ command: [String], _ line: String) throws -> (lines: [String], status: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init), process.terminationStatus)
}

func temporaryFile(_ contents: String) -> String {
    let path = NSTemporaryDirectory() + "opconform-test-\(UUID().uuidString).json"
    precondition(FileManager.default.createFile(atPath: path, contents: Data(contents.utf8)), "cannot write \(path)")
    return path
}

@Suite("The command line")
struct CommandLineTests {
    /// On a terminal a rule's first broken case is shown when it is decided, before the shrink
    /// (issue 31); elsewhere (CI logs, pipes) the case log has it, and standard error stays quiet.
    @Test("the rules not checked are one line by default; --not-checked lists each with its reason")
    func notCheckedLine() {
        let scratch = NSTemporaryDirectory() + "opconform-not-checked-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let short = opconform("run", "--impl", "reference", "--count", "20", "--out", scratch + "/a")
        let lines = short.out.split(separator: "\n").filter { $0.hasPrefix("not checked") }
        #expect(lines.count == 1 && lines[0].contains("not applicable to the profile") && lines[0].hasSuffix("--not-checked lists each with its reason"),
                "\(short.out)")
        #expect(!short.out.contains(": not-applicable ("))
        let long = opconform("run", "--impl", "reference", "--count", "20", "--not-checked", "--out", scratch + "/b")
        #expect(long.out.contains("\nnot checked:\n") && long.out.contains("QUEUE-THREAD-NAME: not-applicable (applies under profile gnustep only)"),
                "\(long.out)")
    }

    @Test("on a terminal, each rule's first broken case is shown with its replay line as soon as it is decided")
    func firstSightingShown() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("opconform-sighting-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let terminal = CapturedConsole()
        terminal.interactive = true
        let args = ["run", "--impl", "reference", "--fault", "priority-ignored", "--count", "200", "--out", out]
        #expect(CLI.main(args, console: terminal) == 1)
        #expect(terminal.stderr.contains("seen PRIORITY-ORDER in case 14: serial queue 0 started op "), "\(terminal.stderr)")
        #expect(terminal.stderr.contains("  replays before shrinking: ") && terminal.stderr.contains("--seed 7476170335452785435"))
        // The sighting comes before the shrink starts.
        let seen = try #require(terminal.stderr.range(of: "seen PRIORITY-ORDER"))
        let shrinking = try #require(terminal.stderr.range(of: "shrinking the first case that broke PRIORITY-ORDER"))
        #expect(seen.lowerBound < shrinking.lowerBound)
        let pipe = opconform(args)
        #expect(pipe.status == 1 && !pipe.err.contains("seen PRIORITY-ORDER"))
    }

    @Test("rules --json lists every rule with id, statement, citations and strength")
    func rulesJSON() throws {
        let r = opconform("rules", "--json")
        #expect(r.status == 0)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [[String: Any]])
        #expect(array.count == RuleBook.rules.count)
        for entry in array {
            #expect(entry["id"] is String)
            #expect(entry["statement"] is String)
            #expect(entry["strength"] is String)
            #expect((entry["citations"] as? [[String: Any]])?.isEmpty == false)
        }
    }

    @Test("rules prints a readable catalog and --help teaches")
    func rulesText() {
        #expect(opconform("rules").out.contains("START-FINISHED  [documented must]"))
        #expect(opconform("--help").out.contains("EXIT STATUS"))
        #expect(opconform("help", "replay").out.contains("--schedule-seed"))
    }

    @Test("bad input gets one clear sentence and status 2", arguments: [
        (["rules", "--rules", "NOPE-*"], "no rule matches 'NOPE-*'"),
        (["rules", "--frobnicate"], "unknown option '--frobnicate'"),
        (["launch"], "unknown command 'launch'"),
        (["replay"], "needs one scenario or finding file, or --seed S"),
        (["replay", "/nonexistent/scenario.json"], "cannot be read"),
        (["samples", "--schedules", "zero"], "--schedules must be a whole number"),
        (["replay", "--profile", "apple", "x.json"], "unknown profile 'apple'"),
        (["bench", "--shapes", "chain,star"], "--shapes takes chain, fan-out, random-dag separated by commas, not 'chain,star'"),
    ])
    func badUsage(args: [String], fragment: String) {
        let c = CapturedConsole()
        #expect(CLI.main(args, console: c) == 2)
        #expect(c.stderr.contains(fragment), "\(c.stderr)")
        #expect(c.stderr.split(separator: "\n").count == 2, "one sentence, then the pointer to --help")
    }

    @Test("a malformed scenario file is refused in one sentence")
    func malformedFile() {
        let path = temporaryFile("{\"format\": 1, \"operations\": [")
        let r = opconform("replay", path)
        #expect(r.status == 2)
        #expect(r.err.contains("is not valid JSON") || r.err.contains(path))
    }

    @Test("a scenario of the wrong shape names the place")
    func wrongShape() {
        let path = temporaryFile("{\"format\": 1, \"name\": \"x\", \"seed\": 0, \"generatorVersion\": 0, \"queues\": [], \"operations\": [{\"kind\": {\"mian\": {\"_0\": []}}}], \"dependencies\": [], \"driver\": []}")
        let r = opconform("replay", path)
        #expect(r.status == 2)
        #expect(r.err.contains("operations[0]"), "\(r.err)")
    }

    @Test("a scenario naming an operation that does not exist is refused in one sentence")
    func missingOperation() throws {
        var s = DocumentSamples.all[0].scenario
        s.driver.append(DriverStep(.cancel(42)))
        let path = temporaryFile(JSONCodec.encodeString(s))
        let r = opconform("replay", path)
        #expect(r.status == 2)
        #expect(r.err.contains("names operation 42, but the scenario has 2"), "\(r.err)")
    }

    @Test("an unknown rule id in replay is refused")
    func unknownRule() {
        let path = temporaryFile(JSONCodec.encodeString(DocumentSamples.all[0].scenario))
        let r = opconform("replay", path, "--rules", "READY-NOSUCH")
        #expect(r.status == 2)
        #expect(r.err.contains("no rule matches 'READY-NOSUCH'"))
    }

    @Test("replay prints the trace and the verdict; exit 1 on a violation, 0 without")
    func replay() {
        let racy = temporaryFile(JSONCodec.encodeString(DocumentSamples.all.first { $0.scenario.name == "guide-listings-2-5-to-2-7" }!.scenario))
        let bad = opconform("replay", racy, "--schedule-seed", "8")
        #expect(bad.status == 1)
        #expect(bad.out.contains("STATE-EXCLUSIVE: op 0 was executing and finished at once"))
        let clean = opconform("replay", racy, "--schedule-seed", "1")
        #expect(clean.status == 0)
        #expect(clean.out.contains("0 violations"))
        let json = opconform("replay", racy, "--schedule-seed", "8", "--json")
        #expect(json.out == opconform("replay", racy, "--schedule-seed", "8", "--json").out)
    }

    /// Outputs are checked before the run, not after it: a run's result is never lost to a
    /// file that cannot be written.
    @Test("an output that cannot be written is refused before the run, in one sentence")
    func unwritableOutputs() throws {
        let folder = NSTemporaryDirectory() + "opconform-out-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let intoFolder = opconform("run", "--count", "5", "--json", folder, "--out", folder + "/f")
        #expect(intoFolder.status == 2 && intoFolder.err.contains("it is a folder") && intoFolder.out.isEmpty, "\(intoFolder.err)")
        let unnamed = opconform("run", "--count", "5", "--junit", "", "--out", folder + "/f")
        #expect(unnamed.status == 2 && unnamed.err.contains("needs a name"), "\(unnamed.err)")
        let refused = opconform("run", "--count", "5", "--json", "/proc/opconform-x", "--out", folder + "/f")
        #expect(refused.status == 2 && refused.out.isEmpty, "\(refused.err)")
    }

    /// `--name=value` is `--name value` (issue 45: `--count=5` and `--driver-arg=VALUE` were
    /// refused), and a flag given a value is refused in one sentence.
    @Test("options take --name=value too")
    func equalsForm() {
        let a = opconform("run", "--count=3", "--seed=7", "--out=" + NSTemporaryDirectory() + "opconform-eq-\(UUID().uuidString)")
        #expect(a.status == 0 && a.out.contains("3 cases from seed 7"), "\(a.out)\(a.err)")
        let b = opconform("run", "--count=3", "--no-shrink=yes")
        #expect(b.status == 2 && b.err.contains("--no-shrink takes no value"), "\(b.err)")
    }
}
