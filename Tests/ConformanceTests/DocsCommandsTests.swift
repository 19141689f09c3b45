import Conformance
import Synchronization
import Foundation
import Testing

/// The commands the README and the guides under Docs/ show are run as shown, so that none goes
/// stale (issue 32: "every command in README and Docs runs in a test").
///
/// A command is a line of an `sh` block. An `opconform` line (or `swift run [-c release]
/// opconform`) is run here with the built opconform, from a folder that holds the package's
/// `Fixtures/`, `Examples/` and `Drivers/`, and its exit status is checked against the line's
/// comment (`# exits 1`; 0 when the comment says nothing). Every other line (a build, `swift
/// test`), and every line after a `cd Examples/X` in its block, is a command CI runs: it must be
/// one of `.ci/run`'s, or of that example's `check.sh`, where a token of the script's that is a
/// shell variable stands for any word.
@Suite("Commands in the README and the guides")
struct DocsCommandsTests {
    /// One command of a document, where it is, and what it must do.
    struct DocumentCommand: CustomStringConvertible, Sendable {
        let file: String
        let line: Int
        /// The words of the command, `opconform` first for the harness's own.
        let words: [String]
        /// The folder a `cd` in the block moved to, relative to the package; nil for its root.
        let folder: String?
        let expectedStatus: Int32
        var description: String { "\(file):\(line): \(words.joined(separator: " "))" }
        var isOpconform: Bool { words.first == "opconform" }
    }

