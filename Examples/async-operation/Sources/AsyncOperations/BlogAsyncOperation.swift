import Foundation

/// An asynchronous operation base class written the way many blog posts write it. Subclasses
/// override `execute()`, start their task there, and call `finish()` when it is done.
///
/// It has three mistakes, each common:
/// - its state flags are plain stored properties, read and written from several threads with no
///   lock;
/// - `start()` dispatches the task first and says it is executing afterwards, so a quick task
///   can finish before the operation says it is executing, and then it says both;
/// - `start()` returns without finishing when the operation was cancelled before it started, so
///   a queue never sees it finish (and `waitUntilAllOperationsAreFinished` never returns).
///
/// `@unchecked Sendable`, as Operation subclasses are; here it is not sound, which is the point.
open class BlogAsyncOperation: Operation, @unchecked Sendable {
    private var _executing = false
    private var _finished = false

    open override var isAsynchronous: Bool { true }
    open override var isExecuting: Bool { _executing }
    open override var isFinished: Bool { _finished }

    open override func start() {
        if isCancelled { return }
        execute()
        willChangeValue(forKey: "isExecuting")
        _executing = true
        didChangeValue(forKey: "isExecuting")
    }

    /// The task: subclasses start it here and call `finish()` when it is done.
    open func execute() { finish() }

    public func finish() {
        willChangeValue(forKey: "isExecuting")
        willChangeValue(forKey: "isFinished")
        _executing = false
        _finished = true
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
    }
}
