import Conformance
import Foundation
import OperationSpec
import ReferenceEngine

/// Where a command writes. The real tool writes to standard output and error; tests capture.
public protocol Console: AnyObject {
    func out(_ text: String)
    func err(_ text: String)
    /// Whether standard error is a terminal (progress lines are shown only then).
    var interactive: Bool { get }
}

/// The process's own standard output and error.
public final class StandardConsole: Console {
    public init() {}
    public func out(_ text: String) { Self.write(1, text) }
    public func err(_ text: String) { Self.write(2, text) }
    public var interactive: Bool { isatty(2) != 0 }

    /// Writes all of `text` to `descriptor`, giving up quietly when it cannot be written: after
    /// a SIGHUP the terminal is gone (EIO), and a closed pipe says EPIPE. `FileHandle.write`
    /// traps on those, and a run stopped by its terminal's closing must still write its files.
    static func write(_ descriptor: Int32, _ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }
}

public enum CLI {
    /// How a replay line starts this program where the user is (`ReplayProgram`): its name when
    /// PATH finds it, else its absolute path (also when it was copied or linked under another
    /// name). Commands run inside a test process (an `.xctest` bundle) say `opconform`.
    static var replayProgram: String {
        let me = CommandLine.arguments.first ?? ""
        if me.hasSuffix(".xctest") || me.contains(".xctest/") { return ReplayProgram.default }
        return ReplayProgram.invoked(as: me.isEmpty ? OwnExecutable.path : me)
    }

    /// How to start this program's driver mode: its own executable, wherever it was started
    /// from (`OwnExecutable`), with `driver`.
    static var driverCommand: [String] { [OwnExecutable.path, "driver"] }

    /// Runs one command line and returns the exit status: 0 conformant, 1 violations,
    /// 2 bad usage or input (one sentence on standard error), 3 internal error.
    /// For the `opconform` program, which exits when its command returns: signal handlers stay
    /// in place until then (`Interrupts.keptUntilExit`).
    public static func keepSignalHandlersUntilExit() { Interrupts.keptUntilExit.store(true, ordering: .relaxed) }

    public static func main(_ args: [String], console: Console) -> Int32 {
        do {
            return try run(args, console)
        } catch let error as InputError {
            console.err("opconform: \(error.message)\nRun 'opconform --help' for usage.\n")
            return 2
        } catch {
            console.err("opconform: internal error: \(error)\n")
            return 3
        }
    }

    static func run(_ args: [String], _ console: Console) throws -> Int32 {
        func print(_ s: String) { console.out(s + "\n") }
        guard let command = args.first else { print(Help.overview); return 0 }
        let rest = Array(args.dropFirst())
        switch command {
        case "--version", "version":
            print("opconform \(HarnessVersion.current) (\(HarnessVersion.formats))")
            return 0
        case "-h", "--help", "help":
            if let topic = rest.first { print(Help.topic(topic) ?? Help.overview) } else { print(Help.overview) }
            return 0
        case "rules": return try RulesCommand.run(Arguments(rest, command: "rules"), console)
        case "samples": return try SamplesCommand.run(Arguments(rest, command: "samples"), console)
        case "sweep": return try SweepCommand.run(Arguments(rest, command: "sweep"), console)
        case "reach": return try ReachCommand.run(Arguments(rest, command: "reach"), console)
        case "convert": return try ConvertCommand.run(Arguments(rest, command: "convert"), console)
        case "replay": return try ReplayCommand.run(Arguments(rest, command: "replay"), console)
        case "check": return try CheckCommand.run(Arguments(rest, command: "check"), console)
        case "run": return try RunCommand.run(Arguments(rest, command: "run"), console)
        case "faults": return try FaultsCommand.run(Arguments(rest, command: "faults"), console)
        case "flaws": return try FlawsCommand.run(Arguments(rest, command: "flaws"), console)
        case "export": return try ExportCommand.run(Arguments(rest, command: "export"), console)
        case "driver": return try DriverCommand.run(Arguments(rest, command: "driver"), console)
        case "gate": return try GateCommand.run(Arguments(rest, command: "gate"), console)
        case "merge": return try MergeCommand.run(Arguments(rest, command: "merge"), console)
        case "matrix": return try MatrixCommand.run(Arguments(rest, command: "matrix"), console)
        case "bench": return try BenchCommand.run(Arguments(rest, command: "bench"), console)
        case "driver-check": return try DriverCheckCommand.run(Arguments(rest, command: "driver-check"), console)
        default:
            let names = commands.map(\.name).joined(separator: ", ")
            throw InputError("unknown command '\(command)'; the commands are: \(names)")
        }
    }

