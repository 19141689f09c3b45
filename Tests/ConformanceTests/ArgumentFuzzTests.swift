@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
import Foundation
import OpconformCLI
import Synchronization
import Testing

/// Every option of every command given hostile values (issue 33): `--out a` killed the harness
/// with SIGILL, because Foundation's path functions trap on one-character paths on Linux
/// (`PathText`). Each command line runs in a child process of the built `opconform`, in a
/// working folder of its own, and must end in a result (exit 0 or 1) or in one sentence on
/// standard error with exit 2: never a trap, a crash, or an internal error.
///
/// The options come from `CLI.commands`, the table the commands parse against, so an option
/// added there is fuzzed here without a word; a command added there needs its base command
/// line below, and the test says so.
@Suite("Hostile arguments")
struct ArgumentFuzzTests {
    static let binary = FoundationIsolationTests.driver
    static var available: Bool { FoundationIsolationTests.available }
    static let root = SpecsDriftTests.root.path

    /// The values every option and every file argument is given, relative to the working folder
    /// (`prepare`). Tests run as root, for whom permissions stop no write, so the places that
    /// refuse files are a path under a regular file (`file/sub`) and one in /proc.
    static let hostileValues: [String] = [
        "a", "b/", "c/d/e", ".", "..", "-", "", "with space", "é", "x//é",
        String(repeating: "n", count: 4000),
        "file",           // a regular file where a folder may be wanted
        "dir",            // a folder where a file may be wanted
        "file/sub",       // under a regular file: nothing can be made there
        "/proc/opconform-fuzz/x",
        "dangling",       // a symlink to nothing
    ]

    /// A command line that runs to a result, quickly, on the reference engine; `file` says
    /// where a hostile file argument goes (nil: the command takes none). A fuzzed option
    /// replaces the base's value of it, or is added.
    struct Base {
        var arguments: [String]
        var file: [String]?
    }

    /// The fixed inputs, written once: a trace, an expectations file for the reference engine.
    static func bases(shared: String) -> [String: Base] {
        let finding = root + "/Fixtures/expectations/foundation-linux/BLOCK-CONCURRENT.json"
        let scenario = root + "/Fixtures/scenarios/start-after-finished.json"
        return [
            "rules": Base(arguments: []),
            "run": Base(arguments: ["--impl", "reference", "--count", "1"]),
            "replay": Base(arguments: ["--seed", "1"], file: ["--impl", "reference"]),
            "check": Base(arguments: [shared + "/trace.json"], file: []),
            "gate": Base(arguments: ["--expectations", shared + "/expectations.json", "--count", "1"]),
            "matrix": Base(arguments: ["--impls", "reference", "--count", "1"]),
            "merge": Base(arguments: [shared + "/shard-1"]),
            "bench": Base(arguments: ["--quick", "--cases", "1", "--real", "0", "--no-shrink", "--no-detect",
                                      "--impls", ",",
                                      "--scale", "2", "--shapes", "chain", "--jobs-cases", "0", "--steps", "0"]),
            "faults": Base(arguments: []),
            "export": Base(arguments: [finding, "--out", "reproducer.swift"], file: ["--out", "reproducer.swift"]),
            "flaws": Base(arguments: ["--probe", "--impl", "reference", "--count", "1"]),
            "samples": Base(arguments: ["--schedules", "1"]),
            "sweep": Base(arguments: [scenario, "--schedules", "1", "--impl", "reference"],
                          file: ["--schedules", "1", "--impl", "reference"]),
            "reach": Base(arguments: ["--impl", "reference", "--count", "1"]),
            "convert": Base(arguments: [], file: ["--check"]),
            "driver": Base(arguments: []),
            "driver-check": Base(arguments: [binary, "--driver-arg", "driver"], file: []),
        ]
    }

    /// One command line to try.
    struct Invocation: Sendable {
        let arguments: [String]
        /// What is fuzzed, for messages: `run --out`, or `check FILE`.
        let slot: String
    }

    static func invocations(shared: String) -> [Invocation] {
        let bases = bases(shared: shared)
        var result: [Invocation] = []
        for command in CLI.commands {
            guard let base = bases[command.name] else { continue }
            for option in command.options {
                for value in hostileValues {
                    var arguments = base.arguments
                    if let at = arguments.firstIndex(of: option), at + 1 < arguments.count {
                        arguments[at + 1] = value
                    } else {
                        arguments += [option, value]
                    }
                    result.append(Invocation(arguments: [command.name] + arguments, slot: "\(command.name) \(option)"))
                }
            }
            if let file = base.file {
                for value in hostileValues {
                    result.append(Invocation(arguments: [command.name] + file + [value], slot: "\(command.name) FILE"))
                }
            }
        }
        return result
    }

