import OperationSpec
import ReferenceEngine
import Testing

@Suite("The reference engine's own behaviour")
struct EngineBehaviourTests {
    func run(_ s: Scenario, seed: UInt64 = 1, profile: Profile = .guide, refusesDependencyCycles: Bool = false) -> Trace {
        #expect(s.problems().isEmpty)
        return ReferenceEngine(options: EngineOptions(profile: profile, refusesDependencyCycles: refusesDependencyCycles)).run(s, scheduleSeed: seed)
    }
    func threw(_ t: Trace) -> [MisuseKind] {
        t.events.compactMap { if case .threw(_, let k, _) = $0.kind { return k }; return nil }
    }

    @Test("misuse is reported as a thrown error with a clear message, never a trap")
    func misuse() {
        let s = Scenario(queues: [QueueConfig(), QueueConfig()],
            operations: [OperationConfig(kind: .main([])), OperationConfig(kind: .main([])), OperationConfig(kind: .block([[]])), OperationConfig(kind: .invocation([]))],
            driver: [DriverStep(.addDependency(op: 0, on: 0)), DriverStep(.addDependency(op: 0, on: 1)), DriverStep(.addDependency(op: 0, on: 1)),
                     DriverStep(.addDependency(op: 1, on: 0)), DriverStep(.start(0)), DriverStep(.start(1)), DriverStep(.start(1)),
                     DriverStep(.setCompletionBlock(op: 1, [])), DriverStep(.add(op: 1, queue: 0)), DriverStep(.start(2)),
                     DriverStep(.addExecutionBlock(op: 2, [])), DriverStep(.add(op: 3, queue: 0)), DriverStep(.add(op: 3, queue: 1)),
                     DriverStep(.waitUntilAllFinished(queue: 0)), DriverStep(.cancel(3)), DriverStep(.result(3))])
        // The engine that refuses cycles (an option: by default a cycle is accepted and
        // deadlocks, as Issue17SemanticsTests shows), so that every kind of misuse is refused here.
        let t = run(s, refusesDependencyCycles: true)
        #expect(threw(t) == [.selfDependency, .duplicateDependency, .dependencyCycle, .notReady, .alreadyFinished,
                             .completionBlockLate, .executingOrFinished, .executionBlockLate, .alreadyInQueue])
        #expect(t.ending == .complete)
        // cancel after finish has no effect, so the result is still there.
        #expect(t.events.contains { $0.kind == .invocationResult(op: 3) })
    }

    @Test("the class-reference profile lets start on a finished operation return quietly")
    func classReferenceProfile() {
        let s = Scenario(operations: [OperationConfig(kind: .main([]))], driver: [DriverStep(.start(0)), DriverStep(.start(0))])
        #expect(threw(run(s, profile: .guide)) == [.alreadyFinished])
        #expect(threw(run(s, profile: .classReference)).isEmpty)
    }

    @Test("waiting for what can never happen ends in a hang that says what was pending")
    func hang() {
        let s = Scenario(queues: [QueueConfig(suspended: true)], operations: [OperationConfig(kind: .main([]))],
                         driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.waitUntilFinished(0))])
        let t = run(s)
        #expect(t.ending == .hang)
        guard case .hang(let what)? = t.events.last?.kind else { Issue.record("no hang"); return }
        #expect(what.contains("operation 0 to finish"))
    }

    @Test("a trigger that can never fire is recorded as missed and the step runs anyway")
    func missedTrigger() {
        let s = Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .main([]))],
                         driver: [DriverStep(.cancel(0)), DriverStep(.add(op: 0, queue: 0)), DriverStep(after: .mainBegan(0), .read(.isFinished, op: 0))])
        let t = run(s)
        #expect(t.events.contains { $0.kind == .triggerMissed(2) })
        #expect(t.events.contains { $0.kind == .stepDone(2) })
        #expect(t.ending == .complete)
    }

    @Test("a runaway program is stopped by the step budget")
    func budget() {
        let s = Scenario(operations: [OperationConfig(kind: .main([.repeat(10_000, [.repeat(10_000, [.work(0)])])]))], driver: [DriverStep(.start(0))])
        let t = ReferenceEngine(options: EngineOptions(stepBudget: 50_000)).run(s, scheduleSeed: 1)
        #expect(t.ending == .truncated, "a cut-short run is not settled: liveness rules must not judge it")
    }

    @Test("a serial queue runs the highest priority ready operation first")
    func priorityOrder() {
        let s = Scenario(queues: [QueueConfig(maxConcurrent: 1, suspended: true)],
                         operations: [OperationConfig(kind: .main([]), queuePriority: -4), OperationConfig(kind: .main([]), queuePriority: 8),
                                      OperationConfig(kind: .main([]), queuePriority: 0)],
                         driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.add(op: 1, queue: 0)), DriverStep(.add(op: 2, queue: 0)),
                                  DriverStep(.resume(queue: 0)), DriverStep(.waitUntilAllFinished(queue: 0))])
        for seed: UInt64 in 1...10 {
            let order = run(s, seed: seed).events.compactMap { e -> Int? in if case .mainBegan(let op, _) = e.kind { return op }; return nil }
            #expect(order == [1, 2, 0])
        }
    }

    @Test("the engine keeps every rule on every example, under many seeds")
    func noViolationOnExamples() {
        for s in DocumentScenariosForEngine.correct {
            for seed: UInt64 in 1...40 {
                let v = RuleBook.violations(scenario: s, trace: run(s, seed: seed), profile: .guide)
                    .filter { RuleBook.check(id: $0.rule)!.rule.strength != .documentedAdvice }
                #expect(v.isEmpty, "\(s.name) seed \(seed): \(v.map(\.description))")
            }
        }
    }
}

