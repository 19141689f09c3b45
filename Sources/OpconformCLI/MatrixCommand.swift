import Conformance
import ConformanceReports
import Foundation
import OperationSpec

/// `opconform matrix --impls a,b`: the same generated cases on several implementations, rules
/// down and implementations across, each failing cell with the line that replays it.
enum MatrixCommand {
    static func run(_ input: Arguments, _ console: Console) throws -> Int32 {
        var input = input
        let args = try input.parse()
        if args.flags.contains("--help") { console.out(Help.matrix + "\n"); return 0 }
        if !args.positionals.isEmpty {
            throw InputError("matrix takes no positional argument, but was given '\(args.positionals[0])'")
        }
        let (impls, profile) = try columnImplementations(args)
        let out = args.options["--out"] ?? "opconform-findings"
        for path in [args.options["--markdown"], args.options["--json"]].compactMap({ $0 }) {
            try RunCommand.writable(file: path)
        }
        let seed = try args.seed("--seed", default: 1),
            count = try args.int("--count", default: 100, range: 1...100_000_000)
        let generator = try args.generatorOptions(), rules = try args.rules()

        var columns: [MatrixReport.Column] = []
        for impl in impls {
            var configuration = RunConfiguration(
                impl: impl, profile: profile, seed: seed, count: count, generator: generator, rules: rules,
                shrink: !args.flags.contains("--no-shrink"))
            try configureColumn(&configuration, among: impls, args)
            let dir = PathText.join(out, impl.name)
            if console.interactive { console.err("\(impl.name):\n") }
            let result = try RunCommand.execute(configuration, args, console, out: dir,
                                                log: PathText.join(dir, "cases.jsonl"))
            let files = try RunCommand.writeFindings(result, to: dir)
            console.out(
                ConsoleReport.text(result, files: files).split(separator: "\n").prefix(3).joined(separator: "\n") + "\n"
            )
            columns.append(MatrixReport.Column(result: result, files: files))
            // Interrupted: the columns so far are reported, and no other implementation runs.
            if result.interrupted { break }
        }
        let report = MatrixReport(columns: columns)
        console.out("\n" + report.text())
        if let path = args.options["--markdown"] { try RunCommand.write(report.markdown(), to: path) }
        if let dir = args.options["--html"] { console.out("html: \(try HTMLReport.write(matrix: report, to: dir))\n") }
        if let path = args.options["--json"] {
            let runs = columns.map { RunJSONReport($0.result, files: $0.files) }
            try RunCommand.write(JSONCodec.encodeString(runs), to: path)
        }
        return exitStatus(of: columns, implementations: impls.count, console)
    }

    /// Parses `--impls` into the matrix's columns, with the profile they run under.
    private static func columnImplementations(
        _ args: Arguments
    ) throws(InputError) -> (impls: [any Implementation], profile: Profile) {
        guard let list = args.options["--impls"] else {
            throw InputError(
                "matrix needs --impls NAME,NAME (this build has: " + Implementations.names.joined(separator: ", ") + ")"
            )
        }
        let names = list.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
        guard !names.isEmpty, Set(names).count == names.count else {
            throw InputError("matrix: --impls takes distinct names separated by commas, not '\(list)'")
        }
        let profile = try args.profile()
        if !args.values("--driver-arg").isEmpty && names.filter({ $0.hasPrefix(DriverLaunch.scheme) }).count != 1 {
            throw InputError(
                "matrix: --driver-arg needs exactly one exec:PATH in --impls, to know whose arguments they are")
        }
        if args.options["--sanitize"] != nil, let builtIn = names.first(where: { !$0.hasPrefix(DriverLaunch.scheme) }) {
            throw InputError(
                "matrix: --sanitize applies to drivers started by path (exec:PATH) built with the sanitizer; "
                    + "\(builtIn) is not one: leave it out of --impls")
        }
        let impls = try names.map { (name: String) throws(InputError) -> any Implementation in
            name.hasPrefix(DriverLaunch.scheme) ? try args.implementation(name, profile: profile, faults: [])
                : try Implementations.make(
                    name, profile: profile, faults: [], driver: CLI.driverCommand, limits: try args.limits())
        }
        guard Set(impls.map(\.name)).count == impls.count else {
            throw InputError(
                "matrix: two of --impls call themselves by the same name (" + impls.map(\.name).joined(separator: ", ")
                    + "); a column needs its own")
        }
        return (impls, profile)
    }

    /// Fits one column's run to the others, so every column runs the same cases, with its own jobs and expectations.
    private static func configureColumn(
        _ configuration: inout RunConfiguration, among impls: [any Implementation], _ args: Arguments
    ) throws(InputError) {
        let impl = configuration.impl
        // The same cases in every column: API surface 2 only when every column performs it.
        configuration.generator.surface2 = impls.allSatisfy { $0.capabilities.contains(.apiSurface2) }
        configuration.generator.splitMisuse = impls.allSatisfy { !$0.capabilities.contains(.thrownErrors) }
        // The reach episodes draw other cases: only when every column would get them.
        configuration.generator.reach = impls.allSatisfy { GeneratorOptions.reaches($0) }
        configuration.jobs = try args.jobs(for: impl)
        configuration.replayProgram = CLI.replayProgram
        // A file applies to the columns it was written for (or whose platform it is).
        let value = args.options["--expectations"]
        if value == nil || value == "none" || (try? KnownDivergenceOption.resolve(value, for: impl)) != nil,
           let (known, source) = try KnownDivergenceOption.resolve(value, for: impl) {
            configuration.known = known
            configuration.knownSource = source
        }
    }

    /// Prints why the matrix gives no verdict, when it does not, and returns its exit status.
    private static func exitStatus(
        of columns: [MatrixReport.Column], implementations count: Int, _ console: Console
    ) -> Int32 {
        if columns.contains(where: { $0.result.interrupted }) {
            console.out("INTERRUPTED: \(columns.count) of \(count) implementations ran, the last one in part\n")
            return 130
        }
        for column in columns {
            if let why = column.result.noVerdict {
                console.out("NO VERDICT for \(column.result.configuration.impl.name): \(why)\n")
            }
        }
        if columns.contains(where: { $0.result.noVerdict != nil }) { return 4 }
        return columns.contains { $0.result.failed } ? 1 : 0
    }
}
