import Conformance
import ConformanceReports
import Foundation
import OperationSpec
import ReferenceEngine

/// `opconform run`: generated cases on an implementation, every rule checked, each broken rule's
/// first case shrunk and written as a finding file with a line to paste.
enum RunCommand {
    static func run(_ input: Arguments, _ console: Console) throws -> Int32 {
        var input = input
        let args = try input.parse()
        if args.flags.contains("--help") { console.out(Help.run + "\n"); return 0 }
        if !args.positionals.isEmpty {
            throw InputError("run takes no positional argument, but was given '\(args.positionals[0])'")
        }
        let profile = try args.profile()
        let faults = try args.faults()
        let impl = try args.implementation(args.options["--impl"] ?? "reference", profile: profile, faults: faults)
        if !faults.isEmpty && impl.name != "reference" {
            throw InputError("run: --fault applies to the reference implementation only")
        }
        var configuration = RunConfiguration(
            impl: impl, profile: profile, faults: faults, seed: try args.seed("--seed", default: 1),
            count: try args.int("--count", default: 100, range: 1...100_000_000),
            generator: try args.generatorOptions(),
            rules: try args.rules(), shrink: !args.flags.contains("--no-shrink"),
            attempts: args.options["--attempts"] == nil ? nil : try args.int("--attempts", default: 5, range: 1...1000))
        try configuration.apply(runOptions: args)
        if let (known, source) = try KnownDivergenceOption.resolve(args.options["--expectations"], for: impl) {
            configuration.known = known
            configuration.knownSource = source
            // The platform's reading of the documents, unless one was asked for: Foundation's is
            // the class reference's (a start on a finished operation returns quietly; a Swift
            // subclass cannot raise an Objective-C exception at all).
            if args.options["--profile"] == nil && known.profile != profile {
                configuration.profile = known.profile
                configuration.profileReason =
                    "the profile of \(known.impl)'s known divergences, which the tested code builds "
                        + "on; --profile sets another"
            }
        }
        configuration.earlierMinima = earlierMinima(args, configuration)
        let out = try outFolder(args, configuration)
        let result = try execute(configuration, args, console, out: out)

        let files = try writeFindings(result, to: out)
        try writeRecord(result, files: files, to: out, args)
        console.out(ConsoleReport.text(result, files: files, listUnchecked: args.flags.contains("--not-checked")))
        for e in result.exceededRates {
            let rate = e.entry.rate.map { "\($0.cases) of \($0.of)" } ?? ""
            console.out(
                "FAIL rate of a known divergence: \(e.entry.rule) was excused in \(e.seen) of \(result.cases) cases, "
                    + "where its entry measured \(rate) (at most \(e.bound) expected at the 0.001 "
                    + "level): a defect of the tested "
                    + "code may hide behind the known flake; run with --expectations none to see "
                    + "every case as a failure\n"
            )
        }
        if args.flags.contains("--table") { console.out("\n" + ConsoleReport.table(result)) }
        if let path = args.options["--json"] {
            try write(JSONCodec.encodeString(RunJSONReport(result, files: files)), to: path)
        }
        if let path = args.options["--junit"] { try write(JUnitReport.xml(result, files: files), to: path) }
        if let dir = args.options["--html"] {
            console.out("html: \(try HTMLReport.write(run: result, files: files, to: dir))\n")
        }
        return result.interrupted ? 130 : result.noVerdict != nil ? 4 : result.failed ? 1 : 0
    }

    /// The minima of earlier runs on the same implementation, read before this run writes
    /// anything: the findings in `--out DIR` (or in `opconform-findings/latest`, the last run's
    /// folder) and those an `--expectations FILE` names. Only on a nondeterministic
    /// implementation, when the run shrinks. A file that cannot be read, or that is of another
    /// implementation, is left out: these are only hints, each confirmed by a run before use.
    static func earlierMinima(_ args: Arguments, _ configuration: RunConfiguration) -> [Shrinker.Hint] {
        guard configuration.shrink, !configuration.impl.isDeterministic else { return [] }
        var files: [String] = []
        let folder = args.options["--out"] ?? PathText.join(RunFolder.defaultRoot, RunFolder.latestName)
        if let names = try? FileManager.default.contentsOfDirectory(atPath: folder) {
            files += names.sorted().filter { $0.hasSuffix(".json") && $0 != RunRecord.fileName }.map {
                PathText.join(folder, $0)
            }
        }
        if let file = args.options["--expectations"], file != "none", let known = configuration.known {
            files += known.expected.map { known.findingPath($0, relativeTo: file) }
        }
        var hints: [Shrinker.Hint] = []
        for path in files {
            guard let finding = try? ReplayCommand.loadFinding(path), finding.impl == configuration.impl.name,
                  let hint = Shrinker.Hint(minimumOf: finding), !hints.contains(hint) else { continue }
            hints.append(hint)
        }
        return hints
    }