    /// Every command with its flags and its options (which take a value). Each command parses
    /// its arguments against its entry (`Arguments.parse()`), and the argument fuzz test gives
    /// every option here hostile values, so an option is fuzzed from the day it is added here.
    public static let commands: [CommandSyntax] = [
        CommandSyntax("rules", flags: ["--json", "--markdown", "--entry-points", "--coverage"], options: ["--rules"]),
        CommandSyntax("run", flags: ["--no-shrink", "--table", "--strict", "--guide", "--no-reach", "--not-checked"],
            options: [
                "--impl", "--expectations", "--count", "--seed", "--size", "--rules", "--profile", "--fault",
                "--json", "--junit", "--out", "--misuse-rate", "--flaw-rate", "--flaws",
                "--attempts", "--jobs", "--shard", "--log", "--html"
            ]
                                + Arguments.implementationOptions),
        CommandSyntax("replay", flags: ["--json", "--original", "--no-faults", "--strict", "--split-misuse", "--reach",
                                        "--trust-driver"],
                      options: ["--schedule-seed", "--profile", "--impl", "--rules", "--seed", "--size",
                                "--misuse-rate", "--flaw-rate", "--flaws", "--fault", "--trace", "--focus",
                                "--html"] + Arguments.implementationOptions),
        CommandSyntax("check", flags: ["--json", "--strict"], options: ["--profile", "--rules", "--html"]),
        CommandSyntax(
            "gate", flags: ["--strict", "--no-shrink", "--guide", "--trust-driver", "--no-reach", "--not-checked"],
            options: [
                "--impl", "--expectations", "--count", "--seed", "--size", "--misuse-rate",
                "--flaw-rate", "--flaws", "--profile", "--json", "--junit", "--out", "--rules",
                "--jobs", "--shard", "--log", "--html"
            ] + Arguments.implementationOptions),
        CommandSyntax(
            "merge", flags: ["--allow-missing", "--strict", "--not-checked"],
            options: ["--expectations", "--json", "--junit", "--html", "--out"]),
        CommandSyntax("matrix", flags: ["--no-shrink"],
            options: [
                "--impls", "--expectations", "--count", "--seed", "--size", "--misuse-rate", "--flaw-rate",
                "--flaws", "--profile", "--rules", "--markdown", "--json", "--out", "--jobs",
                "--html"
            ] + Arguments.implementationOptions),
        CommandSyntax("bench", flags: ["--quick", "--no-shrink", "--no-detect", "--detect"],
            options: [
                "--cases", "--real", "--scale", "--shapes", "--steps", "--impls", "--json", "--jobs-list",
                "--jobs-cases", "--detect-seeds", "--detect-cap", "--detect-seconds", "--detect-seed", "--defects"
            ]
                                + Arguments.implementationOptions),
        CommandSyntax("faults", flags: ["--json"], options: ["--write-fixtures"]),
        CommandSyntax("export", flags: [], options: ["--as", "--out", "--runs", "--queue", "--import"]),
        CommandSyntax("flaws", flags: ["--json", "--probe", "--corpus"],
                      options: ["--impl", "--count", "--seed", "--size", "--flaws", "--driver", "--jobs", "--profile",
                                "--expectations", "--classes"] + Arguments.implementationOptions),
        CommandSyntax("samples", flags: [], options: ["--schedules", "--profile", "--write", "--seed"]),
        CommandSyntax("sweep", flags: ["--strict"],
                      options: ["--schedules", "--seed", "--profile", "--impl", "--expectations", "--rules"]
                                + Arguments.implementationOptions),
        CommandSyntax("reach", flags: ["--reach", "--no-reach"],
                      options: ["--impl", "--count", "--seed", "--size", "--misuse-rate", "--profile", "--jobs"]
                                + Arguments.implementationOptions),
        CommandSyntax("convert", flags: ["--check"], options: []),
        CommandSyntax("driver", flags: ["--plain"], options: []),
        CommandSyntax("driver-check", flags: ["--json"], options: ["--driver-arg"]),
    ]
}

/// What one command accepts on its command line: its flags, and its options, which take a value.
public struct CommandSyntax: Sendable {
    public let name: String
    public let flags: [String]
    public let options: [String]

    init(_ name: String, flags: [String], options: [String]) {
        self.name = name
        self.flags = flags
        self.options = options
    }
}

/// A tiny parser: `--flag`, `--option value`, and positionals; unknown options are errors.
struct Arguments {
    let command: String
    private(set) var flags: Set<String> = []
    private(set) var options: [String: String] = [:]
    /// Every value of options that may repeat (`--fault a --fault b`).
    private(set) var repeated: [String: [String]] = [:]
    private(set) var positionals: [String] = []

    init(_ args: [String], command: String) { self.command = command; self.raw = args }
    private let raw: [String]

