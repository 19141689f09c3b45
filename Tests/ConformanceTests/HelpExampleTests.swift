import Conformance
import Foundation
import OpconformCLI
import Testing

/// Every `Example:` line of a command's help runs, from the package's folder, and exits 0
/// (issue 45: `help check`'s example named a profile that does not exist and exited 2).
@Suite("Help examples run")
struct HelpExampleTests {
    /// The examples of every command's help, each with its command's name and the exit status
    /// it says it ends with: `Example: COMMAND`, or `Example (exit N: why):` with the command on
    /// the next line.
    static func examples() -> [(command: String, line: String, status: Int32)] {
        CLI.commands.flatMap { command -> [(command: String, line: String, status: Int32)] in
            let lines = opconform("help", command.name).out.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            return lines.indices.compactMap { i in
                let text = lines[i]
                if text.hasPrefix("Example: ") { return (command.name, String(text.dropFirst("Example: ".count)), 0) }
                guard text.hasPrefix("Example (exit "), i + 1 < lines.count,
                      let status = Int32(text.dropFirst("Example (exit ".count).prefix { $0.isNumber }) else { return nil }
                return (command.name, lines[i + 1], status)
            }
        }
    }

    @Test("each command's example exits as its help says", .enabled(if: FoundationIsolationTests.available, "build opconform first"))
    func examplesRun() throws {
        let found = Self.examples()
        #expect(found.count >= 4, "\(found.map(\.command))")
        let root = SpecsDriftTests.root.path
        let bin = FoundationIsolationTests.driver
        for example in found {
            // The example runs in a fresh folder, where `opconform` (first on PATH) is the built
            // binary, so that the files it writes are left nowhere else.
            let scratch = NSTemporaryDirectory() + "opconform-example-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            try FileManager.default.createSymbolicLink(atPath: scratch + "/opconform", withDestinationPath: bin)
            // Paths the example names (Fixtures/...) are the package's; files it writes land in the
            // scratch folder, so the example runs there with the package's folders linked in.
            for name in ["Fixtures", ".build"] {
                try FileManager.default.createSymbolicLink(atPath: scratch + "/" + name, withDestinationPath: root + "/" + name)
            }
            let r = Self.shell("cd \"$0\" && PATH=\"$0:$PATH\" && " + example.line, scratch)
            #expect(r.status == example.status,
                    "opconform help \(example.command): '\(example.line)' exited \(r.status), not \(example.status): \(r.err.suffix(300))")
        }
    }

    /// Runs `script` with `/bin/sh -c`, `$0` set to `zero`.
    static func shell(_ script: String, _ zero: String) -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script, zero]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do { try process.run() } catch { return (-1, "", "\(error)") }
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }
}
