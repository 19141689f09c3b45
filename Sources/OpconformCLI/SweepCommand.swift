import Conformance
import ConformanceReports
import Foundation
import OperationSpec

/// `opconform sweep FILE [--schedules N]`: one scenario file (a hand-written scenario, a
/// finding's, a document's sample) under N schedule seeds, every rule checked on every run:
/// the samples' sweep for any scenario.
enum SweepCommand {
    static func run(_ input: Arguments, _ console: Console) throws -> Int32 {
        var input = input
        let args = try input.parse()
        if args.flags.contains("--help") { console.out(Help.sweep + "\n"); return 0 }
        guard args.positionals.count == 1 else {
            throw InputError(
                args.positionals.isEmpty
                    ? "sweep needs a scenario file: opconform sweep FILE [--schedules N]"
                    : "sweep takes one scenario file, but was given \(args.positionals.count): "
                        + "\(args.positionals.joined(separator: " "))"
            )
        }
        let path = args.positionals[0]
        let profile = try args.profile()
        let checks = try args.rules()
        let implName = args.options["--impl"] ?? "reference"
        // Every interleaving on the reference engine costs microseconds; a real implementation's
        // run costs milliseconds and real waits.
        let schedules = try args.int(
            "--schedules", default: implName == "reference" ? 1000 : 100, range: 1...10_000_000)
        let firstSeed = try args.seed("--seed", default: 1)
        let scenario: Scenario
        if let finding = try ReplayCommand.loadFinding(path) {
            scenario = finding.scenario
        } else {
            scenario = try JSONCodec.loadScenario(at: path)
        }
        let impl = try args.implementation(implName, profile: profile, faults: [])
        if let why = impl.refusal(of: scenario) { throw InputError("sweep: \(path): \(why)") }
        let strict = args.flags.contains("--strict")
        let interactive = console.interactive
        let known = try KnownDivergenceOption.resolve(args.options["--expectations"], for: impl)
        let sweep = ScheduleSweep(
            scenario: scenario, schedules: schedules, firstSeed: firstSeed, profile: profile, impl: impl, rules: checks,
            known: known?.0
        ) { done in
            if interactive && (done % 100 == 0 || done == schedules) {
                console.err("  \(done) of \(schedules) schedules\r")
            }
        }
        if interactive { console.err(String(repeating: " ", count: 40) + "\r") }
        console.out("\(scenario.name) (\(path)) on \(impl.name), profile \(profile.rawValue)\n")
        let words = ShellWords.join(
            impl.replayArguments + (args.options["--profile"] == nil ? [] : ["--profile", profile.rawValue]))
        let replay: (UInt64) -> String = {
            "\(CLI.replayProgram) replay \(ShellWords.quote(path)) --schedule-seed \($0) \(words)"
        }
        console.out(SweepReport.text(sweep, firstSeed: firstSeed, strict: strict, replay: replay))
        for rule in sweep.known.keys.sorted() {
            console.out(
                "known on \(impl.setting.platform ?? known?.0.impl ?? "the platform"): \(rule) in "
                    + "\(sweep.known[rule]!) of \(schedules) schedules\n"
            )
        }
        let reached = sweep.tallies.filter { $0.hits > 0 }.count
        let unobservable = sweep.tallies.filter { $0.notObservable != nil }
        console.out(
            "\(checks.count) rules: \(reached) reached, \(sweep.failing.count) fail, \(sweep.warning.count) warn, "
                + "\(unobservable.count) not observable\n"
        )
        if sweep.endings["breach"] != nil {
            console.out(
                "NO VERDICT: the driver broke the protocol in \(sweep.endings["breach"]!) of \(schedules) runs\n")
            return 4
        }
        if !SweepReport.fails(sweep, strict: strict) && !sweep.warning.isEmpty {
            console.out(
                "no failure; \(sweep.warning.count) \(sweep.warning.count == 1 ? "rule warns" : "rules warn") "
                    + "(--strict fails on warnings)\n"
            )
        }
        return SweepReport.fails(sweep, strict: strict) ? 1 : 0
    }
}
