/// A public API call as it appears in a trace: `call` when it begins, then `returned` or `threw`.
public enum Call: Codable, Sendable, Equatable, Hashable {
    case start(Int, by: Caller)
    /// A concurrent subclass calling `[super start]`.
    case superStart(Int)
    case cancel(Int)
    case addOperation(Int, queue: Int)
    case addOperations([Int], queue: Int, wait: Bool)
    case addDependency(Int, on: Int)
    case removeDependency(Int, on: Int)
    case setCompletionBlock(Int)
    case addExecutionBlock(Int)
    case setQueuePriority(Int, Int)
    case setThreadPriority(Int, Double)
    case cancelAll(queue: Int)
    case setSuspended(queue: Int, Bool)
    case setMaxConcurrent(queue: Int, Int)
    case waitUntilFinished(Int)
    case waitUntilAllFinished(queue: Int)
    case result(Int)
    /// `addOperationWithBlock:` with the block of scenario operation `op` (API surface 2).
    case addBlock(Int, queue: Int)
    /// The driver let go of its reference to the queue (API surface 3).
    case releaseQueue(queue: Int)
    /// `queue.underlyingQueue = ` the scenario's dispatch queue, or nil (`dispatchQueues`).
    case setUnderlyingQueue(queue: Int, dispatchQueue: Int?)

    /// The operation the call is about, when there is one.
    public var op: Int? {
        switch self {
        case .start(let o, _), .superStart(let o), .cancel(let o), .addOperation(let o, _),
             .addDependency(let o, _), .removeDependency(let o, _), .setCompletionBlock(let o),
             .addExecutionBlock(let o), .setQueuePriority(let o, _), .setThreadPriority(let o, _),
             .waitUntilFinished(let o), .result(let o), .addBlock(let o, _):
            return o
        default: return nil
        }
    }
}

/// Who called `start`: the driving thread, an operation's own code, or a queue.
public enum Caller: String, Codable, Sendable, Equatable, Hashable {
    case driver, program, queue
}

/// Why an implementation refused a call. Misuse is reported, never trapped on.
public enum MisuseKind: String, Codable, Sendable, Equatable, CaseIterable {
    case notReady
    case alreadyExecuting
    case alreadyFinished
    case alreadyInQueue
    case executingOrFinished
    case selfDependency
    case duplicateDependency
    case dependencyCycle
    case completionBlockLate
    case executionBlockLate
    case invocationCancelled
    /// Anything an implementation raised that has no better name (its message says what).
    case other
}