    /// The command and its arguments as given, without `option` and its value: how a report
    /// names the command that made it.
    func commandLine(without option: String) -> [String] {
        var out = [command]
        var skip = false
        for a in raw {
            if skip { skip = false; continue }
            if a == option { skip = true; continue }
            if a.hasPrefix(option + "=") { continue }
            out.append(a)
        }
        return out
    }

    /// Parses the arguments against the command's entry in `CLI.commands`.
    mutating func parse() throws(InputError) -> Arguments {
        guard let syntax = CLI.commands.first(where: { $0.name == command }) else {
            preconditionFailure("\(command) has no entry in CLI.commands")
        }
        return try parse(flags: syntax.flags, options: syntax.options)
    }

    mutating func parse(flags allowedFlags: [String], options allowedOptions: [String]) throws(InputError) -> Arguments
    {
        var i = 0
        while i < raw.count {
            let a = raw[i]
            if a == "-h" || a == "--help" { flags.insert("--help"); i += 1; continue }
            if allowedFlags.contains(a) { flags.insert(a); i += 1; continue }
            // `--name=value`, as most tools take it (issue 45): the same as `--name value`.
            if a.hasPrefix("--"), let equals = a.firstIndex(of: "=") {
                let name = String(a[..<equals]), value = String(a[a.index(after: equals)...])
                if allowedOptions.contains(name) {
                    options[name] = value; repeated[name, default: []].append(value); i += 1; continue
                }
                if allowedFlags.contains(name) { throw InputError("\(command): \(name) takes no value, so not '\(a)'") }
            }
            if allowedOptions.contains(a) {
                guard i + 1 < raw.count else { throw InputError("\(command): \(a) needs a value") }
                options[a] = raw[i + 1]; repeated[a, default: []].append(raw[i + 1]); i += 2; continue
            }
            if a.hasPrefix("-") {
                throw InputError(
                    "\(command): unknown option '\(a)'; it takes: "
                        + (allowedFlags + allowedOptions).joined(separator: ", "))
            }
            positionals.append(a); i += 1
        }
        return self
    }

    func int(_ name: String, default value: Int, range: ClosedRange<Int>) throws(InputError) -> Int {
        guard let s = options[name] else { return value }
        guard let n = Int(s), range.contains(n) else {
            throw InputError(
                "\(command): \(name) must be a whole number in \(range.lowerBound)...\(range.upperBound), not '\(s)'")
        }
        return n
    }

    func values(_ name: String) -> [String] { repeated[name] ?? [] }

    func seed(_ name: String, default value: UInt64) throws(InputError) -> UInt64 {
        guard let s = options[name] else { return value }
        guard let n = UInt64(s) else {
            throw InputError("\(command): \(name) must be a whole number from 0 to \(UInt64.max), not '\(s)'")
        }
        return n
    }

    func faults() throws(InputError) -> [Fault] {
        try values("--fault").map { (name: String) throws(InputError) -> Fault in
            guard let f = Fault(rawValue: name) else {
                throw InputError("\(command): unknown fault '\(name)'; 'opconform faults' lists them")
            }
            return f
        }
    }

    func generatorOptions() throws(InputError) -> GeneratorOptions {
        // The same ranges a finding file's options are held to (`GeneratorOptions`).
        if options["--flaws"] != nil && (options["--flaw-rate"].flatMap { Int($0) } ?? 0) == 0 {
            throw InputError(
                "\(command): --flaws chooses which flaws a flawed subclass gets; it needs --flaw-rate R above 0 (the "
                    + "percent of subclasses that get one)"
            )
        }
        return GeneratorOptions(size: try int("--size", default: 8, range: GeneratorOptions.sizeRange),
                         misuseRate: try int("--misuse-rate", default: 10, range: GeneratorOptions.rateRange),
                         flawRate: try int("--flaw-rate", default: 0, range: GeneratorOptions.rateRange),
            flaws: try options["--flaws"].map { (text: String) throws(InputError) in try SubclassFlaw.parseList(text) },
                         focus: try focus())
    }

    /// `--focus F` (replay --seed only): the part of the API a guided run's case leans towards,
    /// as its replay line says.
    func focus() throws(InputError) -> GeneratorFocus? {
        guard let name = options["--focus"] else { return nil }
        guard let focus = GeneratorFocus(rawValue: name) else {
            throw InputError(
                "--focus takes one of \(GeneratorFocus.allCases.map(\.rawValue).joined(separator: ", ")), not '\(name)'"
            )
        }
        return focus
    }

    func rules() throws(InputError) -> [RuleCheck] {
        guard let glob = options["--rules"] else { return RuleBook.all }
        let rules = RuleBook.matching(glob)
        if rules.isEmpty { throw InputError("no rule matches '\(glob)'; 'opconform rules' lists them") }
        return rules
    }

