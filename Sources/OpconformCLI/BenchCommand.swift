import Conformance
import ConformanceBench
import Foundation
import OperationSpec

/// `opconform bench`: throughput and scale figures in one run, printed as a table and written
/// as JSON (`Benchmark`).
enum BenchCommand {
    static func run(_ input: Arguments, _ console: Console) throws -> Int32 {
        var input = input
        let args = try input.parse()
        if args.flags.contains("--help") { console.out(Help.bench + "\n"); return 0 }
        if !args.positionals.isEmpty {
            throw InputError("bench takes no positional argument, but was given '\(args.positionals[0])'")
        }
        let quick = args.flags.contains("--quick")
        if args.flags.contains("--detect") { return try detect(args, console, quick: quick) }
        var options = try parseOptions(args, quick: quick)
        try addImplementations(to: &options, args, console)
        try addKnownDivergences(to: &options, console)
        if !args.flags.contains("--no-detect") { options.detect = options.gates }
        if let path = args.options["--json"] { try RunCommand.writable(file: path) }
        let rows = Benchmark(options: options).run { step in
            // A line per step where nobody watches a terminal (CI logs), one line rewritten where someone does.
            console.err(console.interactive ? "\u{1B}[2K\r\(step)..." : "bench: \(step)\n")
        }
        if console.interactive { console.err("\u{1B}[2K\r") }
        console.out(BenchReport.table(rows))
        if let path = args.options["--json"] { try RunCommand.write(BenchReport.json(rows), to: path) }
        return 0
    }

    /// Reads the sizes of the benchmark from the options, smaller with `--quick`.
    private static func parseOptions(_ args: Arguments, quick: Bool) throws(InputError) -> Benchmark.Options {
        var options = Benchmark.Options()
        options.cases = try args.int("--cases", default: quick ? 200 : 2000, range: 1...1_000_000)
        options.realCases = try args.int("--real", default: quick ? 5 : 40, range: 0...10_000)
        options.shrinking = !args.flags.contains("--no-shrink")
        if let list = args.options["--scale"] {
            options.scale = try list.split(separator: ",").map { (part: Substring) throws(InputError) -> Int in
                guard let n = Int(part), (2...1_000_000).contains(n) else {
                    throw InputError(
                        "bench: --scale takes operation counts from 2 to 1000000 separated by commas, not '\(list)'")
                }
                return n
            }
        } else if quick {
            options.scale = [200, 800]
        }
        options.longSteps = try args.int("--steps", default: quick ? 20_000 : 200_000, range: 0...10_000_000)
        options.jobsCases = try args.int("--jobs-cases", default: quick ? 16 : 64, range: 0...100_000)
        if let list = args.options["--jobs-list"] {
            options.jobsList = try list.split(separator: ",").map { (part: Substring) throws(InputError) -> Int in
                guard let n = Int(part), (1...256).contains(n) else {
                    throw InputError("bench: --jobs-list takes jobs from 1 to 256 separated by commas, not '\(list)'")
                }
                return n
            }
        }
        options.detectOptions.seeds = (1...UInt64(try args.int("--detect-seeds", default: 3, range: 1...100))).map {
            $0
        }
        options.detectOptions.capCases = try args.int("--detect-cap", default: quick ? 100 : 2000, range: 1...1_000_000)
        let capSeconds = try args.int("--detect-seconds", default: quick ? 10 : 60, range: 1...86_400)
        options.detectOptions.capSeconds = Double(capSeconds)
        if let list = args.options["--shapes"] {
            options.shapes = try list.split(separator: ",").map {
                (part: Substring) throws(InputError) -> ScaleScenarios.Shape in
                guard let shape = ScaleScenarios.Shape(rawValue: String(part)) else {
                    throw InputError(
                        "bench: --shapes takes "
                            + "\(ScaleScenarios.Shape.allCases.map(\.rawValue).joined(separator: ", ")) separated by "
                            + "commas, not '\(list)'"
                    )
                }
                return shape
            }
        }
        return options
    }

    /// Adds the implementations `--impls` names, leaving out a built-in one that cannot start here.
    private static func addImplementations(
        to options: inout Benchmark.Options, _ args: Arguments, _ console: Console
    ) throws(InputError) {
        let names = (args.options["--impls"] ?? "foundation,gnustep").split(separator: ",").map(String.init).filter {
            !$0.isEmpty && $0 != "reference"
        }
        for name in names {
            do {
                options.implementations.append(try args.implementation(name, profile: .guide, faults: []))
            } catch {
                // A driver named by path was asked for by name: it not starting is an error.
                if name.hasPrefix(DriverLaunch.scheme) { throw error }
                // A built-in real implementation that cannot be started here is left out, and said so.
                console.err("bench: leaving out \(name): \(error.message)\n")
            }
        }
        if options.implementations.contains(where: { $0.name == "foundation" && $0.launch == nil }) {
            options.plainFoundation = CLI.driverCommand + ["--plain"]
        }
    }

