import Conformance
import ConformanceBench
import ConformanceReports
import Foundation
import OperationSpec
import ReferenceEngine
import Testing

/// The bench measures; nothing here asserts a speed. What is asserted: every measurement is
/// there, and the scale scenarios run to their end on the reference engine with no violation.
@Suite("The bench")
struct BenchTests {
    @Test("a small bench has every row, and the scale scenarios keep every rule")
    func small() {
        var options = Self.options(cases: 5, scale: 60)
        options.longSteps = 2000
        let rows = Benchmark(options: options).run()
        // Four throughput rows, then shared facts and the five slowest rules on those traces;
        // per shape two scale rows; the long scenario's three rows (read, simulated, checked);
        // then per shape shared facts and the five slowest rules.
        #expect(rows.count == 4 + 6 + 3 * 2 + 3 + 3 * 6)
        let long = rows.filter { $0.name.hasPrefix("long scenario: 2000 steps") }
        #expect(long.map(\.note) == ["\(long.first?.note ?? "")", "ended complete", "no violation"] && long.count == 3, "\(long.map(\.note))")
        #expect(rows.allSatisfy { $0.seconds >= 0 })
        for row in rows where row.name.hasPrefix("scale:") {
            #expect(row.note == "ended complete" || row.note == "no violation", "\(row.name): \(row.note ?? "")")
        }
        #expect(BenchReport.table(rows).split(separator: "\n").count == rows.count + 1)
    }

    @Test("--shapes measures only the shapes asked for")
    func oneShape() {
        var options = Self.options(cases: 2, scale: 40)
        options.shapes = [.randomDAG]
        let rows = Benchmark(options: options).run()
        #expect(rows.count == 4 + 6 + 2 + 6)
        let scale = rows.filter { $0.name.hasPrefix("scale:") || $0.name.hasPrefix("  random-dag") || $0.name.hasPrefix("  chain") || $0.name.hasPrefix("  fan-out") }
        #expect(scale.count == 2 + 6)
        #expect(scale.allSatisfy { $0.name.contains("random-dag of 40") }, "\(scale.map(\.name))")
    }

    @Test("jobs scaling and time to detect: a row per jobs and per seed and entry, with their figures in the JSON")
    func scalingAndDetect() throws {
        var options = Self.options(cases: 2, scale: 40)
        options.shapes = [.chain]
        options.implementations = [ReferenceImplementation(options: EngineOptions(faults: [TimeToDetectTests.fault]))]
        options.jobsCases = 12
        options.jobsList = [2, 1]
        options.detect = [TimeToDetectTests.expectations([Finding.hangRule])]
        options.detectOptions.seeds = [1]
        options.detectOptions.capCases = 20
        let rows = Benchmark(options: options).run()
        let scaling = rows.filter { $0.jobs != nil && $0.detect == nil && !$0.name.hasPrefix("detect") }
        #expect(scaling.map(\.jobs) == [1, 2, RunConfiguration.defaultJobs(for: ReferenceImplementation())], "\(scaling.map(\.name))")
        #expect(scaling.allSatisfy { $0.scenarios == 12 && $0.cpu != nil && $0.speedUp != nil })
        #expect(scaling.first?.speedUp == 1, "the smallest jobs is the speed-up's base")
        let detect = rows.filter { $0.name.hasPrefix("detect") || $0.detect != nil }
        #expect(detect.count == 2 && detect[0].scenarios == 20 && detect[1].detect?.seen == 0, "\(detect.map(\.name))")

        let data = Data(BenchReport.json(rows).utf8)
        let entries = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        #expect(entries.count == rows.count)
        let first = try #require(entries.first { ($0["name"] as? String) == scaling.first?.name })
        #expect(first["jobs"] as? Int == 1 && first["speedUp"] as? Double == 1)
        let cpu = try #require(first["cpuSeconds"] as? [String: Double])
        #expect((cpu["harness"] ?? 0) > 0 && cpu["drivers"] != nil)
        #expect(first["cpuMillisecondsPerCase"] as? [String: Double] != nil)
        let entry = try #require(entries.compactMap { $0["detect"] as? [String: Any] }.first)
        #expect(entry["rule"] as? String == Finding.hangRule && entry["seen"] as? Int == 0 && entry["medianSeconds"] == nil)
        #expect(entries[0]["jobs"] == nil && entries[0]["cpuSeconds"] == nil, "optional fields are absent from rows without them")
    }

