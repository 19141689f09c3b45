import Foundation

/// The queue a driver runs scenarios on: the part of `OperationQueue`'s API the driver calls,
/// with `OperationQueue`'s names, so that `OperationQueue` conforms with an empty extension
/// (below) and so does a queue of your own written with the same names:
///
/// ```swift
/// import OperationDriverKit
/// extension MyQueue: QueueUnderTest {}
/// ```
///
/// The operations the queue is given are Foundation `Operation`s (the driver's logged
/// subclasses of `Operation` and `BlockOperation`): your queue runs real operations and calls
/// their real `start`, `isReady`, `isFinished`..., and every call it makes to them is in the
/// trace. So the rules judge your queue, and Foundation's `Operation` underneath it: Foundation's
/// known divergences (`Fixtures/expectations/foundation-linux.json` on Linux) show under any queue.
///
/// The driver calls the queue from its driving thread and, for the drain, reads
/// `operationCount`, `isSuspended` and `maxConcurrentOperationCount` while operations run: a
/// queue must be safe to use from several threads, as `OperationQueue` is.
public protocol QueueUnderTest: AnyObject {
    func addOperation(_ op: Operation)
    /// `addOperationWithBlock:` (004, "Adding Operations to an Operation Queue": the queue
    /// makes the operation). Optional: the default wraps the block in a `BlockOperation` and
    /// adds that, which is what the guide says the method does; `OperationQueue` has its own.
    func addOperation(_ block: @escaping @Sendable () -> Void)
    func addOperations(_ ops: [Operation], waitUntilFinished wait: Bool)
    func cancelAllOperations()
    var isSuspended: Bool { get set }
    var maxConcurrentOperationCount: Int { get set }
    func waitUntilAllOperationsAreFinished()
    var operationCount: Int { get }
    /// The driver names each queue `opconform-<number>`.
    var name: String? { get set }

    /// Whether the calling thread is one this queue runs its operations on: true or false when
    /// the queue can tell, nil when it cannot. The driver asks it for the first event of every
    /// thread, to say which queue the thread works for (`threadStarted(queue:)` in the trace).
    ///
    /// Optional: the default says nil, "cannot tell", and the trace then names no queue for any
    /// thread. Nothing the rules decide today depends on it: which thread each event happened on
    /// (the `threadIdentity` observation, behind QUEUE-THREADS, BLOCK-CONCURRENT and the START
    /// rules) is the driver's own record of the calling thread, whatever the queue answers here;
    /// the queue a thread works for only makes a replayed trace easier to read. `OperationQueue`
    /// answers with `OperationQueue.current`. For a queue that is not an `OperationQueue` it is
    /// also the answer to a `readCurrentQueue` step (API surface 2: which of the scenario's
    /// queues runs the calling code); when a queue cannot tell, that step is `unsupported`.
    ///
    /// It is called from any thread, while the driver's recorder holds no lock, and must not
    /// block or call into the operations.
    var ownsCurrentThread: Bool? { get }

    /// The operations the queue holds, in its order (`[queue operations]`), for a
    /// `readOperations` action (API surface 3). Optional: the default says nil, "cannot list
    /// them", and the action is then `unsupported`; `OperationQueue` answers with `operations`.
    var listedOperations: [Operation]? { get }
}

extension QueueUnderTest {
    public var ownsCurrentThread: Bool? { nil }
    public var listedOperations: [Operation]? { nil }
    public func addOperation(_ block: @escaping @Sendable () -> Void) { addOperation(BlockOperation(block: block)) }
}

extension QueueUnderTest where Self: OperationQueue {
    /// Foundation knows the queue of the operation running on this thread.
    public var ownsCurrentThread: Bool? { OperationQueue.current === self }
    /// Foundation's own list.
    public var listedOperations: [Operation]? { operations }
}

/// Foundation's own queue, the `foundation` implementation (`opconform driver`).
extension OperationQueue: QueueUnderTest {}
