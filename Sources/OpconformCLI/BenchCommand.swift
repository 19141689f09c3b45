import Conformance
import Foundation
import OperationSpec

/// `opconform bench`: throughput and scale figures in one run, printed as a table and written
/// as JSON (`Benchmark`).
enum BenchCommand {
    static func run(_ input: Arguments, _ console: Console) throws -> Int32 {
        var input = input
        let args = try input.parse(flags: ["--quick", "--no-shrink"], options: ["--cases", "--real", "--scale", "--shapes", "--impls", "--json"] + Arguments.implementationOptions)
        if args.flags.contains("--help") { console.out(Help.bench + "\n"); return 0 }
        if !args.positionals.isEmpty { throw InputError("bench takes no positional argument, but was given '\(args.positionals[0])'") }
        let quick = args.flags.contains("--quick")
        var options = Benchmark.Options()
        options.cases = try args.int("--cases", default: quick ? 200 : 2000, range: 1...1_000_000)
        options.realCases = try args.int("--real", default: quick ? 5 : 40, range: 0...10_000)
        options.shrinking = !args.flags.contains("--no-shrink")
        if let list = args.options["--scale"] {
            options.scale = try list.split(separator: ",").map { (part: Substring) throws(InputError) -> Int in
                guard let n = Int(part), (2...1_000_000).contains(n) else { throw InputError("bench: --scale takes operation counts from 2 to 1000000 separated by commas, not '\(list)'") }
                return n
            }
        } else if quick {
            options.scale = [200, 800]
        }
        if let list = args.options["--shapes"] {
            options.shapes = try list.split(separator: ",").map { (part: Substring) throws(InputError) -> ScaleScenarios.Shape in
                guard let shape = ScaleScenarios.Shape(rawValue: String(part)) else {
                    throw InputError("bench: --shapes takes \(ScaleScenarios.Shape.allCases.map(\.rawValue).joined(separator: ", ")) separated by commas, not '\(list)'")
                }
                return shape
            }
        }
        let names = (args.options["--impls"] ?? "foundation,gnustep").split(separator: ",").map(String.init).filter { !$0.isEmpty && $0 != "reference" }
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
        if options.implementations.contains(where: { $0.name == "foundation" && $0.launch == nil }) { options.plainFoundation = CLI.driverCommand + ["--plain"] }
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
}
