import OperationSpec

/// Small scenarios that, between them, reach every rule's antecedent on the reference engine.
/// Each rule's example in `RuleExamples` names one of these.
enum ExampleScenarios {
    /// A serial queue, a dependency, a block operation, a completion block, a thread priority,
    /// and late misuse after everything finished.
    static let queue = Scenario(name: "example-queue",
        queues: [QueueConfig(maxConcurrent: 1)],
        operations: [OperationConfig(kind: .main([.work(3)]), threadPriority: 0.8, completion: [.work(1)]),
                     OperationConfig(kind: .block([[.work(1)], [.work(2)]]))],
        dependencies: [Edge(1, on: 0)],
        driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.add(op: 1, queue: 0)),
                 DriverStep(.read(.isReady, op: 1)), DriverStep(.read(.queuePriority, op: 0)),
                 DriverStep(.waitUntilAllFinished(queue: 0)),
                 DriverStep(.read(.isReady, op: 0)), DriverStep(.read(.isReady, op: 1)),
                 DriverStep(.cancel(0)), DriverStep(.read(.isCancelled, op: 0)),
                 DriverStep(.start(0)), DriverStep(.setCompletionBlock(op: 0, [])), DriverStep(.addExecutionBlock(op: 1, []))])

    /// Operations started by hand: readiness, refusal, cancellation before start, removal.
    static let manual = Scenario(name: "example-manual",
        queues: [QueueConfig()],
        operations: (0..<6).map { _ in OperationConfig(kind: .main([.work(1)])) },
        dependencies: [Edge(1, on: 0), Edge(2, on: 3), Edge(4, on: 3), Edge(5, on: 3)],
        driver: [DriverStep(.read(.isExecuting, op: 0)), DriverStep(.read(.isConcurrent, op: 0)), DriverStep(.start(0)),
                 DriverStep(.read(.isReady, op: 1)), DriverStep(.start(4)),
                 DriverStep(.cancel(2)), DriverStep(.read(.isCancelled, op: 2)), DriverStep(.read(.isReady, op: 2)),
                 DriverStep(.start(2)), DriverStep(.read(.isCancelled, op: 2)),
                 DriverStep(.removeDependency(op: 5, on: 3)), DriverStep(.read(.isReady, op: 5)),
                 DriverStep(.add(op: 1, queue: 0)), DriverStep(.waitUntilFinished(1))])

    /// An invocation operation run by a queue (INVOCATION-INVOKES).
    static let invocation = Scenario(name: "example-invocation",
        queues: [QueueConfig()],
        operations: [OperationConfig(kind: .invocation([.work(1)]))],
        driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.waitUntilAllFinished(queue: 0))])

    /// Two dependencies added, both listed; one removed, no longer listed (DEP-LISTED).
    static let listed = Scenario(name: "example-dependencies-listed",
        queues: [QueueConfig()],
        operations: (0..<3).map { _ in OperationConfig(kind: .main([])) },
        driver: [DriverStep(.addDependency(op: 2, on: 0)), DriverStep(.addDependency(op: 2, on: 1)), DriverStep(.read(.dependencies, op: 2)),
                 DriverStep(.removeDependency(op: 2, on: 0)), DriverStep(.read(.dependencies, op: 2))])

    /// A defined priority set and read back (PRIORITY-READBACK).
    static let priorityReadback = Scenario(name: "example-priority-readback",
        queues: [QueueConfig()],
        operations: [OperationConfig(kind: .main([]), queuePriority: 4)],
        driver: [DriverStep(.read(.queuePriority, op: 0)), DriverStep(.setQueuePriority(op: 0, -8)), DriverStep(.read(.queuePriority, op: 0))])

    /// Cancel, a second start and a suspension, all while main runs.
    static let cancelDuring = Scenario(name: "example-cancel-during",
        queues: [QueueConfig()],
        operations: [OperationConfig(kind: .main([.repeat(5, [.work(1), .returnIfCancelled])]))],
        driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(after: .mainBegan(0), .start(0)),
                 DriverStep(.suspend(queue: 0)), DriverStep(.cancel(0)), DriverStep(.waitUntilFinished(0)), DriverStep(.resume(queue: 0))])

    /// An operation that reads its own isExecuting in the middle of its main.
    static let readDuring = Scenario(name: "example-read-during",
        queues: [QueueConfig()],
        operations: [OperationConfig(kind: .main([.work(1), .read(.isExecuting, .this), .work(1)]))],
        driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.waitUntilFinished(0))])

    /// A suspended queue: cancel one, cancel all, resume.
    static let suspended = Scenario(name: "example-suspended",
        queues: [QueueConfig(maxConcurrent: 2, suspended: true)],
        operations: (0..<3).map { _ in OperationConfig(kind: .main([.work(1)])) },
        driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.add(op: 1, queue: 0)), DriverStep(.add(op: 2, queue: 0)),
                 DriverStep(.cancel(1)), DriverStep(.cancelAll(queue: 0)), DriverStep(.read(.isCancelled, op: 2)),
                 DriverStep(.resume(queue: 0)), DriverStep(.waitUntilAllFinished(queue: 0))])

    /// A correct concurrent subclass: executing is set before main is detached.
    static let correctConcurrent = ConcurrentProgram(
        overridesIsConcurrent: true,
        start: [.if(.isCancelled(.this), then: [.willChange(.isFinished), .set(.isFinished, true), .didChange(.isFinished), .return], else: []),
                .willChange(.isExecuting), .set(.isExecuting, true), .didChange(.isExecuting), .spawn(.main, .this)],
        main: [.work(1), .call("completeOperation")],
        routines: [Routine("completeOperation", [.willChange(.isFinished), .willChange(.isExecuting), .set(.isExecuting, false),
                                                 .set(.isFinished, true), .didChange(.isExecuting), .didChange(.isFinished)])])

    static let concurrent = Scenario(name: "example-concurrent",
        queues: [QueueConfig()],
        operations: [OperationConfig(kind: .concurrent(correctConcurrent)), OperationConfig(kind: .concurrent(correctConcurrent)),
                     OperationConfig(kind: .concurrent(correctConcurrent))],
        driver: [DriverStep(.start(0)), DriverStep(.read(.isConcurrent, op: 0)), DriverStep(.add(op: 1, queue: 0)),
                 DriverStep(.cancel(2)), DriverStep(.start(2)),
                 DriverStep(.waitUntilFinished(0)), DriverStep(.waitUntilAllFinished(queue: 0))])

    /// A concurrent subclass whose start returns at once when it is finished, started by hand,
    /// waited for, and started again (START-FINISHED-OWN, class-reference profile).
    static let restart = Scenario(name: "example-restart",
        queues: [],
        operations: [OperationConfig(kind: .concurrent(ConcurrentProgram(
            overridesIsConcurrent: true,
            start: [.if(.isFinished(.this), then: [.return], else: [])] + correctConcurrent.start,
            main: correctConcurrent.main, routines: correctConcurrent.routines)))],
        driver: [DriverStep(.start(0)), DriverStep(.waitUntilFinished(0)), DriverStep(after: .finished(0), .start(0)),
                 DriverStep(.read(.isFinished, op: 0)), DriverStep(.read(.isExecuting, op: 0))])

    /// Two operations of the implementation's own subclass in a queue, read once they finished:
    /// the engine runs them as the correct program around their work, announcing isFinished.
    static let subclass = Scenario(name: "example-subclass",
        queues: [QueueConfig()],
        operations: [OperationConfig(kind: .subclass([.work(1)])), OperationConfig(kind: .subclass([.work(2)]))],
        driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.add(op: 1, queue: 0)), DriverStep(.read(.isFinished, op: 0)),
                 DriverStep(.waitUntilAllFinished(queue: 0)), DriverStep(.read(.isFinished, op: 0)),
                 DriverStep(.read(.isFinished, op: 1))])

    /// A subclass that says it is concurrent and leaves start to the default (its start only
    /// calls super, 002 section 4): started by hand, and by a queue.
    static let flagOnly = Scenario(name: "example-flag-only",
        queues: [QueueConfig()],
        operations: [OperationConfig(kind: .concurrent(ConcurrentProgram(start: [.callSuperStart], main: [.work(1)]))),
                     OperationConfig(kind: .concurrent(ConcurrentProgram(start: [.callSuperStart], main: [.work(1)])))],
        driver: [DriverStep(.start(0)), DriverStep(.read(.isFinished, op: 0)), DriverStep(.add(op: 1, queue: 0)),
                 DriverStep(.waitUntilAllFinished(queue: 0))])

    /// A suspended serial queue with four priorities, three of them non-standard.
    static let priority = Scenario(name: "example-priority",
        queues: [QueueConfig(maxConcurrent: 1, suspended: true)],
        operations: [OperationConfig(kind: .main([.work(1)]), queuePriority: -8), OperationConfig(kind: .main([.work(1)]), queuePriority: 3),
                     OperationConfig(kind: .main([.work(1)]), queuePriority: 9), OperationConfig(kind: .main([.work(1)]), queuePriority: -6)],
        driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.add(op: 1, queue: 0)), DriverStep(.add(op: 2, queue: 0)), DriverStep(.add(op: 3, queue: 0)),
                 DriverStep(.setQueuePriority(op: 1, 5)), DriverStep(.read(.queuePriority, op: 1)), DriverStep(.read(.queuePriority, op: 2)),
                 DriverStep(.read(.queuePriority, op: 3)), DriverStep(.resume(queue: 0)), DriverStep(.waitUntilAllFinished(queue: 0))])

    /// A dependency across two queues, and a batch added with wait.
    static let twoQueues = Scenario(name: "example-two-queues",
        queues: [QueueConfig(), QueueConfig()],
        operations: [OperationConfig(kind: .main([.work(2)])), OperationConfig(kind: .main([.work(1)])),
                     OperationConfig(kind: .main([.work(1)])), OperationConfig(kind: .main([.work(1)]))],
        dependencies: [Edge(1, on: 0)],
        driver: [DriverStep(.add(op: 1, queue: 1)), DriverStep(.add(op: 0, queue: 0)),
                 DriverStep(.addBatch(ops: [2, 3], queue: 0, wait: true)), DriverStep(.waitUntilAllFinished(queue: 1))])

    /// Misuse, each refused: self, duplicate and cyclic dependencies, a second queue, a cancelled result.
    static let misuse = Scenario(name: "example-misuse",
        queues: [QueueConfig(), QueueConfig()],
        operations: [OperationConfig(kind: .main([.work(1)])), OperationConfig(kind: .main([.work(1)])), OperationConfig(kind: .invocation([.work(1)]))],
        driver: [DriverStep(.addDependency(op: 0, on: 0)), DriverStep(.addDependency(op: 0, on: 1)), DriverStep(.addDependency(op: 0, on: 1)),
                 // The cycle is accepted (003 addDependency:, 004 2.6.1); cancelling op 1 releases it (004 2.9.3).
                 DriverStep(.addDependency(op: 1, on: 0)), DriverStep(.cancel(1)), DriverStep(.add(op: 1, queue: 0)), DriverStep(.add(op: 1, queue: 1)),
                 DriverStep(.cancel(2)), DriverStep(.result(2)), DriverStep(.add(op: 0, queue: 0)), DriverStep(.waitUntilAllFinished(queue: 0))])

    /// Two blocks of one operation that wait for each other.
    static let blocks = Scenario(name: "example-blocks",
        queues: [QueueConfig()],
        operations: [OperationConfig(kind: .block([[.signal(1), .await(2, timeout: 5)], [.signal(2), .await(1, timeout: 5)]]))],
        driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.waitUntilAllFinished(queue: 0))])

    /// API surface 2: a named serial queue running an operation and a block given with
    /// addOperationWithBlock:, both reading currentQueue; an operation whose isReady override
    /// waits for token 7, signalled by the driver after a sleep; executionBlocks and isSuspended reads.
    static let surface2 = Scenario(name: "example-surface2",
        queues: [QueueConfig(maxConcurrent: 1, name: "fetch"), QueueConfig()],
        operations: [OperationConfig(kind: .main([.work(2), .readCurrentQueue])),
                     OperationConfig(kind: .block([[.work(1), .readCurrentQueue]])),
                     OperationConfig(kind: .main([.work(1)]), readyAfterSignal: 7),
                     OperationConfig(kind: .block([[.work(1)], [.work(1)]]))],
        driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.addBlock(op: 1, queue: 0)), DriverStep(.add(op: 2, queue: 1)),
                 DriverStep(.addExecutionBlock(op: 3, [.work(1)])), DriverStep(.read(.executionBlocks, op: 3)),
                 DriverStep(.readSuspended(queue: 1)), DriverStep(.sleep(3)), DriverStep(.perform(op: 3, [.signal(7)])),
                 DriverStep(after: .signaled(7), .waitUntilAllFinished(queue: 0)), DriverStep(.waitUntilAllFinished(queue: 1)),
                 DriverStep(.suspend(queue: 1)), DriverStep(.readSuspended(queue: 1)), DriverStep(.resume(queue: 1)),
                 DriverStep(.add(op: 3, queue: 1)), DriverStep(.waitUntilAllFinished(queue: 1))])

    static let all = [queue, manual, cancelDuring, suspended, concurrent, priority, twoQueues, misuse, blocks, surface2, restart]
}
