import OperationSpec
import ReferenceEngine
import Testing

/// The semantic fixes of issue 17, each shown on a scenario: dependency cycles are accepted and
/// deadlock unless a member is cancelled (003 addDependency:, 004 2.6.1, 2.9.3); PRIORITY-ORDER
/// judges operations added in one batch; the cross-queue fault applies however the dependency was
/// set; the engine knows which queue a block operation's blocks run for.
@Suite("Issue 17: cycles, batches, cross-queue dependencies, the queue blocks run for")
struct Issue17SemanticsTests {
    static let seeds: ClosedRange<UInt64> = 1...20

    func run(_ s: Scenario, seed: UInt64, _ options: EngineOptions = EngineOptions()) -> Trace {
        #expect(s.problems().isEmpty, "\(s.problems())")
        return ReferenceEngine(options: options).run(s, scheduleSeed: seed)
    }

    /// Violations of rules on the runtime (advice about the scenario's own subclasses left out).
    func violations(_ s: Scenario, _ t: Trace) -> [Violation] {
        RuleBook.violations(scenario: s, trace: t, profile: .guide).filter { RuleBook.check(id: $0.rule)!.rule.strength != .documentedAdvice }
    }

    func mainsBegun(_ t: Trace) -> [Int] {
        t.events.compactMap { if case .mainBegan(let op, _) = $0.kind { return op }; return nil }
    }

    /// Three operations on one queue, each depending on the next: 0 on 1, 1 on 2, 2 on 0. The
    /// last edge closes the cycle. `then` follows the edges.
    static func cycle(then steps: [DriverAction]) -> Scenario {
        Scenario(name: "cycle", queues: [QueueConfig()],
                 operations: (0..<3).map { _ in OperationConfig(kind: .main([.work(1)])) },
                 driver: ([.addDependency(op: 0, on: 1), .addDependency(op: 1, on: 2), .addDependency(op: 2, on: 0),
                           .read(.isReady, op: 0), .read(.isReady, op: 1), .read(.isReady, op: 2)] + steps).map { DriverStep($0) })
    }

    // MARK: 1. Dependency cycles

    @Test("an edge that closes a cycle is accepted, and no operation on the cycle becomes ready or runs")
    func cycleAccepted() {
        let s = Self.cycle(then: [.addBatch(ops: [0, 1, 2], queue: 0, wait: false), .waitUntilAllFinished(queue: 0)])
        var hangs: Set<String> = []
        for seed in Self.seeds {
            let t = run(s, seed: seed)
            #expect(t.events.contains { $0.kind == .returned(.addDependency(2, on: 0)) }, "seed \(seed): the closing edge was not accepted")
            #expect(!t.events.contains { if case .threw = $0.kind { return true }; return false }, "seed \(seed)")
            for op in 0..<3 { #expect(t.events.contains { $0.kind == .read(op: op, .isReady, .bool(false)) }, "seed \(seed): op \(op) reported ready") }
            #expect(mainsBegun(t).isEmpty, "seed \(seed): an operation on the cycle ran")
            #expect(t.ending == .hang, "seed \(seed)")
            if case .hang(let what)? = t.events.last?.kind { hangs.insert(what) }
            let dep = RuleBook.check(id: "DEP-CYCLE")!.check(CheckContext(scenario: s, trace: t, profile: .guide))
            #expect(dep.hits > 0 && dep.violations.isEmpty, "seed \(seed): \(dep.violations.map(\.description))")
        }
        // The same ending on every seed, naming what could never happen and why.
        #expect(hangs == ["thread 0 (main) waits for queue 0 to empty (holds [0, 1, 2]) (operation 0 is on a dependency cycle: 0 -> 1 -> 2 -> 0, each depending on the next)"],
                "\(hangs)")
    }

    @Test("waiting for an operation on a cycle ends the run in a hang that names the cycle")
    func waitOnCycleHangs() {
        let s = Self.cycle(then: [.add(op: 0, queue: 0), .add(op: 1, queue: 0), .waitUntilFinished(1)])
        for seed in Self.seeds {
            let t = run(s, seed: seed)
            guard case .hang(let what)? = t.events.last?.kind else { Issue.record("seed \(seed): ended \(t.ending)"); continue }
            #expect(what == "thread 0 (main) waits for operation 1 to finish (operation 1 is on a dependency cycle: 1 -> 2 -> 0 -> 1, each depending on the next)")
        }
    }

