import Foundation
import Testing

/// The harness's shape, held by tests (issue 46): lines of at most 120 columns, functions of at
/// most 80 lines except the tables, and public surfaces that change only on purpose.
///
/// Each reads the sources as text, so that it fails on the change that broke it, whatever the
/// compiler thinks of it; the compiler holds the rest (the targets' dependencies only forward,
/// `package` for what no product's user calls).
@Suite("The harness's shape")
struct SourceShapeTests {
    static let sources = SpecsDriftTests.root.appendingPathComponent("Sources")

    /// The products a user links whose public declarations are listed in `Specs/public-surface/`.
    static let listedModules = [
        "OperationDriverKit", "ConformanceFormats", "ConformanceGeneration", "ConformanceRunning",
        "ConformanceShrinking", "Conformance", "ConformanceReports", "ConformanceExport", "ConformanceTesting",
    ]

    /// Functions that are tables: one switch with a case or a few lines per kind of event, action
    /// or request, read best whole. Each is named by its file and first line.
    static let tables = [
        "ConformanceFormats/Trace/TraceDecoder.swift: func kind(_ node: Node, _ path: Path)",
        "ConformanceFormats/Scenario/ScenarioDecoder.swift: func action(_ node: Node, _ path: Path)",
        "ConformanceRunning/Adapters/EventLine.swift: static func kind(_ node: Node) -> EventKind?",
        "OperationDriverKit/EventLineWriter.swift: private static func kind(_ kind: EventKind",
        "OperationDriverKit/DriverContext+Drive.swift: private func perform(_ action: DriverAction)",
        "OperationDriverKit/DriverContext.swift: private func perform(_ step: Step, this: Int)",
        "ConformanceExport/ObjCReproducer.swift: private mutating func runOnce()",
        "ConformanceExport/SwiftReproducer.swift: private mutating func runOnce()",
        "ConformanceExport/RuleClaims.swift: static func claims(rule: String",
        "ReferenceEngine/Simulation+Calls.swift: func perform(_ action: DriverAction)",
    ]

