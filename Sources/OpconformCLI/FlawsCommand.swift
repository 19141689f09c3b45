import Conformance
import ConformanceReports
import Foundation
import OperationSpec

/// `opconform flaws [--json]`: the catalog of concurrent-subclass flaws the generator can write
/// (`--flaw-rate R --flaws LIST`), each with the duty it breaks and the rules that catch it.
enum FlawsCommand {
    struct Entry: Codable { var name: String; var summary: String; var duty: String; var rules: [String] }

    static func run(_ input: Arguments, _ console: Console) throws -> Int32 {
        var input = input
        let args = try input.parse()
        if args.flags.contains("--help") { console.out(Help.flaws + "\n"); return 0 }
        guard args.positionals.isEmpty else {
            throw InputError(
                "flaws takes no file; it lists the catalog (--json for JSON), or probes an "
                    + "implementation (--probe --impl NAME)"
            )
        }
        if args.flags.contains("--corpus") { return try corpus(args, console) }
        for option in corpusOptions where args.options[option] != nil {
            throw InputError("flaws: \(option) applies to --corpus only")
        }
        if args.flags.contains("--probe") { return try probe(args, console) }
        for option in ["--impl", "--count", "--seed", "--size", "--flaws"] + Arguments.implementationOptions
        where args.options[option] != nil {
            throw InputError("flaws: \(option) applies to --probe only")
        }
        if args.flags.contains("--json") {
            console.out(
                JSONCodec.encodeString(
                    SubclassFlaw.allCases.map {
                        Entry(name: $0.rawValue, summary: $0.summary, duty: $0.duty, rules: $0.expectedRules)
                    }))
            return 0
        }
        for f in SubclassFlaw.allCases {
            console.out(f.rawValue.padding(26) + f.summary + "\n")
            console.out("".padding(26) + "duty: " + f.duty + "\n")
            console.out("".padding(26) + "caught by: " + f.expectedRules.joined(separator: ", ")
                        + (f.profile == .guide ? "" : " (under --profile \(f.profile.rawValue))") + "\n")
        }
        console.out("""

            \(SubclassFlaw.allCases.count) flaws. Write them into generated subclasses: opconform run --impl NAME \
            --flaw-rate 30 [--flaws a,b]
            (--flaw-rate R: percent of concurrent subclasses with a flaw; --flaws: which, default all but \
            finishes-before-work and start-skips-main, which are drawn only when named or with all)

            """)
        return 0
    }

    /// `--probe --impl NAME`: each flaw in turn, until its first catch (`FlawProbe`), as a
    /// table: the rule that caught it, the cases it took, the operations before and after
    /// shrinking, how often the minimised case broke the rule again, and its replay line.
    static func probe(_ args: Arguments, _ console: Console) throws -> Int32 {
        let impl = try args.implementation(args.options["--impl"] ?? "reference", profile: .guide, faults: [])
        let count = try args.int("--count", default: FlawProbe.bound, range: 1...100_000)
        let seed = try args.seed("--seed", default: 1)
        let size = try args.int("--size", default: 8, range: GeneratorOptions.sizeRange)
        let flaws =
            try args.options["--flaws"].map { (text: String) throws(InputError) in try SubclassFlaw.parseList(text) }
            ?? SubclassFlaw.allCases
        let stop = StopRequest()
        let interrupts = Interrupts(stop: stop, console: console)
        defer { interrupts.uninstall() }
        var outcomes: [FlawProbe.Outcome] = []
        let json = args.flags.contains("--json")
        if !json {
            let noise = args.options["--noise"].map { ", timing noise \($0)" } ?? ""
            console.out(
                "\(impl.name): each flaw in every concurrent subclass, up to \(count) cases from seed \(seed), size "
                    + "\(size), no misuse\(noise)\n\n"
            )
            console.out(
                "flaw".padding(26) + "caught by".padding(32) + "cases".padding(7) + "ops".padding(9) + "replays\n")
        }
        for flaw in flaws {
            if stop.isRequested { break }
            let o = FlawProbe.probe(flaw, impl: impl, count: count, seed: seed, size: size, stop: stop)
            outcomes.append(o)
            guard !json else { continue }
            switch o.status {
            case "caught":
                let ops = "\(o.originalOperations ?? 0)→\(o.operations ?? 0)"
                console.out(
                    flaw.rawValue.padding(26) + (o.rule ?? "").padding(32) + String(o.cases).padding(7) + ops.padding(9)
                        + "\(o.reproduced ?? 0)/\(o.attempts ?? 0)\n")
                if let replay = o.replay { console.out("".padding(26) + replay + "\n") }
            case "missed":
                console.out(flaw.rawValue.padding(26) + "not caught".padding(32) + String(o.cases) + "\n")
            default:
                console.out(flaw.rawValue.padding(26) + o.status + ": " + (o.reason ?? "") + "\n")
            }
        }
        if json { console.out(JSONCodec.encodeString(outcomes)) }
        let missed = outcomes.filter { $0.status == "missed" }.count
        if !json {
            console.out(
                "\n\(outcomes.filter { $0.status == "caught" }.count) caught, \(missed) not caught, "
                    + "\(outcomes.filter { $0.status != "caught" && $0.status != "missed" }.count) not observable "
                    + "here\n"
            )
        }
        return stop.isRequested ? 130 : missed > 0 ? 1 : 0
    }

