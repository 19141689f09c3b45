/// Every rule's id, and the pseudo-rules' (a crash, a hang, a data race, a memory error, a
/// driver's breach of the protocol), as names the compiler checks.
///
/// Issue 46: the ids were string literals repeated across the catalog, the checkers, the
/// corpus, the exporter and the runner, so a misspelt id compiled and matched nothing. Code
/// names a rule as `RuleID.queueSuspended`; the string is what every format and report shows,
/// unchanged. `RuleIDTests` holds that no other source file spells an id as a literal.
public enum RuleID {
    public static let blockAllBeforeFinish = "BLOCK-ALL-BEFORE-FINISH"
    public static let blockConcurrent = "BLOCK-CONCURRENT"
    public static let blockEachOnce = "BLOCK-EACH-ONCE"
    public static let blockExecutionBlocks = "BLOCK-EXECUTION-BLOCKS"
    public static let blockLateAddThrows = "BLOCK-LATE-ADD-THROWS"
    public static let cancelAll = "CANCEL-ALL"
    public static let cancelBeforeStartFinishes = "CANCEL-BEFORE-START-FINISHES"
    public static let cancelBeforeStartSkipsMain = "CANCEL-BEFORE-START-SKIPS-MAIN"
    public static let cancelCheckedInMain = "CANCEL-CHECKED-IN-MAIN"
    public static let cancelFinishedNoop = "CANCEL-FINISHED-NOOP"
    public static let cancelNotStop = "CANCEL-NOT-STOP"
    public static let cancelSetsFlag = "CANCEL-SETS-FLAG"
    public static let completionAfterFinish = "COMPLETION-AFTER-FINISH"
    public static let completionLateThrows = "COMPLETION-LATE-THROWS"
    public static let completionOnce = "COMPLETION-ONCE"
    public static let completionThreadPriority = "COMPLETION-THREAD-PRIORITY"
    public static let depAcrossQueues = "DEP-ACROSS-QUEUES"
    public static let depCycle = "DEP-CYCLE"
    public static let depDuplicate = "DEP-DUPLICATE"
    public static let depListed = "DEP-LISTED"
    public static let depOrder = "DEP-ORDER"
    public static let depRemoveRestores = "DEP-REMOVE-RESTORES"
    public static let depSelf = "DEP-SELF"
    public static let invocationCancelledResult = "INVOCATION-CANCELLED-RESULT"
    public static let invocationInvokes = "INVOCATION-INVOKES"
    public static let kvoBalanced = "KVO-BALANCED"
    public static let kvoCancelled = "KVO-CANCELLED"
    public static let kvoCancelledStart = "KVO-CANCELLED-START"
    public static let kvoCompletionBlock = "KVO-COMPLETION-BLOCK"
    public static let kvoCompletionOrder = "KVO-COMPLETION-ORDER"
    public static let kvoDependencies = "KVO-DEPENDENCIES"
    public static let kvoFinishAlways = "KVO-FINISH-ALWAYS"
    public static let kvoFinishChanges = "KVO-FINISH-CHANGES"
    public static let kvoFinishOnce = "KVO-FINISH-ONCE"
    public static let kvoQueuePriority = "KVO-QUEUE-PRIORITY"
    public static let kvoSetBracketed = "KVO-SET-BRACKETED"
    public static let priorityDefaultNormal = "PRIORITY-DEFAULT-NORMAL"
    public static let priorityNormalize = "PRIORITY-NORMALIZE"
    public static let priorityOrder = "PRIORITY-ORDER"
    public static let priorityReadback = "PRIORITY-READBACK"
    public static let queueAddBlockRuns = "QUEUE-ADD-BLOCK-RUNS"
    public static let queueAddWait = "QUEUE-ADD-WAIT"
    public static let queueCallsStart = "QUEUE-CALLS-START"
    public static let queueCurrent = "QUEUE-CURRENT"
    public static let queueMaxConcurrent = "QUEUE-MAX-CONCURRENT"
    public static let queueOwnership = "QUEUE-OWNERSHIP"
    public static let queueProgress = "QUEUE-PROGRESS"
    public static let queueReadyOnly = "QUEUE-READY-ONLY"
    public static let queueRemovesFinished = "QUEUE-REMOVES-FINISHED"
    public static let queueSuspendRunningContinue = "QUEUE-SUSPEND-RUNNING-CONTINUE"
    public static let queueSuspended = "QUEUE-SUSPENDED"
    public static let queueSuspendedRead = "QUEUE-SUSPENDED-READ"
    public static let queueThreadName = "QUEUE-THREAD-NAME"
    public static let queueThreadNameSet = "QUEUE-THREAD-NAME-SET"
    public static let queueThreads = "QUEUE-THREADS"
    public static let queueWaitAll = "QUEUE-WAIT-ALL"
    public static let queueWaitAllBlocks = "QUEUE-WAIT-ALL-BLOCKS"
    public static let queueWaitOp = "QUEUE-WAIT-OP"
    public static let readyAfterDeps = "READY-AFTER-DEPS"
    public static let readyCancelled = "READY-CANCELLED"
    public static let readyDepsUnfinished = "READY-DEPS-UNFINISHED"
    public static let readyExecutingFinished = "READY-EXECUTING-FINISHED"
    public static let readyKVO = "READY-KVO"
    public static let readyOverride = "READY-OVERRIDE"
    public static let startConcurrentAsync = "START-CONCURRENT-ASYNC"
    public static let startConcurrentNoSuper = "START-CONCURRENT-NO-SUPER"
    public static let startDefaultIgnoresFlag = "START-DEFAULT-IGNORES-FLAG"
    public static let startExecutingThrows = "START-EXECUTING-THROWS"
    public static let startFinished = "START-FINISHED"
    public static let startFinishedOwn = "START-FINISHED-OWN"
    public static let startKVO = "START-KVO"
    public static let startNotReadyThrows = "START-NOT-READY-THROWS"
    public static let startSyncMain = "START-SYNC-MAIN"
    public static let startUnqueuedWaits = "START-UNQUEUED-WAITS"
    public static let stateCancelledMonotonic = "STATE-CANCELLED-MONOTONIC"
    public static let stateExclusive = "STATE-EXCLUSIVE"
    public static let stateExecutingDuringTask = "STATE-EXECUTING-DURING-TASK"
    public static let stateFinishedAfterTask = "STATE-FINISHED-AFTER-TASK"
    public static let stateFinishedMonotonic = "STATE-FINISHED-MONOTONIC"
    public static let stateFinishedRegardless = "STATE-FINISHED-REGARDLESS"
    public static let stateMainOnce = "STATE-MAIN-ONCE"
    public static let stateNotConcurrentDefault = "STATE-NOT-CONCURRENT-DEFAULT"
    public static let stateNotExecutingBeforeStart = "STATE-NOT-EXECUTING-BEFORE-START"
    public static let subclassConcurrentFlag = "SUBCLASS-CONCURRENT-FLAG"
    public static let subclassFinishAfterStart = "SUBCLASS-FINISH-AFTER-START"
    public static let subclassFinishAnnounced = "SUBCLASS-FINISH-ANNOUNCED"
    public static let subclassStartRunsMain = "SUBCLASS-START-RUNS-MAIN"
    public static let threadPriorityMain = "THREAD-PRIORITY-MAIN"

