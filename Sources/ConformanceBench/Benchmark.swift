import Conformance
import Foundation
import OperationSpec
import ReferenceEngine

/// `opconform bench`: throughput and scale figures, measured in one run on the same generated
/// scenarios, so that ratios between them hold on a noisy machine. Nothing here asserts a
/// figure; the README shows the latest table and the machine it ran on.
package struct Benchmark {
    package struct Options: Sendable {
        /// Generated scenarios for the reference engine and the checkers.
        package var cases = 2000
        /// Of those, how many run on each real implementation.
        package var realCases = 40
        /// Operation counts for the scale scenarios. 100,000 is left out by default: it takes
        /// about 10 seconds and 390 MB for the three shapes.
        package var scale = [1_000, 10_000]
        /// Which shapes the scale rows build (all three by default); one alone is what a profiler wants.
        package var shapes = ScaleScenarios.Shape.allCases
        /// Driver steps of the long scenario (`LongScenario`): read from its file's bytes, run
        /// and checked, each timed. 0 leaves the rows out.
        package var longSteps = 200_000
        /// Real implementations to measure (their names), when they can be started.
        package var implementations: [any Implementation] = []
        /// The command of `opconform driver --plain`: when set, the Foundation rows are joined by
        /// the same scenarios run without recording, and by process start alone, so the
        /// harness's overhead is a ratio.
        package var plainFoundation: [String]?
        package var shrinking = true
        /// Jobs scaling: the first `jobsCases` generated cases run through `Runner` (checks, no
        /// shrinking) on each real implementation at each of `jobsList`, and once more at the
        /// default jobs. 0 leaves the section out.
        package var jobsCases = 64
        package var jobsList = [1, 2, 4, 8, 16]
        /// Time to detect: for each expectations file, its implementation (one of
        /// `implementations`, by name) is run until every entry's rule broke, or a cap.
        package var detect: [Expectations] = []
        /// Known divergences by implementation (`Expectations.impl`): with them, jobs scaling
        /// runs an implementation as its gate does.
        package var gates: [Expectations] = []
        package var detectOptions = TimeToDetect.Options()
        package init() {}
    }

    /// One measured line of the table.
    package struct Row: Codable, Sendable {
        package var name: String
        package var seconds: Double
        package var scenarios: Int
        package var operations: Int
        package var events: Int
        /// The process's peak resident memory after the measurement (kB): peaks only grow, so
        /// the scale rows are run smallest first.
        package var peakKB: Int?
        package var note: String?
        /// The jobs the row's run used (jobs scaling, time to detect).
        package var jobs: Int?
        /// Jobs scaling: the smallest jobs' seconds over this row's.
        package var speedUp: Double?
        /// The CPU the row's run used (`RunResult.cpu`): divided by `scenarios`, what a case costs.
        package var cpu: CPUTime?
        /// Time to detect: one expectations entry's figures.
        package var detect: TimeToDetect.Entry?
        package var scenariosPerSecond: Double { seconds > 0 ? Double(scenarios) / seconds : 0 }
        package var eventsPerSecond: Double { seconds > 0 ? Double(events) / seconds : 0 }
        package var operationsPerSecond: Double { seconds > 0 ? Double(operations) / seconds : 0 }
    }

    package let options: Options
    package init(options: Options) { self.options = options }

    static func time<T>(_ body: () -> T) -> (T, Double) {
        let clock = ContinuousClock()
        let start = clock.now
        let value = body()
        return (value, (clock.now - start).seconds)
    }

    static func peakKB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss)
    }

    /// Says how many of `traces` ended because the driver broke the protocol, with the first
    /// reason, or nil: figures measured on a driver that never started are no figures, and a
    /// reader of the table must see that (an installed copy once started './opconform').
    static func breaches(_ traces: [Trace]) -> String? {
        let reasons = traces.compactMap { trace in
            trace.events.lazy.compactMap { event -> String? in
                if case .breach(let what) = event.kind { return what }
                return nil
            }.first
        }
        guard let first = reasons.first else { return nil }
        return "\(reasons.count) of \(traces.count) broke the driver protocol: \(first)"
    }

    /// The harness's overhead on Foundation: the recorded run and its checks against the same
    /// scenarios run by `driver --plain` (same operations and queues, no events made, no quiet
    /// window at the end), both in child processes; and process start alone, to say how much of
    /// the difference is isolation.
    ///
    /// Also in CPU (`CPUTime`, harness and drivers): what recording, reading and checking add to a
    /// case beyond the implementation's own work, both run in sessions (protocol 3) as `run`
    /// runs them. Process start alone is measured a process per case, since that is its point.
    func plainFoundationRows(
        _ sample: [(UInt64, Scenario)], traces: [Trace], recorded: Double, recordedCPU: CPUTime, command: [String],
        progress: (String) -> Void
    ) -> [Row] {
        let ops = sample.reduce(0) { $0 + $1.1.operations.count }
        progress("foundation: checks of its traces")
        let ((_, checks), checksCPU) = CPUTime.measure {
            Self.time {
                zip(sample, traces).reduce(0) {
                    $0 + RuleBook.violations(scenario: $1.0.1, trace: $1.1, profile: .guide).count
                }
            }
        }
        progress("foundation: plain, no recording")
        let plainSession = ChildProcessImplementation(
            name: "foundation", capabilities: FoundationDriver.capabilities, command: command,
            limits: .standard, protocolVersion: DriverProtocol.sessionVersion)
        let ((endings, plain), plainCPU) = CPUTime.measure {
            let timed = Self.time { sample.map { plainSession.run($0.1, scheduleSeed: $0.0).ending } }
            plainSession.endSessions()
            return timed
        }
        let plainImpl = ChildProcessImplementation(
            name: "foundation", capabilities: FoundationDriver.capabilities, command: command)
        progress("foundation: process start alone")
        let empty = Scenario(name: "empty", queues: [], operations: [], dependencies: [], driver: [])
        let (_, start) = Self.time { for _ in sample { _ = plainImpl.run(empty, scheduleSeed: 1) } }
        let harness = recorded + checks
        let overhead = plain > 0 ? (harness / plain - 1) * 100 : 0
        let overheadRun = plain > start ? (harness - start) / (plain - start) * 100 - 100 : 0
        let ended = endings.filter { $0 == .complete }.count
        return [
            Row(name: "foundation: checks of those traces", seconds: checks, scenarios: sample.count, operations: ops,
                events: traces.reduce(0) { $0 + $1.events.count }),
            Row(
                name: "foundation: plain, no recording (child processes)", seconds: plain, scenarios: sample.count,
                operations: ops, events: 0,
                note: "\(ended) of \(sample.count) ended complete"),
            Row(
                name: "foundation: process start alone (empty scenario)", seconds: start, scenarios: sample.count,
                operations: 0, events: 0),
            Row(
                name: "foundation: harness overhead", seconds: harness - plain, scenarios: sample.count,
                operations: ops, events: 0,
                note: String(
                    format: "%+.0f%% on plain in a child; %+.0f%% on the run alone (start and exit left out of both)",
                    overhead, overheadRun)),
            Row(
                name: "foundation: CPU overhead a case (sessions)",
                seconds: (recordedCPU + checksCPU - plainCPU).totalSeconds,
                scenarios: sample.count, operations: ops, events: 0,
                note: String(
                    format: "%.1f ms a case: recorded and checked %.1f ms, plain %.1f ms (harness and drivers)",
                    (recordedCPU + checksCPU - plainCPU).totalSeconds * 1000 / Double(max(1, sample.count)),
                    (recordedCPU + checksCPU).totalSeconds * 1000 / Double(max(1, sample.count)),
                    plainCPU.totalSeconds * 1000 / Double(max(1, sample.count))))
        ]
    }

    /// The same cases through the runner at each jobs of `jobsList`, then at the default jobs:
    /// wall clock, cases per second, speed-up over the smallest jobs, and CPU per case (the
    /// harness's process and its drivers'). Shows where adding jobs stops paying on this machine.
    /// An implementation with an expectations file (`gates`) runs as its gate does, with its
    /// known divergences and their profile: without them every case of a known bug that hangs
    /// would be run again with patience, and the rows would time confirmation, not cases.
    func jobsScalingRows(_ impl: any Implementation, progress: (String) -> Void) -> [Row] {
        let known = options.gates.first { $0.impl == impl.name }
        let n = options.jobsCases
        let generator = RunConfiguration(impl: impl, count: n).generator
        let operations = (0..<n).reduce(0) {
            $0 + CaseIdentity.of(run: 1, index: $1, options: generator).scenario().operations.count
        }
        let standard = RunConfiguration.defaultJobs(for: impl)
        // Smallest first: the speed-up is over the first row.
        let runs = Array(Set(options.jobsList)).sorted().map { ($0, false) } + [(standard, true)]
        var rows: [Row] = []
        var base: (jobs: Int, seconds: Double)?
        for (jobs, isDefault) in runs {
            progress("\(impl.name): \(n) cases at jobs \(jobs)" + (isDefault ? " (the default)" : ""))
            var configuration = RunConfiguration(impl: impl, profile: known?.profile ?? .guide, seed: 1, count: n,
                                                 shrink: false)
            configuration.jobs = jobs
            configuration.known = known
            let result = Runner(configuration).run()
            if base == nil { base = (jobs, result.seconds) }
            let speedUp = base.map { result.seconds > 0 ? $0.seconds / result.seconds : 0 }
            let cpu = result.cpu.map { cpu -> String in
                let ms = cpu.millisecondsPerCase(result.cases)
                return "CPU \(ms.total) ms a case (harness \(ms.harness), drivers \(ms.drivers))"
            } ?? ""
            let endings = result.endings.keys.sorted().map { "\($0) \(result.endings[$0]!)" }.joined(separator: ", ")
            let how = known == nil ? "runner, checks, no shrink" : "as its gate: known divergences, no shrink"
            rows.append(Row(name: "\(impl.name): jobs \(jobs)" + (isDefault ? ", the default" : "") + " (\(how))",
                            seconds: result.seconds, scenarios: result.cases, operations: operations, events: 0,
                    note: String(format: "x%.2f on jobs %d; ", speedUp ?? 0, base?.jobs ?? jobs) + cpu + "; " + endings,
                            jobs: jobs, speedUp: speedUp, cpu: result.cpu))
        }
        return rows
    }

    /// Where checking time goes on some traces: the shared facts pass, then the five slowest
    /// rules, each timed over all the traces (every rule sees the same contexts).
    static func slowestCheckers(label: String, pairs: [(Scenario, Trace)], operations: Int, events: Int) -> [Row] {
        let (contexts, factsTime) = time { pairs.map { CheckContext(scenario: $0.0, trace: $0.1, profile: .guide) } }
        var rows = [
            Row(
                name: "  \(label): shared facts (TraceFacts)", seconds: factsTime, scenarios: pairs.count,
                operations: operations, events: events)
        ]
        let timed = RuleBook.all.map { check in
            (check.rule.id, time { contexts.reduce(0) { $0 + check.check($1).hits } }.1)
        }
        for (id, seconds) in timed.sorted(by: { $0.1 > $1.1 }).prefix(5) {
            rows.append(
                Row(
                    name: "  \(label): \(id)", seconds: seconds, scenarios: pairs.count, operations: operations,
                    events: events))
        }
        return rows
    }

    /// The long scenario: its file read strictly (`ScenarioFormat.decode`, what `replay FILE`
    /// does), then simulated, then checked.
    func longScenarioRows(progress: (String) -> Void) -> [Row] {
        let n = options.longSteps
        progress("long scenario: \(n) driver steps")
        let bytes = ScenarioFormat.encode(LongScenario.make(steps: n))
        let (scenario, read) = Self.time { try? ScenarioFormat.decode(bytes, source: "the long scenario") }
        guard let scenario else {
            return [
                Row(
                    name: "long scenario: \(n) driver steps", seconds: read, scenarios: 1, operations: 0, events: 0,
                    note: "could not be read back")
            ]
        }
        let (trace, simulate) = Self.time { ReferenceEngine().run(scenario, scheduleSeed: 1) }
        let (broken, check) = Self.time { RuleBook.violations(scenario: scenario, trace: trace, profile: .guide).count }
        let size = "\(bytes.count / 1024) kB"
        return [
            Row(name: "long scenario: \(n) steps: read the file", seconds: read, scenarios: 1, operations: n, events: 0,
                note: "\(size), format 2, read strictly"),
            Row(
                name: "long scenario: \(n) steps: simulation", seconds: simulate, scenarios: 1, operations: n,
                events: trace.events.count,
                note: "ended \(trace.ending.rawValue)"),
            Row(
                name: "long scenario: \(n) steps: checks", seconds: check, scenarios: 1, operations: n,
                events: trace.events.count,
                peakKB: Self.peakKB(), note: broken == 0 ? "no violation" : "\(broken) violations")
        ]
    }

    /// Runs every measurement; `progress` hears the name of each before it starts.
    package func run(progress: (String) -> Void = { _ in }) -> [Row] {
        let identities = (0..<options.cases).map { CaseIdentity.of(run: 1, index: $0, options: GeneratorOptions()) }
        let engine = ReferenceEngine()
        let reference = referenceRows(identities, engine: engine, progress: progress)
        var rows = reference.rows
        let sample = Array(zip(identities, reference.scenarios).prefix(options.realCases))
        for impl in options.implementations {
            rows += implementationRows(impl, sample: sample, progress: progress)
        }
        rows += detectionRows(progress: progress)
        rows += scaleRows(engine: engine, progress: progress)
        if options.longSteps > 0 {
            rows += longScenarioRows(progress: progress)
        }
        rows += largestScaleCheckerRows(engine: engine, progress: progress)
        if options.shrinking {
            rows += shrinkingRows(progress: progress)
        }
        return rows
    }

    /// The reference engine on the generated cases: generation, simulation and checks, each
    /// alone and end to end, then the slowest checkers on the stored traces; with the scenarios.
    private func referenceRows(
        _ identities: [CaseIdentity], engine: ReferenceEngine, progress: (String) -> Void
    ) -> (rows: [Row], scenarios: [Scenario]) {
        var rows: [Row] = []
        progress("reference engine: generation")
        let (scenarios, generation) = Self.time { identities.map { $0.scenario() } }
        let operations = scenarios.reduce(0) { $0 + $1.operations.count }
        progress("reference engine: simulation")
        let (traces, simulation) = Self.time {
            zip(identities, scenarios).map { engine.run($1, scheduleSeed: $0.scheduleSeed) }
        }
        let events = traces.reduce(0) { $0 + $1.events.count }
        progress("checkers on stored traces")
        let (_, checking) = Self.time {
            zip(scenarios, traces).reduce(0) {
                $0 + RuleBook.violations(scenario: $1.0, trace: $1.1, profile: .guide).count
            }
        }
        progress("reference engine: end to end")
        let (_, endToEnd) = Self.time {
            identities.reduce(0) { n, id in
                let s = id.scenario()
                return n
                    + RuleBook.violations(
                        scenario: s, trace: engine.run(s, scheduleSeed: id.scheduleSeed), profile: .guide
                    ).count
            }
        }
        rows.append(
            Row(
                name: "reference: generation + simulation + checks", seconds: endToEnd, scenarios: scenarios.count,
                operations: operations, events: events))
        rows.append(
            Row(
                name: "reference: generation alone", seconds: generation, scenarios: scenarios.count,
                operations: operations, events: events))
        rows.append(
            Row(
                name: "reference: simulation alone", seconds: simulation, scenarios: scenarios.count,
                operations: operations, events: events))
        rows.append(
            Row(
                name: "checkers alone (\(RuleBook.all.count) rules, stored traces)", seconds: checking,
                scenarios: scenarios.count, operations: operations, events: events))
        progress("checkers on stored traces, rule by rule")
        rows += Self.slowestCheckers(
            label: "stored traces", pairs: Array(zip(scenarios, traces)), operations: operations, events: events)
        return (rows, scenarios)
    }

    /// One implementation on a sample of the cases, one at a time in child processes; then plain
    /// Foundation beside it and the scaling with jobs, when asked for.
    private func implementationRows(
        _ impl: any Implementation, sample: [(CaseIdentity, Scenario)], progress: (String) -> Void
    ) -> [Row] {
        var rows: [Row] = []
        progress("\(impl.name): \(options.realCases) scenarios")
        let sampleOps = sample.reduce(0) { $0 + $1.1.operations.count }
        let ((realTraces, seconds), recordedCPU) = CPUTime.measure {
            Self.time { sample.map { id, scenario in impl.run(scenario, scheduleSeed: id.scheduleSeed) } }
        }
        let realEvents = realTraces.reduce(0) { $0 + $1.events.count }
        rows.append(
            Row(
                name: "\(impl.name): run + record (one at a time, child processes)", seconds: seconds,
                scenarios: sample.count,
                operations: sampleOps, events: realEvents, note: Self.breaches(realTraces)))
        if impl.name == "foundation", impl.launch == nil, let plain = options.plainFoundation {
            rows += plainFoundationRows(
                sample.map { (id, scenario) in (id.scheduleSeed, scenario) }, traces: realTraces, recorded: seconds,
                recordedCPU: recordedCPU, command: plain, progress: progress)
        }
        if options.jobsCases > 0 && !options.jobsList.isEmpty { rows += jobsScalingRows(impl, progress: progress) }
        return rows
    }

    /// How long each implementation the detection expectations name takes to show their
    /// divergences.
    private func detectionRows(progress: (String) -> Void) -> [Row] {
        var rows: [Row] = []
        let detector = TimeToDetect(options: options.detectOptions)
        for expectations in options.detect {
            guard let impl = options.implementations.first(where: { $0.name == expectations.impl }) else { continue }
            rows += TimeToDetect.rows(detector.measure(impl, expectations: expectations, progress: progress))
        }
        return rows
    }

    /// Simulation and checks of each scale scenario, by shape and size, with the peak memory.
    private func scaleRows(engine: ReferenceEngine, progress: (String) -> Void) -> [Row] {
        var rows: [Row] = []
        for shape in options.shapes {
            for n in options.scale.sorted() {
                progress("scale: \(shape.rawValue) of \(n)")
                let scenario = ScaleScenarios.make(shape, operations: n)
                let (trace, simulate) = Self.time { engine.run(scenario, scheduleSeed: 1) }
                let (broken, check) = Self.time {
                    RuleBook.violations(scenario: scenario, trace: trace, profile: .guide).count
                }
                rows.append(
                    Row(
                        name: "scale: \(shape.rawValue) of \(n): simulation", seconds: simulate, scenarios: 1,
                        operations: n, events: trace.events.count,
                        peakKB: nil, note: "ended \(trace.ending.rawValue)"))
                rows.append(
                    Row(
                        name: "scale: \(shape.rawValue) of \(n): checks", seconds: check, scenarios: 1, operations: n,
                        events: trace.events.count,
                        peakKB: Self.peakKB(), note: broken == 0 ? "no violation" : "\(broken) violations"))
            }
        }
        return rows
    }

    /// Where the checking time of the largest scale scenario goes: the five slowest rules.
    private func largestScaleCheckerRows(engine: ReferenceEngine, progress: (String) -> Void) -> [Row] {
        var rows: [Row] = []
        if let n = options.scale.max() {
            for shape in options.shapes {
                progress("slowest checkers on \(shape.rawValue) of \(n)")
                let scenario = ScaleScenarios.make(shape, operations: n)
                let trace = engine.run(scenario, scheduleSeed: 1)
                rows += Self.slowestCheckers(
                    label: "\(shape.rawValue) of \(n)", pairs: [(scenario, trace)], operations: n,
                    events: trace.events.count)
            }
        }
        return rows
    }

    /// How long the shrinker takes on each planted fault, and what it shrank the case to.
    private func shrinkingRows(progress: (String) -> Void) -> [Row] {
        var rows: [Row] = []
        for fault in Fault.allCases {
            progress("shrinking: \(fault.rawValue)")
            let (result, _) = Self.time { FaultProbe.run(fault) }
            let f = result.findings.first
            rows.append(
                Row(
                    name: "shrinking: \(fault.rawValue)", seconds: result.shrinkSeconds, scenarios: 1,
                    operations: 0, events: 0,
                    note: f.map { "\($0.rule), \($0.originalOperations) → \($0.operations) operations" }
                        ?? "not caught"))
        }
        return rows
    }
}