    /// The documents whose `sh` blocks are commands.
    static var documents: [String] {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: SpecsDriftTests.root.appendingPathComponent("Docs").path)) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "Docs/" + $0 }
    }

    static func commands(of document: String) throws -> [DocumentCommand] {
        let text = try String(contentsOf: SpecsDriftTests.root.appendingPathComponent(document), encoding: .utf8)
        var result: [DocumentCommand] = []
        var inBlock = false, folder: String?
        for (index, raw) in text.components(separatedBy: "\n").enumerated() {
            if raw.hasPrefix("```") { inBlock = raw == "```sh"; folder = nil; continue }
            guard inBlock else { continue }
            var line = raw, comment = ""
            if let hash = line.range(of: " # ") {
                comment = String(line[hash.upperBound...])
                line = String(line[..<hash.lowerBound])
            }
            var words = Self.words(line)
            guard !words.isEmpty, !line.hasPrefix("#") else { continue }
            if words.count == 2 && words[0] == "cd" { folder = words[1]; continue }
            // `swift run [-c release] [-q] opconform ...` is opconform as a user without it on PATH runs it.
            if words.starts(with: ["swift", "run"]), let at = words.firstIndex(of: "opconform") {
                words = Array(words[at...])
            }
            var status: Int32 = 0
            if let match = comment.firstMatch(of: /exits? (\d+)/) { status = Int32(match.1) ?? 0 }
            result.append(DocumentCommand(file: document, line: index + 1, words: words, folder: folder,
                                          expectedStatus: status))
        }
        return result
    }

    /// A command line's words as a shell splits them: at blanks outside quotes, the quotes
    /// removed (no other expansion).
    static func words(_ line: String) -> [String] {
        var words: [String] = [], word = "", quote: Character?, inWord = false
        for ch in line {
            if let q = quote {
                if ch == q { quote = nil } else { word.append(ch) }
            } else if ch == "'" || ch == "\"" {
                quote = ch; inWord = true
            } else if ch == " " || ch == "\t" {
                if inWord { words.append(word); word = ""; inWord = false }
            } else {
                word.append(ch); inWord = true
            }
        }
        if inWord { words.append(word) }
        return words
    }

    /// The commands a CI script runs, each as its words: continued lines joined, `"$opconform"`
    /// read as `opconform`.
    static func scriptCommands(_ path: String) throws -> [[String]] {
        let text = try String(contentsOf: SpecsDriftTests.root.appendingPathComponent(path), encoding: .utf8)
        return text.replacingOccurrences(of: "\\\n", with: " ").components(separatedBy: "\n").map { line in
            words(line).map { $0 == "$opconform" ? "opconform" : $0 }
        }
    }

    /// Whether `words` occur in a row in one of the script's commands, where the script's
    /// shell variables stand for any word.
    static func script(_ commands: [[String]], runs words: [String]) -> Bool {
        commands.contains { line in
            guard line.count >= words.count else { return false }
            return (0...(line.count - words.count)).contains { start in
                zip(line[start...], words).allSatisfy { script, doc in
                    script == doc || script.hasPrefix("\"$") || script.hasPrefix("$")
                }
            }
        }
    }

    @Test("the README and the guides show commands, and none uses pipes, redirections or a second command")
    func commandsAreShown() throws {
        let all = try Self.documents.flatMap(Self.commands(of:))
        #expect(Self.documents.count >= 10, "\(Self.documents)")
        #expect(all.filter(\.isOpconform).count >= 25, "\(all.count)")
        for command in all {
            let bad = command.words.filter { ["|", ">", "<", "&&", ";", "2>&1"].contains($0) }
            #expect(bad.isEmpty, "\(command): a shown command is run word by word; leave out \(bad)")
        }
        for document in Self.documents where document != "Docs/README.md" && document != "Docs/ci-shards.md" {
            #expect(all.contains { $0.file == document }, "\(document) shows no command in an sh block")
        }
    }

    @Test("every command that builds or runs an example is one CI runs")
    func ciRunsTheBuilds() throws {
        let all = try Self.documents.flatMap(Self.commands(of:))
        let ci = try Self.scriptCommands(".ci/run")
        for command in all where !command.isOpconform || command.folder != nil {
            let script = command.folder.map { "\($0)/check.sh" } ?? ".ci/run"
            let commands = try command.folder == nil ? ci : Self.scriptCommands(script)
            #expect(Self.script(commands, runs: command.words), "\(command): not run by \(script); run it there, or show what it runs")
            if let folder = command.folder {
                #expect(Self.script(ci, runs: ["bash", "\(folder)/check.sh"]), "\(command): .ci/run does not run \(script)")
            }
        }
    }

    @Test("every opconform command of the README and the guides runs as shown, with the exit status shown")
    func opconformCommandsRun() throws {
        let all = try Self.documents.filter { $0 != "Docs/ci-shards.md" }.flatMap(Self.commands(of:))
            .filter { $0.isOpconform && $0.folder == nil }
        // Each command once (the README and a guide may show the same one).
        var seen = Set<String>(), unique: [DocumentCommand] = []
        for command in all where seen.insert(command.words.joined(separator: " ")).inserted { unique.append(command) }
        let commands = unique
        let root = SpecsDriftTests.root.path
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("opconform-docs-run-\(getpid())").path
        try? FileManager.default.removeItem(atPath: work)
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        for part in ["Fixtures", "Examples", "Drivers"] {
            try FileManager.default.createSymbolicLink(atPath: work + "/" + part, withDestinationPath: root + "/" + part)
        }
        // A document's commands in order, with one $OUT (a replay may store what a check reads);
        // two documents at a time: most commands wait on child processes, and the machine has two cores.
        let documents = Self.documents.filter { document in commands.contains { $0.file == document } }
        let results = Mutex<[(DocumentCommand, Int32, String)]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { lane in
            for (index, document) in documents.enumerated() where index % 2 == lane {
                let out = work + "/out-\(index)"
                try? FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
                for command in commands where command.file == document {
                    let arguments = command.words.dropFirst().map { $0.replacingOccurrences(of: "$OUT", with: out) }
                    let outcome = (try? builtOpconform(Array(arguments), in: work)) ?? (-1, "could not start opconform")
                    results.withLock { $0.append((command, outcome.0, outcome.1)) }
                }
            }
        }
        let finished = results.withLock { $0 }
        #expect(finished.count == commands.count)
        for (command, status, output) in finished {
            #expect(status == command.expectedStatus,
                    "\(command): exit \(status), the document says \(command.expectedStatus)\n\(output.suffix(3000))")
        }
    }

    @Test("every relative link of the README, the guides and the Specs leads to a file")
    func linksLead() throws {
        let root = SpecsDriftTests.root
        var files = Self.documents
        for folder in ["Specs", "Specs/implementations"] {
            let names = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)
            files += names.filter { $0.hasSuffix(".md") }.sorted().map { "\(folder)/\($0)" }
        }
        var checked = 0
        for file in files {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            let base = root.appendingPathComponent(file).deletingLastPathComponent()
            for match in text.matches(of: /\]\(([^)\s]+)\)/) {
                var target = String(match.1)
                if target.hasPrefix("http") || target.hasPrefix("#") || target.hasPrefix("mailto:") { continue }
                if let hash = target.firstIndex(of: "#") { target = String(target[..<hash]) }
                let path = base.appendingPathComponent(target).standardizedFileURL.path
                checked += 1
                #expect(FileManager.default.fileExists(atPath: path), "\(file): the link \(match.1) leads nowhere")
            }
        }
        #expect(checked > 50)
    }

    /// The `opconform` lines of a guide's `sh` blocks, as argument lists (no quoting is used in
    /// them), with `$OUT` standing for a fresh folder and `Fixtures/` for the package's.
    static func commands(in guide: String, out: String) throws -> [[String]] {
        let fixtures = SpecsDriftTests.root.appendingPathComponent("Fixtures").path
        return try commands(of: guide).filter(\.isOpconform).map { command in
            command.words.dropFirst().map { $0.replacingOccurrences(of: "$OUT", with: out) }
                .map { $0.hasPrefix("Fixtures/") ? fixtures + $0.dropFirst("Fixtures".count) : $0 }
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
