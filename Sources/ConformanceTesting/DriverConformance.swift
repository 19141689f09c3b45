import Conformance
import ConformanceReports
import Foundation
import OperationSpec
import Testing

/// Checks a queue of your package through its driver executable, from a Swift Testing test:
///
/// ```swift
/// // Sources/my-queue-driver/main.swift
/// import Conformance
/// import MyQueue
/// OperationDriver(name: "myqueue", queue: { MyQueue() }).main()
///
/// // Tests/MyQueueTests/ConformanceTests.swift
/// import ConformanceTesting
/// import Testing
/// @Test func myQueueConforms() { expectConformance(driver: "my-queue-driver", count: 100) }
/// ```
///
/// Generated cases run on the driver, each in a child process of its own, so a trap or a
/// deadlock in the queue costs one case (RUN-CRASH, RUN-HANG), never the test process; every
/// rule is checked. The driver `driver` is found next to the test bundle (`swift test` builds
/// the package's executable targets there; `DriverExecutable`), or is a path.
///
/// Failures are split by `expectations`: a broken rule that the platform's Foundation is known
/// to break (`KnownDivergences.platform`, the default) is recorded as a known issue, since
/// the driver runs Foundation's `Operation` under your queue; every other broken rule is an
/// `Issue` saying which rule, what happened against what was required, the case seed, the
/// finding file and the line that replays it from any folder (`swift run --package-path
/// <your package> opconform replay FILE`: `ReplayProgram.forTests`), with the finding attached
/// as JSON. Only those
/// are shrunk (`shrink`): the known ones are the platform's, already minimised in the harness's
/// `Fixtures/`, and shrinking a hang costs a stall window per attempt.
///
/// - Parameters:
///   - arguments: passed to the driver on every start.
///   - count, seed: the generated cases (every case has its own seed, derived from `seed`).
///   - profile: the reading of the documents the rules follow; nil takes the expectations'
///     (Foundation on Linux follows the class reference), else the guide.
///   - minimumStrength: only rules at least this strong (`Strength` goes from documented must
///     to observed only; the default checks every rule).
///   - strict: a broken rule that only warns (a documented example, advice, observed only) is
///     an error; by default it is an issue of severity `.warning`, which does not fail the test.
///   - jobs: cases run side by side (each is mostly waiting: real threads and real time).
///   - limits: how long a case may stay silent or run, and the length of a unit of work (a
///     slow queue, or a debug build of a heavy one, may need longer units).
///   - findings: the folder finding files are written to; nil is a new folder of the run's own,
///     `opconform-findings/<name>/<time>-seed<S>/` in the current folder (your package's root
///     under `swift test`, where `opconform run` writes its own; the temporary folder when the
///     current folder is the file system's root or cannot be written), `<name>` the driver's
///     (from its hello), which `opconform-findings/<name>/latest` points at.
///   - sanitize: the sanitizer the driver was built with (`swift build -Xswiftc -sanitize=thread`
///     or `=address`): the executable is checked to run with it, each driver process is told to
///     stop at its first report, and a report ends its case as DATA-RACE or MEMORY-ERROR
///     (Specs/sanitizers.md). Set only for the drivers this call starts, not for the process.
/// - Returns: what was found, split into known and unexpected, for further assertions (e.g.
///   that a planted bug is caught).
@discardableResult
public func expectConformance(driver: String, arguments: [String] = [], count: Int = 100, seed: UInt64 = 1,
                              expectations: KnownDivergences = .platform, profile: Profile? = nil,
                              minimumStrength: Strength = .observedOnly, strict: Bool = false, shrink: Bool = true,
                              jobs: Int = ProcessInfo.processInfo.activeProcessorCount,
                              generator: GeneratorOptions = GeneratorOptions(), limits: DriverLimits = .standard,
                              findings folder: String? = nil, sanitize: Sanitizer? = nil,
                              sourceLocation: SourceLocation = #_sourceLocation) -> DriverConformance {
    var outcome = DriverConformance(command: [driver] + arguments)
    let impl: any Implementation
    do throws(InputError) {
        outcome.expectations = try expectations.load()
        outcome.command = [try DriverExecutable.locate(driver)] + arguments
        impl = try DriverConformance.implementation(command: outcome.command, limits: limits, sanitize: sanitize)
    } catch {
        outcome.problem = error.message
        Issue.record(Comment(rawValue: error.message), sourceLocation: sourceLocation)
        return outcome
    }
    let known = outcome.expectations
    var configuration = RunConfiguration(
        impl: impl, profile: profile ?? known?.profile ?? .guide, seed: seed, count: count,
        generator: generator, rules: RuleBook.all.filter { $0.rule.strength.isAtLeast(minimumStrength) },
        shrink: false)
    configuration.jobs = max(1, jobs)
    configuration.strict = strict
    // A violation is the platform's only where an entry's cause shows in it (`Attribution`):
    // the queue's own failures of a rule the platform also breaks are still the queue's.
    configuration.known = known
    let program = ReplayProgram.forTests(checkout: HarnessCheckout.path)
    configuration.replayProgram = program
    let result = Runner(configuration).run()
    outcome.run = result
    let directory =
        folder ?? DriverConformance.findingsFolder(of: impl.name, seed: seed, made: !result.findings.isEmpty)
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    outcome.reportAsFound(result, in: directory, configuration: configuration, program: program)
    // A run that judged nothing (a driver that broke the protocol, no rule reached) is an
    // issue of its own: it must never read as a pass.
    if let why = result.noVerdict {
        Issue.record(Comment(rawValue: "no verdict: \(why)"), sourceLocation: sourceLocation)
    }
    let seen = result.known.map(\.rule)
    outcome.nowPassing =
        known?.expected.map(\.rule).filter { !seen.contains($0) }.reduce(into: [String]()) { list, rule in
            if !list.contains(rule) { list.append(rule) }
        } ?? []
    outcome.recordIssues(result, strict: strict, shrink: shrink, sourceLocation: sourceLocation)
    // Then each of the tested code's findings is shrunk, its file replaced and attached.
    outcome.shrinkAndAttach(
        configuration, shrink: shrink, in: directory, program: program, sourceLocation: sourceLocation)
    return outcome
}