    /// The options of `--corpus` alone.
    static let corpusOptions = ["--driver", "--jobs", "--profile", "--expectations", "--classes"]

    /// `--corpus`: the corpus of real-world asynchronous base classes (`StyleCorpus`), each run
    /// for `--count` cases through the corpus driver, what was reported sorted against the
    /// class's labels (`CorpusMeasure`): per class the defects found and by which rule, the
    /// defects missed, the false alarms and Foundation's own divergences; then precision and
    /// recall. Exit 0 (a measure, not a verdict), 2 for bad usage.
    static func corpus(_ args: Arguments, _ console: Console) throws -> Int32 {
        try rejectProbeOptions(args)
        let count = try args.int("--count", default: 100, range: 1...100_000)
        let seed = try args.seed("--seed", default: 1)
        let jobs = try args.int("--jobs", default: 2 * ProcessInfo.processInfo.activeProcessorCount, range: 1...64)
        let known = try corpusExpectations(args)
        // Foundation on Linux is judged by the reading its known divergences were written for.
        let profile = args.options["--profile"] == nil ? known?.profile ?? .guide : try args.profile()
        let entries = try args.options["--classes"].map(corpusEntries) ?? StyleCorpus.entries
        let named = try args.options["--driver"].map { (path: String) throws(InputError) in
            try DriverLaunch.resolve(path).executable
        }
        guard let driver = named ?? CorpusMeasure.driverNextTo(CommandLine.arguments[0]) else {
            throw InputError("flaws: no corpus-driver next to this opconform; build it (swift build) "
                             + "or name it with --driver PATH")
        }
        let limits = try args.limits()
        let stop = StopRequest()
        let interrupts = Interrupts(stop: stop, console: console)
        defer { interrupts.uninstall() }
        let json = args.flags.contains("--json")
        if !json {
            let source = known == nil ? "nowhere (--expectations none)" : "its known-divergences file"
            console.out("the corpus of \(entries.count) classes: \(count) cases each from seed \(seed), "
                        + "profile \(profile.rawValue), not shrunk; Foundation's own divergences from \(source)\n\n")
        }
        var outcomes: [CorpusMeasure.ClassOutcome] = []
        for entry in entries {
            if stop.isRequested { break }
            let o = CorpusMeasure.measure(entry, driver: driver, count: count, seed: seed, profile: profile,
                                          jobs: jobs, known: known, limits: limits, stop: stop)
            outcomes.append(o)
            if !json { console.out(describe(o, entry)) }
        }
        printTotals(of: outcomes, profile: profile, count: count, seed: seed, json: json, console)
        return stop.isRequested ? 130 : 0
    }

    /// Refuses the options `--corpus` does not take: `--probe`'s, and `--sanitize`.
    private static func rejectProbeOptions(_ args: Arguments) throws(InputError) {
        if args.flags.contains("--probe") {
            throw InputError("flaws: --corpus and --probe are two measures; choose one")
        }
        for option in ["--impl", "--size", "--flaws", "--driver-arg"] where args.options[option] != nil {
            throw InputError("flaws: \(option) applies to --probe only; --corpus runs the corpus driver's classes")
        }
        if args.options["--sanitize"] != nil {
            // Its labels say a data race is invisible; a sanitizer's report would count as a false alarm.
            throw InputError(
                "flaws: --corpus does not measure a sanitized corpus driver yet (its labels count a data race as "
                    + "invisible); run one class with it instead: opconform run --impl "
                    + "exec:DRIVER --driver-arg --class "
                    + "--driver-arg NAME --sanitize thread (Specs/sanitizers.md)")
        }
    }

    /// Loads the known divergences the corpus is judged with: `--expectations`, or Foundation on Linux's file.
    private static func corpusExpectations(_ args: Arguments) throws -> Expectations? {
        switch args.options["--expectations"] {
        case "none"?: return nil
        case let path?: return try Expectations.load(path)
        case nil:
            return try KnownDivergenceOption.platformFile("foundation-linux").map { path throws(InputError) in
                try Expectations.load(path)
            }
        }
    }

