import Conformance
import ConformanceTesting
import Foundation
import OperationSpec
import ReferenceEngine
import Testing

/// The reach episodes (generator version 3, option `reach`) and the reach table (issue 44):
/// the episodes keep the version 2 scenario inside and every scenario valid; the table fills
/// every required cell within 100 cases on the reference engine and on a user's subclass, and
/// the paths the public classes' defects sat on are reached within a first run's 30 cases.
@Suite("Reach: the paths a run takes")
struct ReachTests {
    static func options(subclass: Bool = false, surface2: Bool = false, reach: Bool) -> GeneratorOptions {
        GeneratorOptions(subclass: subclass, surface2: surface2, reach: reach)
    }

    @Test("with reach, the version 2 scenario is inside, unchanged, and every scenario is valid")
    func episodesKeepTheCase() {
        var added = 0
        for subclass in [false, true] {
            for surface2 in [false, true] {
                for seed: UInt64 in 1...150 {
                    func made(_ reach: Bool) -> Scenario {
                        ScenarioGenerator(options: Self.options(subclass: subclass, surface2: surface2, reach: reach))
                            .generate(seed: seed)
                    }
                    let before = made(false), after = made(true)
                    #expect(after.problems().isEmpty, "seed \(seed): \(after.problems())")
                    #expect(after.queues == before.queues && after.dependencies == before.dependencies)
                    #expect(Array(after.operations.prefix(before.operations.count)) == before.operations)
                    // The version 2 driver is a subsequence of the version 3 one.
                    var k = 0
                    for step in after.driver where k < before.driver.count && step == before.driver[k] { k += 1 }
                    #expect(k == before.driver.count, "seed \(seed): the version 2 driver is not kept in order")
                    added += after.driver.count - before.driver.count
                    #expect(after.generatorVersion == 3 && before.generatorVersion == 1)
                }
            }
        }
        #expect(added > 600)
    }

    @Test("a case's version says which generators build it the same")
    func versions() {
        let reach = GeneratorOptions(reach: true), flawed = GeneratorOptions(flawRate: 50)
        #expect(ScenarioGenerator.stamp(reach) == 3 && ScenarioGenerator.stamp(flawed) == 2)
        #expect(ScenarioGenerator.stamp(GeneratorOptions()) == 1)
        #expect(ScenarioGenerator.rebuilds(version: 3, options: reach))
        #expect(!ScenarioGenerator.rebuilds(version: 2, options: reach))
        #expect(ScenarioGenerator.rebuilds(version: 2, options: flawed))
        #expect(!ScenarioGenerator.rebuilds(version: 1, options: flawed))
        #expect(ScenarioGenerator.rebuilds(version: 1, options: GeneratorOptions()))
        #expect(ScenarioGenerator.rebuilds(version: 3, options: GeneratorOptions()))
        #expect(!ScenarioGenerator.rebuilds(version: 4, options: GeneratorOptions()))
        // Written only when set: a finding without it reads as version 2's options.
        let data = JSONCodec.encode(reach)
        #expect(String(decoding: data, as: UTF8.self).contains("\"reach\""))
        #expect(!String(decoding: JSONCodec.encode(GeneratorOptions()), as: UTF8.self).contains("reach"))
        let decoded = try? JSONDecoder().decode(GeneratorOptions.self, from: data)
        #expect(decoded?.reach == true)
    }

    @Test("the reference engine: every required cell within 100 cases with reach; fewer without")
    func referenceFills() {
        let impl = ReferenceImplementation(options: EngineOptions())
        func table(reach: Bool, jobs: Int) -> ReachTable {
            let generator = Self.options(subclass: true, reach: reach)
            return ReachTable.measure(RunConfiguration(impl: impl, count: 100, generator: generator), jobs: jobs)
        }
        let with = table(reach: true, jobs: 4)
        #expect(with.cases == 100)
        #expect(with.gaps.isEmpty, "\(with.gaps)")
        #expect(with.routeKinds.contains(.subclass))
        let without = table(reach: false, jobs: 4)
        #expect(!without.gaps.isEmpty, "version 2 fills every cell: the episodes are not what fills them")
        // Counted from the trace: the same cases give the same table.
        let again = table(reach: true, jobs: 1)
        #expect(again.reached == with.reached && again.firstCase == with.firstCase)
    }

