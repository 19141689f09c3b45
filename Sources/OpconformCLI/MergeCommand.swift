import Conformance
import ConformanceReports
import Foundation
import OperationSpec

/// `opconform merge DIR...`: the shards of one run, run on several machines, joined into one
/// verdict and one set of reports.
enum MergeCommand {
    static let help = """
    opconform merge DIR... [--expectations FILE] [--allow-missing] [--strict] [--not-checked] [--json FILE] [--junit \
    FILE]
                    [--html DIR] [--out DIR]

    Joins the shards of one run into the verdict and reports of the whole run. Each DIR is the
    output folder (--out) of a 'run' or 'gate' given --shard I/N, on any machine: it holds the
    shard's run-record.json and its findings. Shards of several seeds may be joined too.

    The joined verdict is the unsplit run's: each rule's counts are its shards' sums, and its
    finding is the one whose case comes first in the run. Refused: shards of different releases,
    implementations, profiles, faults or generator options; a shard given twice; and, unless
    --allow-missing, a seed whose shards are not all there (a verdict without them would pass
    cases nobody ran).

      --expectations FILE  judge the joined run as 'gate' does (the shards should be gate runs
                         with the same FILE): exit 0 when every failure is expected
      --json, --junit, --html  the joined run's reports, as 'run' writes them
      --out DIR          also copy the joined findings into DIR, with their record
      --strict           warnings fail too

    Exit: as 'run' (or 'gate' with --expectations): 0 pass, 1 fail, 2 bad input, 4 no verdict,
    130 a shard was interrupted, or the merge was (SIGINT, SIGTERM, SIGHUP: it stops before its next
    file; every file it wrote is whole).

    A CI recipe: Docs/ci-shards.md (a matrix of N machines, each 'gate ... --shard I/N --out
    shard-I', then one job that merges the folders).
    """

    static func run(_ input: Arguments, _ console: Console) throws -> Int32 {
        var input = input
        let args = try input.parse()
        if args.flags.contains("--help") { console.out(help + "\n"); return 0 }
        guard !args.positionals.isEmpty else {
            throw InputError(
                "merge needs the output folders of a run's shards: opconform merge shard-1 shard-2 "
                    + "... ('opconform help merge')"
            )
        }
        for path in [args.options["--json"], args.options["--junit"]].compactMap({ $0 }) {
            try RunCommand.writable(file: path)
        }
        // SIGINT, SIGTERM or SIGHUP stop the merge before its next file (issue 43): each file
        // already written is whole, none is half-written, and no temporary file is left behind.
        // A second signal quits at once.
        let stop = StopRequest()
        let interrupts = Interrupts(stop: stop, console: console)
        defer { interrupts.uninstall() }
        func stopped() -> Bool {
            guard stop.isRequested else { return false }
            console.out("merge INTERRUPTED: stopped before its next file; the files written so far are whole\n")
            return true
        }
        var shards: [RunMerge.Shard] = []
        for folder in args.positionals {
            if stopped() { return 130 }
            shards.append(try RunMerge.load(folder: folder))
        }
        try refuseOutOverShard(args)
        let expectations = try loadExpectations(args, for: shards[0])
        if stopped() { return 130 }
        var (result, coverage) = try RunMerge.merge(shards, allowMissing: args.flags.contains("--allow-missing"))
        if stopped() { return 130 }
        if args.flags.contains("--strict") { result.configuration.strict = true }
        console.out(
            "merged \(shards.count) shard\(shards.count == 1 ? "" : "s") of opconform \(shards[0].record.harness):\n")
        for c in coverage { console.out("  " + c.line + "\n") }
        console.out("\n")

        guard let files = try findingFiles(of: result, in: shards, args, stopped: stopped) else { return 130 }
        console.out(ConsoleReport.text(result, files: files, listUnchecked: args.flags.contains("--not-checked")))
        let verdict = expectations.map { GateVerdict(result: result, expectations: $0) }
        if let verdict, let e = expectations {
            GateCommand.report(
                verdict, expectations: e, path: args.options["--expectations"]!, strict: result.configuration.strict,
                console)
        }
        if stopped() { return 130 }
        if let p = args.options["--json"] {
            try RunCommand.write(JSONCodec.encodeString(RunJSONReport(result, files: files)), to: p)
        }
        if stopped() { return 130 }
        if let p = args.options["--junit"] { try RunCommand.write(JUnitReport.xml(result, files: files), to: p) }
        if stopped() { return 130 }
        if let dir = args.options["--html"] {
            console.out("html: \(try HTMLReport.write(run: result, files: files, gate: verdict, to: dir))\n")
        }
        if stopped() { return 130 }
        return exitStatus(of: result, verdict: verdict, coverage: coverage, console)
    }

