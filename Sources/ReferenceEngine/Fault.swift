import OperationSpec

/// A realistic bug the reference engine can be told to have, to prove the harness finds bugs:
/// every fault must be caught by some rule within a bounded number of generated cases, and shrunk
/// to a small scenario (`FaultTests`). `opconform faults` lists them.
public enum Fault: String, Sendable, CaseIterable, Codable {
    case cancelledNotReady = "cancelled-not-ready"
    case readyIgnoresDependencies = "ready-ignores-dependencies"
    case startIgnoresCancel = "start-ignores-cancel"
    case cancelAfterFinishSticks = "cancel-after-finish-sticks"
    case secondStartRuns = "second-start-runs"
    case startWhenNotReady = "start-when-not-ready"
    case finishUnannounced = "finish-unannounced"
    case readinessUnannounced = "readiness-unannounced"
    case finishedWhileExecuting = "finished-while-executing"
    case crossQueueDependencyIgnored = "cross-queue-dependency-ignored"
    case completionRunsTwice = "completion-runs-twice"
    case completionBeforeFinish = "completion-before-finish"
    case priorityIgnored = "priority-ignored"
    case priorityNotNormalised = "priority-not-normalised"
    case threadPriorityIgnored = "thread-priority-ignored"
    case oneTooMany = "one-too-many"
    case suspensionIgnored = "suspension-ignored"
    case waitReturnsEarly = "wait-returns-early"
    case blockOperationFinishesEarly = "block-operation-finishes-early"
    case blocksRunSerially = "blocks-run-serially"
    case concurrentFlagLost = "concurrent-flag-lost"
    case cancelledResultReturned = "cancelled-result-returned"
    case addedTwice = "added-twice"
    case finishedStayInQueue = "finished-stay-in-queue"
    case completionLateAccepted = "completion-late-accepted"
    /// Needs API surface 2 (`readyAfterSignal`): only cases generated for an implementation
    /// that declares `apiSurface2` can show it.
    case readyOverrideIgnored = "ready-override-ignored"
    /// Needs API surface 2 (`addBlock`). Issue 30: a third party's queue did this, and no rule saw it.
    case suspendedRunsBlocks = "suspended-runs-blocks"
    /// Issue 30: a third party's queue did this, and no rule saw it.
    case cancelAllSkipsExecuting = "cancel-all-skips-executing"
    /// Issue 30: a third party's queue hung so on an operation cancelled before it started, seen
    /// in 1 case of 300; the fault hangs on any cancelled operation not finished yet, which
    /// generated cases reach (a cancel while the task runs, then a wait).
    case waitOnCancelledHangs = "wait-on-cancelled-hangs"
    /// Issue 34: no rule read a defined priority back before PRIORITY-READBACK.
    case priorityReadClamped = "priority-read-clamped"
    /// Issue 34: DEP-LISTED's fault. Membership kept by toggling: a second addDependency: of the
    /// same operation takes it out again. Generated cases read `dependencies` only before
    /// anything runs, so a list that loses finished or removed dependencies is not reached.
    case duplicateDependencyToggles = "duplicate-dependency-toggles"
    /// Issue 34: INVOCATION-INVOKES's fault. The invocation is made by the queue's worker, not
    /// by main, so an invocation operation started by hand finishes without invoking it.
    case invocationSkippedByHand = "invocation-skipped-by-hand"
    /// Issue 34: START-DEFAULT-IGNORES-FLAG's fault. Needs subclasses that say they are
    /// concurrent and leave start to the default (the flaw calls-super-start): `FaultProbe`
    /// generates them for this fault.
    case flaggedStartDetaches = "flagged-start-detaches"
    /// Issue 34: START-UNQUEUED-WAITS's fault. Dependencies pushed, not pulled: a finishing
    /// operation has its dependents started, wherever they are. Generated cases reach it through
    /// the misuse that starts an operation in no queue before its dependency has finished.
    case finishStartsDependents = "finish-starts-dependents"

