import Conformance
import Dispatch
import Foundation
import OperationSpec

/// "How soon does a run show each known divergence?": for every entry of an implementation's
/// expectations file, runs generated cases the way `gate` does (every rule, the file's profile,
/// no shrinking, the default jobs) under a few run seeds, and notes for each entry the first case
/// that broke its rule (RUN-CRASH and RUN-HANG included) and when. A seed's run stops once every
/// entry was seen, or at a cap of cases or seconds. Nothing is asserted: it tells how many cases a
/// gate needs to see what it expects.
package struct TimeToDetect: Sendable {
    package struct Options: Sendable {
        /// One run per seed; each entry's figures are medians over them.
        package var seeds: [UInt64] = [1, 2, 3]
        /// The most cases a seed's run decides.
        package var capCases = 2000
        /// The most seconds a seed's run takes (its cases still running are then dropped).
        package var capSeconds: Double = 60
        /// Cases at once; nil: `RunConfiguration.defaultJobs(for:)`, what `gate` uses.
        package var jobs: Int?
        package init() {}
    }

    /// The first case of one seed's run that broke an entry's rule.
    package struct Sighting: Codable, Sendable, Equatable {
        /// Its index in the run (cases are decided in index order, so `caseIndex + 1` cases
        /// were run up to it).
        package var caseIndex: Int
        /// Seconds from the start of the run to the moment the case was decided.
        package var seconds: Double
        package init(caseIndex: Int, seconds: Double) { self.caseIndex = caseIndex; self.seconds = seconds }
    }

    /// One seed's run.
    package struct SeedRun: Sendable {
        package var seed: UInt64
        /// Per rule asked for, in the same order: its first sighting, nil when not seen within the cap.
        package var sightings: [Sighting?]
        /// Cases decided.
        package var cases: Int
        /// Wall-clock seconds of the run, including the wait for the cases running when it stopped.
        package var seconds: Double
        package var cpu: CPUTime?
        package var jobs: Int
        /// Why the run ended: every entry seen, or a cap.
        package var ending: String
        package var seen: Int { sightings.filter { $0 != nil }.count }
    }

    /// One entry's figures over the seeds.
    package struct Entry: Codable, Sendable, Equatable {
        package struct PerSeed: Codable, Sendable, Equatable {
            package var seed: UInt64
            /// Absent: not seen within the cap in that seed.
            package var caseIndex: Int?
            package var seconds: Double?
        }
        package var impl: String
        package var rule: String
        /// In how many of the seeds it was seen.
        package var seen: Int
        package var seeds: Int
        /// Medians over the seeds, a seed that did not see it counting as later than any that
        /// did; absent unless it was seen in more than half of them ("not seen within the cap").
        package var medianSeconds: Double?
        /// Cases run up to and including the first sighting (`caseIndex + 1`), median.
        package var medianCases: Double?
        package var capCases: Int
        package var capSeconds: Double
        package var perSeed: [PerSeed]
    }

    /// The figures of one expectations file on its implementation.
    package struct Report: Sendable {
        package var impl: String
        package var profile: Profile
        package var rules: [String]
        package var runs: [SeedRun]
        package var entries: [Entry]
    }

    package let options: Options
    package init(options: Options = Options()) { self.options = options }

    /// Runs every seed on `impl` for the rules of `expectations` (in the file's order), under the
    /// file's profile; `progress` hears of each seed before it starts.
    package func measure(
        _ impl: any Implementation, expectations: Expectations, progress: (String) -> Void = { _ in }
    ) -> Report {
        let rules = expectations.expected.map(\.rule)
        var runs: [SeedRun] = []
        for seed in options.seeds {
            progress("time to detect on \(impl.name): seed \(seed)")
            runs.append(run(impl, profile: expectations.profile, rules: rules, seed: seed))
        }
        return Report(
            impl: impl.name, profile: expectations.profile, rules: rules, runs: runs,
            entries: Self.entries(impl: impl.name, rules: rules, runs: runs, options: options))
    }

    /// One seed's run: the cases in index order until every rule of `rules` was broken by some
    /// case, or a cap.
    package func run(_ impl: any Implementation, profile: Profile, rules: [String], seed: UInt64) -> SeedRun {
        var configuration = RunConfiguration(
            impl: impl, profile: profile, seed: seed, count: options.capCases, shrink: false)
        configuration.jobs = options.jobs ?? RunConfiguration.defaultJobs(for: impl)
        let stop = StopRequest()
        configuration.stop = stop
        let capSeconds = options.capSeconds
        // The seconds cap holds even while no case is decided (a slow case at the head of the
        // run): a timer asks the run to stop. Cancelled when the run ends first.
        let timer = DispatchWorkItem { stop.request() }
        DispatchQueue.global().asyncAfter(deadline: .now() + capSeconds, execute: timer)
        defer { timer.cancel() }

        var sightings: [Sighting?] = Array(repeating: nil, count: rules.count)
        var unseen = Set(rules.indices)   // membership and count only; never iterated
        var ending = "the cap of \(options.capCases) cases"
        if rules.isEmpty { stop.request(); ending = "no entry to look for" }
        let clock = ContinuousClock()
        let start = clock.now
        // `record` is called on this thread, in index order, as each case is decided.
        let result = Runner(configuration).run(record: { record in
            let now = (clock.now - start).seconds
            guard now <= capSeconds else {
                stop.request()
                return
            }
            for (n, rule) in rules.enumerated() where sightings[n] == nil && record.broken.contains(rule) {
                sightings[n] = Sighting(caseIndex: record.index, seconds: now)
                unseen.remove(n)
            }
            if unseen.isEmpty && !stop.isRequested {
                ending = "every entry seen"
                stop.request()
            }
        })
        let seconds = (clock.now - start).seconds
        if !unseen.isEmpty && result.interrupted { ending = "the cap of \(Self.format(capSeconds)) s" }
        return SeedRun(seed: seed, sightings: sightings, cases: result.cases, seconds: seconds, cpu: result.cpu,
                       jobs: configuration.jobs, ending: ending)
    }

    /// Each rule's medians over the runs.
    static func entries(impl: String, rules: [String], runs: [SeedRun], options: Options) -> [Entry] {
        rules.enumerated().map { n, rule in
            let sightings = runs.map { $0.sightings[n] }
            return Entry(
                impl: impl, rule: rule, seen: sightings.filter { $0 != nil }.count, seeds: runs.count,
                medianSeconds: median(sightings.map { $0?.seconds }),
                medianCases: median(sightings.map { $0.map { Double($0.caseIndex + 1) } }),
                capCases: options.capCases, capSeconds: options.capSeconds,
                perSeed: zip(runs, sightings).map {
                    Entry.PerSeed(seed: $0.seed, caseIndex: $1?.caseIndex, seconds: $1?.seconds)
                })
        }
    }

    /// The median of `values`, nil counting as larger than any number ("not seen within the
    /// cap"); nil when the median falls on one. Of an even count, the mean of the middle two.
    package static func median(_ values: [Double?]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted { a, b in
            switch (a, b) {
            case let (x?, y?): return x < y
            case (_?, nil): return true
            default: return false
            }
        }
        let mid = sorted.count / 2
        if sorted.count % 2 == 1 { return sorted[mid] }
        guard let low = sorted[mid - 1], let high = sorted[mid] else { return nil }
        return (low + high) / 2
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.1f", seconds)
    }

    /// The bench's rows: one per seed's run, then one per entry.
    package static func rows(_ report: Report) -> [Benchmark.Row] {
        var rows: [Benchmark.Row] = []
        let label = "detect on \(report.impl)"
        for run in report.runs {
            let cpu = run.cpu.map { cpu -> String in
                let ms = cpu.millisecondsPerCase(run.cases)
                return "; CPU \(ms.total) ms a case (harness \(ms.harness), drivers \(ms.drivers))"
            } ?? ""
            rows.append(
                Benchmark.Row(
                    name: "\(label): seed \(run.seed), \(run.seen) of \(report.rules.count) seen", seconds: run.seconds,
                    scenarios: run.cases, operations: 0, events: 0,
                    note:
                        "\(run.cases) cases at jobs \(run.jobs), profile \(report.profile.rawValue); stopped: "
                            + "\(run.ending)"
                        + cpu,
                    jobs: run.jobs, cpu: run.cpu))
        }
        for entry in report.entries {
            let perSeed = entry.perSeed.map { s in
                "seed \(s.seed): "
                    + (s.caseIndex.map { "case \($0) at \(String(format: "%.2f", s.seconds ?? 0)) s" } ?? "not seen")
            }.joined(separator: "; ")
            let median = entry.medianCases.map { "median \(count($0)) case" + ($0 == 1 ? "" : "s") }
                ?? "not seen within \(entry.capCases) cases / \(format(entry.capSeconds)) s"
            rows.append(
                Benchmark.Row(
                    name: "  \(label): \(entry.rule)", seconds: entry.medianSeconds ?? 0, scenarios: 0, operations: 0,
                    events: 0,
                    note: "\(median); seen in \(entry.seen) of \(entry.seeds) (\(perSeed))", detect: entry))
        }
        return rows
    }

    static func count(_ x: Double) -> String { x == x.rounded() ? String(Int(x)) : String(format: "%.1f", x) }
}
