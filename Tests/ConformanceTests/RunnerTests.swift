import Conformance
import ConformanceReports
import ConformanceTesting
import Foundation
import OperationSpec
import ReferenceEngine
import Testing

/// An implementation that cannot observe KVO: the reference engine with notifications removed.
struct BlindToKVO: Implementation {
    var name: String { "blind-to-kvo" }
    var capabilities: [Observation] { ReferenceEngine.capabilities.filter { $0 != .kvo } }
    var isDeterministic: Bool { true }
    func run(_ scenario: Scenario, scheduleSeed: UInt64) -> Trace {
        var t = ReferenceEngine().run(scenario, scheduleSeed: scheduleSeed)
        t.impl = name
        t.capabilities = capabilities
        t.events = t.events.filter { if case .willChange = $0.kind { return false }; if case .didChange = $0.kind { return false }; return true }
        for i in t.events.indices { t.events[i].seq = i }
        return t
    }
}

@Suite("Generated runs")
struct RunnerTests {
    static let long = ProcessInfo.processInfo.environment["OPCONFORM_LONG"] != nil

    @Test("the reference engine keeps every rule on generated cases; every rule is reached")
    func referenceConforms() {
        let count = Self.long ? 5000 : 400
        let result = expectConformance(of: ReferenceImplementation(), count: count, seed: 1)
        #expect(result.findings.isEmpty)
        #expect(result.endings == ["complete": count])
        for s in result.statistics {
            // Profile-only rules: GNUstep's thread names and 003's "start must execute -main",
            // and the class reference's currentQueue and executionBlocks (this run is under the guide).
            if s.status == .notApplicable {
                #expect(["QUEUE-THREAD-NAME", "QUEUE-THREAD-NAME-SET", "SUBCLASS-START-RUNS-MAIN", "QUEUE-CURRENT", "BLOCK-EXECUTION-BLOCKS",
                          "START-FINISHED-OWN"].contains(s.id),
                        "\(s.id)")
                continue
            }
            // Reached only by a subclass that says it is concurrent and leaves start to the
            // default, which the generator writes only as a flaw (the test below).
            if s.id == "START-DEFAULT-IGNORES-FLAG" { #expect(s.status == .notReached); continue }
            // Reached only by operations of the implementation's own subclass, which the generator
            // makes only for a driver that names one (CorpusTests holds it: no-kvo, misspelled-key).
            if s.id == "SUBCLASS-FINISH-ANNOUNCED" { #expect(s.status == .notReached); continue }
            #expect(s.status == .pass, "\(s.id) is \(s.status.rawValue)")
            if Self.long { #expect(s.hits >= 20, "\(s.id) reached only \(s.hits) times in \(count) cases") }
        }
    }

    @Test("a subclass that only says it is concurrent reaches the default start with the flag set, and the engine keeps the rule")
    func flagOnlySubclasses() throws {
        let options = GeneratorOptions(flawRate: 50, flaws: [.callsSuperStart])
        let configuration = RunConfiguration(impl: ReferenceImplementation(), count: 200, generator: options, shrink: false)
        let result = Runner(configuration).run()
        let stats = try #require(result.statistics.first { $0.id == "START-DEFAULT-IGNORES-FLAG" })
        #expect(stats.status == .pass && stats.hits > 20, "\(stats.status.rawValue), \(stats.hits) hits")
        // The flawed subclasses break their own duties, and, since main finishes the operation
        // and the default start then finishes it again, the rules of a single finish; nothing else.
        let broken = Set(result.findings.map(\.rule))
        #expect(broken.isSubset(of: ["START-CONCURRENT-NO-SUPER", "START-CONCURRENT-ASYNC", "KVO-FINISH-ONCE", "KVO-FINISH-CHANGES"]),
                "\(broken.sorted())")
        #expect(broken.contains("START-CONCURRENT-NO-SUPER"))
    }

