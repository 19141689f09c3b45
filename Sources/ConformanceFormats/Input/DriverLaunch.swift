import Foundation
import OperationDriverKit

/// How to start a driver that the user named by path (`--impl exec:PATH [--driver-arg ARG]...`):
/// any program in any language that speaks the driver protocol (`Specs/driver-protocol.md`).
/// A finding records it, so `replay FILE` starts the same driver again.
public struct DriverLaunch: Codable, Sendable, Equatable {
    /// The executable, as an absolute path (resolved once, so a replay works from any folder).
    public var executable: String
    public var arguments: [String]

    public init(executable: String, arguments: [String] = []) {
        self.executable = executable
        self.arguments = arguments
    }

    /// The process to start: the executable, then its arguments.
    public var command: [String] { [executable] + arguments }

    /// The command-line words that name this driver again: `--impl exec:PATH --driver-arg A`.
    public var replayArguments: [String] {
        ["--impl", "exec:" + executable] + arguments.flatMap { ["--driver-arg", $0] }
    }

    /// The prefix of `--impl` that names a driver by path.
    public static let scheme = "exec:"

    /// Resolves `exec:PATH` (or a bare PATH) the way a shell would: a path with a slash is taken
    /// relative to `directory`; a bare name is looked up on `PATH`. The result must be an
    /// executable file; otherwise one sentence says what to do.
    public static func resolve(_ spec: String, arguments: [String] = [],
                               directory: String = FileManager.default.currentDirectoryPath,
        searchPath: String? = ProcessInfo.processInfo.environment["PATH"]
    ) throws(InputError) -> DriverLaunch {
        let path = spec.hasPrefix(scheme) ? String(spec.dropFirst(scheme.count)) : spec
        guard !path.isEmpty else { throw InputError("exec: needs the driver's path, e.g. --impl exec:./my-driver") }
        let fm = FileManager.default
        var candidates: [String] = []
        if path.contains("/") {
            candidates = [PathText.absolute(path, in: directory)]
        } else {
            candidates = (searchPath ?? "").split(separator: ":").map {
                ($0.isEmpty ? directory : String($0)) + "/" + path
            }
        }
        for c in candidates {
            let full = PathText.absolute(c, in: directory)
            var isDir: ObjCBool = false
            if fm.fileExists(atPath: full, isDirectory: &isDir), !isDir.boolValue, fm.isExecutableFile(atPath: full) {
                return DriverLaunch(executable: full, arguments: arguments)
            }
        }
        let shown = candidates.first.map { PathText.absolute($0, in: directory) } ?? path
        if path.contains("/"), fm.fileExists(atPath: shown), !fm.isExecutableFile(atPath: shown) {
            throw InputError(
                "exec:\(path): \(shown) is not executable; give it a #! line and chmod +x, or name its interpreter: "
                    + "--impl exec:python3 --driver-arg \(path)"
            )
        }
        throw InputError(
            path.contains("/")
                ? "exec:\(path): no driver at \(shown)"
                : "exec:\(path): no executable named \(path) on PATH; give a path (./\(path)) instead")
    }
}

/// The harness's limits for one case of a driver run in a child process.
public struct DriverLimits: Sendable, Equatable {
    /// Seconds the driver may go without writing anything, once it has started talking, before
    /// it is killed and the case reported as a hang (`--timeout`).
    public var timeout: TimeInterval
    /// Seconds a whole case may take, however much the driver writes (`--case-deadline`): a
    /// driver that keeps logging for ever (a queue polling a getter) is cut and reported as a
    /// hang that names what it was doing.
    public var caseDeadline: TimeInterval
    /// Microseconds per unit of `work` in the request (`--unit-us`): a slower runtime (an
    /// interpreter, a debug build) needs longer units, or its rendezvous time out.
    public var unitMicroseconds: Int
    /// The most events one case may have (`--max-events`): a driver that writes more is killed
    /// and the case reported as a hang that says what ran away. Decoded events are what the
    /// harness keeps of a case, so this bounds its memory (about 100 MB at the standard
    /// million; the largest trace of the suite's runs is some thousands).
    public var maxEvents: Int
    /// The most cases one driver process serves in a session (protocol 3, `--cases-per-driver`;
    /// Specs/driver-protocol.md, "Sessions"): after that many the process is ended and the next
    /// case gets a fresh one, so the implementation's own leaks do not pile up for ever. 1 gives
    /// every case a process of its own, as protocol 2 does: how the two are compared. It changes
    /// how a case is run, not what it means, so replay lines leave it out.
    public var casesPerDriver: Int
    /// The most bytes one case may write on standard output, and one line may hold: a driver
    /// that writes more is stopped the same way (a line is never kept whole past `maxLine`).
    public static let maxBytes = 512 << 20, maxLine = 1 << 20

    /// The timing noise each request asks for (`--noise`, 0 to 3; Specs/driver-protocol.md,
    /// "Timing noise"): more of the rare interleavings, at a small cost in time. It changes
    /// what a case's runs show, so replay lines carry it.
    public var noise: Int
    /// The levels `noise` may take.
    public static let noiseLevels = DriverProtocol.noiseLevels

    /// How many times longer than usual the driver and the harness wait before they call a
    /// case stuck (`Request.patience`): 1 for a run's cases; a case that hung or missed a
    /// rendezvous is run again with more to tell slowness from a fault (`Confirmation`). It
    /// changes how long a case may take, not what it means, so replay lines leave it out.
    public var patience = 1
    /// The levels `patience` may take.
    public static let patienceLevels = DriverProtocol.patienceLevels

    /// The most threads a driver process may run at once: one past it ends the case cut short,
    /// unjudged (`DriverProcess.serve`). The harness counts them from outside (Linux's
    /// /proc/PID/status), so no driver can raise it, root or not (RLIMIT_NPROC does not bind
    /// root). A scenario read from elsewhere can ask a queue for thousands of concurrent
    /// operations; a driver starting threads without bound once made forks fail machine-wide
    /// (issue 43). The most the built-in drivers ran in a gate is in Specs/performance.md.
    public var maxThreads = 1024

    public static let standard = DriverLimits(timeout: 5, caseDeadline: 60, unitMicroseconds: 1000)

    public init(
        timeout: TimeInterval, caseDeadline: TimeInterval, unitMicroseconds: Int, maxEvents: Int = 1_000_000,
        casesPerDriver: Int = 100,
        noise: Int = 0
    ) {
        self.noise = min(max(0, noise), Self.noiseLevels.upperBound)
        self.casesPerDriver = max(1, casesPerDriver)
        self.timeout = timeout
        self.caseDeadline = caseDeadline
        self.unitMicroseconds = unitMicroseconds
        self.maxEvents = maxEvents
    }

    /// The options that set the limits that differ from the standard ones.
    public var replayArguments: [String] {
        var words: [String] = []
        if timeout != Self.standard.timeout { words += ["--timeout", Self.number(timeout)] }
        if caseDeadline != Self.standard.caseDeadline { words += ["--case-deadline", Self.number(caseDeadline)] }
        if unitMicroseconds != Self.standard.unitMicroseconds { words += ["--unit-us", String(unitMicroseconds)] }
        if maxEvents != Self.standard.maxEvents { words += ["--max-events", String(maxEvents)] }
        if noise != Self.standard.noise { words += ["--noise", String(noise)] }
        return words
    }

    package static func number(_ x: Double) -> String { x == x.rounded() ? String(Int(x)) : String(x) }
}