    @Test("a second start of a finished class that overrides start: drawn at the misuse rate; unjudged under the guide, a warning under class-reference")
    func secondStartOfOwnStart() {
        // The guide's own class (Listings 2-5 to 2-7, no guard in start) started by hand,
        // waited for, and started again once finished: it runs its task a second time.
        let scenario = Scenario(name: "restart", queues: [QueueConfig()],
                                operations: [OperationConfig(kind: .concurrent(.correct(work: [.work(1)])),
                                                             completion: [.work(1)])],
                                dependencies: [],
                                driver: [DriverStep(.start(0)), DriverStep(.waitUntilFinished(0)),
                                         DriverStep(after: .finished(0), .start(0)),
                                         DriverStep(.read(.isFinished, op: 0)), DriverStep(.read(.isExecuting, op: 0))])
        #expect(scenario.problems().isEmpty, "\(scenario.problems())")
        for seed: UInt64 in 1...20 {
            let trace = ReferenceEngine(options: EngineOptions()).run(scenario, scheduleSeed: seed)
            let mains = trace.events.filter { if case .mainBegan = $0.kind { return true }; return false }
            #expect(mains.count == 2, "seed \(seed): the second start ran the task again")
            // The guide calls the second start the caller's error: nothing after it is judged.
            let guide = RuleBook.violations(scenario: scenario, trace: trace, profile: .guide)
            #expect(guide.isEmpty, "seed \(seed): \(guide.map(\.rule))")
            // The class reference: a start of a finished operation runs nothing again; a class
            // that runs again is told, as a warning, in one finding (not also as the states it
            // went through afterwards).
            let reference = RuleBook.violations(scenario: scenario, trace: trace, profile: .classReference)
            #expect(reference.map(\.rule) == ["START-FINISHED-OWN"], "seed \(seed): \(reference.map(\.rule))")
            #expect(Finding.severity(of: "START-FINISHED-OWN") == .warning)
            // The first run's completion block may come after the second start call (Foundation
            // runs it once told of the finish): it is the first run's, and stays judged as such.
            var late = trace
            let isCompletion = { (e: TraceEvent) -> Bool in
                switch e.kind { case .completionBegan, .completionEnded: return true; default: return false }
            }
            let marks = late.events.filter(isCompletion)
            #expect(marks.count >= 2, "seed \(seed): the completion block ran")
            late.events.removeAll(where: isCompletion)
            let calls = late.events.indices.filter { late.events[$0].kind == .call(.start(0, by: .driver)) }
            late.events.insert(contentsOf: marks.prefix(2), at: calls[1] + 1)
            let judged = RuleBook.violations(scenario: scenario, trace: late, profile: .guide)
            #expect(judged.isEmpty, "seed \(seed): \(judged.map(\.rule))")
            // The same second start made by a queue is the queue's doing, and stays judged.
            var byQueue = trace
            for i in byQueue.events.indices {
                switch byQueue.events[i].kind {
                case .call(.start(0, by: .driver)): byQueue.events[i].kind = .call(.start(0, by: .queue))
                case .returned(.start(0, by: .driver)): byQueue.events[i].kind = .returned(.start(0, by: .queue))
                default: break
                }
            }
            #expect(!RuleBook.violations(scenario: scenario, trace: byQueue, profile: .guide).isEmpty, "seed \(seed)")
        }
        // Drawn on a user's subclass route at about the misuse rate (10 %), never without reach.
        func restarts(_ reach: Bool) -> Int {
            (1...400 as ClosedRange<UInt64>).filter { seed in
                let s = ScenarioGenerator(options: Self.options(subclass: true, reach: reach)).generate(seed: seed)
                return s.driver.contains { step in
                    guard case .start(let op) = step.action, step.after == .finished(op) else { return false }
                    return s.operations[op].kind.overridesStart
                }
            }.count
        }
        let drawn = restarts(true)
        #expect(drawn >= 8 && drawn <= 60, "\(drawn) of 400 cases")
        #expect(restarts(false) == 0)
    }

