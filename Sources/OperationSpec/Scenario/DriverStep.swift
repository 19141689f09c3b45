/// One step of the driving thread (the "main thread" of the documents). A step with a trigger
/// waits until the triggering event has been observed; if the event can no longer happen (its
/// operation finished without it, or nothing else can run) the step runs anyway and the trace
/// records `triggerMissed`. Triggers are events, never wall-clock times, so a scenario means the
/// same thing on every implementation.
public struct DriverStep: Codable, Sendable, Equatable {
    public var after: Trigger?
    public var action: DriverAction
    /// The scenario's dispatch queue the driver hands the action to, waiting until it is done
    /// (`DispatchQueue.sync`): a queue method called from a block on a dispatch queue, as
    /// corelibs' test_isSuspended resumes its queue. Nil: the driving thread. Needs the
    /// `dispatchQueues` capability.
    public var onDispatchQueue: Int?
    public init(after: Trigger? = nil, _ action: DriverAction, onDispatchQueue: Int? = nil) {
        self.after = after
        self.action = action
        self.onDispatchQueue = onDispatchQueue
    }
}

public enum Trigger: Codable, Sendable, Equatable, Hashable {
    case started(Int)
    case mainBegan(Int)
    case blockBegan(Int, block: Int)
    case finished(Int)
    /// Token `n` has been made available by a `signal` step (API surface 2: a driver step that
    /// waits for a rendezvous instead of an operation's event). It is missed when nothing that
    /// could still run can signal it.
    case signaled(Int)

    /// The operation whose event the trigger waits for; nil for `signaled`.
    public var op: Int? {
        switch self {
        case .started(let o), .mainBegan(let o), .finished(let o): return o
        case .blockBegan(let o, _): return o
        case .signaled: return nil
        }
    }
}

public enum DriverAction: Codable, Sendable, Equatable {
    case add(op: Int, queue: Int)
    case addBatch(ops: [Int], queue: Int, wait: Bool)
    /// `[op start]` called manually on the driving thread.
    case start(Int)
    /// Run code on the driving thread with `self` bound to `op` (e.g. Listing 2-8's `performOperation:`).
    case perform(op: Int, [Step])
    case cancel(Int)
    case cancelAll(queue: Int)
    case suspend(queue: Int)
    case resume(queue: Int)
    case setMaxConcurrent(queue: Int, Int)
    case addDependency(op: Int, on: Int)
    case removeDependency(op: Int, on: Int)
    case waitUntilFinished(Int)
    case waitUntilAllFinished(queue: Int)
    case setCompletionBlock(op: Int, [Step])
    case addExecutionBlock(op: Int, [Step])
    case setQueuePriority(op: Int, Int)
    case setThreadPriority(op: Int, Double)
    case read(StateKey, op: Int)
    case readOperationCount(queue: Int)
    /// Ask an invocation operation for its result.
    case result(Int)
    /// `[queue addOperationWithBlock:]` (004, "Adding Operations to an Operation Queue") with the
    /// single block of `op`, a block operation of the scenario that no other step may touch: the
    /// queue makes the operation object, so the scenario's number only names the block in the
    /// trace (`blockBegan(op, 0)`). API surface 2.
    case addBlock(op: Int, queue: Int)
    /// Read `[queue isSuspended]`; the value lands in the trace as `suspended(queue, value)`.
    /// API surface 2.
    case readSuspended(queue: Int)
    /// The driving thread idles for `n` work units (a scenario construct, not an API call: no
    /// event of its own beyond the step's `stepIssued` / `stepDone`). API surface 2.
    case sleep(Int)
    /// The driver lets go of its reference to the queue (the last one it holds: `[queue release]`
    /// under manual reference counting, dropping the variable in Swift) while the queue may still
    /// hold operations, as corelibs' peer tests test_Deadlock and test_Lifecycle do. No later step
    /// may name the queue. API surface 3.
    case releaseQueue(queue: Int)
    /// Read `[queue operations]`; the operations it lists land in the trace as
    /// `operations(queue, ops)`. API surface 3.
    case readOperations(queue: Int)
    /// Read `[NSOperationQueue mainQueue]` (`OperationQueue.main`) on the driving thread; what
    /// it returned lands in the trace as `mainQueue(same, suspended, current)`. API surface 4.
    case readMainQueue
    /// Whether a queue the driver let go of (an earlier `releaseQueue`) has been deallocated by
    /// now; lands in the trace as `queueDeallocated(queue, deallocated)`. API surface 4.
    case readQueueDeallocated(queue: Int)
    /// `queue.underlyingQueue = dispatchQueue`: the scenario's dispatch queue `dispatchQueue`
    /// (a serial queue the driver makes), or nil to reset it. Only before anything is added to
    /// the queue (the class reference: setting it while `operationCount` is not 0 raises).
    /// Needs the `dispatchQueues` capability.
    case setUnderlyingQueue(queue: Int, dispatchQueue: Int?)

    /// The operations the action names itself: not the block operation of an `addBlock`, which
    /// only names its block, nor what the code of a `perform` names.
    public var namedOperations: [Int] {
        switch self {
        case .add(let a, _), .start(let a), .cancel(let a), .waitUntilFinished(let a), .read(_, let a),
            .perform(let a, _),
             .setCompletionBlock(let a, _), .addExecutionBlock(let a, _), .setQueuePriority(let a, _),
             .setThreadPriority(let a, _), .result(let a):
            return [a]
        case .addBatch(let list, _, _): return list
        case .addDependency(let a, let b), .removeDependency(let a, let b): return [a, b]
        case .addBlock, .cancelAll, .suspend, .resume, .setMaxConcurrent, .waitUntilAllFinished, .readOperationCount,
             .readSuspended, .sleep, .releaseQueue, .readOperations, .readMainQueue, .readQueueDeallocated,
             .setUnderlyingQueue:
            return []
        }
    }

    /// The queue the action names, if any.
    public var namedQueue: Int? {
        switch self {
        case .add(_, let q), .addBatch(_, let q, _), .cancelAll(let q), .suspend(let q), .resume(let q),
             .setMaxConcurrent(let q, _), .waitUntilAllFinished(let q), .readOperationCount(let q), .addBlock(_, let q),
             .readSuspended(let q), .releaseQueue(let q), .readOperations(let q), .readQueueDeallocated(let q),
             .setUnderlyingQueue(let q, _):
            return q
        case .start, .perform, .cancel, .addDependency, .removeDependency, .waitUntilFinished, .setCompletionBlock,
             .addExecutionBlock, .setQueuePriority, .setThreadPriority, .read, .result, .sleep, .readMainQueue:
            return nil
        }
    }
}
