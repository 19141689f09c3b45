import OperationSpec

/// For every rule: a scenario on which the reference engine reaches the rule and keeps it, and a
/// hand edit of that scenario's trace (schedule seed 1) that breaks it. `RuleExampleTests`
/// enumerates the catalog and fails for any rule missing here.
struct RuleExample: Sendable {
    let scenario: Scenario
    var profile: Profile = .guide
    let breakIt: @Sendable (inout TraceEditor) -> Void
}

enum RuleExamples {
    typealias S = ExampleScenarios
    static func startCall(_ op: Int, _ by: Caller) -> EventKind { .call(.start(op, by: by)) }

    static let table: [String: RuleExample] = [
        // READY
        "READY-DEPS-UNFINISHED": RuleExample(scenario: S.queue) { $0.replace(.read(op: 1, .isReady, .bool(false)), with: .read(op: 1, .isReady, .bool(true))) },
        "READY-AFTER-DEPS": RuleExample(scenario: S.manual) { $0.replace(.read(op: 1, .isReady, .bool(true)), with: .read(op: 1, .isReady, .bool(false))) },
        "READY-CANCELLED": RuleExample(scenario: S.manual) { $0.replace(.read(op: 2, .isReady, .bool(true)), with: .read(op: 2, .isReady, .bool(false))) },
        "READY-EXECUTING-FINISHED": RuleExample(scenario: S.queue) { $0.replace(.read(op: 0, .isReady, .bool(true)), with: .read(op: 0, .isReady, .bool(false))) },
        "READY-KVO": RuleExample(scenario: S.queue) { $0.drop(.willChange(op: 1, .isReady, .bool(false))) },
        "READY-OVERRIDE": RuleExample(scenario: S.surface2) { $0.drop(.signal(token: 7)) },
        // CANCEL
        "CANCEL-SETS-FLAG": RuleExample(scenario: S.manual) { $0.replace(.read(op: 2, .isCancelled, .bool(true)), with: .read(op: 2, .isCancelled, .bool(false))) },
        "CANCEL-NOT-STOP": RuleExample(scenario: S.cancelDuring) { $0.drop(.mainEnded(op: 0)) },
        "CANCEL-BEFORE-START-SKIPS-MAIN": RuleExample(scenario: S.manual) { $0.insert(.mainBegan(op: 2, threadPriority: 0.5), after: startCall(2, .driver)) },
        "CANCEL-BEFORE-START-FINISHES": RuleExample(scenario: S.suspended) { e in
            e.dropAll { if case .didChange(1, .isFinished, _) = $0 { return true }; if case .read(1, .isFinished, _) = $0 { return true }; return false } },
        "CANCEL-FINISHED-NOOP": RuleExample(scenario: S.queue) { $0.replace(.read(op: 0, .isCancelled, .bool(false)), with: .read(op: 0, .isCancelled, .bool(true))) },
        "CANCEL-ALL": RuleExample(scenario: S.suspended) { $0.replace(.read(op: 2, .isCancelled, .bool(true)), with: .read(op: 2, .isCancelled, .bool(false))) },
        "CANCEL-CHECKED-IN-MAIN": RuleExample(scenario: S.cancelDuring) { e in
            e.dropAll { if case .read(0, .isCancelled, _) = $0 { return true }; return false }
            e.insert(.work(op: 0, units: 1), after: .returned(.cancel(0)), thread: 1)
            e.insert(.work(op: 0, units: 1), after: .returned(.cancel(0)), thread: 1) },
        // START
        "START-NOT-READY-THROWS": RuleExample(scenario: S.manual) { e in
            e.dropAll { if case .threw(.start(4, _), _, _) = $0 { return true }; return false }
            e.insert(.returned(.start(4, by: .driver)), after: startCall(4, .driver)) },
        "START-EXECUTING-THROWS": RuleExample(scenario: S.cancelDuring) { e in
            e.dropAll { if case .threw(.start(0, .driver), _, _) = $0 { return true }; return false }
            e.insert(.returned(.start(0, by: .driver)), after: startCall(0, .driver)) },
        "START-FINISHED": RuleExample(scenario: S.queue) { e in
            e.dropAll { if case .threw(.start(0, .driver), _, _) = $0 { return true }; return false }
            e.insert(.returned(.start(0, by: .driver)), after: startCall(0, .driver)) },
        "START-FINISHED-OWN": RuleExample(scenario: S.restart, profile: .classReference) {
            $0.insert(.mainBegan(op: 0, threadPriority: 0.5), after: startCall(0, .driver), nth: 1) },
        "START-SYNC-MAIN": RuleExample(scenario: S.manual) { $0.rethread(.mainBegan(op: 0, threadPriority: 0.5), to: 99) },
        "START-KVO": RuleExample(scenario: S.manual) { $0.drop(.didChange(op: 0, .isExecuting, .bool(true))) },
        "START-CONCURRENT-NO-SUPER": RuleExample(scenario: S.concurrent) { $0.insert(.call(.superStart(0)), after: startCall(0, .driver)) },
        "START-UNQUEUED-WAITS": RuleExample(scenario: S.manual) { e in
            e.replace(startCall(0, .driver), with: startCall(0, .queue))
            e.replace(.returned(.start(0, by: .driver)), with: .returned(.start(0, by: .queue))) },
        "START-DEFAULT-IGNORES-FLAG": RuleExample(scenario: S.flagOnly) { $0.rethread(.mainBegan(op: 0, threadPriority: 0.5), to: 99) },
        "START-CONCURRENT-ASYNC": RuleExample(scenario: S.concurrent) { e in
            e.dropAll { if case .mainBegan(0, _) = $0 { return true }; return false }
            e.insert(.mainBegan(op: 0, threadPriority: 0.5), after: startCall(0, .driver)) },
        // KVO
        "KVO-SET-BRACKETED": RuleExample(scenario: S.concurrent) { $0.drop(.willChange(op: 0, .isExecuting, .bool(false))) },
        "KVO-COMPLETION-ORDER": RuleExample(scenario: S.concurrent) { $0.drop(.willChange(op: 0, .isExecuting, .bool(true))) },
        "KVO-CANCELLED-START": RuleExample(scenario: S.concurrent) { $0.insert(.didChange(op: 2, .isExecuting, .bool(true)), after: startCall(2, .driver)) },
        "KVO-BALANCED": RuleExample(scenario: S.queue) { $0.drop(.willChange(op: 0, .isExecuting, .bool(false))) },
        "KVO-FINISH-ALWAYS": RuleExample(scenario: S.queue) { $0.drop(.didChange(op: 0, .isFinished, .bool(true))) },
        "KVO-FINISH-ONCE": RuleExample(scenario: S.concurrent) {
            $0.insert(.didChange(op: 0, .isFinished, .bool(true)), after: .didChange(op: 0, .isFinished, .bool(true))) },
        "KVO-FINISH-CHANGES": RuleExample(scenario: S.concurrent) {
            $0.replace(.didChange(op: 0, .isFinished, .bool(true)), with: .didChange(op: 0, .isFinished, .bool(false))) },
        "KVO-CANCELLED": RuleExample(scenario: S.manual) { $0.drop(.didChange(op: 2, .isCancelled, .bool(true))) },
        "KVO-DEPENDENCIES": RuleExample(scenario: S.queue) { $0.drop(.didChange(op: 1, .dependencies, .ops([0]))) },
        "KVO-QUEUE-PRIORITY": RuleExample(scenario: S.priority) { $0.drop(.didChange(op: 1, .queuePriority, .int(4))) },
        "KVO-COMPLETION-BLOCK": RuleExample(scenario: S.queue) { $0.drop(.didChange(op: 0, .completionBlock, .bool(true))) },
        // STATE
        "STATE-EXCLUSIVE": RuleExample(scenario: S.concurrent) { $0.insert(.set(op: 0, .isExecuting, true), after: .set(op: 0, .isFinished, true)) },
        "STATE-FINISHED-MONOTONIC": RuleExample(scenario: S.queue) { $0.insert(.read(op: 0, .isFinished, .bool(false)), after: .read(op: 0, .isCancelled, .bool(false))) },
        "STATE-CANCELLED-MONOTONIC": RuleExample(scenario: S.manual) { $0.replace(.read(op: 2, .isCancelled, .bool(true)), nth: 1, with: .read(op: 2, .isCancelled, .bool(false))) },
        "STATE-FINISHED-REGARDLESS": RuleExample(scenario: S.manual) { e in
            e.dropAll { if case .didChange(0, .isFinished, _) = $0 { return true }; if case .read(0, .isFinished, _) = $0 { return true }; return false } },
        // Someone saw op 0 finished while its main was still doing its work.
        "STATE-FINISHED-AFTER-TASK": RuleExample(scenario: S.cancelDuring) {
            $0.insert(.read(op: 0, .isFinished, .bool(true)), after: .work(op: 0, units: 1), thread: 98) },
        // Op 0 said it was not executing in the middle of its own main.
        "STATE-EXECUTING-DURING-TASK": RuleExample(scenario: S.readDuring) {
            $0.replace(.read(op: 0, .isExecuting, .bool(true)), with: .read(op: 0, .isExecuting, .bool(false))) },
        "STATE-NOT-CONCURRENT-DEFAULT": RuleExample(scenario: S.manual) { $0.replace(.read(op: 0, .isConcurrent, .bool(false)), with: .read(op: 0, .isConcurrent, .bool(true))) },
        "STATE-NOT-EXECUTING-BEFORE-START": RuleExample(scenario: S.manual) { $0.replace(.read(op: 0, .isExecuting, .bool(false)), with: .read(op: 0, .isExecuting, .bool(true))) },
        "STATE-MAIN-ONCE": RuleExample(scenario: S.queue) { $0.insert(.mainBegan(op: 0, threadPriority: 0.8), after: .mainEnded(op: 0)) },
        // DEP
        "DEP-ORDER": RuleExample(scenario: S.queue) { e in
            e.insert(.mainBegan(op: 1, threadPriority: 0.5), after: .returned(.addOperation(1, queue: 0)), thread: 98)
            e.insert(startCall(1, .queue), after: .returned(.addOperation(1, queue: 0)), thread: 98) },
        "DEP-ACROSS-QUEUES": RuleExample(scenario: S.twoQueues) { e in
            e.insert(.mainBegan(op: 1, threadPriority: 0.5), after: .returned(.addOperation(1, queue: 1)), thread: 98)
            e.insert(startCall(1, .queue), after: .returned(.addOperation(1, queue: 1)), thread: 98) },
        "DEP-SELF": RuleExample(scenario: S.misuse) { e in
            e.dropAll { if case .threw(.addDependency(0, 0), _, _) = $0 { return true }; return false }
            e.insert(.returned(.addDependency(0, on: 0)), after: .call(.addDependency(0, on: 0))) },
        // The engine accepts the cycle and op 0 runs only after cancelled op 1 finished: with
        // the cancellation gone, op 0 ran on an unreleased cycle.
        "DEP-CYCLE": RuleExample(scenario: S.misuse) { e in
            e.dropAll {
                switch $0 {
                case .call(.cancel(1)), .returned(.cancel(1)), .willChange(1, .isCancelled, _), .didChange(1, .isCancelled, _): return true
                default: return false
                }
            } },
        "DEP-DUPLICATE": RuleExample(scenario: S.misuse) { e in
            e.dropAll { if case .threw(.addDependency(0, 1), _, _) = $0 { return true }; return false }
            e.insert(.read(op: 0, .dependencies, .ops([1, 1])), after: .call(.addDependency(0, on: 1)), nth: 1)
            e.insert(.returned(.addDependency(0, on: 1)), after: .call(.addDependency(0, on: 1)), nth: 1) },
        "DEP-LISTED": RuleExample(scenario: S.listed) { $0.replace(.read(op: 2, .dependencies, .ops([1])), with: .read(op: 2, .dependencies, .ops([0, 1]))) },
        "DEP-REMOVE-RESTORES": RuleExample(scenario: S.manual) { $0.replace(.read(op: 5, .isReady, .bool(true)), with: .read(op: 5, .isReady, .bool(false))) },
        // COMPLETION
        "COMPLETION-AFTER-FINISH": RuleExample(scenario: S.queue) { $0.drop(.mainEnded(op: 0)) },
        "COMPLETION-ONCE": RuleExample(scenario: S.queue) { $0.insert(.completionBegan(op: 0, threadPriority: 0.5), after: .completionBegan(op: 0, threadPriority: 0.5)) },
        "COMPLETION-LATE-THROWS": RuleExample(scenario: S.queue) { e in
            e.dropAll { if case .threw(.setCompletionBlock(0), _, _) = $0 { return true }; return false }
            e.insert(.returned(.setCompletionBlock(0)), after: .call(.setCompletionBlock(0)), nth: 1) },
        "COMPLETION-THREAD-PRIORITY": RuleExample(scenario: S.queue) { $0.replace(.completionBegan(op: 0, threadPriority: 0.5), with: .completionBegan(op: 0, threadPriority: 0.8)) },
        // PRIORITY, THREAD
        "PRIORITY-ORDER": RuleExample(scenario: S.priority) { $0.replace(.returned(.setQueuePriority(2, 9)), with: .returned(.setQueuePriority(2, -8))) },
        "PRIORITY-NORMALIZE": RuleExample(scenario: S.priority) { $0.replace(.read(op: 3, .queuePriority, .int(-4)), with: .read(op: 3, .queuePriority, .int(-8))) },
        "PRIORITY-READBACK": RuleExample(scenario: S.priorityReadback) { $0.replace(.read(op: 0, .queuePriority, .int(-8)), with: .read(op: 0, .queuePriority, .int(0))) },
        "PRIORITY-DEFAULT-NORMAL": RuleExample(scenario: S.queue) { $0.replace(.read(op: 0, .queuePriority, .int(0)), with: .read(op: 0, .queuePriority, .int(4))) },
        "THREAD-PRIORITY-MAIN": RuleExample(scenario: S.queue) { $0.replace(.mainBegan(op: 0, threadPriority: 0.8), with: .mainBegan(op: 0, threadPriority: 0.5)) },
        // QUEUE
        "QUEUE-MAX-CONCURRENT": RuleExample(scenario: S.queue) { $0.insert(startCall(1, .queue), after: startCall(0, .queue), thread: 97) },
        "QUEUE-SUSPENDED": RuleExample(scenario: S.suspended) { $0.insert(startCall(0, .queue), after: .returned(.addOperation(0, queue: 0)), thread: 97) },
        "QUEUE-SUSPEND-RUNNING-CONTINUE": RuleExample(scenario: S.cancelDuring) { e in
            e.dropAll { if case .didChange(0, .isFinished, _) = $0 { return true }; if case .read(0, .isFinished, _) = $0 { return true }; return false } },
        "QUEUE-THREADS": RuleExample(scenario: S.queue) { $0.rethread(.mainBegan(op: 0, threadPriority: 0.8), to: 0) },
        "QUEUE-REMOVES-FINISHED": RuleExample(scenario: S.queue) { $0.replace(.operationCount(queue: 0, 0), with: .operationCount(queue: 0, 1)) },
        "QUEUE-WAIT-OP": RuleExample(scenario: S.manual) { $0.replace(.read(op: 1, .isFinished, .bool(true)), with: .read(op: 1, .isFinished, .bool(false))) },
        "QUEUE-WAIT-ALL": RuleExample(scenario: S.queue) { $0.replace(.read(op: 1, .isFinished, .bool(true)), with: .read(op: 1, .isFinished, .bool(false))) },
        "QUEUE-ADD-WAIT": RuleExample(scenario: S.twoQueues) { $0.replace(.read(op: 2, .isFinished, .bool(true)), with: .read(op: 2, .isFinished, .bool(false))) },
        "QUEUE-OWNERSHIP": RuleExample(scenario: S.misuse) { e in
            e.dropAll { if case .threw(.addOperation(1, 1), _, _) = $0 { return true }; return false }
            e.insert(.returned(.addOperation(1, queue: 1)), after: .call(.addOperation(1, queue: 1))) },
        "QUEUE-PROGRESS": RuleExample(scenario: S.queue) { e in
            e.dropAll { if case .call(.start(1, _)) = $0 { return true }; if case .returned(.start(1, _)) = $0 { return true }; return false } },
        "QUEUE-READY-ONLY": RuleExample(scenario: S.queue) { $0.insert(startCall(1, .queue), after: .returned(.addOperation(1, queue: 0)), thread: 98) },
        "QUEUE-CALLS-START": RuleExample(scenario: S.queue) { e in
            e.dropAll { if case .call(.start(0, .queue)) = $0 { return true }; if case .returned(.start(0, .queue)) = $0 { return true }; return false } },
        "QUEUE-THREAD-NAME": RuleExample(scenario: S.queue, profile: .gnustep) { $0.replace(.threadStarted(name: "NSOperationQ_1", queue: 0), with: .threadStarted(name: "worker-1", queue: 0)) },
        "QUEUE-THREAD-NAME-SET": RuleExample(scenario: S.surface2, profile: .gnustep) { $0.replace(.threadStarted(name: "fetch_1", queue: 0), with: .threadStarted(name: "NSOperationQ_1", queue: 0)) },
        "QUEUE-ADD-BLOCK-RUNS": RuleExample(scenario: S.surface2) { e in
            e.dropAll { if case .blockBegan(1, _) = $0 { return true }; if case .blockEnded(1, _) = $0 { return true }; if case .work(1, _) = $0 { return true }
                        if case .currentQueue(1, _) = $0 { return true }; return false } },
        "QUEUE-WAIT-ALL-BLOCKS": RuleExample(scenario: S.surface2) { $0.drop(.blockEnded(op: 1, block: 0)) },
        "QUEUE-SUSPENDED-READ": RuleExample(scenario: S.surface2) { $0.replace(.suspended(queue: 1, true), with: .suspended(queue: 1, false)) },
        "QUEUE-CURRENT": RuleExample(scenario: S.surface2, profile: .classReference) { $0.replace(.currentQueue(op: 1, queue: 0), with: .currentQueue(op: 1, queue: nil)) },
        // BLOCK
        "BLOCK-EXECUTION-BLOCKS": RuleExample(scenario: S.surface2, profile: .classReference) { $0.replace(.read(op: 3, .executionBlocks, .int(3)), with: .read(op: 3, .executionBlocks, .int(2))) },
        "BLOCK-ALL-BEFORE-FINISH": RuleExample(scenario: S.queue) { $0.drop(.blockEnded(op: 1, block: 1)) },
        "BLOCK-CONCURRENT": RuleExample(scenario: S.blocks) { $0.replace(.awaited(token: 2, satisfied: true), with: .awaited(token: 2, satisfied: false)) },
        "BLOCK-LATE-ADD-THROWS": RuleExample(scenario: S.queue) { e in
            e.dropAll { if case .threw(.addExecutionBlock(1), _, _) = $0 { return true }; return false }
            e.insert(.returned(.addExecutionBlock(1)), after: .call(.addExecutionBlock(1))) },
        "BLOCK-EACH-ONCE": RuleExample(scenario: S.queue) { $0.drop(.blockBegan(op: 1, block: 1)) },
        // SUBCLASS, INVOCATION
        "SUBCLASS-FINISH-ANNOUNCED": RuleExample(scenario: S.subclass) { e in
            e.dropAll { if case .didChange(0, .isFinished, _) = $0 { return true }; return false } },
        "SUBCLASS-FINISH-AFTER-START": RuleExample(scenario: S.concurrent) {
            $0.insert(.read(op: 1, .isFinished, .bool(true)), after: .call(.addOperation(1, queue: 0))) },
        "SUBCLASS-CONCURRENT-FLAG": RuleExample(scenario: S.concurrent) { $0.replace(.read(op: 0, .isConcurrent, .bool(true)), with: .read(op: 0, .isConcurrent, .bool(false))) },
        "SUBCLASS-START-RUNS-MAIN": RuleExample(scenario: S.concurrent, profile: .gnustep) { e in
            e.dropAll { if case .mainBegan(0, _) = $0 { return true }; return false } },
        "INVOCATION-INVOKES": RuleExample(scenario: S.invocation) { $0.drop(.mainBegan(op: 0, threadPriority: 0.5)) },
        "INVOCATION-CANCELLED-RESULT": RuleExample(scenario: S.misuse) { e in
            e.dropAll { if case .threw(.result(2), _, _) = $0 { return true }; return false }
            e.insert(.returned(.result(2)), after: .call(.result(2))) },
    ]
}
