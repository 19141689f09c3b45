import Foundation
import OperationSpec

/// How well the harness judges the corpus of real-world classes (`StyleCorpus`): each class's
/// cases run through its driver, and the rules reported are compared with the class's labels.
/// What `opconform flaws --corpus` prints and `CorpusTests` asserts.
///
/// A reported rule is, for its class:
/// - *found*: a rule of one of the class's visible defects (a true report);
/// - a *false alarm*: any other, a rule of the class's platform-limit label included (the
///   harness blames the class for what the platform does);
/// - *platform*: what the run itself attributed to Foundation on Linux (`RunResult.known`: a
///   known divergence whose cause the violation shows, `Attribution`). The driver runs
///   Foundation's own operations beside the class's, so those show whatever the class; they
///   are neither true nor false about it, and are left out of precision;
/// - *unconfirmed*: a rule broken only by absence or time that a patient run of the case did
///   not show again (`Confirmation`): reported, not a failure; counted apart, and as a false
///   alarm when `strict`.
///
/// The measure takes the run's own verdicts, so it is the harness's precision a user sees.
///
/// Precision is true reports over true reports and false alarms; recall is visible defects
/// found (by a failure or a warning) over visible defects.
package enum CorpusMeasure {
    /// One rule reported in a class's run.
    public struct Report: Sendable, Codable, Equatable {
        public var rule: String
        /// failure or warning (`Severity`).
        public var severity: String
        /// found, false-alarm, platform or unconfirmed.
        public var verdict: String
        /// The defect it found, or the platform-limit label it is blamed for.
        package var defect: String?
        /// Cases of the run that broke it.
        public var cases: Int
        /// The first violation's sentence.
        public var message: String
        /// Whether the first violation names an operation of the class (nil: it names none,
        /// as a hang or a crash does).
        package var onSubclass: Bool?
    }

    /// What became of one class.
    package struct ClassOutcome: Sendable, Codable, Equatable {
        public var name: String
        public var cases: Int
        public var seconds: Double
        /// Why the class was not run, if it was not.
        public var error: String?
        public var reports: [Report]
        /// Visible defects, and which rules found them.
        public var found: [String: [String]]
        package var missed: [String]
        /// Defects no trace here can show (platform limits and invisible ones).
        package var unseen: [String]
        /// What `run` of the class would exit with: 0 conformant, 1 failures, 4 no verdict, 130
        /// interrupted. A class labelled with a visible defect should exit 1, a clean one 0.
        public var exitStatus = 0

        package var falseAlarms: [String] { reports.filter { $0.verdict == "false-alarm" }.map(\.rule) }
        package var trueReports: [String] { reports.filter { $0.verdict == "found" }.map(\.rule) }
        public var platform: [String] { reports.filter { $0.verdict == "platform" }.map(\.rule) }
        public var unconfirmed: [String] { reports.filter { $0.verdict == "unconfirmed" }.map(\.rule) }
    }

    /// The figures over every class measured.
    package struct Totals: Sendable, Codable, Equatable {
        public var classes: Int
        public var cases: Int
        public var seconds: Double
        package var trueReports: Int
        package var falseAlarms: Int
        package var platformReports: Int
        package var visibleDefects: Int
        package var foundDefects: Int
        /// trueReports / (trueReports + falseAlarms); nil when nothing was reported.
        package var precision: Double?
        /// foundDefects / visibleDefects; nil when no defect is visible.
        package var recall: Double?

        public init(_ outcomes: [ClassOutcome]) {
            classes = outcomes.count
            cases = outcomes.map(\.cases).reduce(0, +)
            seconds = outcomes.map(\.seconds).reduce(0, +)
            trueReports = outcomes.map(\.trueReports.count).reduce(0, +)
            falseAlarms = outcomes.map(\.falseAlarms.count).reduce(0, +)
            platformReports = outcomes.map(\.platform.count).reduce(0, +)
            visibleDefects = outcomes.map { $0.found.count + $0.missed.count }.reduce(0, +)
            foundDefects = outcomes.map(\.found.count).reduce(0, +)
            precision = trueReports + falseAlarms == 0 ? nil : Double(trueReports) / Double(trueReports + falseAlarms)
            recall = visibleDefects == 0 ? nil : Double(foundDefects) / Double(visibleDefects)
        }
    }

    /// The run of `entry`'s class: `count` cases from `seed` on the driver at `driver`
    /// (`--class NAME`), not shrunk, every rule checked.
    public static func configuration(_ entry: StyleCorpus.Entry, driver: String, count: Int, seed: UInt64,
                                     profile: Profile, jobs: Int,
                                     limits: DriverLimits = .standard) throws(InputError) -> RunConfiguration {
        let impl = try Implementations.external(command: [driver, "--class", entry.name], limits: limits)
        var c = RunConfiguration(impl: impl, profile: profile, seed: seed, count: count, shrink: false)
        c.jobs = max(1, jobs)
        return c
    }

    /// Runs `entry`'s class and sorts what was reported.
    public static func measure(_ entry: StyleCorpus.Entry, driver: String, count: Int, seed: UInt64, profile: Profile,
                               jobs: Int, known: Expectations?, limits: DriverLimits = .standard,
                               stop: StopRequest? = nil) -> ClassOutcome {
        var outcome = ClassOutcome(name: entry.name, cases: 0, seconds: 0, reports: [], found: [:], missed: [],
                                   unseen: entry.defects.filter { ![.visible, .misuse].contains($0.visibility) }
                                       .map(\.id))
        var c: RunConfiguration
        do {
            c = try configuration(entry, driver: driver, count: count, seed: seed, profile: profile, jobs: jobs,
                                  limits: limits)
        } catch {
            outcome.error = error.message
            outcome.missed = entry.visible.map(\.id)
            return outcome
        }
        c.stop = stop
        // Foundation's known divergences, as a run of the class's driver applies them by itself.
        c.known = known
        let result = Runner(c).run()
        outcome.cases = result.cases
        outcome.seconds = result.seconds
        if let why = result.noVerdict { outcome.error = "no verdict: " + why }
        outcome.exitStatus = result.interrupted ? 130 : result.noVerdict != nil ? 4 : result.failed ? 1 : 0
        func sort(_ rule: String, _ report: inout Report) {
            // A weakness only a misuse shows is true too, though recall does not count it.
            if let defect = entry.visible.first(where: { $0.rules.contains(rule) })
                ?? entry.defects.first(where: { $0.visibility == .misuse && $0.rules.contains(rule) }) {
                report.verdict = "found"
                report.defect = defect.id
            } else if let limit = entry.defects.first(where: {
                $0.visibility == .platformLimit && $0.rules.contains(rule)
            }) {
                report.defect = limit.id
            }
        }
        for finding in result.findings {
            let cases = result.statistics.first { $0.id == finding.rule }?.violations
                ?? Finding.pseudoEnding(finding.rule).flatMap { result.endings[$0.rawValue] } ?? 1
            var report = Report(rule: finding.rule, severity: finding.severity == .failure ? "failure" : "warning",
                                verdict: "false-alarm", defect: nil, cases: cases, message: finding.message,
                                onSubclass: subject(of: finding.message, finding.scenario))
            sort(finding.rule, &report)
            outcome.reports.append(report)
        }
        for u in result.unconfirmed {
            var report = Report(
                rule: u.rule, severity: "unconfirmed", verdict: "unconfirmed", defect: nil, cases: u.cases,
                message: u.first.violation.observed,
                onSubclass: subject(of: u.first.violation.observed, u.first.scenario))
            // A true defect shown only unconfirmed still counts as found: it was reported.
            sort(u.rule, &report)
            if report.verdict != "found" { report.verdict = "unconfirmed" }
            outcome.reports.append(report)
        }
        for k in result.known {
            outcome.reports.append(
                Report(
                    rule: k.rule, severity: "known", verdict: "platform", defect: nil, cases: k.cases,
                    message: k.first.violation.observed,
                    onSubclass: subject(of: k.first.violation.observed, k.first.scenario)))
        }
        for defect in entry.visible {
            let by = outcome.reports.filter { $0.verdict == "found" && $0.defect == defect.id }.map(\.rule)
            if by.isEmpty { outcome.missed.append(defect.id) } else { outcome.found[defect.id] = by }
        }
        return outcome
    }

    /// Whether a violation's sentence is about an operation of the class under test: its first
    /// `op N` (`op: N` in a hang's call), looked up in the scenario.
    static func subject(of message: String, _ scenario: Scenario) -> Bool? {
        guard let range = message.range(of: #"op:? [0-9]+"#, options: .regularExpression),
              let n = Int(message[range].split(separator: " ").last ?? ""),
              scenario.operations.indices.contains(n) else { return nil }
        return scenario.operations[n].kind.isSubclass
    }

    /// The corpus driver next to `executable` (the running opconform, or a test bundle's
    /// folder): `corpus-driver`, as `swift build` puts every executable target in one folder.
    package static func driverNextTo(_ executable: String) -> String? {
        // PathText, not NSString's path functions, which trap on short paths here (issue 33).
        let folder = PathText.folder(of: PathText.resolvingLinks(PathText.absolute(executable)))
        let candidate = PathText.join(folder, "corpus-driver")
        return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
    }
}
