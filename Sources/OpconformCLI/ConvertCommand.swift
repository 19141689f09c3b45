import Conformance
import ConformanceReports
import Foundation

/// `opconform convert FILE... [--check]`: rewrites scenario files of format 1 in format 2,
/// finding files of format 1 to 3 in format 4, and old `replay --json` documents as trace files
/// of format 2, in place (issue 17). Format 1 is still read, so
/// nothing breaks if a file is never converted; converting makes it the file people can read
/// and edit, and `--check` lets CI keep a folder of fixtures in the newest format.
enum ConvertCommand {
    static let help = """
    opconform convert [--check] FILE...

    Rewrites each scenario file of format 1 (Swift's synthesized form, with "_0" fields) in
    format 2 (Specs/scenario-format.md), each finding file of format 1 to 3 in format 4 (its
    scenario in format 2, its seeds as strings), and each old 'replay --json' document (trace format 1) as a trace
    file of format 2 (Specs/trace-format.md), in place. A file already in the newest format is left as it is.
    Every file is read first, strictly (an unknown key is an error, with the nearest known
    one), and checked as replay checks it; then the old ones are written. So a file that
    cannot be read changes nothing.

      --check   write nothing: list each file that is not in the newest format

    Exit status 0 when every file is (now) in the newest format, 1 with --check when one is
    not, 2 for bad usage or a file that cannot be read (one sentence naming it).
    Example: opconform convert Fixtures/samples/*.json Fixtures/regressions/*.json
    """

    /// One file, read: what it is, the format it says, and its bytes in the newest format.
    private struct Converted {
        var path: String
        var what: String
        var format: Int
        var newest: Int
        var data: Data
        var isCurrent: Bool { format == newest }
    }

    static func run(_ input: Arguments, _ console: Console) throws -> Int32 {
        var input = input
        let args = try input.parse()
        if args.flags.contains("--help") { console.out(help + "\n"); return 0 }
        guard !args.positionals.isEmpty else {
            throw InputError(
                "convert needs one or more scenario, finding or trace files, e.g. opconform convert scenario.json")
        }
        // Everything is read before anything is written: a bad file leaves every file as it was.
        var files: [Converted] = []
        for path in args.positionals { files.append(try read(path)) }
        let stale = files.filter { !$0.isCurrent }
        if args.flags.contains("--check") {
            for f in stale {
                console.out(
                    "\(f.path): \(f.what) format \(f.format), not \(f.newest) (opconform convert rewrites it)\n")
            }
            if stale.isEmpty {
                console.out("all \(files.count) file\(files.count == 1 ? " is" : "s are") in the newest format\n")
                return 0
            }
            console.out(
                "\(stale.count) of \(files.count) file\(files.count == 1 ? " is" : "s are") not in the newest format\n")
            return 1
        }
        for f in stale {
            do { try OutputFile.write(f.data, to: f.path) } catch { throw InputError("convert: " + error.message) }
            console.out("converted \(f.path): \(f.what) format \(f.format) -> \(f.newest)\n")
        }
        console.out(
            "converted \(stale.count) of \(files.count) file\(files.count == 1 ? "" : "s"); the others were in the "
                + "newest format already\n"
        )
        return 0
    }

    /// Reads `path` as a finding (when it has a finding's fields) or a scenario, as strictly
    /// as `replay` does.
    private static func read(_ path: String) throws(InputError) -> Converted {
        let data = try JSONCodec.readFile(at: path)
        if JSONCodec.looksLikeExpectations(data) {
            throw InputError(
                "convert: \(path) is an expectations file, which has no older format to convert from; convert rewrites "
                    + "scenario and finding files"
            )
        }
        if TraceFormat.looksLikeTrace(data) {
            let file = try TraceFormat.decode(data, source: path)
            let format = TraceFormat.declaredFormat(data) ?? TraceFormat.newest
            return Converted(path: path, what: "trace", format: format, newest: TraceFormat.format(of: file.trace),
                             data: TraceFormat.encode(file))
        }
        if let finding = try ReplayCommand.loadFinding(path) {
            return Converted(
                path: path, what: "finding", format: finding.format, newest: Finding.newestFormat,
                data: finding.fileData)
        }
        let scenario = try ScenarioFormat.decode(data, source: path)
        // A scenario that decoded said 1 or 2; nothing else reads.
        let format = ScenarioFormat.declaredFormat(data) ?? ScenarioFormat.newest
        return Converted(
            path: path, what: "scenario", format: format, newest: ScenarioFormat.newest,
            data: ScenarioFormat.encode(scenario))
    }
}