    static func swiftFiles(under folder: URL = sources) -> [(path: String, lines: [String])] {
        let names = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        return names.sorted().filter { $0.hasSuffix(".swift") }.compactMap { name in
            guard let text = try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8) else {
                return nil
            }
            return (name, text.components(separatedBy: "\n"))
        }
    }

    @Test("no line in Sources is over 120 columns, but the statement table's")
    func lineLength() {
        var long: [String] = []
        for file in Self.swiftFiles() where !file.path.hasSuffix("NormativeStatements.swift") {
            for (n, line) in file.lines.enumerated() where line.count > 120 {
                long.append("\(file.path):\(n + 1): \(line.count) columns")
            }
        }
        let shown = long.prefix(20).joined(separator: "\n")
        #expect(long.isEmpty, "lines over 120 columns (break the statement, or split the string):\n\(shown)")
        #expect(Self.swiftFiles().count > 150, "the sources were not found at \(Self.sources.path)")
    }

    @Test("no function in Sources is over 80 lines, but the tables")
    func functionLength() {
        let over = Self.swiftFiles().flatMap { file in
            Self.longFunctions(file.lines).map { (signature, lines) in
                (name: "\(file.path): \(signature)", lines: lines)
            }
        }
        let untabled = over.filter { f in !Self.tables.contains { f.name.hasPrefix($0) } }
        let shown = untabled.map { "\($0.lines) lines: \($0.name)" }.joined(separator: "\n")
        #expect(untabled.isEmpty, "functions over 80 lines (cut them into named phases):\n\(shown)")
        // A table that is no longer long is struck from the list, so that it holds only tables.
        let stale = Self.tables.filter { t in !over.contains { $0.name.hasPrefix(t) } }
        #expect(stale.isEmpty, "no longer over 80 lines, so not a table to exempt: \(stale)")
    }

    /// Functions (and initializers, subscripts) over 80 lines, by their first line, trimmed:
    /// counted from the line that opens the body to the line that closes it; a nested function
    /// counts in its parent's lines. String literals' braces do not count.
    static func longFunctions(_ lines: [String]) -> [(String, Int)] {
        let declaration = #/^\s*(@\w+(\([^)]*\))?\s+)*((public|private|fileprivate|internal|package|static|class|override|mutating|nonmutating|final|nonisolated)\s+)*(func|init|deinit|subscript)\b/#
        func code(_ line: String) -> String {
            let noStrings = line.replacing(#/"(\\.|[^"\\])*"/#, with: "\"\"")
            return noStrings.components(separatedBy: "//").first ?? noStrings
        }
        var found: [(String, Int)] = []
        var i = 0
        while i < lines.count {
            guard lines[i].firstMatch(of: declaration) != nil else { i += 1; continue }
            var open = i
            while open < lines.count, open < i + 12, !code(lines[open]).trimmingCharacters(in: .whitespaces)
                .hasSuffix("{") { open += 1 }
            var depth = 0, started = false, end = open
            scan: while end < lines.count {
                for c in code(lines[end]) {
                    if c == "{" { depth += 1; started = true } else if c == "}" { depth -= 1 }
                    if started && depth <= 0 { break scan }
                }
                if !started && end > i + 8 { break }
                end += 1
            }
            guard started else { i += 1; continue }
            let count = end - open + 1
            if count > 80 {
                found.append((lines[i].trimmingCharacters(in: .whitespaces), count))
            }
            i = end + 1
        }
        return found
    }

    /// Every public declaration of `module`, one line each: the types it sits in, then its first
    /// line as written. Sorted, so that the list is the same on every machine.
    static func publicSurface(_ module: String) -> [String] {
        let typeLine = #/^(\s*)(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|final|indirect)\s+)*(?:struct|enum|class|protocol|actor|extension)\s+([A-Za-z_][\w.]*)/#
        let publicLine = #/^\s*(?:@\w+(?:\([^)]*\))?\s+)*public\b/#
        var surface: [String] = []
        for file in swiftFiles(under: sources.appendingPathComponent(module)) {
            var enclosing: [(indent: Int, name: String)] = []
            var inMultiLineString = false
            for line in file.lines where !line.trimmingCharacters(in: .whitespaces).isEmpty {
                let quotes = line.components(separatedBy: "\"\"\"").count - 1
                defer { if quotes % 2 == 1 { inMultiLineString.toggle() } }
                if inMultiLineString { continue }
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                let indent = line.prefix { $0 == " " }.count
                while let last = enclosing.last, indent < last.indent { enclosing.removeLast() }
                if let last = enclosing.last, indent == last.indent, trimmed.hasPrefix("}") {
                    enclosing.removeLast()
                    continue
                }
                if line.firstMatch(of: publicLine) != nil {
                    let path = enclosing.map(\.name).joined(separator: ".")
                    var text = line.trimmingCharacters(in: .whitespaces)
                    if text.hasSuffix("{") { text = String(text.dropLast()).trimmingCharacters(in: .whitespaces) }
                    surface.append(path.isEmpty ? text : path + ": " + text)
                }
                if let match = line.firstMatch(of: typeLine), line.hasSuffix("{") {
                    enclosing.append((match.output.1.count, String(match.output.2)))
                }
            }
        }
        return surface.sorted()
    }

    static func surfaceFile(_ module: String) -> URL {
        SpecsDriftTests.root.appendingPathComponent("Specs/public-surface/\(module).txt")
    }

    /// `OPCONFORM_RECORD_SURFACE=1 swift test --filter SourceShapeTests` writes the lists anew, for
    /// a change to a surface made on purpose (the diff is then the change, for review).
    @Test("each product's public declarations are the ones Specs/public-surface lists", arguments: listedModules)
    func publicSurface(module: String) throws {
        let now = Self.publicSurface(module)
        let file = Self.surfaceFile(module)
        if ProcessInfo.processInfo.environment["OPCONFORM_RECORD_SURFACE"] == "1" {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try (now.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
            return
        }
        let listed = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n").filter { !$0.isEmpty }
        let added = now.filter { !listed.contains($0) }
        let removed = listed.filter { !now.contains($0) }
        #expect(added.isEmpty, """
            \(module) declares public what Specs/public-surface/\(module).txt does not list: \
            declare it package if only this package uses it, or list it (OPCONFORM_RECORD_SURFACE=1) \
            and say in the README what it offers:
            \(added.prefix(20).joined(separator: "\n"))
            """)
        #expect(removed.isEmpty, """
            \(module) no longer declares what Specs/public-surface/\(module).txt lists (a user's code \
            may call it: say so in CHANGELOG.md, then record the list again):
            \(removed.prefix(20).joined(separator: "\n"))
            """)
        #expect(now.count > 0, "no public declaration found in Sources/\(module)")
    }
}