/// Scenarios built only from correct code: the engine must keep every rule on them.
enum DocumentScenariosForEngine {
    static let correctConcurrent = ConcurrentProgram(
        start: [.if(.isCancelled(.this), then: [.willChange(.isFinished), .set(.isFinished, true), .didChange(.isFinished), .return], else: []),
                .willChange(.isExecuting), .set(.isExecuting, true), .didChange(.isExecuting), .spawn(.main, .this)],
        main: [.repeat(3, [.if(.not(.isCancelled(.this)), then: [.work(1)], else: [])]), .call("done")],
        routines: [Routine("done", [.willChange(.isFinished), .willChange(.isExecuting), .set(.isExecuting, false),
                                    .set(.isFinished, true), .didChange(.isExecuting), .didChange(.isFinished)])])
    static let correct: [Scenario] = [
        Scenario(name: "mixed", queues: [QueueConfig(maxConcurrent: 2), QueueConfig(maxConcurrent: 1)],
                 operations: [OperationConfig(kind: .main([.repeat(3, [.returnIfCancelled, .work(1)])]), completion: []),
                              OperationConfig(kind: .concurrent(correctConcurrent)), OperationConfig(kind: .block([[.work(1)], [.work(2)], [.returnIfCancelled]])),
                              OperationConfig(kind: .main([.work(2)]), queuePriority: 4), OperationConfig(kind: .invocation([.work(1)]), queuePriority: -3)],
                 dependencies: [Edge(2, on: 0), Edge(3, on: 1), Edge(4, on: 2)],
                 driver: [DriverStep(.addBatch(ops: [0, 1, 2], queue: 0, wait: false)), DriverStep(.add(op: 3, queue: 1)), DriverStep(.add(op: 4, queue: 1)),
                          DriverStep(after: .mainBegan(0), .cancel(0)), DriverStep(.read(.isReady, op: 4)),
                          DriverStep(.waitUntilAllFinished(queue: 0)), DriverStep(.waitUntilAllFinished(queue: 1))]),
    ]
}