/// The phases of `expectConformance(driver:)`, in the order it runs them.
extension DriverConformance {
    /// The driver as an implementation, checked to run with `sanitize` and told to stop at its
    /// first report when one is given.
    fileprivate static func implementation(
        command: [String], limits: DriverLimits, sanitize: Sanitizer?
    ) throws(InputError) -> any Implementation {
        var impl = try Implementations.external(command: command, limits: limits)
        if let sanitize {
            guard sanitize.instruments(executableAt: command[0]),
                var child = impl as? ChildProcessImplementation
            else {
                throw InputError(
                    "\(command[0]) was not built with the \(sanitize.rawValue) sanitizer: \(sanitize.buildHint)"
                )
            }
            child.environment = sanitize.environment
            impl = child
        }
        return impl
    }

    /// The folder finding files go to when not told: one per implementation, and in it one per
    /// run (`RunFolder`, with a `latest` link), `made` only when there is a finding.
    ///
    /// Two tests may find the same rule in the same case on two drivers, and two test runs of one
    /// driver must not overwrite each other's findings.
    fileprivate static func findingsFolder(of impl: String, seed: UInt64, made: Bool) -> String {
        let findings = PathText.join(defaultFindingsParent(), "opconform-findings")
        return made ? RunFolder.make(under: PathText.join(findings, impl), seed: seed) : PathText.join(findings, impl)
    }

    /// Writes a finding's file into `directory`: its path, or nil when it could not be written.
    fileprivate static func write(_ finding: Finding, in directory: String) -> String? {
        let path = PathText.join(directory, finding.fileName)
        return (try? finding.fileData.write(to: URL(fileURLWithPath: path), options: .atomic)) == nil ? nil : path
    }

