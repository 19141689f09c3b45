import Conformance
import ConformanceReports
import Foundation
import OperationSpec

/// `opconform samples [--schedules N] [--profile P] [--write DIR]`: runs the documents' own sample
/// operations through every checker under N schedule seeds each and says what breaks.
enum SamplesCommand {
    static func run(_ input: Arguments, _ console: Console) throws -> Int32 {
        func print(_ s: String, terminator: String = "\n") { console.out(s + terminator) }
        var input = input
        let args = try input.parse()
        if args.flags.contains("--help") { print(Help.samples); return 0 }
        // `samples FILE` once ran the built-in samples and ignored FILE without a word.
        if let stray = args.positionals.first {
            throw InputError(
                "samples runs the documents' own samples and takes no file, but was given '\(stray)'; for a scenario "
                    + "file of your own: opconform sweep \(ShellWords.quote(stray))"
            )
        }
        let schedules = try args.int("--schedules", default: 1000, range: 1...10_000_000)
        let seed = try args.seed("--seed", default: 1)
        let profile = try args.profile()
        if let dir = args.options["--write"] {
            for sample in DocumentSamples.all {
                let path = PathText.join(dir, sample.scenario.name + ".json")
                try OutputFile.write(ScenarioFormat.encode(sample.scenario), to: path)
            }
            print("wrote \(DocumentSamples.all.count) samples to \(dir)")
            return 0
        }
        var anyViolation = false
        let interactive = console.interactive
        for sample in DocumentSamples.all {
            if interactive { console.err("running \(sample.scenario.name) under \(schedules) schedules...\r") }
            let sweep = ScheduleSweep(
                scenario: sample.scenario, schedules: schedules, firstSeed: seed, profile: profile)
            print("\(sample.scenario.name)  (\(sample.source))")
            print(SweepReport.text(sweep, firstSeed: seed, strict: false, replay: nil), terminator: "")
            if !sweep.violated.isEmpty || !sweep.deaths.isEmpty { anyViolation = true }
        }
        return anyViolation ? 1 : 0
    }
}