    /// Prints the corpus's totals (precision, recall, exit statuses as labelled), or every class as JSON.
    private static func printTotals(
        of outcomes: [CorpusMeasure.ClassOutcome], profile: Profile, count: Int, seed: UInt64, json: Bool,
        _ console: Console
    ) {
        let totals = CorpusMeasure.Totals(outcomes)
        if json {
            struct Output: Encodable {
                var profile: String
                var count: Int
                var seed: UInt64
                var classes: [CorpusMeasure.ClassOutcome]
                var totals: CorpusMeasure.Totals
            }
            let output = Output(profile: profile.rawValue, count: count, seed: seed, classes: outcomes, totals: totals)
            console.out(JSONCodec.encodeString(output))
        } else {
            func percent(_ x: Double?) -> String { x.map { String(format: "%.0f%%", $0 * 100) } ?? "n/a" }
            let asLabelled = outcomes.filter { o in
                o.exitStatus == (StyleCorpus.entry(o.name)?.visible.isEmpty == false ? 1 : 0)
            }.count
            console.out("""
                totals: \(totals.classes) classes, \(totals.cases) cases, \(String(format: "%.1f", totals.seconds)) s
                  precision \(percent(totals.precision)): \(totals.trueReports) true reports, \
                \(totals.falseAlarms) false alarms \
                (\(totals.platformReports) reports of Foundation's own divergences left out)
                  recall \(percent(totals.recall)): \(totals.foundDefects) of \(totals.visibleDefects) \
                visible defects found
                  exit status as labelled: \
                \(asLabelled) \
                of \(outcomes.count) classes

                """)
        }
    }

    /// The classes `--classes a,b` names.
    static func corpusEntries(_ list: String) throws(InputError) -> [StyleCorpus.Entry] {
        try list.split(separator: ",").map { (name: Substring) throws(InputError) -> StyleCorpus.Entry in
            guard let e = StyleCorpus.entry(String(name)) else {
                throw InputError("flaws: no class '\(name)' in the corpus; it has: "
                                 + StyleCorpus.entries.map(\.name).joined(separator: ", "))
            }
            return e
        }
    }

    /// One class's block of the text output.
    static func describe(_ o: CorpusMeasure.ClassOutcome, _ entry: StyleCorpus.Entry) -> String {
        var lines = ["\(o.name) (\(o.cases) cases, \(String(format: "%.1f", o.seconds)) s): \(entry.style)"]
        if let error = o.error { lines.append("  error: " + error) }
        if entry.defects.isEmpty { lines.append("  labelled: no defect") }
        let labelled = entry.visible.isEmpty ? 0 : 1
        lines.append(
            "  exit status \(o.exitStatus)"
                + (o.exitStatus == labelled
                    ? ", as labelled"
                    : ", NOT as labelled (\(entry.visible.isEmpty ? "no visible defect" : "a visible defect"): "
                        + "\(labelled) expected)")
        )
        for d in entry.defects {
            let status: String
            switch d.visibility {
            case .visible:
                let should = d.rules.isEmpty ? "no rule of the catalog" : d.rules.joined(separator: ", ")
                status = o.found[d.id].map { "found by " + $0.joined(separator: ", ") }
                    ?? "MISSED (should be caught by \(should))"
            case .platformLimit: status = "platform limit, not the class's: " + (d.why ?? "")
            case .invisible: status = "not visible here: " + (d.why ?? "")
            case .misuse:
                let by = o.reports.filter { $0.verdict == "found" && $0.defect == d.id }.map(\.rule)
                status = (by.isEmpty ? "not shown in these cases" : "shown by " + by.joined(separator: ", "))
                    + " (a misuse shows it, a warning under class-reference; recall does not count it)"
            }
            lines.append("  defect \(d.id) [\(d.cites.joined(separator: "; "))]: \(status)")
        }
        for r in o.reports where r.verdict == "false-alarm" {
            let kind = r.defect.map { "FALSE ALARM (the platform limit \($0), blamed on the class)" } ?? "FALSE ALARM"
            let on = r.onSubclass.map { $0 ? ", on an operation of the class" : ", on one of Foundation's operations" }
            let counts = "\(r.severity), \(r.cases) of \(o.cases) cases\(on ?? "")"
            lines.append("  \(kind): \(r.rule) [\(counts)]: \(r.message)")
        }
        let slow = o.reports.filter { $0.verdict == "unconfirmed" }.map { "\($0.rule) (\($0.cases))" }
        if !slow.isEmpty {
            lines.append(
                "  unconfirmed (absence or time, not seen again with patience; not failures): "
                    + slow.joined(separator: ", "))
        }
        let platform = o.reports.filter { $0.verdict == "platform" }.map { "\($0.rule) (\($0.cases))" }
        if !platform.isEmpty {
            lines.append("  Foundation's own known divergences (left out): " + platform.joined(separator: ", "))
        }
        return lines.joined(separator: "\n") + "\n\n"
    }
}
