import Conformance
import Foundation
import OpconformCLI
import OperationSpec
import ReferenceEngine
import Testing

/// Issue 15: every input the harness reads (scenarios, findings, expectations, driver protocol
/// lines) that it cannot use is refused in one sentence that names the file, the field, what was
/// there and what is allowed; never "at the top level: The given data was not valid JSON".
@Suite("Messages about bad input")
struct InputMessageTests {
    /// A scenario file whose JSON is `fields` in place of the defaults.
    static func scenarioText(seed: String = "0", generatorVersion: String = "0", name: String = "\"x\"",
                             operations: String = "[]") -> String {
        """
        {
          "dependencies" : [],
          "driver" : [],
          "format" : 1,
          "generatorVersion" : \(generatorVersion),
          "name" : \(name),
          "operations" : \(operations),
          "queues" : [],
          "seed" : \(seed)
        }
        """
    }

    /// `replay FILE`'s error: status 2, one sentence that names the file, then the pointer to --help.
    static func refusal(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) -> String {
        let r = opconform("replay", path)
        #expect(r.status == 2, "\(r.out.suffix(300))", sourceLocation: sourceLocation)
        let lines = r.err.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines[2].isEmpty && lines[1] == "Run 'opconform --help' for usage.", "one sentence: \(r.err)", sourceLocation: sourceLocation)
        #expect(r.err.contains(path), "names the file: \(r.err)", sourceLocation: sourceLocation)
        #expect(!r.err.contains("The given data was not valid JSON"), "\(r.err)", sourceLocation: sourceLocation)
        return String(lines.first ?? "")
    }

    /// The message `decode` throws for `text`, checked for one line and its source.
    static func decodingMessage<T: Decodable>(_ type: T.Type, _ text: String, source: String = "the driver's line 7",
                                              sourceLocation: SourceLocation = #_sourceLocation) -> String {
        do {
            _ = try JSONCodec.decode(T.self, from: Data(text.utf8), source: source)
            Issue.record("\(text) decoded", sourceLocation: sourceLocation)
            return ""
        } catch {
            #expect(!error.message.contains("\n") && error.message.contains(source), "\(error.message)", sourceLocation: sourceLocation)
            #expect(!error.message.contains("The given data was not valid JSON"), "\(error.message)", sourceLocation: sourceLocation)
            return error.message
        }
    }

    static func finding() throws -> Finding { try #require(FaultProbe.firstFinding(.oneTooMany)) }

    /// The finding's JSON with `field`'s value (a number, or a string) replaced by `value`.
    static func findingText(_ finding: Finding, _ field: String, _ value: String) throws -> String {
        let text = JSONCodec.encodeString(finding)
        let pattern = try NSRegularExpression(pattern: "\"\(field)\" : (\"[^\"]*\"|[-0-9.eE+]+)")
        let range = NSRange(text.startIndex..., in: text)
        #expect(pattern.numberOfMatches(in: text, range: range) == 1, "\(field) is in the finding once")
        return pattern.stringByReplacingMatches(in: text, range: range, withTemplate: "\"\(field)\" : " + NSRegularExpression.escapedTemplate(for: value))
    }

    // MARK: numbers that do not fit their field

    @Test("a work of 1e30 names the field, the value and the range")
    func hugeWork() {
        let path = temporaryFile(Self.scenarioText(operations: #"[{"kind": {"main": {"_0": [{"work": {"_0": 1e30}}]}}}]"#))
        let m = Self.refusal(path)
        #expect(m.contains("operations[0].kind.main._0[0].work._0 is 1e30 at line 7, column"), "\(m)")
        #expect(m.contains("but must be a whole number from 0 to 1000000"), "\(m)")
    }

    @Test("a negative seed names the field and the range")
    func negativeSeed() {
        let m = Self.refusal(temporaryFile(Self.scenarioText(seed: "-1")))
        #expect(m.contains("seed is -1 at line 9, column 12, but must be a whole number from 0 to 18446744073709551615"), "\(m)")
    }

    @Test("an Int field given 3.5 or \"7\" says what it holds and what it must be", arguments: ["3.5", "\"7\"", "1e400", "true", "null", "[]"])
    func wrongInt(value: String) {
        let m = Self.refusal(temporaryFile(Self.scenarioText(generatorVersion: value)))
        let shown = ["\"7\"": "the string \"7\"", "[]": "an empty list"][value] ?? value
        #expect(m.contains("generatorVersion is \(shown)") && m.contains("at line 5, column 24"), "\(m)")
        #expect(m.contains("but must be a whole number from \(Int.min) to \(Int.max)"), "\(m)")
    }

    @Test("a negative schedule seed in a finding names the field and what a seed must be")
    func negativeScheduleSeed() throws {
        let text = try Self.findingText(try Self.finding(), "scheduleSeed", "-5")
        let m = Self.refusal(temporaryFile(text))
        #expect(m.contains("scheduleSeed is -5 at line") && m.contains("but must be a seed written as a string of decimal digits, 0 to 18446744073709551615"), "\(m)")
    }

    // MARK: JSON that is not JSON

    @Test("invalid JSON gives the line, the column and a hint")
    func invalidJSON() {
        let m = Self.refusal(temporaryFile(Self.scenarioText(name: "x")))
        #expect(m.contains("is not valid JSON") && m.contains("line 6, column 12"), "\(m)")
        #expect(m.contains("double quotes"), "a hint: \(m)")
    }

    @Test("JSON cut short says where it ends")
    func truncated() {
        let text = Self.scenarioText()
        let m = Self.refusal(temporaryFile(String(text.prefix(text.count - 30))))
        #expect(m.contains("is not valid JSON") && m.contains("ends") && m.contains("line 8"), "\(m)")
    }

    @Test("JSON nested too deep says so, and the limit")
    func tooDeep() {
        let m = Self.refusal(temporaryFile(Self.scenarioText(name: String(repeating: "[", count: 600) + String(repeating: "]", count: 600))))
        #expect(m.contains("deeper than 512") && m.contains("line 6"), "\(m)")
    }

    @Test("an empty file says it is empty")
    func empty() {
        let m = Self.refusal(temporaryFile(""))
        #expect(m.contains("is empty"), "\(m)")
    }

    // MARK: files that cannot be read

    @Test("a folder, a missing file and a file too big are told apart")
    func unreadable() throws {
        let folder = NSTemporaryDirectory() + "opconform-folder-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(Self.refusal(folder).contains("\(folder) cannot be read: it is a folder, not a file"))
        let missing = folder + "/missing.json"
        let m = Self.refusal(missing)
        #expect(m.contains("cannot be read: there is no such file") && !m.contains("permission"), "\(m)")
        // A sparse file: 65 MB long, nothing written.
        let big = folder + "/big.json"
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: big))
        try handle.truncate(atOffset: 65 << 20)
        try handle.close()
        let b = Self.refusal(big)
        #expect(b.contains("cannot be read: it is 65 MB, more than the 64 MB an input file may be"), "\(b)")
        #expect(try Self.expectationsMessage(big).contains("it is 65 MB"))
        #expect(try Self.expectationsMessage(folder).contains("it is a folder"))
    }

    @Test("a file without read permission says so")
    func noPermission() throws {
        // The superuser reads every file: there is nothing to test.
        guard getuid() != 0 else { return }
        let path = temporaryFile(Self.scenarioText())
        try FileManager.default.setAttributes([.posixPermissions: 0o200], ofItemAtPath: path)
        #expect(Self.refusal(path).contains("cannot be read: no permission to read it"))
    }

    // MARK: findings

    @Test("a finding's generator options out of range name the field and the range of its option",
          arguments: [("size", "0", "1 to 64"), ("size", "-3", "1 to 64"), ("size", "\(Int.max)", "1 to 64"),
                      ("misuseRate", "1000", "0 to 100"), ("flawRate", "101", "0 to 100"), ("size", "1e30", "1 to 64")])
    func generatorOptions(field: String, value: String, range: String) throws {
        let m = Self.refusal(temporaryFile(try Self.findingText(try Self.finding(), field, value)))
        #expect(m.contains("identity.options.\(field) is \(value) at line") && m.contains("but must be a whole number from \(range)"), "\(m)")
        #expect(!m.contains("generator changed"))
    }

    @Test("an unknown rule in a finding is refused with the nearest known id")
    func unknownRuleInFinding() throws {
        let m = Self.refusal(temporaryFile(try Self.findingText(try Self.finding(), "rule", "\"QUEUE-MAX-CONCURENT\"")))
        #expect(m.contains("rule names an unknown rule 'QUEUE-MAX-CONCURENT' at line"), "\(m)")
        #expect(m.contains("did you mean QUEUE-MAX-CONCURRENT?"), "\(m)")
    }

    @Test("the pseudo-rules are rules a finding may name", arguments: [Finding.crashRule, Finding.hangRule, "DRIVER-PROTOCOL"])
    func pseudoRules(rule: String) throws {
        var finding = try Self.finding()
        finding.rule = rule
        let r = opconform("replay", temporaryFile(JSONCodec.encodeString(finding)))
        #expect(r.status != 2, "\(r.err)")
    }

    // MARK: expectations

    static func expectationsMessage(_ path: String) throws -> String {
        do { _ = try Expectations.load(path); Issue.record("\(path) loaded"); return "" } catch {
            #expect(!error.message.contains("\n") && error.message.contains(path), "\(error.message)")
            #expect(!error.message.contains("The given data was not valid JSON"), "\(error.message)")
            return error.message
        }
    }

    @Test("an expectations file gets the same messages")
    func expectations() throws {
        func file(format: String = "1", rule: String = "BLOCK-CONCURRENT") -> String {
            temporaryFile(#"{"expected": [{"finding": "f.json", "kind": "bug", "reason": "r", "rule": "\#(rule)"}], "format": \#(format), "impl": "x", "profile": "guide"}"#)
        }
        let unknown = try Self.expectationsMessage(file(rule: "BLOCK-CONCURENT"))
        #expect(unknown.contains("expected[0].rule names an unknown rule 'BLOCK-CONCURENT'") && unknown.contains("did you mean BLOCK-CONCURRENT?"), "\(unknown)")
        let number = try Self.expectationsMessage(file(format: "1.5"))
        #expect(number.contains("format is 1.5 at line 1, column") && number.contains("but must be a whole number"), "\(number)")
        let breach = try Self.expectationsMessage(file(rule: "DRIVER-PROTOCOL"))
        #expect(breach.contains("expected[0].rule names DRIVER-PROTOCOL") && breach.contains("cannot be an expected divergence"), "\(breach)")
        // The rule is accepted; what is wrong with the file is then that its evidence is missing.
        let hang = file(rule: Finding.hangRule)
        #expect(try JSONCodec.decode(Expectations.self, from: JSONCodec.readFile(at: hang), source: hang).expected.first?.rule == Finding.hangRule)
        #expect(try Self.expectationsMessage(hang).contains("names the finding \"f.json\", which does not exist"))
    }

    // MARK: driver protocol messages

    @Test("a driver's line gets the same messages")
    func driverMessages() {
        let huge = Self.decodingMessage(DriverProtocol.Message.self, #"{"event":{"_0":{"kind":{"work":{"op":0,"units":1e30}},"seq":0,"thread":0}}}"#)
        #expect(huge.contains("event._0.kind.work.units is 1e30 at line 1, column 48, but must be a whole number"), "\(huge)")
        let capability = Self.decodingMessage(DriverProtocol.Message.self, #"{"hello":{"capabilities":["kvo","telepathy"],"impl":"x","protocol":2}}"#)
        #expect(capability.contains("hello.capabilities[1] is the string \"telepathy\"") && capability.contains("but must be one of: kvo, thrownErrors"), "\(capability)")
        let cut = Self.decodingMessage(DriverProtocol.Message.self, #"{"done":{}"#)
        #expect(cut.contains("is not valid JSON") && cut.contains("line 1, column 11"), "\(cut)")
        let unknown = Self.decodingMessage(DriverProtocol.Message.self, #"{"goodbye":{}}"#)
        #expect(unknown.contains("the top level is an object with the key \"goodbye\"") && unknown.contains("but that is not a case of Message"), "\(unknown)")
    }
}
