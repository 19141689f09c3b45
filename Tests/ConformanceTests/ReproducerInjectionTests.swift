import Conformance
import ConformanceExport
import Foundation
import OperationSpec
import Testing

/// Generated source never carries raw input (issue 28): a finding whose every string holds what
/// ends a comment or a literal in Swift or C exports to reproducers in which all of it is inert
/// text, and which still compile. Each injected piece of code carries the marker `INJECTED` where
/// it would be code if it got out; a small lexer of each language finds every marker inside a
/// comment or a string literal, and the compilers (swiftc, and gcc with GNUstep when it is
/// installed) accept the files.
@Suite("Reproducers carry no raw input")
struct ReproducerInjectionTests {
    /// What breaks out of a comment or a string in Swift or C, each followed by code: line
    /// breaks of every kind, `*/`, a backslash splice (`*\`, newline, `/`), the trigraph `??/`,
    /// quotes, interpolation, raw-string and format syntax, NUL, a character outside ASCII, and
    /// a backslash at the very end.
    static let hostile = "x\nINJECTED()\n y\r INJECTED()\r */ INJECTED(); /* *\\\n/ INJECTED(); /* ??/\nINJECTED();"
        + " \" INJECTED() \" \\\" INJECTED() \\(INJECTED()) \"# INJECTED() #\" %@ %s %n \0 INJECTED()"
        + " \u{2028} INJECTED() \u{2029} INJECTED() \u{85} é ??= //\\"

    /// The same for a queue name, which may hold no control character and at most 64.
    static let hostileQueue = "q\"INJECTED()\\(INJECTED())*/INJECTED();/*??/\u{2028}%@#\"é\\"

    /// Findings whose strings are all hostile: a RUN-HANG (the message reaches the claim too)
    /// and a QUEUE-THREAD-NAME-SET (a queue name reaches code as a literal), both on a driver
    /// named by a hostile path, the second exported from a hostile finding path.
    static func findings() throws -> [(finding: Finding, file: String?)] {
        var hang = try ReproducerExportTests.finding("Fixtures/expectations/foundation-linux/RUN-HANG.json")
        hang.message = "hang: " + hostile + "; required: every call returns and the run ends"
        hang.impl = hostile
        hang.driver = DriverLaunch(executable: "/drivers/" + hostile, arguments: [hostile, "--x"])
        var named = hang
        named.rule = "QUEUE-THREAD-NAME-SET"
        named.message = "a worker thread of queue 0 " + hostile
        named.scenario.queues[0].name = hostileQueue
        #expect(named.scenario.problems().isEmpty, "the hostile queue name is one a scenario may hold")
        return [(hang, nil), (named, "findings/" + hostile + ".json")]
    }

    /// Every export of the findings: two Swift Testing, two XCTest, two Objective-C.
    static func exports() throws -> [(style: Reproducer.Style, text: String)] {
        var out: [(Reproducer.Style, String)] = []
        for (finding, file) in try findings() {
            for style in Reproducer.Style.allCases {
                out.append((style, try Reproducer.export(finding, as: style, file: file).text))
            }
        }
        return out
    }

    @Test("every hostile string is inert: only printable ASCII and line feeds, every marker in a comment or a literal")
    func markersAreInert() throws {
        for (style, text) in try Self.exports() {
            Self.expectInert(text, style: style)
        }
    }