    @Test("cancelling a member of a cycle releases the others, each after the one it depends on, and no rule is broken")
    func cancelReleasesCycle() {
        let s = Self.cycle(then: [.cancel(1), .read(.isReady, op: 1), .addBatch(ops: [0, 1, 2], queue: 0, wait: false), .waitUntilAllFinished(queue: 0)])
        for seed in Self.seeds {
            let t = run(s, seed: seed)
            #expect(t.ending == .complete, "seed \(seed)")
            #expect(t.events.contains { $0.kind == .read(op: 1, .isReady, .bool(true)) }, "seed \(seed): a cancelled operation is ready")
            // Op 1 is cancelled, so its main is skipped; 0 depends on 1 and 2 on 0.
            #expect(mainsBegun(t) == [0, 2], "seed \(seed)")
            let v = violations(s, t)
            #expect(v.isEmpty, "seed \(seed): \(v.map(\.description))")
        }
    }

    @Test("a cancelled member that never finishes releases nothing: an operation on the cycle that runs anyway is blamed")
    func cancelledButUnfinishedMemberReleasesNothing() {
        // Op 1 is cancelled but never started, so it never finishes; the fault lets op 0 run anyway.
        let s = Scenario(name: "cycle-unreleased", queues: [QueueConfig()],
                         operations: [OperationConfig(kind: .main([.work(1)])), OperationConfig(kind: .main([.work(1)]))],
                         driver: [DriverStep(.addDependency(op: 0, on: 1)), DriverStep(.addDependency(op: 1, on: 0)), DriverStep(.cancel(1)),
                                  DriverStep(.add(op: 0, queue: 0)), DriverStep(.waitUntilAllFinished(queue: 0))])
        let check = RuleBook.check(id: "DEP-CYCLE")!
        for seed in Self.seeds {
            let faulty = run(s, seed: seed, EngineOptions(faults: [.readyIgnoresDependencies]))
            let found = check.check(CheckContext(scenario: s, trace: faulty, profile: .guide)).violations
            #expect(found.count == 1 && found.first?.observed.contains("op 0 on the cycle 1 -> 0 -> 1") == true, "seed \(seed): \(found.map(\.description))")
            let faithful = run(s, seed: seed)
            #expect(mainsBegun(faithful).isEmpty && faithful.ending == .hang, "seed \(seed)")
            #expect(check.check(CheckContext(scenario: s, trace: faithful, profile: .guide)).violations.isEmpty, "seed \(seed)")
        }
    }

    @Test("refusing the closing edge is an engine option, off by default, and DEP-CYCLE tolerates it")
    func refusalIsAnOption() {
        #expect(EngineOptions().refusesDependencyCycles == false)
        let s = Self.cycle(then: [.addBatch(ops: [0, 1, 2], queue: 0, wait: false), .waitUntilAllFinished(queue: 0)])
        for seed in Self.seeds {
            let t = run(s, seed: seed, EngineOptions(refusesDependencyCycles: true))
            #expect(t.events.contains { if case .threw(.addDependency(2, 0), .dependencyCycle, _) = $0.kind { return true }; return false }, "seed \(seed)")
            // The refused edge is not added: 2 runs first, then 1, then 0.
            #expect(mainsBegun(t) == [2, 1, 0] && t.ending == .complete, "seed \(seed)")
            let v = violations(s, t)
            #expect(v.isEmpty, "seed \(seed): \(v.map(\.description))")
        }
    }

    // MARK: 2. PRIORITY-ORDER and addOperations(_:waitUntilFinished:)

    @Test("four prioritised operations added to a suspended serial queue in one batch are judged by PRIORITY-ORDER")
    func batchIsJudged() {
        let s = Scenario(name: "batch-priority", queues: [QueueConfig(maxConcurrent: 1, suspended: true)],
                         operations: [-8, 0, 8, 4].map { OperationConfig(kind: .main([.work(1)]), queuePriority: $0) },
                         driver: [DriverStep(.addBatch(ops: [0, 1, 2, 3], queue: 0, wait: false)), DriverStep(.resume(queue: 0)),
                                  DriverStep(.waitUntilAllFinished(queue: 0))])
        for seed in Self.seeds {
            let faulty = run(s, seed: seed, EngineOptions(faults: [.priorityIgnored]))
            #expect(mainsBegun(faulty) == [0, 1, 2, 3], "seed \(seed)")
            #expect(violations(s, faulty).contains { $0.rule == "PRIORITY-ORDER" }, "seed \(seed): the batch's order was not judged")
            let faithful = run(s, seed: seed)
            #expect(mainsBegun(faithful) == [2, 3, 1, 0], "seed \(seed)")
            let v = violations(s, faithful)
            #expect(v.isEmpty, "seed \(seed): \(v.map(\.description))")
        }
    }

