import Conformance
import ConformanceTesting
import Foundation
import OperationSpec
import Testing

/// A driver whose harness died (`kill -9` of `opconform`) exits by itself, within a fraction of a
/// second, instead of running its case to the end for no one (issue 15). The harness closes the
/// driver's standard input once it has written the request, so the end of standard input says
/// nothing: each driver watches its parent process instead (`getppid()` changes when the driver
/// is re-parented), as `Specs/driver-protocol.md` says under "When the harness dies".
///
/// Each test starts a driver as the child of a shell that stands for the harness, gives it a
/// case of 30 s of work, waits until the work has begun, kills the shell with SIGKILL and waits
/// (at most 10 s, a bound on liveness, not a measure) until the driver has gone.
@Suite("Drivers whose harness died")
struct OrphanedDriverTests {
    /// An executable of this build: beside the test binary (`DriverExecutable`), else the
    /// default build's (`.build/debug/`).
    static func built(_ name: String) -> String? {
        let fallback = SpecsDriftTests.root.appendingPathComponent(".build/debug/\(name)").path
        return [try? DriverExecutable.locate(name), fallback].compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
    static let opconform = built("opconform")
    static let sampleSubclassDriver = built("sample-subclass-driver")
    static let pythonDriver = SpecsDriftTests.root.appendingPathComponent("Examples/python-driver/driver.py").path
    static var python3Available: Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/python3")
        }
    }

    /// One operation whose main works 30 units of 1 s each, and a driver step that waits for it:
    /// the driver is busy for 30 s, silent, and never stalled (its windows scale with the work).
    /// No `impl`, as in the probe, so that every driver accepts it.
    static let request: String = {
        let scenario = Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .main([.work(30)]))],
                                driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.waitUntilFinished(0))])
        return JSONCodec.line(DriverProtocol.Request(impl: nil, scenario: scenario, scheduleSeed: 1, unitMicroseconds: 1_000_000))
    }()

    /// Whether process `pid` has ended: it does not exist, or it is a zombie (its new parent, the
    /// init process or a subreaper, has not reaped it yet; in a container it may never do so).
    static func ended(_ pid: pid_t) -> Bool {
        if kill(pid, 0) == -1 && errno == ESRCH { return true }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        // "PID (COMM) STATE ...": COMM may hold spaces and parentheses; the state follows the last ')'.
        guard let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first.map { $0 == "Z" || $0 == "X" } ?? false
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), looked up at run time
    /// because Swift does not see its declaration; nil where the C library lacks it.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let closeFrom: AddCloseFrom? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
    }()

    /// Starts `command` with its standard streams on /dev/null, in a process group of its own
    /// (as the harness starts a driver), inheriting no other descriptor of this process; returns
    /// its pid. Not Foundation's `Process`: on Linux (corelibs 6.3) its `waitUntilExit()` for the
    /// killed shell did not return until the driver, the shell's child, had ended too.
    static func spawn(_ command: [String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        _ = closeFrom?(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        let environment = ProcessInfo.processInfo.environment
        let words = command.map { strdup($0) } + [nil]
        let env = environment.keys.sorted().map { strdup("\($0)=\(environment[$0]!)") } + [nil]
        defer { for w in words + env { free(w) } }
        var pid = pid_t()
        let status = posix_spawn(&pid, command[0], &actions, &attributes, words, env)
        guard status == 0 else { throw InputError("cannot start \(command[0]): \(String(cString: strerror(status)))") }
        return pid
    }

    /// Runs `command` (a driver) as the child of a shell, on `request`; once the driver's trace
    /// shows the work has begun, kills the shell with SIGKILL and waits for the driver to end.
    /// Returns nil when it ended, else what went wrong. A driver still alive at the end is killed.
    static func orphan(_ command: [String]) throws -> String? {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("opconform-orphan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = { (name: String) in dir.appendingPathComponent(name).path }
        let read = { (name: String) in (try? String(contentsOfFile: file(name), encoding: .utf8)) ?? "" }
        try Data(request.utf8).write(to: URL(fileURLWithPath: file("request.json")))

        // The shell stands for the harness: it starts the driver, says its pid (whole, by a
        // rename) and waits for it, as the harness waits for a case.
        let script = #"d=$1; shift; "$@" < "$d/request.json" > "$d/out" 2> "$d/err" & echo $! > "$d/pid.new" && mv "$d/pid.new" "$d/pid"; wait"#
        let shell = try spawn(["/bin/sh", "-c", script, "sh", dir.path] + command)
        var shellReaped = false
        func killShell() {
            guard !shellReaped else { return }
            kill(shell, SIGKILL)
            var status: Int32 = 0
            while waitpid(shell, &status, 0) == -1 && errno == EINTR {}
            shellReaped = true
        }
        defer { killShell() }

        // A liveness wait (a cold start of an interpreter may take seconds on a loaded machine):
        // the driver has remembered its parent and runs its watchdog once its work has begun.
        var driver: pid_t?
        for _ in 0..<6_000 {
            if driver == nil { driver = pid_t(read("pid").trimmingCharacters(in: .whitespacesAndNewlines)) }
            if let pid = driver, read("out").contains(#"{"work":"#) || ended(pid) { break }
            usleep(10_000)
        }
        guard let pid = driver else { return "the shell never said the driver's pid" }
        // Once seen to have ended it is never signalled again: its pid may be another's by then.
        var gone = false
        defer { if !gone && !ended(pid) { kill(pid, SIGKILL) } }
        guard read("out").contains(#"{"work":"#) else {
            return "the driver never began the work (\(ended(pid) ? "it ended" : "in 60 s")); its output: \(read("out").suffix(300)); its standard error: \(read("err").suffix(300))"
        }

        killShell()
        let killed = Date()
        // At most 10 s: a driver that is still there by then was never going to notice.
        while !gone && Date().timeIntervalSince(killed) < 10 {
            gone = ended(pid)
            if !gone { usleep(5_000) }
        }
        let after = String(format: "%.2f", Date().timeIntervalSince(killed))
        guard gone else { return "the driver (pid \(pid)) was still running \(after) s after its parent was killed" }
        return nil
    }

    @Test("the foundation driver (opconform driver) exits when its harness is killed",
          .enabled(if: opconform != nil, "build opconform first (swift build)"))
    func foundation() throws {
        let problem = try Self.orphan([try #require(Self.opconform), "driver"])
        #expect(problem == nil, "\(problem ?? "")")
    }

    @Test("a driver made with OperationDriver(name:subclass:) exits when its harness is killed",
          .enabled(if: sampleSubclassDriver != nil, "build sample-subclass-driver first (swift build)"))
    func subclassDriver() throws {
        let problem = try Self.orphan([try #require(Self.sampleSubclassDriver)])
        #expect(problem == nil, "\(problem ?? "")")
    }

    @Test("the GNUstep driver exits when its harness is killed",
          .enabled(if: GNUstepDriverTests.available, "needs GNUstep: apt-get install gobjc libgnustep-base-dev"))
    func gnustep() throws {
        let problem = try Self.orphan([try GNUstepDriver.executable()])
        #expect(problem == nil, "\(problem ?? "")")
    }

    @Test("the Python example driver exits when its harness is killed", .enabled(if: python3Available, "needs python3 on PATH"))
    func python() throws {
        let problem = try Self.orphan([Self.pythonDriver])
        #expect(problem == nil, "\(problem ?? "")")
    }
}