    /// How many rules' first sightings a run shows on a terminal before its summary.
    static let sightingsShown = 5

    /// Where a run writes: the folder `--out` names, or a new folder of its own under
    /// `opconform-findings/`, named by time and seed, which `opconform-findings/latest` then
    /// points at (`RunFolder`), so that separate runs never overwrite each other's findings.
    static func outFolder(_ args: Arguments, _ configuration: RunConfiguration) throws(InputError) -> String {
        if let out = args.options["--out"] { return out }
        try writable(parentOf: PathText.join(RunFolder.defaultRoot, "x"), creating: true)
        return RunFolder.make(under: RunFolder.defaultRoot, seed: configuration.seed, shard: configuration.shard)
    }

    /// Runs the cases with progress on a terminal and the case log written as cases are decided
    /// (`--log FILE`, default DIR/cases.jsonl). Checks every output can be written first.
    static func execute(
        _ configuration: RunConfiguration, _ args: Arguments, _ console: Console, out: String,
        log logPath: String? = nil
    ) throws(InputError) -> RunResult {
        var configuration = configuration
        // Refuse unwritable outputs before the run, not after it.
        for path in [args.options["--json"], args.options["--junit"], args.options["--log"]].compactMap({ $0 }) {
            try writable(file: path)
        }
        // The folders this run creates, deepest first: removed again if they end up empty.
        var created: [String] = []
        var folder = out
        while !folder.isEmpty && folder != "/" && !FileManager.default.fileExists(atPath: folder) {
            created.append(folder)
            folder = PathText.parent(folder)
        }
        try writable(parentOf: PathText.join(out, "x"), creating: true)
        let path = args.options["--log"] ?? logPath ?? PathText.join(out, "cases.jsonl")
        let log = try CaseLog(path: path, header: RunHeader(configuration))
        let clock = ContinuousClock()
        var last = clock.now
        // Ctrl-C stops the run and keeps what it decided (`Interrupts`).
        let stop = StopRequest()
        configuration.stop = stop
        let interrupts = Interrupts(stop: stop, console: console)
        defer { interrupts.uninstall() }
        // On a terminal, each rule's first broken case is shown as soon as it is decided, with
        // the line that replays it, before the run ends and shrinks it (issue 31: a user sees
        // the first finding in seconds, not after every case and every shrink).
        var sighted: [String] = []
        func sight(_ record: CaseRecord) {
            guard console.interactive else { return }
            for rule in record.broken where !sighted.contains(rule) && sighted.count < Self.sightingsShown {
                sighted.append(rule)
                console.err(
                    "\r\u{1B}[2Kseen \(rule) in case \(record.index)" + (record.message.map { ": " + $0 } ?? "") + "\n"
                        + (record.replay.map { "  replays before shrinking: \($0)\n" } ?? ""))
            }
        }
        let result = Runner(configuration).run(progress: { done, total, broken in
            guard console.interactive, done == total || clock.now - last > .milliseconds(200) else { return }
            last = clock.now
            console.err("\r\(done)/\(total) cases, \(broken) with violations" + (done == total ? "\n" : ""))
        }, record: { record in log.append(record); sight(record) }, shrinking: { rule in
            if console.interactive { console.err("shrinking the first case that broke \(rule)...\n") }
        })
        // The log keeps a run that dies; a run that finished and found nothing leaves nothing
        // behind in the user's folder unless the log was asked for (--log).
        if result.findings.isEmpty && args.options["--log"] == nil && !result.interrupted {
            log.close()
            try? FileManager.default.removeItem(atPath: path)
            for dir in created where (try? FileManager.default.contentsOfDirectory(atPath: dir))?.isEmpty == true {
                try? FileManager.default.removeItem(atPath: dir)
            }
        }
        // A folder of its own (`outFolder`) left empty (nothing found; the log, if any, asked
        // for elsewhere): gone too, and `latest` points back.
        // (A shard keeps it: its record goes there.)
        if args.options["--out"] == nil, args.options["--shard"] == nil, !result.interrupted,
           (try? FileManager.default.contentsOfDirectory(atPath: out))?.isEmpty == true {
            try? FileManager.default.removeItem(atPath: out)
            let root = PathText.parent(out)
            RunFolder.forget(out, under: root)
            if (try? FileManager.default.contentsOfDirectory(atPath: root))?.isEmpty == true {
                try? FileManager.default.removeItem(atPath: root)
            }
        }
        return result
    }