    /// A working folder holding a regular file, a folder and a dangling symlink, inside a folder
    /// of its own, so that `..` is ours too.
    static func prepare(_ folder: String) throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: folder + "/work/dir", withIntermediateDirectories: true)
        #expect(fm.createFile(atPath: folder + "/work/file", contents: Data("not json\n".utf8)))
        try fm.createSymbolicLink(atPath: folder + "/work/dangling", withDestinationPath: "missing/target")
    }

    /// How one command line ended: its exit status (or the signal that ended it) and its
    /// standard error.
    struct Outcome: Sendable {
        let ending: SpawnedProcess.Ending?
        let errors: String
    }

    /// Runs `arguments` in `folder`, with standard input closed. A liveness guard, not a timing
    /// assertion: a command line still running after five minutes is killed and reported.
    static func run(_ arguments: [String], in folder: String) -> Outcome {
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let child: SpawnedProcess
        do {
            child = try SpawnedProcess.start(["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", folder, binary] + arguments,
                                             environment: environment)
        } catch {
            return Outcome(ending: nil, errors: "cannot start: \(error.message)")
        }
        child.send(Data())
        let errors = Mutex(Data())
        let done = DispatchSemaphore(value: 0)
        Thread {
            SpawnedProcess.drain(child.errors) { chunk in errors.withLock { $0.append(chunk) } }
            done.signal()
        }.start()
        let watchdog = DispatchWorkItem { child.stop() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 300, execute: watchdog)
        SpawnedProcess.drain(child.output) { _ in }
        done.wait()
        let ending = child.wait()
        watchdog.cancel()
        return Outcome(ending: ending, errors: String(decoding: errors.withLock { $0 }, as: UTF8.self))
    }

    /// What is wrong with how a command line ended, or nil: a result (0 or 1), or exit 2 with
    /// one sentence, `opconform: …`, and the usage hint as the last lines on standard error.
    static func problem(_ outcome: Outcome) -> String? {
        let lines = outcome.errors.split(separator: "\n", omittingEmptySubsequences: true)
            .map { $0.count > 300 ? String($0.prefix(300)) + "…" : String($0) }
        switch outcome.ending {
        case .exited(0)?, .exited(1)?:
            if outcome.errors.contains("Fatal error") { return "a fatal error on standard error: \(lines.prefix(2))" }
            return nil
        case .exited(2)?:
            let sentences = lines.filter { $0.hasPrefix("opconform: ") }
            guard sentences.count == 1, lines.count >= 2, lines[lines.count - 2].hasPrefix("opconform: "),
                  lines.last == "Run 'opconform --help' for usage." else {
                return "exit 2 without one sentence and the usage hint last on standard error: \(lines.suffix(3))"
            }
            return nil
        case .exited(let status)?:
            let crash = [132, 134, 139].contains(status) ? " (a trap or crash)" : ""
            return "exit \(status)\(crash): \(lines.prefix(2))"
        case .signalled(let signal)?:
            return "killed by signal \(signal): \(lines.prefix(2))"
        case nil:
            return outcome.errors
        }
    }

    /// Every command of the overview (`opconform --help`) has its syntax in `CLI.commands`, and
    /// every command there a base command line here: otherwise its options would go unfuzzed.
    @Test("every command is in the table and has a base command line")
    func everyCommandIsCovered() {
        let overview = opconform("--help").out
        let listed = overview.components(separatedBy: "\nCOMMANDS\n").last?.components(separatedBy: "\n\n").first ?? ""
        let names = listed.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let first = line.split(separator: " ").first,
                  first.first?.isLetter == true else {
                return nil
            }
            return String(first)
        }.filter { $0 != "help" }
        #expect(names.count >= 10, "the overview's COMMANDS section was not found")
        let table = CLI.commands.map(\.name)
        for name in names { #expect(table.contains(name), "\(name) is in the overview but not in CLI.commands") }
        let bases = Self.bases(shared: "/shared")
        for name in table { #expect(bases[name] != nil, "\(name) has no base command line in ArgumentFuzzTests") }
    }

    @Test("no hostile value of any option or file argument traps: each ends in a result or one sentence with exit 2",
          .enabled(if: available, "build opconform first (swift build)"))
    func hostileValuesNeverTrap() throws {
        let top = NSTemporaryDirectory() + "opconform-fuzz-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: top) }
        let shared = top + "/shared"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        let expectations = #"{"expected": [], "format": 1, "impl": "reference", "profile": "guide"}"#
        #expect(FileManager.default.createFile(atPath: shared + "/expectations.json",
                                               contents: Data(expectations.utf8)))
        let traced = Self.run(["replay", "--seed", "1", "--trace", shared + "/trace.json"], in: shared)
        try #require(traced.ending == .exited(0), "cannot make the trace the check command reads: \(traced.errors)")
        let shard = Self.run(["run", "--count", "5", "--shard", "1/1", "--out", shared + "/shard-1"], in: shared)
        try #require(shard.ending == .exited(0), "cannot make the shard the merge command reads: \(shard.errors)")

        let invocations = Self.invocations(shared: shared)
        let optionCount = CLI.commands.map(\.options.count).reduce(0, +)
        #expect(invocations.count >= optionCount * Self.hostileValues.count)
        let next = Atomic(0)
        let failures = Mutex<[String]>([])
        // A few at once: most end in milliseconds, and the machine has two cores.
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            while true {
                let k = next.add(1, ordering: .relaxed).oldValue
                guard k < invocations.count else { return }
                let folder = top + "/\(k)"
                do { try Self.prepare(folder) } catch {
                    failures.withLock { $0.append("cannot prepare \(folder): \(error)") }
                    continue
                }
                let invocation = invocations[k]
                if let problem = Self.problem(Self.run(invocation.arguments, in: folder + "/work")) {
                    let shown = invocation.arguments.map { $0.count > 40 ? "\($0.prefix(12))…(\($0.count))" : $0 }
                    let line = shown.joined(separator: " ")
                    failures.withLock { $0.append("\(invocation.slot): opconform \(line): \(problem)") }
                }
                try? FileManager.default.removeItem(atPath: folder)
            }
        }
        let found = failures.withLock { $0 }
        let listed = found.prefix(40).joined(separator: "\n")
        #expect(found.isEmpty, "\(found.count) of \(invocations.count) command lines failed:\n\(listed)")
        print("ArgumentFuzzTests: \(invocations.count) command lines, \(found.count) failed")
    }
}