    /// Writes each finding's file as found and makes its report, then a report for each known
    /// divergence of the platform with its first case as found.
    fileprivate mutating func reportAsFound(
        _ result: RunResult, in directory: String, configuration: RunConfiguration, program: String
    ) {
        // One bug, one story (`Story`, issue 45): a knock-on is told inside its root's issue.
        var knockOnOf: [String: String] = [:]
        for story in result.stories { for k in story.knockOns { knockOnOf[k.rule] = story.root.rule } }
        // Told first (issue 45: Swift Testing printed nothing for 158 s, shrinking every finding
        // before it said anything): each finding's file is written as found and its issue recorded
        // now; shrinking follows and replaces the file with the minimum, attached when ready.
        for finding in result.findings {
            let file = Self.write(finding, in: directory)
            reports.append(
                DriverConformance.Report(
                    finding: finding, file: file, replay: finding.replayLine(file: file, program: program),
                    expectation: nil, knockOnOf: knockOnOf[finding.rule]))
        }
        // The platform's: its first case as found (the entry's finding is the minimum).
        for k in result.known {
            let finding = Runner(configuration).unshrunkFinding(k.first, rule: k.rule)
            reports.append(
                DriverConformance.Report(
                    finding: finding, file: nil, replay: finding.replayLine(file: nil, program: program),
                    expectation: k.entry))
        }
    }

    /// Records a known issue for each known divergence, and an `Issue` for each story's root
    /// with its knock-ons told in it.
    fileprivate func recordIssues(_ result: RunResult, strict: Bool, shrink: Bool, sourceLocation: SourceLocation) {
        let minimising =
            shrink
            ? "\n(minimising: the finding file is replaced by the smallest case that still breaks the rule, "
            + "attached when ready)" : ""
        for report in reports {
            if let entry = report.expectation {
                // One line each: they are expected, and the reason says why.
                let seen =
                    "\(report.finding.rule): \(report.finding.message) (case seed \(report.finding.identity.caseSeed))"
                withKnownIssue(
                    Comment(
                        rawValue:
                            "known divergence of \(expectations?.impl ?? "the platform") "
                            + "(\(entry.kind.rawValue)): \(entry.reason)"
                    ),
                    sourceLocation: sourceLocation
                ) {
                    Issue.record(Comment(rawValue: seen), sourceLocation: sourceLocation)
                }
            } else if report.knockOnOf == nil {
                let warns = report.finding.severity == .warning && !strict
                let knockOns = reports.filter { $0.knockOnOf == report.finding.rule }
                let told =
                    knockOns.isEmpty
                    ? ""
                    : "\nthe same case then breaks (knock-ons of \(report.finding.rule), most likely; "
                        + "each replays on its own):\n"
                        + knockOns.map { "  \($0.finding.rule): \($0.finding.message)\n  replay: \($0.replay)" }.joined(
                            separator: "\n")
                Issue.record(
                    Comment(rawValue: (warns ? "warning: " : "") + report.description(in: result) + told + minimising),
                    severity: warns ? .warning : .error, sourceLocation: sourceLocation)
            }
        }
    }

    /// Shrinks each of the tested code's findings (when `shrink`), replaces its file with the
    /// minimum and attaches it.
    fileprivate mutating func shrinkAndAttach(
        _ configuration: RunConfiguration, shrink: Bool, in directory: String, program: String,
        sourceLocation: SourceLocation
    ) {
        for (index, report) in reports.enumerated() where report.expectation == nil {
            let finding = shrink ? Runner(configuration).shrunk(report.finding) : report.finding
            let file = Self.write(finding, in: directory)
            reports[index].finding = finding
            reports[index].file = file
            reports[index].replay = finding.replayLine(file: file, program: program)
            Attachment.record(Array(finding.fileData), named: finding.fileName, sourceLocation: sourceLocation)
        }
    }
}