    @Test("real classes started again once finished: a start that checks only isCancelled runs again, a warning under class-reference only; a guarded one does not",
          arguments: [("serial-queue", true), ("careful-mutex", true), ("careful-lock", false), ("cancel-flag", false)])
    func secondStartOnRealClasses(name: String, runsAgain: Bool) throws {
        let driver = try DriverExecutable.locate("corpus-driver")
        let impl = try Implementations.external(command: [driver, "--class", name])
        let scenario = Scenario(name: "restart", queues: [QueueConfig()],
                                operations: [OperationConfig(kind: .subclass([.work(1)]))], dependencies: [],
                                driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.waitUntilFinished(0)),
                                         DriverStep(after: .finished(0), .start(0)),
                                         DriverStep(.read(.isFinished, op: 0)), DriverStep(.read(.isExecuting, op: 0)),
                                         DriverStep(.waitUntilFinished(0))])
        let trace = impl.run(scenario, scheduleSeed: 1)
        #expect(trace.ending == .complete)
        let rules = { (profile: Profile) in RuleBook.violations(scenario: scenario, trace: trace, profile: profile).map(\.rule) }
        #expect(rules(.guide).isEmpty, "\(rules(.guide))")
        #expect(rules(.classReference) == (runsAgain ? ["START-FINISHED-OWN"] : []), "\(rules(.classReference))")
        // The corpus says the same of it.
        #expect(StyleCorpus.entry(name)?.defects.contains { $0.rules == ["START-FINISHED-OWN"] } == runsAgain)
    }

    /// 1,000 cases a route; 5,000 in the long run CI makes (OPCONFORM_LONG=1).
    static let referenceCases = RunnerTests.long ? 5000 : 1000

    @Test("the reference engine breaks no rule on the cases with the episodes (1,000; 5,000 long), on both its routes")
    func referenceConformsWithReach() {
        for subclass in [false, true] {
            let engine = ReferenceImplementation(options: EngineOptions())
            var configuration = RunConfiguration(impl: engine, count: Self.referenceCases, shrink: false)
            configuration.generator.reach = true
            configuration.generator.subclass = subclass
            let result = Runner(configuration).run()
            #expect(result.findings.isEmpty, "\(result.findings.map { "\($0.rule): \($0.message)" })")
            #expect(result.noVerdict == nil && result.cases == Self.referenceCases)
        }
    }

    @Test("a user's subclass (corpus careful-lock): every required cell within 100 cases, the missed paths within 30")
    func subclassRouteFills() throws {
        let driver = try DriverExecutable.locate("corpus-driver")
        let impl = try Implementations.external(command: [driver, "--class", "careful-lock"])
        var configuration = RunConfiguration(impl: impl, count: 100)
        #expect(configuration.generator.reach, "a driver with a subclass of its own gets the reach episodes by default")
        configuration.jobs = 4
        let table = ReachTable.measure(configuration, jobs: 4)
        #expect(table.gaps.isEmpty, "\(table.gaps)")
        // The paths of issue 44's misses, each within a first run of 30 cases.
        let missed = [ReachTable.Cell(.cancel, .finished, .subclass), ReachTable.Cell(.isReady, .executing, .subclass),
                      ReachTable.Cell(.start, .cancelledBeforeStart, .subclass)]
        for cell in missed {
            let first = table.firstCase[cell]
            #expect(first.map { $0 < 30 } ?? false, "\(cell): first in case \(first.map(String.init) ?? "none")")
        }
        let starters = table.callers[ReachTable.Cell(.start, .cancelledBeforeStart, .subclass)] ?? [:]
        #expect(starters[ReachTable.Caller.driver, default: 0] > 0, "\(starters)")
    }

    @Test("a run on a driver says --reach in its replay lines; --no-reach makes version 2's cases, replayed without it")
    func replayLinesSayIt() throws {
        let driver = try DriverExecutable.locate("corpus-driver")
        let scratch = NSTemporaryDirectory() + "opconform-reach-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        for reach in [true, false] {
            let out = scratch + (reach ? "/with" : "/without")
            let run = opconform(["run", "--impl", "exec:" + driver, "--driver-arg", "--class", "--driver-arg",
                                 "cancel-flag", "--count", "30", "--seed", "1", "--no-shrink", "--out", out]
                                + (reach ? [] : ["--no-reach"]))
            // Every replay line the run prints (findings' and known divergences') says it, or none.
            let lines = run.out.split(separator: "\n").filter { $0.contains("replay") && $0.contains("--seed") }
            #expect(!lines.isEmpty)
            #expect(lines.allSatisfy { $0.contains(" --reach") == reach }, "\(lines)")
            guard reach else { continue }
            // The class's defect sits on the path the episodes take: found within 30 cases.
            #expect(run.status == 1, "\(run.out)")
            let listed = (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []
            let files = listed.filter { $0.hasPrefix("CANCEL-FINISHED-NOOP") }
            let text = files.first.flatMap { try? String(contentsOfFile: out + "/" + $0, encoding: .utf8) } ?? ""
            #expect(text.contains("\"reach\": true") && text.contains("\"generatorVersion\": 3"), "\(files)")
        }
        // A finding file carries its case: --reach is for --seed only.
        let refused = opconform("replay", "Fixtures/scenarios/start-after-finished.json", "--reach")
        #expect(refused.status == 2 && refused.err.contains("--seed only"), "\(refused.err)")
    }

    @Test("the command: a table, exit 0 when every required cell is reached, 1 when one is not")
    func command() {
        let filled = opconform("reach", "--impl", "reference", "--reach", "--count", "100")
        #expect(filled.status == 0, "\(filled.out)")
        #expect(filled.out.contains("every required cell reached") && filled.out.contains("generator v3"))
        let few = opconform("reach", "--impl", "reference", "--no-reach", "--count", "5")
        #expect(few.status == 1 && few.out.contains("not reached:"), "\(few.out)")
        let both = opconform("reach", "--reach", "--no-reach")
        #expect(both.status == 2 && both.err.contains("contradict"))
    }
}
