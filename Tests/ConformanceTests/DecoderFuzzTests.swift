import Conformance
import Foundation
import OpconformCLI
import OperationSpec
import ReferenceEngine
import Testing

/// Issue 15: the readers of every input (scenarios, findings, expectations, driver protocol
/// lines) take hostile bytes without trapping, and refuse what they cannot use in one clear
/// sentence. Real documents, written by the project's own encoders, are mutated from a fixed
/// seed: byte flips, truncation, deletion, duplication, numbers that do not fit, deep nesting,
/// values of the wrong type, renamed keys, unicode and bytes that are not UTF-8. The work is
/// bounded (a fixed number of inputs); nothing is timed.
@Suite("Decoder fuzzing")
struct DecoderFuzzTests {
    /// One kind of document and how the harness reads it: decode, then validate.
    struct Kind: Sendable {
        var name: String
        /// nil: decoded and valid; a string: decoded, and validation lists this first problem.
        var read: @Sendable (Data, String) throws(InputError) -> String?
        /// The command line that reads such a file, for the end-to-end runs (nil: none does).
        var command: (@Sendable (String) -> [String])?
    }

    /// A scenario file, format 1 or 2: `ScenarioFormat.decode` refuses one that cannot run as
    /// it refuses one it cannot read, so a validation problem here is a refusal too.
    static let scenarioKind = Kind(name: "scenario", read: { data, source throws(InputError) in
        try ScenarioFormat.decode(data, source: source).problems().first
    }, command: { ["replay", $0] })
    static let findingKind = Kind(name: "finding", read: { data, source throws(InputError) in
        try JSONCodec.decode(Finding.self, from: data, source: source).scenario.problems().first
    }, command: { ["replay", $0] })
    static let expectationsKind = Kind(name: "expectations", read: { data, source throws(InputError) in
        _ = try JSONCodec.decode(Expectations.self, from: data, source: source)
        return nil
    }, command: { ["gate", "--expectations", $0, "--count", "1"] })
    static let messageKind = Kind(name: "driver message", read: { data, source throws(InputError) in
        _ = try JSONCodec.decode(DriverProtocol.Message.self, from: data, source: source)
        return nil
    }, command: nil)
    static let requestKind = Kind(name: "driver request", read: { data, source throws(InputError) in
        try JSONCodec.decode(DriverProtocol.Request.self, from: data, source: source).scenario.problems().first
    }, command: nil)

    /// Valid documents, each written by the project's own encoder.
    static func samples() throws -> [(kind: Kind, text: [UInt8])] {
        var out: [(kind: Kind, text: [UInt8])] = []
        let generator = ScenarioGenerator(options: GeneratorOptions(size: 4, misuseRate: 40, flawRate: 30))
        // Scenario files in format 2, as files are written, and in format 1, which is still read.
        for seed: UInt64 in [1, 2, 3] { out.append((scenarioKind, Array(ScenarioFormat.encode(generator.generate(seed: seed))))) }
        for sample in DocumentSamples.all.prefix(4) { out.append((scenarioKind, Array(ScenarioFormat.encode(sample.scenario)))) }
        out.append((scenarioKind, Array(JSONCodec.encode(generator.generate(seed: 4)))))
        out.append((scenarioKind, Array(JSONCodec.encode(DocumentSamples.all[4].scenario))))
        // API surface 2: every construct, in both formats, and in a finding whose options say surface2.
        out.append((scenarioKind, Array(ScenarioFormat.encode(Surface2FormatTests.scenario))))
        out.append((scenarioKind, Array(JSONCodec.encode(Surface2FormatTests.scenario))))
        out.append((findingKind, Array(Surface2FormatTests.finding(GeneratorOptions(size: 6, surface2: true)).fileData)))
        let finding = try #require(FaultProbe.firstFinding(.oneTooMany))
        out.append((findingKind, Array(finding.fileData)))
        var withDriver = finding
        withDriver.driver = DriverLaunch(executable: "/usr/local/bin/my-driver", arguments: ["--fast", "é"])
        out.append((findingKind, Array(JSONCodec.line(withDriver).utf8)))
        var expectations = Expectations(format: 2, impl: "my-queue", profile: .classReference, expected: [
            .init(rule: "BLOCK-CONCURRENT", kind: .platformDifference, reason: "blocks run one after another", finding: "f/BLOCK-CONCURRENT.json"),
            .init(rule: Finding.crashRule, kind: .bug, reason: "traps on a second start", finding: "f/RUN-CRASH.json"),
        ])
        expectations.driver = .init(path: "./driver", arguments: ["--x"])
        out.append((expectationsKind, Array(JSONCodec.encode(expectations))))
        let scenario = DocumentSamples.all[2].scenario
        let trace = ReferenceEngine().run(scenario, scheduleSeed: 3)
        var messages: [DriverProtocol.Message] = [.hello(protocol: 2, impl: "reference", capabilities: trace.capabilities, subclass: "MyOp"), .done(), .done(next: true), .error("no such step")]
        // Events of every shape the trace has: one of each kind's first occurrence.
        var seen = Set<String>()
        for e in trace.events where seen.insert(String(describing: e.kind).prefix { $0 != "(" }.description).inserted { messages.append(.event(e)) }
        // The events of API surface 2, which that sample's trace does not have.
        let surface2Events: [EventKind] = [.suspended(queue: 0, true), .currentQueue(op: 1, queue: 0), .currentQueue(op: 2, queue: nil),
                                           .call(.addBlock(0, queue: 0)), .returned(.addBlock(0, queue: 0)), .read(op: 1, .executionBlocks, .int(2))]
        for (k, kind) in surface2Events.enumerated() { messages.append(.event(TraceEvent(seq: k, thread: k % 2, kind))) }
        messages.append(.hello(protocol: 3, impl: "surface2-driver", capabilities: [.kvo, .apiSurface2], harness: "0.9.0"))
        for m in messages { out.append((messageKind, Array(JSONCodec.line(m).utf8))) }
        out.append((requestKind, Array(JSONCodec.line(DriverProtocol.Request(impl: "reference", scenario: scenario, scheduleSeed: 7, unitMicroseconds: 1000)).utf8)))
        out.append((requestKind, Array(JSONCodec.line(DriverProtocol.Request(impl: "reference", scenario: Surface2FormatTests.scenario, scheduleSeed: 7,
                                                                             unitMicroseconds: 1000)).utf8)))
        return out
    }