    /// A bench small enough for a test: no real implementation, no shrinking, one scale size.
    static func options(cases: Int, scale: Int) -> Benchmark.Options {
        var options = Benchmark.Options()
        options.cases = cases
        options.realCases = 0
        options.scale = [scale]
        options.shrinking = false
        options.longSteps = 0
        return options
    }
}

// The bench's other suites, nested so that `--filter BenchTests` runs them too.

extension BenchTests {
    /// `CPUTime` reads getrusage: this process's CPU and its reaped children's, and a run keeps the
    /// difference over its case phase. The counters are the process's, and other tests run at the
    /// same time only add to them, so the bounds below are lower bounds.
    @Suite("CPU accounting")
    struct CPUAccountingTests {
        /// A shell loop that burns about 0.1 s of CPU (user time) on this machine, then exits.
        static let burner = ["/bin/sh", "-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done"]

        @Test("the harness's own CPU and its children's, running or reaped, are counted apart")
        func selfAndChildren() throws {
            let clock = ContinuousClock()
            let (_, own) = CPUTime.measure {
                // Spin a quarter of a second on this thread.
                let start = clock.now
                var x: UInt64 = 1
                while clock.now - start < .milliseconds(250) { x = x &* 6364136223846793005 &+ 1442695040888963407 }
                return x
            }
            #expect(own.harnessSeconds >= 0.05, "\(own)")
            // A child's CPU is counted while it runs, before it is reaped (a driver of protocol 3
            // waits for its next case between runs), and reaping it moves its time from the
            // running children to RUSAGE_CHILDREN without adding or losing any. The burner is
            // waited for without being reaped (WNOWAIT), read, reaped, read again.
            let before = CPUTime.now()
            var pid: pid_t = 0
            let argv = Self.burner.map { strdup($0) } + [nil]
            defer { for p in argv { free(p) } }
            #expect(posix_spawn(&pid, Self.burner[0], nil, nil, argv, environ) == 0)
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
            let ended = CPUTime.now()
            var usage = rusage(), status: Int32 = 0
            while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
            let reaped = CPUTime.now()
            // The child's own figure, from the kernel when it was reaped.
            let child = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
            #expect(child >= 0.03, "the burner burns: \(child) s")
            // Other tests' drivers may add to these figures, never take from them; a running
            // child's time is read in clock ticks of 10 ms.
            #expect((ended - before).driversSeconds >= child - 0.015, "counted before it was reaped: \(ended - before) against \(child) s")
            // Not lost: the figure does not fall. Not counted twice: it does not rise by the
            // child's time again. Other tests' drivers, reaped meanwhile, may add some (CI saw
            // 17 ms), far less than the burner's own, so half of it tells the two apart.
            #expect((reaped - ended).driversSeconds > -0.015, "lost when reaped: \(reaped - ended)")
            #expect((reaped - ended).driversSeconds < max(0.015, child / 2), "counted twice when reaped: \(reaped - ended) against \(child) s")
            #expect((reaped - ended).harnessSeconds < 0.015, "reaping costs this process next to nothing: \(reaped - ended)")
            let d = CPUTime(harnessMicroseconds: 7_000, driversMicroseconds: 5_000) - CPUTime(harnessMicroseconds: 2_000, driversMicroseconds: 1_000)
            #expect(d == CPUTime(harnessMicroseconds: 5_000, driversMicroseconds: 4_000))
            #expect(d.millisecondsPerCase(2) == (total: 5, harness: 3, drivers: 2))
        }

        @Test("a run keeps its drivers' CPU, and the console and the JSON say it for a child-process implementation")
        func runKeepsDriversCPU() throws {
            // A "driver" that burns CPU and exits without a word: every case ends badly, and every
            // case's process is reaped with its time.
            let impl = ChildProcessImplementation(name: "burner", capabilities: [], command: Self.burner)
            var configuration = RunConfiguration(impl: impl, seed: 1, count: 3, shrink: false)
            configuration.jobs = 1
            let result = Runner(configuration).run()
            let cpu = try #require(result.cpu)
            #expect(cpu.driversSeconds >= 3 * 0.03, "three burning drivers: \(cpu)")
            let text = ConsoleReport.text(result, files: [:])
            #expect(text.contains(" ms a case (harness "), "\(text)")
            let json = try #require(try JSONSerialization.jsonObject(with: JSONCodec.encode(RunJSONReport(result, files: [:]))) as? [String: Any])
            let seconds = try #require(json["cpuSeconds"] as? [String: Double])
            #expect((seconds["drivers"] ?? 0) >= 0.09 && seconds["harness"] != nil)

            // In process: all of it is the harness's, and the console says nothing of CPU.
            let reference = Runner(RunConfiguration(impl: ReferenceImplementation(), seed: 1, count: 30, shrink: false)).run()
            #expect(try #require(reference.cpu).harnessMicroseconds > 0)
            #expect(!ConsoleReport.text(reference, files: [:]).contains("ms a case"))
        }
    }
}