    // The pseudo-rules: not in the catalog, reported like rules.
    public static let dataRace = "DATA-RACE"
    public static let driverProtocol = "DRIVER-PROTOCOL"
    public static let memoryError = "MEMORY-ERROR"
    public static let runCrash = "RUN-CRASH"
    public static let runHang = "RUN-HANG"

    /// Every id above, in the order above: the catalog's rules, then the pseudo-rules.
    public static let all: [String] = [
        blockAllBeforeFinish, blockConcurrent, blockEachOnce, blockExecutionBlocks, blockLateAddThrows, cancelAll,
        cancelBeforeStartFinishes, cancelBeforeStartSkipsMain, cancelCheckedInMain, cancelFinishedNoop,
        cancelNotStop, cancelSetsFlag, completionAfterFinish, completionLateThrows, completionOnce,
        completionThreadPriority, depAcrossQueues, depCycle, depDuplicate, depListed, depOrder, depRemoveRestores,
        depSelf, invocationCancelledResult, invocationInvokes, kvoBalanced, kvoCancelled, kvoCancelledStart,
        kvoCompletionBlock, kvoCompletionOrder, kvoDependencies, kvoFinishAlways, kvoFinishChanges, kvoFinishOnce,
        kvoQueuePriority, kvoSetBracketed, priorityDefaultNormal, priorityNormalize, priorityOrder, priorityReadback,
        queueAddBlockRuns, queueAddWait, queueCallsStart, queueCurrent, queueMaxConcurrent, queueOwnership,
        queueProgress, queueReadyOnly, queueRemovesFinished, queueSuspendRunningContinue, queueSuspended,
        queueSuspendedRead, queueThreadName, queueThreadNameSet, queueThreads, queueWaitAll, queueWaitAllBlocks,
        queueWaitOp, readyAfterDeps, readyCancelled, readyDepsUnfinished, readyExecutingFinished, readyKVO,
        readyOverride, startConcurrentAsync, startConcurrentNoSuper, startDefaultIgnoresFlag, startExecutingThrows,
        startFinished, startFinishedOwn, startKVO, startNotReadyThrows, startSyncMain, startUnqueuedWaits,
        stateCancelledMonotonic, stateExclusive, stateExecutingDuringTask, stateFinishedAfterTask,
        stateFinishedMonotonic, stateFinishedRegardless, stateMainOnce, stateNotConcurrentDefault,
        stateNotExecutingBeforeStart, subclassConcurrentFlag, subclassFinishAfterStart, subclassFinishAnnounced,
        subclassStartRunsMain, threadPriorityMain, dataRace, driverProtocol, memoryError, runCrash, runHang
    ]
}