    /// Refuses an `--out` that is one of the shard folders.
    /// The merged record would replace a shard's own (issue 43): its evidence, lost.
    private static func refuseOutOverShard(_ args: Arguments) throws(InputError) {
        if let out = args.options["--out"] {
            let target = PathText.resolvingLinks(PathText.absolute(out))
            if let same = args.positionals.first(where: { PathText.resolvingLinks(PathText.absolute($0)) == target }) {
                throw InputError(
                    "merge: --out \(out) is the shard folder \(same): its run record would be "
                        + "replaced by the merged one; "
                        + "name a new folder")
            }
        }
    }

    /// Loads `--expectations`, refusing a file written for another implementation than the shards ran.
    private static func loadExpectations(
        _ args: Arguments, for shard: RunMerge.Shard
    ) throws(InputError) -> Expectations? {
        let expectations = try args.options["--expectations"].map { path throws(InputError) in
            try Expectations.load(path)
        }
        if let e = expectations, let file = args.options["--expectations"], shard.record.impl != e.impl,
           !(shard.record.knownSource ?? "").contains(PathText.lastComponent(file)) {
            // A user's driver may be gated by its platform's file: its shards then name that file as their source.
            throw InputError(
                "merge: \(file) holds expectations for \(e.impl), but the shards ran \(shard.record.impl) against "
                    + (shard.record.knownSource ?? "no expectations"))
        }
        return expectations
    }

    /// Finds each finding's file: in its shard's folder, or copied to `--out` with the merged record.
    /// Returns nil when the merge was stopped between the findings and the record.
    private static func findingFiles(
        of result: RunResult, in shards: [RunMerge.Shard], _ args: Arguments, stopped: () -> Bool
    ) throws -> [String: String]? {
        var files: [String: String] = [:]
        func path(of finding: Finding) -> String? {
            for s in shards {
                if let i = s.findings.firstIndex(of: finding) { return PathText.join(s.folder, s.record.findings[i]) }
                if let i = s.otherCauses.firstIndex(where: { $0.finding == finding }) {
                    return PathText.join(s.folder, s.record.otherCauses[i].file)
                }
            }
            return nil
        }
        if let out = args.options["--out"] {
            try RunCommand.writable(parentOf: PathText.join(out, "x"), creating: true)
            files = try RunCommand.writeFindings(result, to: out)
            if stopped() { return nil }
            try RunCommand.write(
                JSONCodec.encodeString(RunRecord(result, files: files)), to: PathText.join(out, RunRecord.fileName))
        } else {
            for f in result.findings { if let p = path(of: f) { files[f.rule] = p } }
            for o in result.otherCauses { if let p = path(of: o.finding) { files[o.finding.fileName] = p } }
        }
        return files
    }

    /// Prints what the joined run lacks and its verdict, and returns the exit status.
    private static func exitStatus(
        of result: RunResult, verdict: GateVerdict?, coverage: [RunMerge.Coverage], _ console: Console
    ) -> Int32 {
        if coverage.contains(where: { !$0.complete }) {
            console.out("INCOMPLETE: shards are missing (above); their cases are in no verdict\n")
        }
        if result.interrupted { console.out("a shard was INTERRUPTED: no verdict\n"); return 130 }
        if result.noVerdict != nil { console.out("NO VERDICT (exit 4)\n"); return 4 }
        if let verdict {
            let passed = verdict.passes(strict: result.configuration.strict)
            console.out(passed ? "gate passed\n" : "gate FAILED\n")
            return passed ? 0 : 1
        }
        return result.failed ? 1 : 0
    }
}