    @Test("soak: other seeds, sizes and more misuse stay clean",
          .enabled(if: long, "set OPCONFORM_LONG=1"),
          arguments: [(UInt64(2), 4), (3, 24), (4, 64), (5, 4), (6, 12)])
    func soak(seed: UInt64, size: Int) {
        let result = expectConformance(of: ReferenceImplementation(), count: 800, seed: seed,
                                       generator: GeneratorOptions(size: size, misuseRate: 30))
        #expect(result.findings.isEmpty)
    }

    @Test("results do not depend on anything but the seed")
    func reproducible() {
        let a = Runner(RunConfiguration(impl: ReferenceImplementation(), seed: 99, count: 60)).run()
        let b = Runner(RunConfiguration(impl: ReferenceImplementation(), seed: 99, count: 60)).run()
        #expect(a.statistics == b.statistics)
    }

    @Test("results and case records do not depend on the number of jobs", arguments: [2, 5])
    func jobs(jobs: Int) {
        func run(_ jobs: Int, stop: Bool = false) -> (RunResult, [CaseRecord]) {
            var c = RunConfiguration(impl: ReferenceImplementation(options: EngineOptions(faults: [.startIgnoresCancel])), seed: 7, count: 120, shrink: false)
            c.jobs = jobs
            c.stopAtFirstFailure = stop
            var records: [CaseRecord] = []
            return (Runner(c).run(record: { records.append($0) }), records)
        }
        let (one, oneRecords) = run(1), (many, manyRecords) = run(jobs)
        #expect(one.statistics == many.statistics)
        #expect(one.findings == many.findings)
        #expect(oneRecords == manyRecords && oneRecords.count == 120)
        #expect(oneRecords.contains { !$0.broken.isEmpty }, "the fault breaks something, so the comparison covers findings")
        let (first, _) = run(1, stop: true), (firstMany, _) = run(jobs, stop: true)
        #expect(first.cases == firstMany.cases && first.cases < 120)
    }


    /// A case of a real implementation blocks its job while its driver runs. With `--jobs 8`,
    /// eight cases must be in flight at once however many cores there are (Dispatch's global
    /// pool, which ran them before, kept 2 to 6 alive on 2 cores).
    @Test("with N jobs, N cases are in flight at once, each blocking its job")
    func jobsRunInParallel() {
        let impl = BlockingImplementation(width: 8)
        var c = RunConfiguration(impl: impl, seed: 3, count: 40, shrink: false)
        c.jobs = 8
        let result = Runner(c).run()
        #expect(result.cases == 40)
        #expect(impl.gauge.highest == 8, "at most \(impl.gauge.highest) cases were in flight at once with 8 jobs")
        #expect(impl.gauge.timedOut == 0, "\(impl.gauge.timedOut) cases waited 2 s for company that never came")
    }

    @Test("a built-in driver's run uses 16 jobs per core by default (at most 64); the reference engine and a driver named by path one")
    func defaultJobs() throws {
        #expect(RunConfiguration.defaultJobs(for: ReferenceImplementation(), cores: 2) == 2)
        let driver = ChildProcessImplementation(name: "x", capabilities: [], command: ["/bin/true"])
        #expect(RunConfiguration.defaultJobs(for: driver, cores: 2) == 32)
        #expect(RunConfiguration.defaultJobs(for: driver, cores: 32) == 64)
        // A driver named by path, whose cost per case is unknown: one per core.
        let named = ChildProcessImplementation(name: "x", capabilities: [], command: ["/bin/true"], limits: .standard,
                                               launch: DriverLaunch(executable: "/bin/true"))
        #expect(RunConfiguration.defaultJobs(for: named, cores: 2) == 2)
    }
    @Test("the shards of a run together are the run")
    func shards() {
        func records(_ shard: Shard) -> [CaseRecord] {
            var c = RunConfiguration(impl: ReferenceImplementation(), seed: 11, count: 50, shrink: false)
            c.shard = shard
            var out: [CaseRecord] = []
            _ = Runner(c).run(record: { out.append($0) })
            return out
        }
        let whole = records(.whole)
        let parts = (0..<3).map { records(Shard(index: $0, count: 3)) }
        #expect(parts.map(\.count) == [17, 17, 16])
        #expect(parts.flatMap { $0 }.sorted { $0.index < $1.index } == whole)
    }

