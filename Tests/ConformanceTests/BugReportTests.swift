@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
@testable import ConformanceExport
import Foundation
import OperationSpec
import Testing

/// `Specs/implementations/*-bugs.md` (issue 20): one upstream report per bug-kind divergence.
/// A report is read by a maintainer who owes us nothing, so it must be whole (every bug entry
/// has one, with a quote, its reproducer and its replay line) and its quotes must be the
/// documents' own words: a misquote would be the first thing an upstream reviewer finds.
@Suite("Upstream bug reports")
struct BugReportTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// One `## RULE` section of a report: its rule and its lines.
    struct Section {
        let rule: String
        let lines: [String]
        /// `> “…” (004 2.4)` lines: the quoted text and its citation.
        var quotes: [(text: String, cite: String)] {
            lines.compactMap { line in
                guard line.hasPrefix("> “"), line.hasSuffix(")"), let close = line.range(of: "” (", options: .backwards) else { return nil }
                return (String(line[line.index(line.startIndex, offsetBy: 3)..<close.lowerBound]),
                        String(line[close.upperBound...].dropLast()))
            }
        }
    }

    /// The `## RULE` sections, one per bug entry; they end at the first top-level heading
    /// after them (`# Outside the queue`, `platformSections`).
    static func sections(_ path: String) throws -> [Section] {
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        var result: [Section] = []
        var rule: String?
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("# ") && rule != nil { break }
            if line.hasPrefix("## ") {
                if let rule { result.append(Section(rule: rule, lines: lines)) }
                rule = String(line.dropFirst(3).split(separator: " ").first ?? "")
                lines = []
            } else {
                lines.append(line)
            }
        }
        if let rule { result.append(Section(rule: rule, lines: lines)) }
        return result
    }

    @Test("each bug-kind entry has its report, in the expectations' order, with a quote, its reproducer and its replay line",
          arguments: [("gnustep", "m"), ("foundation-linux", "swift")])
    func reportsAreWhole(impl: String, ext: String) throws {
        let sections = try Self.sections("Specs/implementations/\(impl)-bugs.md")
        let bugs = try ReproducerExportTests.bugEntries(impl)
        #expect(sections.map(\.rule) == bugs.map(\.rule), "Specs/implementations/\(impl)-bugs.md has a section per bug entry of Fixtures/expectations/\(impl).json, in its order")
        for (section, bug) in zip(sections, bugs) {
            #expect(!section.quotes.isEmpty, "\(section.rule): no quote from the documents")
            #expect(section.lines.contains { $0.hasPrefix("**What the documents say.**") || $0.hasPrefix("**What is required.**") }, "\(section.rule)")
            #expect(section.lines.contains { $0.hasPrefix("**Believed cause.**") }, "\(section.rule): no believed cause")
            let reproducer = "Fixtures/reproducers/\(impl)/\(bug.rule).\(ext)"
            if ReproducerExportTests.unexportable[impl, default: []].contains(bug.rule) {
                #expect(section.lines.contains { $0.hasPrefix("**Reproducer.** None") }, "\(section.rule): export refuses it, and the report must say why")
            } else {
                #expect(section.lines.contains { $0.contains("(../../\(reproducer))") }, "\(section.rule): no link to \(reproducer)")
                #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(reproducer).path), "\(reproducer) is missing")
            }
            #expect(section.lines.contains("**Replay in the harness.** `opconform replay Fixtures/expectations/\(bug.finding)`"), "\(section.rule): no replay line")
            for quote in section.quotes {
                #expect(Document(rawValue: String(quote.cite.prefix(3))) != nil, "\(section.rule): \(quote.cite) names no seed document")
            }
            // A quote line that does not read `> “…” (cite)` would escape the verbatim check.
            let quoteLines = section.lines.filter { $0.hasPrefix(">") && $0 != ">" }
            #expect(quoteLines.count == section.quotes.count, "\(section.rule): a quote line is not of the form > “text” (cite)")
        }
    }

    /// The `### NAME` sections after the `# Outside the queue` heading: bugs of the platform that
    /// no rule finds, met by the harness itself, each with its smallest program.
    static func platformSections(_ path: String) throws -> [Section] {
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        guard let part = text.components(separatedBy: "\n# Outside the queue").dropFirst().first else {
            return []
        }
        var result: [Section] = []
        for chunk in part.components(separatedBy: "\n### ").dropFirst() {
            let lines = chunk.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            result.append(Section(rule: lines.first ?? "", lines: Array(lines.dropFirst())))
        }
        return result
    }

    /// The Swift programs of a section: the lines of each ```swift block.
    static func programs(_ section: Section) -> [String] {
        var programs: [String] = []
        var current: [String]?
        for line in section.lines {
            if line == "```swift" {
                current = []
            } else if line == "```", let lines = current {
                programs.append(lines.joined(separator: "\n") + "\n")
                current = nil
            } else {
                current?.append(line)
            }
        }
        return programs
    }

    @Test("each report outside the queue has its program, toolchain, what happens, Apple's word, cause and workaround")
    func platformReportsAreWhole() throws {
        let sections = try Self.platformSections("Specs/implementations/foundation-linux-bugs.md")
        #expect(sections.map(\.rule) == ["PATH-ONE-CHARACTER-TRAP", "PATH-DOUBLE-SLASH-NON-ASCII-TRAP",
                                          "DEPENDENT-RELEASED-USE-AFTER-FREE"])
        for section in sections {
            #expect(Self.programs(section).count == 1, "\(section.rule): one ```swift block, the smallest program")
            for heading in ["**Smallest program.**", "**Toolchain.**", "**What happens.**",
                            "**What Apple documents.**", "**Believed cause.**", "**Workaround.**"] {
                #expect(section.lines.contains { $0.hasPrefix(heading) }, "\(section.rule): no \(heading)")
            }
            #expect(section.lines.contains { $0.contains("(https://developer.apple.com/documentation/foundation/") },
                    "\(section.rule): no link to Apple's documentation")
        }
    }

    /// The day Foundation is fixed, the workaround's note (`PathText`) and the report are out of
    /// date: this test fails then, and says so. Each program is compiled and run in a child
    /// process, so its trap ends that process, not the tests.
    @Test("the toolchain still traps on each program of the reports outside the queue",
          .enabled(if: Self.isLinux, "the reports are of Foundation on Linux"),
          .enabled(if: Self.swiftc != nil, "no swiftc on PATH"))
    func toolchainStillTraps() throws {
        let swiftc = try #require(Self.swiftc)
        let folder = NSTemporaryDirectory() + "opconform-trap-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let sections = try Self.platformSections("Specs/implementations/foundation-linux-bugs.md")
        #expect(!sections.isEmpty)
        for (k, section) in sections.enumerated() {
            for program in Self.programs(section) {
                let source = folder + "/program\(k).swift", executable = folder + "/program\(k)"
                try program.write(toFile: source, atomically: true, encoding: .utf8)
                let (built, messages) = try SpawnedProcess.run([swiftc, source, "-o", executable],
                                                               environment: environment)
                try #require(built == .exited(0), "\(section.rule): its program does not compile: \(messages)")
                let (ending, output) = try SpawnedProcess.run([executable], environment: environment)
                let call = program.split(separator: "\n").last.map(String.init) ?? ""
                if case .signalled = ending { continue }
                let printed = output.trimmingCharacters(in: .whitespacesAndNewlines).prefix(200)
                let message: String = "the toolchain no longer traps on \(call) (\(section.rule): it ended \(ending), "
                    + "printing '\(printed)'): remove the workaround note in PathText / update the report "
                    + "in Specs/implementations/foundation-linux-bugs.md"
                Issue.record(Comment(rawValue: message))
            }
        }
    }

    static var isLinux: Bool {
        #if os(Linux)
        true
        #else
        false
        #endif
    }

    /// The Swift compiler on PATH, as the tests' own toolchain puts it there.
    static var swiftc: String? { try? DriverLaunch.resolve("swiftc").executable }

    /// Markdown links of a seed document as their text (`[isReady](https://…)` reads "isReady"),
    /// and every run of white space as one space: what a reader of the rendered document sees.
    static func readable(_ text: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "[") {
            out += rest[..<open]
            let after = rest[rest.index(after: open)...]
            if let close = after.firstIndex(of: "]"), after[after.index(after: close)...].hasPrefix("("),
               let end = after[close...].firstIndex(of: ")") {
                out += after[..<close]
                rest = after[after.index(after: end)...]
            } else {
                out += "["
                rest = after
            }
        }
        out += rest
        return out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// The seed documents sit beside the clone (../shared/seeds), not in it: a clone without
    /// them cannot check quotes, and says so by skipping the test.
    static let seeds = root.deletingLastPathComponent().appendingPathComponent("shared/seeds")

    @Test("every quote is the cited document's own words (each piece between elisions, in order)",
          .enabled(if: FileManager.default.fileExists(atPath: seeds.path), "the seed documents are not beside this clone (../shared/seeds)"),
          arguments: ["gnustep", "foundation-linux"])
    func quotesAreVerbatim(impl: String) throws {
        let seeds = Self.seeds
        var documents: [String: String] = [:]
        for doc in Document.allCases {
            documents[doc.rawValue] = Self.readable(try String(contentsOf: seeds.appendingPathComponent(doc.file), encoding: .utf8))
        }
        var checked = 0
        for section in try Self.sections("Specs/implementations/\(impl)-bugs.md") {
            for quote in section.quotes {
                let document = try #require(documents[String(quote.cite.prefix(3))], "\(section.rule): \(quote.cite)")
                var from = document.startIndex
                for piece in quote.text.components(separatedBy: "…") {
                    let words = piece.split(whereSeparator: \.isWhitespace).joined(separator: " ")
                    guard !words.isEmpty else { continue }
                    let found = document.range(of: words, range: from..<document.endIndex)
                    #expect(found != nil, "\(section.rule): “\(words)” is not in \(quote.cite.prefix(3)) (after the quote's earlier pieces)")
                    if let found { from = found.upperBound }
                }
                checked += 1
            }
        }
        #expect(checked > 0)
    }
}