    /// Adds the built-in implementations' known divergences, as their gates read them.
    private static func addKnownDivergences(
        to options: inout Benchmark.Options, _ console: Console
    ) throws(InputError) {
        // The built-in implementations' known divergences: their jobs scaling runs as their
        // gate does, and the time to detect measures them (unless --no-detect).
        for impl in options.implementations where impl.launch == nil {
            guard let file = expectationsFile[impl.name] else { continue }
            guard let path = OwnExecutable.packageFile("Fixtures/expectations/" + file) else {
                console.err("bench: \(impl.name) runs without its known divergences: "
                    + "Fixtures/expectations/\(file) is not found from here (run from the package)\n")
                continue
            }
            options.gates.append(try Expectations.load(path))
        }
    }

    /// `bench --detect`: the time from `run` to a minimised finding of each planted defect
    /// (`TimeToFinding`): the subclass flaws on Foundation, the python example's bug, and the
    /// planted bugs of the Swift examples when they are built.
    static func detect(_ args: Arguments, _ console: Console, quick: Bool) throws -> Int32 {
        let seed = try args.seed("--detect-seed", default: 1)
        let cap = try args.int("--detect-cap", default: quick ? 100 : 300, range: 1...1_000_000)
        let wanted = args.options["--defects"].map { $0.split(separator: ",").map(String.init) }
        if let path = args.options["--json"] { try RunCommand.writable(file: path) }
        var rows: [TimeToFinding.Row] = []
        for defect in try plantedDefects(seed: seed, cap: cap)
        where wanted.map({ list in list.contains { defect.name.contains($0) } }) ?? true {
            console.err(console.interactive ? "\u{1B}[2K\r\(defect.name)..." : "bench: \(defect.name)\n")
            rows.append(TimeToFinding.measure(defect))
        }
        if console.interactive { console.err("\u{1B}[2K\r") }
        console.out(TimeToFinding.table(rows))
        if let path = args.options["--json"] { try RunCommand.write(JSONCodec.encodeString(rows), to: path) }
        return 0
    }

    /// The planted defects `bench --detect` times, each with the run that looks for it.
    static func plantedDefects(seed: UInt64, cap: Int) throws -> [TimeToFinding.Defect] {
        var defects: [TimeToFinding.Defect] = []
        // A driver built on Foundation, or Foundation itself: its known divergences are excused,
        // as run and gate excuse them, so that no platform hang is shrunk on the way.
        func knowing(_ c: inout RunConfiguration) throws {
            if let (known, source) = try KnownDivergenceOption.resolve(nil, for: c.impl) {
                c.known = known; c.knownSource = source
            } else if c.impl.name == "foundation",
                let path = OwnExecutable.packageFile("Fixtures/expectations/foundation-linux.json")
            {
                c.known = try Expectations.load(path); c.knownSource = path
            }
        }
        func ruleRun(_ impl: any Implementation, _ rule: String, profile: Profile) throws -> RunConfiguration {
            var c = RunConfiguration(
                impl: impl, profile: profile, seed: seed, count: cap, rules: RuleBook.all.filter { $0.rule.id == rule })
            c.stopRules = [rule]
            c.replayProgram = CLI.replayProgram
            try knowing(&c)
            return c
        }
        do {
            let foundation = try Implementations.make(
                "foundation", profile: .guide, faults: [], driver: CLI.driverCommand)
            for flaw in SubclassFlaw.allCases {
                var c = FlawProbe.configuration(flaw, impl: foundation, count: cap, seed: seed)
                c.replayProgram = CLI.replayProgram
                try knowing(&c)
                defects.append(TimeToFinding.Defect(name: "flaw \(flaw.rawValue)", configuration: c))
            }
        } catch {
            defects.append(
                .unavailable(
                    "the flaw catalog",
                    why: "foundation cannot run here: \((error as? InputError)?.message ?? "\(error)")"))
        }
        let drivers: [(name: String, path: String, arguments: [String], rule: String, profile: Profile)] = [
            (
                "python --bug add-ignores-suspension", "Examples/python-driver/driver.py",
                ["--bug", "add-ignores-suspension"],
                RuleID.queueSuspended, .guide
            ),
            ("alternative-queue, width off by one", "Examples/alternative-queue/.build/debug/altqueue-buggy-driver", [],
             RuleID.queueMaxConcurrent, .classReference),
            (
                "async-operation, the blog post's class", "Examples/async-operation/.build/debug/blog-operation-driver",
                [],
                RuleID.cancelBeforeStartFinishes, .classReference
            )
        ]
        for d in drivers {
            guard let path = OwnExecutable.packageFile(d.path) else {
                let example = d.path.split(separator: "/").prefix(2).joined(separator: "/")
                defects.append(.unavailable(d.name, why: "\(d.path) is not here (bash \(example)/check.sh builds it)"))
                continue
            }
            do {
                let impl = try Implementations.external(DriverLaunch.resolve("exec:" + path, arguments: d.arguments))
                defects.append(
                    TimeToFinding.Defect(name: d.name, configuration: try ruleRun(impl, d.rule, profile: d.profile)))
            } catch {
                defects.append(.unavailable(d.name, why: (error as? InputError)?.message ?? "\(error)"))
            }
        }
        return defects
    }

    /// The expectations file the time-to-detect rows read for each built-in implementation.
    static var expectationsFile: [String: String] {
        #if os(Linux)
        ["foundation": "foundation-linux.json", "gnustep": "gnustep.json"]
        #else
        // Foundation's known divergences are Linux's: elsewhere none are written down yet.
        ["gnustep": "gnustep.json"]
        #endif
    }
}
