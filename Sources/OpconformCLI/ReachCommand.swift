import Conformance
import Foundation
import OperationSpec

/// `opconform reach`: which paths the cases of a run take, as a table of entry point × state ×
/// kind (`ReachTable`): what a green run has checked, and what it has not.
enum ReachCommand {
    static func run(_ input: Arguments, _ console: Console) throws -> Int32 {
        var input = input
        let args = try input.parse()
        if args.flags.contains("--help") { console.out(Help.reach + "\n"); return 0 }
        if let extra = args.positionals.first {
            throw InputError("reach takes no positional argument, but was given '\(extra)'")
        }
        if args.flags.contains("--reach") && args.flags.contains("--no-reach") {
            throw InputError("reach: --reach and --no-reach contradict each other; give one")
        }
        let profile = try args.profile()
        let impl = try args.implementation(args.options["--impl"] ?? "reference", profile: profile, faults: [])
        var configuration = RunConfiguration(impl: impl, profile: profile, seed: try args.seed("--seed", default: 1),
                                             count: try args.int("--count", default: 100, range: 1...1_000_000),
                                             generator: try args.generatorOptions(), shrink: false)
        if args.flags.contains("--reach") { configuration.generator.reach = true }
        if args.flags.contains("--no-reach") { configuration.generator.reach = false }
        let jobs = try args.jobs(for: impl)
        let stop = StopRequest()
        configuration.stop = stop
        let interrupts = Interrupts(stop: stop, console: console)
        defer { interrupts.uninstall() }
        let count = configuration.count
        if console.interactive { console.err("  running \(count) cases...\r") }
        let table = ReachTable.measure(configuration, jobs: jobs)
        if console.interactive { console.err(String(repeating: " ", count: 40) + "\r") }
        let g = configuration.generator
        console.out("\(impl.name): \(table.cases) cases from seed \(configuration.seed) "
            + "(generator v\(ScenarioGenerator.stamp(g)), size \(g.size), misuse \(g.misuseRate)%"
            + (g.reach ? ", reach episodes)\n" : ", without reach episodes)\n"))
        console.out(table.text())
        if stop.isRequested {
            console.out("interrupted after \(table.cases) of \(count) cases: the table counts those\n")
            return 130
        }
        return table.gaps.isEmpty ? 0 : 1
    }
}
