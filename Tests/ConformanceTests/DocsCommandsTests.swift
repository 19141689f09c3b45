import Conformance
import Foundation
import Testing

/// The commands a guide under Docs/ shows are run as shown, so that none goes stale (issue 31's
/// CI recipe; issue 32 asks the same of every guide).
@Suite("Commands in the guides")
struct DocsCommandsTests {
    /// The `opconform` lines of a guide's `sh` blocks, as argument lists (no quoting is used in
    /// them), with `$OUT` standing for a fresh folder and `Fixtures/` for the package's.
    static func commands(in guide: String, out: String) throws -> [[String]] {
        let text = try String(contentsOf: SpecsDriftTests.root.appendingPathComponent(guide), encoding: .utf8)
        var lines: [String] = [], inBlock = false
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("```") { inBlock = line == "```sh"; continue }
            if inBlock && line.hasPrefix("opconform ") { lines.append(line) }
        }
        let fixtures = SpecsDriftTests.root.appendingPathComponent("Fixtures").path
        return lines.map { line in
            line.replacingOccurrences(of: "$OUT", with: out).split(separator: " ").dropFirst()
                .map { $0.hasPrefix("Fixtures/") ? fixtures + $0.dropFirst("Fixtures".count) : String($0) }
        }
    }

    @Test("Docs/ci-shards.md: four gate shards on Foundation, merged into one passing gate with its reports")
    func ciShards() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("opconform-docs-\(getpid())").path
        try? FileManager.default.removeItem(atPath: out)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: out) }
        let commands = try Self.commands(in: "Docs/ci-shards.md", out: out)
        #expect(commands.count == 5)
        // As a user runs them: the built opconform, whose Foundation driver is itself.
        var last = ""
        for args in commands {
            let (status, output) = try builtOpconform(args)
            last = output
            #expect(status == 0, "opconform \(args.joined(separator: " ")): exit \(status)\n\(output)")
        }
        #expect(last.contains("seed 1: shards 1, 2, 3, 4 of 4, 200 of 200 cases") && last.contains("gate passed"), "\(last)")
        for file in ["conformance.json", "conformance.xml", "conformance-html/index.html"] {
            #expect(FileManager.default.fileExists(atPath: out + "/" + file), "\(file)")
        }
    }
}
