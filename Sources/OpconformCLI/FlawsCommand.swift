import Conformance
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
        guard args.positionals.isEmpty else { throw InputError("flaws takes no file; it lists the catalog (--json for JSON), or probes an implementation (--probe --impl NAME)") }
        if args.flags.contains("--probe") { return try probe(args, console) }
        for option in ["--impl", "--count", "--seed", "--size", "--flaws"] + Arguments.implementationOptions where args.options[option] != nil {
            throw InputError("flaws: \(option) applies to --probe only")
        }
        if args.flags.contains("--json") {
            console.out(JSONCodec.encodeString(SubclassFlaw.allCases.map { Entry(name: $0.rawValue, summary: $0.summary, duty: $0.duty, rules: $0.expectedRules) }))
            return 0
        }
        for f in SubclassFlaw.allCases {
            console.out(f.rawValue.padding(26) + f.summary + "\n")
            console.out("".padding(26) + "duty: " + f.duty + "\n")
            console.out("".padding(26) + "caught by: " + f.expectedRules.joined(separator: ", ") + "\n")
        }
        console.out("""

            \(SubclassFlaw.allCases.count) flaws. Write them into generated subclasses: opconform run --impl NAME --flaw-rate 30 [--flaws a,b]
            (--flaw-rate R: percent of concurrent subclasses with a flaw; --flaws: which, default all)

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
        let flaws = try args.options["--flaws"].map { (text: String) throws(InputError) in try SubclassFlaw.parseList(text) } ?? SubclassFlaw.allCases
        let stop = StopRequest()
        let interrupts = Interrupts(stop: stop, console: console)
        defer { interrupts.uninstall() }
        var outcomes: [FlawProbe.Outcome] = []
        let json = args.flags.contains("--json")
        if !json {
            let noise = args.options["--noise"].map { ", timing noise \($0)" } ?? ""
            console.out("\(impl.name): each flaw in every concurrent subclass, up to \(count) cases from seed \(seed), size \(size), no misuse\(noise)\n\n")
            console.out("flaw".padding(26) + "caught by".padding(32) + "cases".padding(7) + "ops".padding(9) + "replays\n")
        }
        for flaw in flaws {
            if stop.isRequested { break }
            let o = FlawProbe.probe(flaw, impl: impl, count: count, seed: seed, size: size, stop: stop)
            outcomes.append(o)
            guard !json else { continue }
            switch o.status {
            case "caught":
                let ops = "\(o.originalOperations ?? 0)→\(o.operations ?? 0)"
                console.out(flaw.rawValue.padding(26) + (o.rule ?? "").padding(32) + String(o.cases).padding(7) + ops.padding(9)
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
            console.out("\n\(outcomes.filter { $0.status == "caught" }.count) caught, \(missed) not caught, "
                        + "\(outcomes.filter { $0.status != "caught" && $0.status != "missed" }.count) not observable here\n")
        }
        return stop.isRequested ? 130 : missed > 0 ? 1 : 0
    }
}
