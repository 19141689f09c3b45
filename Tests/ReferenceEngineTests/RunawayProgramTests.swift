import ConformanceBench
@testable import ReferenceEngine
import Conformance
import OperationSpec
import Testing

/// Programs written to run away (issue 15, D2): each must end within the engine's budgets, with
/// a last event `cut` that names what ran away, and what the run cost is asserted by the counts
/// the engine reports (`RunStatistics`), never by the clock. Before the budgets covered threads
/// and frames, and before a step stopped scanning every thread, the spawn bombs ran for minutes
/// and reached 11 GB, and a self-calling `main` of 10,000 steps 18 GB within a minute.
@Suite("Runaway programs end within the engine's budgets")
struct RunawayProgramTests {
    /// A smaller thread budget, for tests that need not show the default: the same cut, sooner.
    static let fewThreads = EngineOptions(threadBudget: 10_000)

    /// One operation whose `main` is `body` (op 1, if given, is a spare whose `main` is `other`),
    /// added to a queue; the driver waits for the queue.
    func scenario(_ body: [Step], other: [Step]? = nil) -> Scenario {
        var operations = [OperationConfig(kind: .main(body))]
        if let other { operations.append(OperationConfig(kind: .main(other))) }
        return Scenario(name: "runaway", queues: [QueueConfig()], operations: operations,
                        driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.waitUntilAllFinished(queue: 0))])
    }

    /// Runs the scenario and checks the bounds every run keeps. `overshoot`: frames one step of
    /// the program may push at once (more than two only when blocks run serially).
    func run(_ s: Scenario, _ options: EngineOptions = EngineOptions(), seed: UInt64 = 1, overshoot: Int = 2) -> (trace: Trace, statistics: RunStatistics) {
        #expect(s.problems().isEmpty)
        let (trace, statistics) = ReferenceEngine(options: options).measuredRun(s, scheduleSeed: seed)
        // Whatever the program, the cost is bounded by the budgets: a step costs the scheduler
        // a bounded number of looks at threads and emits a bounded number of events, and no
        // budget is overshot by more than one step's worth.
        #expect(statistics.steps <= options.stepBudget + 1)
        #expect(statistics.peakLiveThreads <= options.threadBudget + 1)
        #expect(statistics.peakFramesHeld <= options.frameBudget + overshoot)
        #expect(statistics.threadVisits <= 3 * statistics.steps)
        #expect(trace.events.count <= 3 * statistics.steps)
        return (trace, statistics)
    }

    /// The run was cut, and the cut says why in words containing `why`.
    func expectCut(_ trace: Trace, _ why: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .cut(let sentence)? = trace.events.last?.kind else {
            Issue.record("the run was not cut: it ended with \(trace.events.last.map { "\($0.kind)" } ?? "nothing")", sourceLocation: sourceLocation)
            return
        }
        #expect(sentence.contains(why), "\(sentence)", sourceLocation: sourceLocation)
        #expect(trace.ending == .truncated, sourceLocation: sourceLocation)
    }

    // MARK: Spawn bombs: the thread budget

    @Test("a wide spawn bomb (repeat 10000 { spawn main of self }) is cut at the thread budget, the same way every time")
    func wideSpawnBomb() {
        let s = scenario([.repeat(10_000, [.spawn(.main, .this)])])
        let options = EngineOptions()
        let (trace, statistics) = run(s, options)
        expectCut(trace, "more than 100000 virtual threads alive at once (a spawn bomb?)")
        #expect(statistics.peakLiveThreads == options.threadBudget + 1)
        #expect(statistics.steps < options.stepBudget)
        #expect(run(s, Self.fewThreads, seed: 5).trace.events == run(s, Self.fewThreads, seed: 5).trace.events)
    }

    @Test("a recursive spawn (each spawned main spawns again) ends within the budgets", arguments: [2, 3, 10])
    func recursiveSpawn(width: Int) {
        let (trace, _) = run(scenario([.repeat(width, [.spawn(.main, .this)])]), Self.fewThreads)
        expectCut(trace, "(a spawn bomb?)")
    }

    @Test("spawns nested in repeats, and two operations spawning each other, end within the budgets")
    func nestedAndMutualSpawns() {
        expectCut(run(scenario([.repeat(2, [.repeat(2, [.spawn(.main, .this)])])]), Self.fewThreads).trace, "(a spawn bomb?)")
        let mutual = scenario([.spawn(.main, .op(1)), .spawn(.main, .op(1))], other: [.spawn(.main, .op(0)), .spawn(.main, .op(0))])
        expectCut(run(mutual, Self.fewThreads).trace, "(a spawn bomb?)")
    }

    // MARK: Long and deep programs: the step and frame budgets

    @Test("repeats nested to 10^12 passes end at the step budget")
    func repeatNest() {
        let options = EngineOptions(stepBudget: 200_000)
        let (trace, _) = run(scenario([.repeat(10_000, [.repeat(10_000, [.repeat(10_000, [.work(0)])])])]), options)
        expectCut(trace, "exceeded its budget of 200000 steps")
    }

    @Test("a repeat of a long body is not unrolled: it ends at the step budget holding a few frames")
    func longRepeatedBody() {
        // Unrolled, this was 10^8 instructions in one step (5.5 GB).
        let options = EngineOptions(stepBudget: 200_000)
        let (trace, statistics) = run(scenario([.repeat(10_000, Array(repeating: .work(0), count: 10_000))]), options)
        expectCut(trace, "exceeded its budget of 200000 steps")
        #expect(statistics.peakFramesHeld < 10)
    }

    @Test("the longest work, repeated, ends at the step budget (virtual time costs nothing)")
    func hugeWork() {
        let options = EngineOptions(stepBudget: 200_000)
        let (trace, _) = run(scenario([.repeat(10_000, [.repeat(10_000, [.work(1_000_000)])])]), options)
        expectCut(trace, "exceeded its budget of 200000 steps")
    }

    @Test("a main that calls [self main] before 10,000 steps is cut at the frame budget")
    func selfCallingMain() {
        let options = EngineOptions(frameBudget: 50_000)
        let (trace, statistics) = run(scenario([.callMain] + Array(repeating: .work(0), count: 10_000)), options)
        expectCut(trace, "more than 50000 frames at once (a runaway recursion?)")
        #expect(statistics.peakFramesHeld == options.frameBudget + 1)
    }

    @Test("a routine that calls itself is cut at the frame budget")
    func selfCallingRoutine() {
        let program = ConcurrentProgram(overridesIsConcurrent: true, start: [.call("again")], main: [],
                                        routines: [Routine("again", [.call("again")] + Array(repeating: .work(0), count: 1_000))])
        let s = Scenario(name: "runaway", operations: [OperationConfig(kind: .concurrent(program))], driver: [DriverStep(.start(0))])
        let (trace, _) = run(s, EngineOptions(frameBudget: 50_000))
        expectCut(trace, "frames at once")
    }

    @Test("blocks run serially that start their own operation again are cut at the frame budget (one step pushes a frame per block)")
    func serialBlocksRecursion() {
        let s = Scenario(name: "runaway", operations: [OperationConfig(kind: .block(Array(repeating: [.start(.this)], count: 500)))],
                         driver: [DriverStep(.start(0))])
        let (trace, _) = run(s, EngineOptions(faults: [.blocksRunSerially, .secondStartRuns]), overshoot: 500)
        expectCut(trace, "frames at once")
    }

    // MARK: Many threads, each step still cheap

    @Test("5,000 threads that sleep, await a token or time out finish normally, the scheduler looking at each a bounded number of times",
          arguments: [[Step.work(3)], [.await(1, timeout: 1_000_000)], [.await(2, timeout: 7)]])
    func manyWaitingThreads(waiter: [Step]) {
        let s = scenario([.repeat(5_000, [.spawn(.main, .op(1))]), .work(1), .signal(1)], other: waiter)
        let (trace, statistics) = run(s)
        #expect(trace.ending == .complete)
        #expect(statistics.threadsMade == 5_002)  // the driver, the worker, 5,000 spawned
        // A scan of every live thread at every step looked at about 5,000 threads a step.
        #expect(statistics.threadVisits <= 2 * statistics.steps)
    }

    @Test("generated cases and the scale scenarios stay far below the thread and frame budgets")
    func ordinaryRunsStayBelow() {
        var peakThreads = 0, peakFrames = 0
        for size in [8, 32, 64] {
            let generator = ScenarioGenerator(options: GeneratorOptions(size: size, misuseRate: 30, flawRate: 30))
            for seed in 0..<UInt64(150) {
                let (trace, statistics) = run(generator.generate(seed: seed), seed: seed)
                #expect(trace.ending != .truncated)
                peakThreads = max(peakThreads, statistics.peakLiveThreads)
                peakFrames = max(peakFrames, statistics.peakFramesHeld)
            }
        }
        for shape in ScaleScenarios.Shape.allCases {
            let (_, statistics) = run(ScaleScenarios.make(shape, operations: 2_000))
            peakThreads = max(peakThreads, statistics.peakLiveThreads)
            peakFrames = max(peakFrames, statistics.peakFramesHeld)
        }
        #expect(peakThreads < EngineOptions().threadBudget / 100)
        #expect(peakFrames < EngineOptions().frameBudget / 100)
    }

    // MARK: The runnable set

    @Test("the runnable set names the k-th smallest member as a sorted list would, as it grows and shrinks")
    func runnableThreads() {
        var set = RunnableThreads()
        var sorted: [Int] = []
        var rng = Xoshiro256(seed: 3)
        for _ in 0..<5_000 {
            let t = rng.below(rng.chance(1, in: 50) ? 3_000 : 200)
            if rng.chance(1, in: 2) {
                set.insert(t)
                if !sorted.contains(t) { sorted.insert(t, at: sorted.firstIndex { $0 > t } ?? sorted.count) }
            } else {
                set.remove(t)
                sorted.removeAll { $0 == t }
            }
            #expect(set.count == sorted.count)
            if !sorted.isEmpty {
                let k = rng.below(sorted.count)
                #expect(set.element(at: k) == sorted[k])
            }
        }
    }
}