    // MARK: 3. The cross-queue fault, whenever the dependency was set

    /// Op 1 on queue 1 depends on op 0 on queue 0, set before either is queued: by the scenario's
    /// own dependencies, or by an addDependency step before the adds. Queue 0 starts suspended,
    /// so op 0 cannot finish before it is resumed.
    static func acrossQueues(scenarioLevel: Bool, dependentFirst: Bool) -> Scenario {
        let adds: [DriverStep] = dependentFirst ? [DriverStep(.add(op: 1, queue: 1)), DriverStep(.add(op: 0, queue: 0))]
                                                : [DriverStep(.add(op: 0, queue: 0)), DriverStep(.add(op: 1, queue: 1))]
        return Scenario(name: "across-queues", queues: [QueueConfig(suspended: true), QueueConfig()],
                        operations: [OperationConfig(kind: .main([.work(2)])), OperationConfig(kind: .main([.work(1)]))],
                        dependencies: scenarioLevel ? [Edge(1, on: 0)] : [],
                        driver: (scenarioLevel ? [] : [DriverStep(.addDependency(op: 1, on: 0))]) + adds
                            + [DriverStep(.resume(queue: 0)), DriverStep(.waitUntilAllFinished(queue: 0)), DriverStep(.waitUntilAllFinished(queue: 1))])
    }

    @Test("cross-queue-dependency-ignored applies to a dependency set before the operations are queued",
          arguments: [(true, false), (true, true), (false, false), (false, true)])
    func crossQueueFaultEarlyEdge(scenarioLevel: Bool, dependentFirst: Bool) {
        let s = Self.acrossQueues(scenarioLevel: scenarioLevel, dependentFirst: dependentFirst)
        for seed in Self.seeds {
            let faulty = run(s, seed: seed, EngineOptions(faults: [.crossQueueDependencyIgnored]))
            #expect(violations(s, faulty).contains { $0.rule == "DEP-ACROSS-QUEUES" }, "seed \(seed): the fault had no effect")
            let faithful = run(s, seed: seed)
            #expect(mainsBegun(faithful) == [0, 1], "seed \(seed)")
            let v = violations(s, faithful)
            #expect(v.isEmpty, "seed \(seed): \(v.map(\.description))")
        }
    }

    // MARK: 4. The queue a block operation's blocks run for

    @Test("the blocks of a queued block operation run for its queue, those of one started by hand for none")
    func blocksKnowTheirQueue() {
        let s = Scenario(name: "block-queues", queues: [QueueConfig(), QueueConfig()],
                         operations: [OperationConfig(kind: .block([[.work(1)], [.work(1)]])), OperationConfig(kind: .block([[.work(1)], [.work(1)]])),
                                      OperationConfig(kind: .main([.work(1)]))],
                         driver: [DriverStep(.addExecutionBlock(op: 0, [.work(1)])), DriverStep(.add(op: 0, queue: 1)), DriverStep(.add(op: 2, queue: 0)),
                                  DriverStep(.start(1)), DriverStep(.waitUntilAllFinished(queue: 0)), DriverStep(.waitUntilAllFinished(queue: 1))])
        let want: [Int: Int?] = [0: 1, 1: nil, 2: 0]
        for faults in [[], [Fault.blocksRunSerially]] {
            for seed in Self.seeds {
                let (t, current) = ReferenceEngine(options: EngineOptions(faults: faults)).runNotingCurrentQueues(s, scheduleSeed: seed)
                #expect(t == run(s, seed: seed, EngineOptions(faults: faults)), "noting the queues changed the trace")
                var blocks = 0
                for e in t.events {
                    switch e.kind {
                    case .blockBegan(let op, _), .mainBegan(let op, _):
                        if case .blockBegan = e.kind { blocks += 1 }
                        #expect(current[e.thread] == want[op]!, "seed \(seed), faults \(faults): op \(op)'s code on thread \(e.thread) runs for \(String(describing: current[e.thread]))")
                    default: break
                    }
                }
                #expect(blocks == 5, "seed \(seed)")
                // The trace still says which threads are workers: block threads carry no queue.
                #expect(!t.events.contains { if case .threadStarted(let name, _?) = $0.kind { return name.hasPrefix("block") }; return false })
            }
        }
    }
}