    @Test("a queue name reaches the program exactly: its literal reads back as the name")
    func literalsAreExact() throws {
        let (named, _) = try Self.findings()[1]
        let swift = try Reproducer.export(named, as: .swiftTesting).text
        let swiftLine = try #require(swift.split(separator: "\n").first { $0.contains("run.queues[0].name = ") })
        let swiftLiteral = String(swiftLine.split(separator: "=", maxSplits: 1)[1].dropFirst())
        #expect(Self.swiftValue(swiftLiteral) == Self.hostileQueue)
        let objc = try Reproducer.export(named, as: .objc).text
        let objcLine = try #require(objc.split(separator: "\n").first { $0.contains("[Q(0) setName: ") })
        #expect(objcLine.contains("initWithBytes:") && objcLine.contains("encoding: NSUTF8StringEncoding"))
        let cLiteral = String(objcLine.drop { $0 != "\"" })
        let length = try #require(objcLine.range(of: "length: ").map {
            Int(objcLine[$0.upperBound...].prefix { $0.isNumber })
        })
        let bytes = Self.cBytes(cLiteral)
        #expect(bytes.count == length && String(decoding: bytes, as: UTF8.self) == Self.hostileQueue)
    }

    @Test("the Swift reproducers typecheck (swiftc -typecheck, Swift 6, warnings as errors)",
          .enabled(if: Self.tool("swiftc") != nil, "needs swiftc on PATH"))
    func swiftCompiles() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var files: [String] = []
        for (k, (style, text)) in try Self.exports().enumerated() where style != .objc {
            files.append(dir + "/repro\(k).swift")
            try Data(text.utf8).write(to: URL(fileURLWithPath: files.last!))
        }
        let result = try Self.run([Self.tool("swiftc")!, "-typecheck", "-parse-as-library", "-swift-version", "6",
                                   "-warnings-as-errors"] + files)
        #expect(result.status == 0, "swiftc refused the reproducers:\n\(result.output)")
    }

    @Test("the Objective-C reproducers compile with GNUstep (gcc -fsyntax-only, -Wall, warnings as errors)",
          .enabled(if: Self.tool("gnustep-config") != nil && Self.tool("gcc") != nil,
                   "needs GNUstep: apt-get install gobjc libgnustep-base-dev"))
    func objcCompiles() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var files: [String] = []
        for (k, (style, text)) in try Self.exports().enumerated() where style == .objc {
            files.append(dir + "/repro\(k).m")
            try Data(text.utf8).write(to: URL(fileURLWithPath: files.last!))
        }
        // The flags as .ci/reproducers.sh passes them (without the dependency-file options).
        let flags = try Self.run([Self.tool("gnustep-config")!, "--objc-flags"]).output
            .split(whereSeparator: \.isWhitespace).map(String.init).filter { $0 != "-MMD" && $0 != "-MP" }
        let result = try Self.run([Self.tool("gcc")!, "-fsyntax-only", "-Wall", "-Werror"] + flags + files)
        #expect(result.status == 0, "gcc refused the reproducers:\n\(result.output)")
    }

    @Test("opconform export: a hostile finding at a hostile path writes inert source; an unknown impl is refused")
    func command() throws {
        var finding = try ReproducerExportTests.finding("Fixtures/expectations/foundation-linux/RUN-HANG.json")
        finding.message = "hang: " + Self.hostile + "; required: every call returns and the run ends"
        // Folders whose names end in `*\` and a newline, and in `??`: the path holds the C splices.
        let scratch = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let dir = scratch + "/d\nINJECTED()\r*\\\n/??"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/f\u{2028}INJECTED();\n.json"
        try FindingFile.encode(finding).write(to: URL(fileURLWithPath: path))
        for style in Reproducer.Style.allCases {
            let written = opconform("export", path, "--as", style.rawValue)
            #expect(written.status == 0, "\(written.err)")
            #expect(written.out.contains("opconform replay '"), "the replay line names the file")
            Self.expectInert(written.out, style: style)
        }
        // As replay refuses it (there is no such implementation, and no driver to start).
        finding.impl = "gnustep\nINJECTED()"
        let plain = temporaryFile(String(decoding: FindingFile.encode(finding), as: UTF8.self))
        defer { try? FileManager.default.removeItem(atPath: plain) }
        let refused = opconform("export", plain, "--as", "objc")
        #expect(refused.status == 2 && refused.out.isEmpty)
        let lines = refused.err.split(separator: "\n")
        let sentence = "its impl 'gnustep\\nINJECTED()' is not an implementation of this build"
        #expect(lines.count == 2 && lines[0].contains(sentence),
                "one sentence: \(refused.err)")
    }

    // MARK: - Checks

    /// The text holds only printable ASCII and line feeds (no other line break, NUL or
    /// character a compiler might read differently), and every marker is outside code.
    static func expectInert(_ text: String, style: Reproducer.Style,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        let bytes = Array(text.utf8)
        let odd = bytes.firstIndex { $0 != 0x0A && !(0x20...0x7E).contains($0) }
        #expect(odd == nil, "\(style.rawValue): byte \(odd.map { bytes[$0] } ?? 0) at \(odd ?? 0) is not printable",
                sourceLocation: sourceLocation)
        let source = style == .objc ? cPhases(bytes) : bytes
        let code = style == .objc ? cCode(source) : swiftCode(source)
        let marker = Array("INJECTED".utf8)
        var found = 0
        for i in source.indices where source[i...].starts(with: marker) {
            found += 1
            if code[i] {
                let start = source[..<i].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
                let end = source[i...].firstIndex(of: 0x0A) ?? source.count
                let line = String(decoding: source[start..<end], as: UTF8.self)
                Issue.record("\(style.rawValue): injected code got out: \(line)",
                             sourceLocation: sourceLocation)
            }
        }
        #expect(found >= 5, "\(style.rawValue): the hostile strings reached the output (\(found) markers)",
                sourceLocation: sourceLocation)
    }

    /// Which bytes of Swift source are code: not in a comment (line, or block, which nests) or a
    /// string literal (single-line, or multi-line).
    static func swiftCode(_ s: [UInt8]) -> [Bool] {
        enum State { case code, line, block(Int), string, multiline }
        var code = [Bool](repeating: false, count: s.count), state = State.code, i = 0
        func at(_ k: Int, _ text: String) -> Bool { s[k...].starts(with: Array(text.utf8)) }
        while i < s.count {
            switch state {
            case .code:
                if at(i, "//") { state = .line; i += 2; continue }
                if at(i, "/*") { state = .block(1); i += 2; continue }
                if at(i, "\"\"\"") { state = .multiline; i += 3; continue }
                if at(i, "\"") { state = .string; i += 1; continue }
                code[i] = true
            case .line:
                if s[i] == 0x0A { state = .code; code[i] = true }
            case .block(let depth):
                if at(i, "/*") { state = .block(depth + 1); i += 2; continue }
                if at(i, "*/") { state = depth == 1 ? .code : .block(depth - 1); i += 2; continue }
            case .string:
                if at(i, "\\") { i += 2; continue }
                if at(i, "\"") || s[i] == 0x0A { state = .code }
            case .multiline:
                if at(i, "\\") { i += 2; continue }
                if at(i, "\"\"\"") { state = .code; i += 3; continue }
            }
            i += 1
        }
        return code
    }

    /// C source after translation phases 1 and 2 at their most permissive: trigraphs replaced
    /// (as with -trigraphs), and lines spliced at a backslash followed by blanks and a newline
    /// (gcc splices across the blanks).
    static func cPhases(_ s: [UInt8]) -> [UInt8] {
        let trigraphs: [UInt8: UInt8] = [UInt8(ascii: "="): UInt8(ascii: "#"), UInt8(ascii: "/"): UInt8(ascii: "\\"),
                                         UInt8(ascii: "'"): UInt8(ascii: "^"), UInt8(ascii: "("): UInt8(ascii: "["),
                                         UInt8(ascii: ")"): UInt8(ascii: "]"), UInt8(ascii: "!"): UInt8(ascii: "|"),
                                         UInt8(ascii: "<"): UInt8(ascii: "{"), UInt8(ascii: ">"): UInt8(ascii: "}"),
                                         UInt8(ascii: "-"): UInt8(ascii: "~")]
        var one: [UInt8] = [], i = 0
        while i < s.count {
            if i + 2 < s.count, s[i] == UInt8(ascii: "?"), s[i + 1] == UInt8(ascii: "?"), let t = trigraphs[s[i + 2]] {
                one.append(t); i += 3
            } else {
                one.append(s[i]); i += 1
            }
        }
        var two: [UInt8] = []
        i = 0
        while i < one.count {
            if one[i] == UInt8(ascii: "\\") {
                var j = i + 1
                while j < one.count, one[j] == 0x20 || one[j] == 0x09 { j += 1 }
                if j < one.count, one[j] == 0x0A { i = j + 1; continue }
            }
            two.append(one[i]); i += 1
        }
        return two
    }

    /// Which bytes of C source (after `cPhases`) are code: not in a comment or a string or
    /// character literal.
    static func cCode(_ s: [UInt8]) -> [Bool] {
        enum State { case code, line, block, string, character }
        var code = [Bool](repeating: false, count: s.count), state = State.code, i = 0
        func at(_ k: Int, _ text: String) -> Bool { s[k...].starts(with: Array(text.utf8)) }
        while i < s.count {
            switch state {
            case .code:
                if at(i, "//") { state = .line; i += 2; continue }
                if at(i, "/*") { state = .block; i += 2; continue }
                if at(i, "\"") { state = .string; i += 1; continue }
                if at(i, "'") { state = .character; i += 1; continue }
                code[i] = true
            case .line:
                if s[i] == 0x0A { state = .code; code[i] = true }
            case .block:
                if at(i, "*/") { state = .code; i += 2; continue }
            case .string, .character:
                if at(i, "\\") { i += 2; continue }
                let closes = state == .string ? at(i, "\"") : at(i, "'")
                if closes || s[i] == 0x0A { state = .code }
            }
            i += 1
        }
        return code
    }

    /// The value of a Swift string literal as `SwiftSource` writes them.
    static func swiftValue(_ literal: String) -> String? {
        var scalars = Array(literal.unicodeScalars)
        guard scalars.count >= 2, scalars.first == "\"", scalars.last == "\"" else { return nil }
        scalars = Array(scalars.dropFirst().dropLast())
        var out = String.UnicodeScalarView(), i = 0
        while i < scalars.count {
            guard scalars[i] == "\\", i + 1 < scalars.count else { out.append(scalars[i]); i += 1; continue }
            switch scalars[i + 1] {
            case "n": out.append("\n")
            case "r": out.append("\r")
            case "t": out.append("\t")
            case "0": out.append("\0")
            case "u":
                guard let close = scalars[i...].firstIndex(of: "}"),
                      let value = UInt32(String(String.UnicodeScalarView(scalars[(i + 3)..<close])), radix: 16),
                      let scalar = Unicode.Scalar(value) else { return nil }
                out.append(scalar)
                i = close + 1
                continue
            default: out.append(scalars[i + 1])
            }
            i += 2
        }
        return String(out)
    }

    /// The bytes of the first C string literal in `text` (escapes: `\\`, `\"`, `\?`, octal).
    static func cBytes(_ text: String) -> [UInt8] {
        let s = Array(text.utf8)
        var out: [UInt8] = [], i = 1
        while i < s.count, s[i] != UInt8(ascii: "\"") {
            guard s[i] == UInt8(ascii: "\\") else { out.append(s[i]); i += 1; continue }
            if let value = UInt8(String(decoding: s[(i + 1)..<min(i + 4, s.count)], as: UTF8.self), radix: 8) {
                out.append(value); i += 4
            } else {
                out.append(s[i + 1]); i += 2
            }
        }
        return out
    }

    // MARK: - Tools

    /// The path of a program on PATH, if it is there.
    static func tool(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { $0 + "/" + name }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// A fresh folder of its own under the temporary folder.
    static func scratch() throws -> String {
        let dir = NSTemporaryDirectory() + "opconform-injection-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Runs a program to its end: its exit status, and its standard output and error together.
    static func run(_ command: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
