import Foundation

/// An asynchronous operation base class written with care. Subclasses override `execute()`,
/// start their task there, and call `finish()` when it is done.
///
/// - Its state is read and written under one lock, and each change is announced with KVO
///   outside it (the queue's observers read the state back).
/// - `start()` finishes at once when the operation was cancelled before it started (004 2.5.3:
///   a cancelled operation must still move to finished).
/// - `start()` does nothing on an operation that already started or finished: started again
///   by mistake, it does not run its task a second time (the class reference: the default
///   start of a finished operation returns without running anything).
/// - It says it is executing before it starts the task, so the task cannot finish first.
/// - `finish()` does nothing the second time (a task that calls it twice cannot make the
///   operation finish twice).
///
/// `@unchecked Sendable` is sound: `executing` and `finished` are read and written only under
/// `lock`.
open class CarefulAsyncOperation: Operation, @unchecked Sendable {
    private let lock = NSLock()
    private var executing = false
    private var finished = false

    open override var isAsynchronous: Bool { true }
    open override var isExecuting: Bool { lock.withLock { executing } }
    open override var isFinished: Bool { lock.withLock { finished } }

    open override func start() {
        if lock.withLock({ executing || finished }) { return }
        if isCancelled {
            finish()
            return
        }
        willChangeValue(forKey: "isExecuting")
        lock.withLock { executing = true }
        didChangeValue(forKey: "isExecuting")
        execute()
    }

    /// The task: subclasses start it here and call `finish()` when it is done.
    open func execute() { finish() }

    public func finish() {
        let first: Bool = lock.withLock { !finished }
        guard first else { return }
        willChangeValue(forKey: "isFinished")
        willChangeValue(forKey: "isExecuting")
        lock.withLock {
            executing = false
            finished = true
        }
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
    }
}
