import Conformance
import Foundation
import OperationSpec

/// `opconform samples [--schedules N] [--profile P] [--write DIR]`: runs the documents' own sample
/// operations through every checker under N schedule seeds each and says what breaks.
enum SamplesCommand {
    static func run(_ input: Arguments, _ console: Console) throws -> Int32 {
        func print(_ s: String, terminator: String = "\n") { console.out(s + terminator) }
        var input = input
        let args = try input.parse(flags: [], options: ["--schedules", "--profile", "--write", "--seed"])
        if args.flags.contains("--help") { print(Help.samples); return 0 }
        let schedules = try args.int("--schedules", default: 1000, range: 1...10_000_000)
        let seed = try args.seed("--seed", default: 1)
        let profile = try args.profile()
        if let dir = args.options["--write"] {
            for sample in DocumentSamples.all {
                let path = (dir as NSString).appendingPathComponent(sample.scenario.name + ".json")
                guard FileManager.default.createFile(atPath: path, contents: JSONCodec.encode(sample.scenario)) else {
                    throw InputError("cannot write \(path)")
                }
            }
            print("wrote \(DocumentSamples.all.count) samples to \(dir)")
            return 0
        }
        var anyViolation = false
        let interactive = console.interactive
        for sample in DocumentSamples.all {
            if interactive { console.err("running \(sample.scenario.name) under \(schedules) schedules...\r") }
            let sweep = ScheduleSweep(scenario: sample.scenario, schedules: schedules, firstSeed: seed, profile: profile)
            print("\(sample.scenario.name)  (\(sample.source))")
            print("  \(schedules) schedules from seed \(seed); endings: " + sweep.endings.keys.sorted().map { "\($0) \(sweep.endings[$0]!)" }.joined(separator: ", "))
            if sweep.violated.isEmpty { print("  no violation") }
            for t in sweep.violated {
                anyViolation = true
                print("  \(t.id): broken under \(t.violatingSeeds) of \(schedules) schedules; first at schedule seed \(t.firstSeed!)")
                if let v = t.firstViolation { print("    " + v.description.replacingOccurrences(of: "\n", with: "\n    ")) }
            }
        }
        return anyViolation ? 1 : 0
    }
}