    /// What the bug is, in one sentence.
    public var summary: String {
        switch self {
        case .cancelledNotReady:
            return "a cancelled operation with unfinished dependencies reports isReady NO (and so is never started)"
        case .readyIgnoresDependencies: return "isReady ignores dependencies, so a dependent may start before them"
        case .startIgnoresCancel: return "the default start runs main even when the operation was cancelled"
        case .cancelAfterFinishSticks: return "cancel on a finished operation still sets isCancelled"
        case .secondStartRuns: return "start on an executing operation does not throw and runs main again"
        case .startWhenNotReady: return "start on an operation that is not ready does not throw"
        case .finishUnannounced: return "the finish sends did-change isFinished without a will-change before it"
        case .readinessUnannounced: return "isReady changes without a will-change notification"
        case .finishedWhileExecuting:
            return "the finish notifies isFinished and isExecuting before it clears isExecuting"
        case .crossQueueDependencyIgnored: return "a dependency on an operation in another queue is ignored"
        case .completionRunsTwice: return "the completion block runs twice"
        case .completionBeforeFinish: return "the completion block is started when main begins"
        case .priorityIgnored: return "a queue starts operations in the order they were added, ignoring priority"
        case .priorityNotNormalised: return "a non-standard queue priority is stored as given"
        case .threadPriorityIgnored: return "main runs at the default thread priority whatever was set"
        case .oneTooMany: return "a queue with a width runs one operation more than it allows"
        case .suspensionIgnored: return "a suspended queue still starts operations"
        case .waitReturnsEarly: return "waitUntilFinished returns before the operation finished"
        case .blockOperationFinishesEarly: return "a block operation finishes when its first block ends"
        case .blocksRunSerially: return "the blocks of a block operation run one after another on one thread"
        case .concurrentFlagLost: return "isConcurrent reports NO even for a subclass that overrides it"
        case .cancelledResultReturned: return "a cancelled invocation operation still returns a result"
        case .addedTwice: return "an operation already in a queue is accepted by a second addOperation"
        case .suspendedRunsBlocks: return "a suspended queue still starts the blocks given to addOperationWithBlock:"
        case .cancelAllSkipsExecuting: return "cancelAllOperations cancels only the operations that have not started"
        case .waitOnCancelledHangs:
            return "waitUntilFinished on a cancelled operation that has not finished yet never returns"
        case .priorityReadClamped: return "the queuePriority getter reports Very High and Very Low as High and Low"
        case .duplicateDependencyToggles:
            return
                "a second addDependency: of a dependency the operation already has is accepted "
                    + "and takes it out of the list"
        case .invocationSkippedByHand:
            return "an invocation operation started by hand finishes without invoking its method"
        case .flaggedStartDetaches:
            return
                "the default start of an operation whose isConcurrent says YES runs main on a new "
                    + "thread and returns at once"
        case .finishStartsDependents:
            return "an operation that becomes ready when its last dependency finishes is started, even one in no queue"
        case .finishedStayInQueue: return "finished operations stay in the queue's operations"
        case .completionLateAccepted: return "a completion block set on an executing or finished operation is accepted"
        case .readyOverrideIgnored:
            return "a queue starts an operation once its dependencies are done, ignoring its class's isReady override"
        }
    }

    /// The rule family the bug belongs to.
    public var family: Family {
        switch self {
        case .cancelledNotReady, .readyIgnoresDependencies, .readinessUnannounced, .readyOverrideIgnored: return .READY
        case .startIgnoresCancel, .cancelAfterFinishSticks, .cancelAllSkipsExecuting: return .CANCEL
        case .secondStartRuns, .startWhenNotReady, .flaggedStartDetaches, .finishStartsDependents: return .START
        case .finishUnannounced: return .KVO
        case .finishedWhileExecuting: return .STATE
        case .crossQueueDependencyIgnored, .duplicateDependencyToggles: return .DEP
        case .completionRunsTwice, .completionBeforeFinish, .completionLateAccepted: return .COMPLETION
        case .priorityIgnored, .priorityNotNormalised, .priorityReadClamped: return .PRIORITY
        case .threadPriorityIgnored: return .THREAD
        case .oneTooMany, .suspensionIgnored, .waitReturnsEarly, .addedTwice, .finishedStayInQueue,
            .suspendedRunsBlocks,
             .waitOnCancelledHangs: return .QUEUE
        case .blockOperationFinishesEarly, .blocksRunSerially: return .BLOCK
        case .concurrentFlagLost: return .SUBCLASS
        case .cancelledResultReturned, .invocationSkippedByHand: return .INVOCATION
        }
    }
}