    /// `--jobs N`: cases at once; by default one per core for the reference engine, eight per
    /// core for an implementation in child processes (`RunConfiguration.defaultJobs`).
    func jobs(for impl: any Implementation) throws(InputError) -> Int {
        try int("--jobs", default: RunConfiguration.defaultJobs(for: impl), range: 1...256)
    }

    /// `--shard I/N`: the I-th of N slices of the cases (1-based on the command line).
    func shard() throws(InputError) -> Shard {
        guard let s = options["--shard"] else { return .whole }
        let parts = s.split(separator: "/")
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, (1...n).contains(i) else {
            throw InputError("\(command): --shard takes I/N with 1 <= I <= N (e.g. 2/4), not '\(s)'")
        }
        return Shard(index: i - 1, count: n)
    }

    /// The options that name and limit an implementation, for every command that runs one.
    static let implementationOptions = [
        "--driver-arg", "--timeout", "--case-deadline", "--unit-us", "--max-events", "--cases-per-driver", "--noise",
        "--sanitize"
    ]

    /// `--timeout S`, `--case-deadline S`, `--unit-us N`, `--max-events N`: the limits of a case run in a child
    /// process (`DriverLimits`); `--noise LEVEL`, the timing noise its requests ask for (the
    /// reference engine ignores it: its own scheduler chooses every interleaving).
    func limits() throws(InputError) -> DriverLimits {
        func seconds(_ name: String, _ value: Double) throws(InputError) -> Double {
            guard let s = options[name] else { return value }
            guard let x = Double(s), x > 0, x <= 86_400 else {
                throw InputError("\(command): \(name) takes seconds, a number above 0 and at most 86400, not '\(s)'")
            }
            return x
        }
        let standard = DriverLimits.standard
        return DriverLimits(
            timeout: try seconds("--timeout", standard.timeout),
            caseDeadline: try seconds("--case-deadline", standard.caseDeadline),
            unitMicroseconds: try int("--unit-us", default: standard.unitMicroseconds, range: 1...10_000_000),
            maxEvents: try int("--max-events", default: standard.maxEvents, range: 100...100_000_000),
            casesPerDriver: try int("--cases-per-driver", default: standard.casesPerDriver, range: 1...1_000_000),
            noise: try int("--noise", default: standard.noise, range: DriverLimits.noiseLevels))
    }

    /// The implementation `name` names (a built-in, or `exec:PATH` with `--driver-arg`s), with
    /// the limits given on the command line.
    func implementation(_ name: String, profile: Profile, faults: [Fault]) throws(InputError) -> any Implementation {
        // What --sanitize says is read before the driver is started to ask its hello.
        let sanitizer = try sanitizer()
        let impl = try Implementations.make(name, profile: profile, faults: faults, driver: CLI.driverCommand,
                                            driverArguments: values("--driver-arg"), limits: try limits())
        if let sanitizer { try sanitize(impl, with: sanitizer) }
        return impl
    }

    func sanitizer() throws(InputError) -> Sanitizer? {
        guard let text = options["--sanitize"] else { return nil }
        guard let sanitizer = Sanitizer(rawValue: text) else {
            throw InputError(
                "\(command): --sanitize takes thread or address (the sanitizer the driver was built with), not "
                    + "\(String(reflecting: String(text.prefix(40))))"
            )
        }
        return sanitizer
    }

    /// `--sanitize thread|address` (issue 30): the driver was built with that sanitizer; it is
    /// checked to be, and its processes are told to stop at the sanitizer's first report, which
    /// then ends its case as DATA-RACE or MEMORY-ERROR (`Sanitizer`).
    func sanitize(_ impl: any Implementation, with sanitizer: Sanitizer) throws(InputError) {
        let text = sanitizer.rawValue
        guard let launch = impl.launch else {
            throw InputError(
                "\(command): --sanitize \(text) needs a driver started by path (--impl exec:PATH) built with "
                    + "-sanitize=\(text); \(impl.name) is not one"
            )
        }
        guard sanitizer.instruments(executableAt: launch.executable) else {
            throw InputError(
                "\(command): \(launch.executable) was not built with the \(text) sanitizer: \(sanitizer.buildHint)")
        }
        // Sound: the command line is read before any thread starts a driver, and every driver
        // inherits the harness's environment (`DriverProcess.start`). The user's own options
        // come first; the ones the harness needs come last, and win.
        let key = sanitizer.optionsVariable
        let own = ProcessInfo.processInfo.environment[key].map { $0 + " " } ?? ""
        setenv(key, own + sanitizer.environment[key]!, 1)
    }

    func profile() throws(InputError) -> Profile {
        guard let s = options["--profile"] else { return .guide }
        guard let p = Profile(rawValue: s) else {
            throw InputError(
                "\(command): unknown profile '\(s)'; the profiles are: "
                    + Profile.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return p
    }
}