    @Test("every sample, unmutated, is read and valid: the fuzzing starts from real documents")
    func samplesRead() throws {
        for (n, sample) in try Self.samples().enumerated() {
            #expect(throws: Never.self, "sample \(n) (\(sample.kind.name))") {
                let problem = try sample.kind.read(Data(sample.text), "sample-\(n).json")
                #expect(problem == nil, "sample \(n) (\(sample.kind.name)): \(problem ?? "")")
            }
        }
    }

    // MARK: mutations

    /// A token of a JSON text, found by a lexer that never fails (the text may be broken).
    struct Token { var range: Range<Int>; var kind: TokenKind }
    enum TokenKind { case key, string, number, literal, punctuation }

    static func tokens(_ t: [UInt8]) -> [Token] {
        var out: [Token] = []
        var i = 0
        while i < t.count {
            let c = t[i]
            if c == UInt8(ascii: "\"") {
                var j = i + 1
                while j < t.count && t[j] != UInt8(ascii: "\"") { j += t[j] == UInt8(ascii: "\\") ? 2 : 1 }
                j = min(j + 1, t.count)
                var k = j
                while k < t.count && (t[k] == 0x20 || t[k] == 0x0A) { k += 1 }
                out.append(Token(range: i..<j, kind: k < t.count && t[k] == UInt8(ascii: ":") ? .key : .string))
                i = j
            } else if c == UInt8(ascii: "-") || (c >= 0x30 && c <= 0x39) {
                var j = i + 1
                while j < t.count && "0123456789.eE+-".utf8.contains(t[j]) { j += 1 }
                out.append(Token(range: i..<j, kind: .number))
                i = j
            } else if c >= 0x61 && c <= 0x7A {
                var j = i + 1
                while j < t.count && t[j] >= 0x61 && t[j] <= 0x7A { j += 1 }
                out.append(Token(range: i..<j, kind: .literal))
                i = j
            } else {
                if "{}[],:".utf8.contains(c) { out.append(Token(range: i..<i + 1, kind: .punctuation)) }
                i += 1
            }
        }
        return out
    }

    static let hostileNumbers = ["1e30", "-1", "-0", "3.5", "1e400", "-1e400", "18446744073709551616", "9223372036854775808",
                                 "-9223372036854775809", "99999999999999999999999999999", "NaN", "Infinity", "-Infinity", "0.0",
                                 "1E2", "2.5e-3", "0x10", "+1", "01", "1.", ".5", "1e", "-", "1000000", "1000001", "10001", "-2", "65",
                                 "\"7\"", "4.9e-324", "1.7976931348623157e309", "0e0", "-0.0"]
    static let otherValues = ["\"x\"", "\"\"", "0", "true", "false", "null", "[]", "{}", "{\"a\":1}", "[1,2]", "{\"_0\":1}", "[[]]",
                              "\"isFinished\"", "\"queue\"", "{\"work\":{\"_0\":1}}", "{\"this\":{}}", "\"self\"", "{\"work\":1}",
                              "{\"return\":{}}", "{\"isReady\":\"self\"}"]
    static let insertions: [[UInt8]] = [
        Array("é".utf8), Array("😀".utf8), Array("\u{2028}".utf8), Array("\u{FEFF}".utf8), Array("\u{0}".utf8), Array("\u{85}".utf8),
        [0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x80],
        Array("\\ud800".utf8), Array("\\udc00".utf8), Array("\\ud83d\\ude00".utf8), Array("\\u00".utf8), Array("\\x".utf8), Array("\\".utf8),
        Array("\n".utf8), Array("\t".utf8), Array("\r\n".utf8), Array("\u{0B}".utf8), Array("'".utf8), Array("//c\n".utf8), Array(",".utf8),
        Array(":".utf8), Array("}".utf8), Array("]".utf8), Array("{".utf8), Array("[".utf8), Array("\"".utf8), Array(" ".utf8),
    ]

    static func nested(_ depth: Int, objects: Bool) -> [UInt8] {
        objects ? Array((String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)).utf8)
            : Array((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
    }

    /// One mutation of `text`, chosen by `rng`.
    static func mutate(_ text: [UInt8], _ rng: inout Xoshiro256) -> [UInt8] {
        var t = text
        guard !t.isEmpty else { return Array("{".utf8) }
        let toks = tokens(t)
        func pick(_ kinds: [TokenKind]) -> Token? {
            let fitting = toks.filter { kinds.contains($0.kind) }
            return fitting.isEmpty ? nil : fitting[rng.below(fitting.count)]
        }
        switch rng.below(11) {
        case 0: // byte flips
            for _ in 0..<(1 + rng.below(3)) { t[rng.below(t.count)] ^= UInt8(truncatingIfNeeded: 1 << rng.below(8)) }
        case 1: // truncation
            t = Array(t.prefix(rng.below(t.count)))
        case 2: // deletion
            let start = rng.below(t.count)
            t.removeSubrange(start..<min(t.count, start + 1 + rng.below(24)))
        case 3: // duplication
            let start = rng.below(t.count)
            let piece = Array(t[start..<min(t.count, start + 1 + rng.below(40))])
            t.insert(contentsOf: piece, at: rng.below(t.count + 1))
        case 4, 5: // a number that does not fit (twice as likely: the issue's subject)
            if let n = pick([.number]) { t.replaceSubrange(n.range, with: Array(hostileNumbers[rng.below(hostileNumbers.count)].utf8)) }
        case 6: // deep nesting in place of a value
            let depth = [64, 511, 512, 513, 600, 5_000][rng.below(6)]
            if let v = pick([.number, .string, .literal]) { t.replaceSubrange(v.range, with: nested(depth, objects: rng.chance(1, in: 2))) }
        case 7: // a value of another type
            let values = hostileNumbers + otherValues
            if let v = pick([.number, .string, .literal]) { t.replaceSubrange(v.range, with: Array(values[rng.below(values.count)].utf8)) }
        case 8: // a renamed, emptied or duplicated key
            if let k = pick([.key]) {
                switch rng.below(3) {
                case 0 where k.range.count > 2: t[k.range.lowerBound + 1 + rng.below(k.range.count - 2)] = UInt8(ascii: "x")
                case 1: t.replaceSubrange(k.range, with: Array("\"\"".utf8))
                default: t.insert(contentsOf: Array(t[k.range]) + Array(":0,".utf8), at: k.range.lowerBound)
                }
            }
        case 9: // unicode, escapes and bytes that are not UTF-8, inside a string or anywhere
            let piece = insertions[rng.below(insertions.count)]
            if rng.chance(2, in: 3), let s = pick([.string, .key]), s.range.count > 1 {
                t.insert(contentsOf: piece, at: s.range.lowerBound + 1 + rng.below(s.range.count - 1))
            } else {
                t.insert(contentsOf: piece, at: rng.below(t.count + 1))
            }
        default: // structure: drop or double a bracket, a comma or a colon
            if let p = pick([.punctuation]) {
                if rng.chance(1, in: 2) { t.remove(at: p.range.lowerBound) } else { t.insert(t[p.range.lowerBound], at: p.range.lowerBound) }
            }
        }
        return t
    }

    // MARK: checks

    /// Why `message` is not one clear sentence about `source`, or nil.
    static func unclear(_ message: String, source: String) -> String? {
        if message.isEmpty { return "empty" }
        if message.contains(where: { $0.isNewline }) { return "more than one line" }
        if !message.contains(source) { return "does not name \(source)" }
        if message.contains("The given data was not valid JSON") { return "Foundation's bare sentence" }
        if message.contains("without saying which") { return "no field or position" }
        return nil
    }

    struct Counts: CustomStringConvertible {
        var tried = 0, decoded = 0, valid = 0, invalid = 0, refused = 0, unclear = 0
        /// No traps: a trap would have ended the process before this line.
        var description: String {
            "\(tried) inputs: \(decoded) decoded (\(valid) valid, \(invalid) with a problem), \(refused) refused with a clear sentence, \(unclear) unclear, 0 traps"
        }
    }

    static let inputsPerRun = 3000
    static let endToEnd = 300

    @Test("hostile variants of real documents decode, or are refused in one clear sentence; none traps")
    func fuzz() throws {
        let samples = try Self.samples()
        var rng = Xoshiro256(seed: 0x15_F022)
        var counts = Counts()
        var refusedFiles: [(kind: Kind, text: [UInt8])] = []
        var problems: [String] = []
        // Each kind of document in turn (there are many more driver messages than expectations
        // files), then one of its samples.
        let kinds = samples.map(\.kind.name).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        for n in 0..<Self.inputsPerRun {
            let ofKind = samples.filter { $0.kind.name == kinds[n % kinds.count] }
            let (kind, original) = ofKind[rng.below(ofKind.count)]
            var text = original
            for _ in 0..<(1 + (rng.chance(1, in: 4) ? rng.below(3) : 0)) { text = Self.mutate(text, &rng) }
            let source = "fuzz/\(kind.name)-\(n).json"
            counts.tried += 1
            do {
                let problem = try kind.read(Data(text), source)
                counts.decoded += 1
                if let problem {
                    counts.invalid += 1
                    if problem.isEmpty || problem.contains(where: { $0.isNewline }) { problems.append("input \(n): validation said '\(problem)'") }
                } else {
                    counts.valid += 1
                }
            } catch {
                if let why = Self.unclear(error.message, source: source) {
                    counts.unclear += 1
                    if problems.count < 20 { problems.append("input \(n) (\(kind.name)): \(why): \(error.message)") }
                } else {
                    counts.refused += 1
                    if kind.command != nil && refusedFiles.count < Self.endToEnd && n % 2 == 0 { refusedFiles.append((kind, text)) }
                }
            }
        }
        print("decoder fuzz: \(counts)")
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        #expect(counts.tried == Self.inputsPerRun && counts.decoded + counts.refused + counts.unclear == counts.tried)
        #expect(counts.refused > counts.tried / 2 && counts.decoded > 0, "the mutations reach both outcomes: \(counts)")

        // End to end, through the command line's entry: a trap anywhere on the way would end
        // this process. Each refused file gets status 2 and one sentence naming it.
        let folder = NSTemporaryDirectory() + "opconform-fuzz-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var ran = 0
        for (k, file) in refusedFiles.enumerated() {
            guard let command = file.kind.command else { continue }
            let path = folder + "/\(file.kind.name)-\(k).json"
            try Data(file.text).write(to: URL(fileURLWithPath: path))
            let console = CapturedConsole()
            let status = CLI.main(command(path), console: console)
            ran += 1
            let lines = console.stderr.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(status == 2, "\(path): status \(status): \(console.stderr)")
            #expect(lines.count == 3 && lines[0].hasPrefix("opconform: ") && lines[1] == "Run 'opconform --help' for usage.", "\(path): \(console.stderr)")
            if let first = lines.first { #expect(Self.unclear(String(first), source: path) == nil, "\(first)") }
        }
        print("decoder fuzz, end to end: \(ran) refused files through CLI.main, all status 2")
        #expect(ran == Self.endToEnd, "enough hostile files ran end to end: \(ran)")
    }
}