    /// Writes each finding to `dir`, and each further cause's; returns rule id -> file for the
    /// findings, and file name -> file for the further causes (`RunResult.otherCauses`).
    static func writeFindings(_ result: RunResult, to dir: String) throws(InputError) -> [String: String] {
        var files: [String: String] = [:]
        // One case often breaks several rules: its witness is encoded once. None is written once
        // the run was stopped: what was decided comes first (ConsoleReport names none then).
        var encoded: [Int: Data] = [:]   // by case index; looked up only
        for f in result.findings + result.otherCauses.map(\.finding) {
            let path = PathText.join(dir, f.fileName)
            try OutputFile.write(f.fileData, to: path)
            if let witness = f.witness, !result.interrupted {
                let folder = PathText.join(dir, Finding.witnessFolder)
                try writable(parentOf: PathText.join(folder, "x"), creating: true)
                let data = encoded[f.caseIndex] ?? TraceFormat.encode(witness)
                encoded[f.caseIndex] = data
                try OutputFile.write(data, to: PathText.join(folder, f.fileName))
            }
            if files[f.rule] == nil { files[f.rule] = path } else { files[f.fileName] = path }
        }
        return files
    }

    /// Writes the run's record (`RunRecord`, what `opconform merge` joins) beside its findings:
    /// always for a shard (`--shard I/N`, `1/1` too, so that whole runs of several seeds can be
    /// merged), and for any run that left findings; a run that found nothing leaves nothing
    /// behind otherwise.
    static func writeRecord(
        _ result: RunResult, files: [String: String], to dir: String, _ args: Arguments
    ) throws(InputError) {
        guard args.options["--shard"] != nil || !result.findings.isEmpty || result.interrupted else { return }
        try writable(parentOf: PathText.join(dir, "x"), creating: true)
        try write(JSONCodec.encodeString(RunRecord(result, files: files)), to: PathText.join(dir, RunRecord.fileName))
    }

    /// Fails with one sentence, before a run, when the file `path` could not be written after
    /// it: an empty name, a folder, a place that refuses files (`/proc/x`). A file that is not
    /// there is made and removed again to find out.
    static func writable(file path: String) throws(InputError) {
        guard !path.isEmpty else { throw InputError("an output file needs a name, not ''") }
        try writable(parentOf: path)
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir) {
            if isDir.boolValue { throw InputError("cannot write \(path): it is a folder; name a file in it") }
            guard FileManager.default.isWritableFile(atPath: path) else {
                throw InputError("cannot write \(path): no permission")
            }
            return
        }
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw InputError("cannot write \(path): a file cannot be made there")
        }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Fails with one sentence when files cannot be written next to `path`.
    static func writable(parentOf path: String, creating: Bool = false) throws(InputError) {
        let dir = PathText.folder(of: path)
        if creating && !FileManager.default.fileExists(atPath: dir) {
            guard (try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)) != nil
            else {
                throw InputError("cannot create the folder \(dir) for the findings")
            }
        }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue,
            FileManager.default.isWritableFile(atPath: dir)
        else {
            throw InputError("cannot write into \(dir)")
        }
    }

    /// Writes `text` to `path` whole, or into it when it is a stream (`OutputFile`).
    static func write(_ text: String, to path: String) throws(InputError) {
        try OutputFile.write(Data(text.utf8), to: path)
    }
}

extension RunConfiguration {
    /// The options `run` and `gate` share: `--jobs`, `--strict`, `--guide`, `--no-reach` (version
    /// 2's cases on a driver that gets the reach episodes by default, so an older run's seeds make
    /// their old cases again) and `--shard`; replay lines name this process.
    mutating func apply(runOptions args: Arguments) throws(InputError) {
        jobs = try args.jobs(for: impl)
        strict = args.flags.contains("--strict")
        guided = args.flags.contains("--guide")
        if args.flags.contains("--no-reach") { generator.reach = false }
        shard = try args.shard()
        replayProgram = CLI.replayProgram
    }
}