/// What `expectConformance(driver:)` found.
public struct DriverConformance: Sendable {
    /// One broken rule (or a crash or a hang): its finding, shrunk when it was unexpected.
    public struct Report: Sendable {
        public var finding: Finding
        /// The finding file written, if it could be.
        public var file: String?
        /// The line that replays it from any folder.
        public var replay: String
        /// The known divergence it is, or nil when it is the queue's own (an `Issue`).
        public var expectation: Expectations.Entry?
        /// The rule whose story this finding is a knock-on of (`Story`): told in that rule's
        /// issue, not in one of its own. Nil for a story's root and a finding that stands alone.
        public var knockOnOf: String? = nil
        public var isKnown: Bool { expectation != nil }

        /// The rule, its sentence, what happened, the case and how to replay it.
        func description(in result: RunResult) -> String {
            let rule = RuleBook.check(id: finding.rule)?.rule
            let cases = result.statistics.first { $0.id == finding.rule }?.violations
                ?? Finding.pseudoEnding(finding.rule).flatMap { result.endings[$0.rawValue] } ?? 1
            let shrunk =
                finding.shrinkSteps > 0
                ? "; minimised from \(finding.originalOperations) to \(finding.operations) operations" : ""
            return """
                \(finding.rule) [\(finding.strengthLabel)]: \(finding.message)
                \(rule?.statement ?? DriverConformance.pseudoStatement(finding.rule))
                broken in \(cases) of \(result.cases) cases; first: case \(finding.caseIndex) of seed \
                \(finding.runSeed), case seed \(finding.identity.caseSeed)\(shrunk)
                finding: \(file ?? "(not written)")
                replay: \(replay)
                """
        }
    }

    static func pseudoStatement(_ rule: String) -> String {
        switch rule {
        case Finding.crashRule: return "The driver died."
        case Finding.hangRule: return "The driver stalled."
        case Finding.dataRaceRule: return "ThreadSanitizer stopped the driver at a data race."
        case Finding.memoryErrorRule: return "AddressSanitizer stopped the driver at a memory error."
        default: return "The driver broke the protocol (Specs/driver-protocol.md): the case was not judged."
        }
    }

    /// The driver's command, its executable resolved to an absolute path once found.
    public var command: [String]
    /// Why nothing was run (no such driver, a driver that does not answer the probe, an
    /// unreadable expectations file); an `Issue` says it too.
    public var problem: String?
    public var expectations: Expectations?
    public var run: RunResult?
    /// Every broken rule, in the catalog's order, then a crash and a hang.
    public var reports: [Report] = []
    /// Expected divergences this run did not show (not an issue: a queue may avoid some).
    public var nowPassing: [String] = []

    init(command: [String]) { self.command = command }

    /// The broken rules that are the queue's own: each story's root was an `Issue`, and its
    /// knock-ons were told in it.
    public var unexpected: [Report] { reports.filter { !$0.isKnown } }
    /// The broken rules that are known divergences of the platform: each was a known issue.
    public var known: [Report] { reports.filter(\.isKnown) }
    /// The run happened, gave a verdict, and broke nothing unexpected.
    public var conforms: Bool { problem == nil && run != nil && run?.noVerdict == nil && unexpected.isEmpty }
}

extension Strength {
    /// Whether a rule of this strength is at least as strong as `minimum` (`allCases` goes from
    /// the strongest, a documented must, to the weakest, observed only).
    public func isAtLeast(_ minimum: Strength) -> Bool {
        let order = Strength.allCases
        return order.firstIndex(of: self)! <= order.firstIndex(of: minimum)!
    }
}

/// Where `expectConformance` puts `opconform-findings/` when not told: the current folder, which
/// `swift test` sets to the package's root, so a finding stays with the package it is about
/// (issue 45: they landed in the system's temporary folder, where nobody looks and a reboot
/// clears them); the temporary folder when the current folder is the file system's root (a test
/// runner that sets none) or cannot be written.
func defaultFindingsParent() -> String {
    let here = FileManager.default.currentDirectoryPath
    if here != "/" && !here.isEmpty && FileManager.default.isWritableFile(atPath: here) { return here }
    return FileManager.default.temporaryDirectory.path
}