extension BenchTests {
    /// Time to detect: the first case of each seed's run that breaks an expected rule, found while
    /// the run goes, must be the one a plain run (one job, every case) finds first.
    @Suite("Time to detect")
    struct TimeToDetectTests {
        static let fault = Fault.oneTooMany
        static var impl: ReferenceImplementation { ReferenceImplementation(options: EngineOptions(faults: [fault])) }

        /// The first case breaking `rule` in a plain run of `seed`: every case, one at a time.
        static func firstBreaking(_ rule: String, seed: UInt64, count: Int) -> Int? {
            var configuration = RunConfiguration(impl: impl, faults: [fault], seed: seed, count: count, shrink: false)
            configuration.jobs = 1
            var first: Int?
            _ = Runner(configuration).run(record: { if first == nil && $0.broken.contains(rule) { first = $0.index } })
            return first
        }

        static func expectations(_ rules: [String]) -> Expectations {
            Expectations(impl: "reference", profile: .guide,
                         expected: rules.map { Expectations.Entry(rule: $0, kind: .bug, reason: "injected", finding: "none.json") })
        }

        @Test("the fault's rule is seen in 3 of 3 seeds, at the first case that breaks it, and a seed stops there")
        func seenAtFirstBreakingCase() throws {
            let rule = try #require(FaultProbe.run(Self.fault).findings.first?.rule)
            var options = TimeToDetect.Options()
            options.capCases = 400
            let report = TimeToDetect(options: options).measure(Self.impl, expectations: Self.expectations([rule]))
            let entry = try #require(report.entries.first)
            #expect(entry.rule == rule && entry.seen == 3 && entry.seeds == 3)
            var cases: [Double] = []
            for (run, seen) in zip(report.runs, entry.perSeed) {
                let plain = try #require(Self.firstBreaking(rule, seed: run.seed, count: 400), "seed \(run.seed)")
                #expect(seen.caseIndex == plain, "seed \(run.seed): \(String(describing: seen.caseIndex)) against \(plain) in a plain run")
                // Every entry seen: the run stopped at that case.
                #expect(run.cases == plain + 1 && run.ending == "every entry seen", "seed \(run.seed): \(run.cases) cases, \(run.ending)")
                cases.append(Double(plain + 1))
            }
            #expect(entry.medianCases == cases.sorted()[1])
            #expect(entry.medianSeconds != nil)
            #expect(TimeToDetect.rows(report).count == 3 + 1)
        }

        @Test("an entry never broken is not seen within the cap, and the seeds run to it")
        func notSeenWithinCap() throws {
            let rule = try #require(FaultProbe.run(Self.fault).findings.first?.rule)
            var options = TimeToDetect.Options()
            options.capCases = 60
            options.seeds = [1, 2]
            let report = TimeToDetect(options: options).measure(Self.impl, expectations: Self.expectations([Finding.crashRule, rule]))
            #expect(report.runs.allSatisfy { $0.cases == 60 && $0.ending == "the cap of 60 cases" }, "\(report.runs.map { ($0.cases, $0.ending) })")
            let crash = report.entries[0]
            #expect(crash.rule == Finding.crashRule && crash.seen == 0 && crash.medianSeconds == nil && crash.medianCases == nil)
            #expect(crash.perSeed.allSatisfy { $0.caseIndex == nil })
            let row = try #require(TimeToDetect.rows(report).first { $0.name.hasSuffix(Finding.crashRule) })
            #expect(row.note?.hasPrefix("not seen within 60 cases") == true, "\(row.note ?? "")")
            #expect(BenchReport.table([row]).contains("        -  "), "no median time is printed as '-'")
        }

        @Test("medians count a seed that did not see an entry as later than any that did")
        func medians() {
            #expect(TimeToDetect.median([3, 1, 2]) == 2)
            #expect(TimeToDetect.median([1, nil, 5]) == 5)
            #expect(TimeToDetect.median([nil, 1, nil]) == nil)
            #expect(TimeToDetect.median([4, 2]) == 3)
            #expect(TimeToDetect.median([2, nil]) == nil)
            #expect(TimeToDetect.median([]) == nil)
        }
    }
}