    @Test("rules an implementation cannot observe are not-observable, never pass")
    func notObservable() {
        let result = Runner(RunConfiguration(impl: BlindToKVO(), count: 30)).run()
        for s in result.statistics {
            let rule = RuleBook.check(id: s.id)!.rule
            if rule.needs.contains(.kvo) {
                #expect(s.status == .notObservable)
                #expect(s.reason?.contains("cannot observe kvo") == true)
            }
        }
    }

    @Test("the JSON report keeps its contract")
    func jsonContract() throws {
        let result = FaultProbe.run(.priorityNotNormalised)
        let data = JSONCodec.encode(RunJSONReport(result, files: ["PRIORITY-NORMALIZE": "x.json"]))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        for key in ["impl", "seed", "cases", "rules", "findings"] { #expect(object[key] != nil, "missing \(key)") }
        let rules = try #require(object["rules"] as? [[String: Any]])
        #expect(rules.count == RuleBook.rules.count)
        for r in rules { for key in ["id", "hits", "violations", "status"] { #expect(r[key] != nil, "rule entry lacks \(key)") } }
        let findings = try #require(object["findings"] as? [[String: Any]])
        #expect(!findings.isEmpty)
        for f in findings { for key in ["rule", "message", "caseSeed", "replay", "scenarioFile", "operations"] { #expect(f[key] != nil, "finding lacks \(key)") } }
    }

    @Test("the JUnit report has one test case per rule and carries the replay line")
    func junit() {
        let result = FaultProbe.run(.priorityNotNormalised)
        let xml = JUnitReport.xml(result, files: [:])
        #expect(xml.components(separatedBy: "<testcase ").count - 1 == RuleBook.rules.count + 5, "one per rule, plus RUN-CRASH, DATA-RACE, MEMORY-ERROR, RUN-HANG and DRIVER-PROTOCOL")
        #expect(xml.contains("<failure message="))
        #expect(xml.contains("replay: opconform replay --seed"))
        #expect(!xml.contains("<failure message=\"\"") )
    }
}

/// The reference engine behind a gate that lets a case through only when `width` cases are in
/// flight (or after 2 s), as a driver that blocks its job would; it counts the most in flight.
struct BlockingImplementation: Implementation {
    let width: Int
    let gauge = Gauge()
    var name: String { "blocking" }
    var capabilities: [Observation] { ReferenceEngine.capabilities }
    var isDeterministic: Bool { true }
    func run(_ scenario: Scenario, scheduleSeed: UInt64) -> Trace {
        gauge.enter(width: width)
        defer { gauge.leave() }
        return ReferenceEngine().run(scenario, scheduleSeed: scheduleSeed)
    }

    /// In-flight count. `@unchecked Sendable` is sound: every `var` is used under `condition`.
    final class Gauge: @unchecked Sendable {
        private let condition = NSCondition()
        private var inFlight = 0, most = 0, late = 0, released = false
        func enter(width: Int) {
            condition.lock(); defer { condition.unlock() }
            inFlight += 1
            most = max(most, inFlight)
            // Once `width` were seen together, the gate stays open (the run's last cases are fewer).
            if inFlight >= width { released = true; condition.broadcast() }
            let deadline = Date().addingTimeInterval(2)
            while !released { if !condition.wait(until: deadline) { late += 1; break } }
        }
        func leave() { condition.lock(); inFlight -= 1; condition.unlock() }
        var highest: Int { condition.lock(); defer { condition.unlock() }; return most }
        var timedOut: Int { condition.lock(); defer { condition.unlock() }; return late }
    }
}
