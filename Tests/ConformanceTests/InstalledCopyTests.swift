@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
import Foundation
import Synchronization
import Testing

/// `opconform` started the ways a user starts it (issue 28, item 3): the README's install puts a
/// copy on PATH, and that copy built its Foundation driver's path from argument 0 and the
/// current folder, so every case was "cannot start ./opconform" (NO VERDICT). Each way runs in
/// a folder outside the checkout and must reach a verdict on the real implementations.
@Suite("An installed opconform")
struct InstalledCopyTests {
    static var available: Bool { FoundationIsolationTests.available }
    static let built = FoundationIsolationTests.driver

    /// How the program is started.
    enum Way: String, CaseIterable, CustomStringConvertible {
        /// A copy in a folder on PATH, started by its bare name.
        case path = "from PATH"
        /// A symlink to the built executable, by its absolute path.
        case symlink = "through a symlink"
        /// A copy, by a path relative to the current folder (`../bin/opconform`).
        case relative = "by a relative path"
        /// The built executable by its absolute path, from another folder.
        case elsewhere = "from another folder"
        var description: String { rawValue }
    }

    /// A folder laid out like an installation: `bin/opconform` (a copy, with the GNUstep driver
    /// beside it when one is given), `link/opconform` (a symlink to the build's), and `work/`,
    /// the current folder of every command.
    struct Installation {
        let top: String
        var bin: String { top + "/bin" }
        var work: String { top + "/work" }

        init(gnustepDriver: String?) throws {
            top = NSTemporaryDirectory() + "opconform-installed-\(UUID().uuidString)"
            let fm = FileManager.default
            for folder in [top + "/bin", top + "/link", top + "/work"] {
                try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
            }
            try fm.copyItem(atPath: InstalledCopyTests.built, toPath: bin + "/opconform")
            try fm.createSymbolicLink(atPath: top + "/link/opconform", withDestinationPath: InstalledCopyTests.built)
            if let gnustepDriver {
                try fm.copyItem(atPath: gnustepDriver, toPath: bin + "/" + GNUstepDriver.installedName)
            }
        }

        /// The command that starts opconform `way`, then `arguments`, and the PATH to give it.
        func command(_ way: Way, _ arguments: [String]) -> (command: [String], path: String) {
            let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
            switch way {
            case .path: return (["opconform"] + arguments, bin + ":" + path)
            case .symlink: return ([top + "/link/opconform"] + arguments, path)
            case .relative: return (["../bin/opconform"] + arguments, path)
            case .elsewhere: return ([InstalledCopyTests.built] + arguments, path)
            }
        }

        /// Runs opconform started `way` in `work/`: its exit status and what it printed.
        func run(_ way: Way, _ arguments: [String]) throws -> (status: Int32?, out: String, err: String) {
            let (command, path) = command(way, arguments)
            var environment = ProcessInfo.processInfo.environment
            environment["PATH"] = path
            environment["OPCONFORM_GNUSTEP_DRIVER"] = nil
            environment["SWIFT_BACKTRACE"] = "enable=no"
            let child = try SpawnedProcess.start(["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", work] + command,
                                                 environment: environment)
            child.send(Data())
            let errors = Mutex(Data())
            let done = DispatchSemaphore(value: 0)
            Thread {
                SpawnedProcess.drain(child.errors) { chunk in errors.withLock { $0.append(chunk) } }
                done.signal()
            }.start()
            var output = Data()
            SpawnedProcess.drain(child.output) { output.append($0) }
            done.wait()
            let ending = child.wait()
            let status: Int32? = if case .exited(let s) = ending { s } else { nil }
            let err = String(decoding: errors.withLock { $0 }, as: UTF8.self)
            return (status, String(decoding: output, as: UTF8.self), err)
        }

        func remove() { try? FileManager.default.removeItem(atPath: top) }
    }

    /// A run that reached a verdict: exit 0 or 1, and no NO VERDICT line (exit 4).
    static func expectVerdict(_ result: (status: Int32?, out: String, err: String), _ what: String) {
        let ended = result.status.map { "exit \($0)" } ?? "killed by a signal"
        let printed = "\(result.out.suffix(400)) \(result.err.suffix(400))"
        #expect(result.status == 0 || result.status == 1, "\(what): \(ended): \(printed)")
        #expect(!result.out.contains("NO VERDICT"), "\(what): \(result.out.suffix(400))")
    }

    @Test("run --impl foundation reaches a verdict", .enabled(if: available, "build opconform first (swift build)"),
          arguments: Way.allCases)
    func foundation(way: Way) throws {
        let installation = try Installation(gnustepDriver: nil)
        defer { installation.remove() }
        let result = try installation.run(way, ["run", "--impl", "foundation", "--count", "2", "--no-shrink"])
        Self.expectVerdict(result, "opconform started \(way): run --impl foundation")
    }

    @Test("run --impl gnustep reaches a verdict, with the driver beside a copy",
          .enabled(if: available, "build opconform first (swift build)"),
          .enabled(if: GNUstepDriverTests.available, "needs GNUstep: apt-get install gobjc libgnustep-base-dev"),
          arguments: Way.allCases)
    func gnustep(way: Way) throws {
        let installation = try Installation(gnustepDriver: try GNUstepDriver.executable())
        defer { installation.remove() }
        let result = try installation.run(way, ["run", "--impl", "gnustep", "--count", "2", "--no-shrink"])
        Self.expectVerdict(result, "opconform started \(way): run --impl gnustep")
    }

    /// A copy outside the checkout, with no driver beside it, cannot run GNUstep, and says what to
    /// do in one sentence that does not blame the driver.
    @Test("a copy with no GNUstep driver beside it says so in one sentence",
          .enabled(if: available, "build opconform first (swift build)"))
    func gnustepMissing() throws {
        let installation = try Installation(gnustepDriver: nil)
        defer { installation.remove() }
        let result = try installation.run(.path, ["run", "--impl", "gnustep", "--count", "2"])
        #expect(result.status == 2)
        let lines = result.err.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].hasPrefix("opconform: gnustep: no GNUstep driver here"), "\(result.err)")
        #expect(result.err.contains(GNUstepDriver.installedName), "\(result.err)")
        #expect(!result.err.contains("broke the protocol"), "\(result.err)")
    }

    /// `bench` starts the Foundation driver twice over: recording, and plain (`driver --plain`).
    @Test("bench measures Foundation's driver, which starts",
          .enabled(if: available, "build opconform first (swift build)"), arguments: Way.allCases)
    func bench(way: Way) throws {
        let installation = try Installation(gnustepDriver: nil)
        defer { installation.remove() }
        let smallest = ["--quick", "--cases", "10", "--real", "1", "--no-shrink", "--no-detect",
                        "--impls", "foundation", "--scale", "10", "--shapes", "chain", "--jobs-cases", "0"]
        let result = try installation.run(way, ["bench"] + smallest)
        #expect(result.status == 0, "opconform started \(way): bench: \(result.err.suffix(400))")
        let rows = result.out.split(separator: "\n")
        let recorded = rows.first { $0.hasPrefix("foundation: run + record") }
        let plain = rows.first { $0.hasPrefix("foundation: plain") }
        #expect(recorded != nil, "\(way): no run + record row")
        #expect(recorded?.contains("broke the driver protocol") == false, "\(way): \(recorded ?? "")")
        #expect(plain?.hasSuffix("1 of 1 ended complete") == true, "\(way): \(plain ?? "no row")")
    }
}
