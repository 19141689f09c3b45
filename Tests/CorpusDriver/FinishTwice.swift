import OperationDriverKit
import Foundation

/// Locked flags, a careful start, and a finish with no guard that the task's completion handler
/// calls and a leftover cleanup path calls again: every operation announces isFinished twice
/// (labelled `finishes-twice`).
///
/// `@unchecked Sendable` is sound: the flags are read and written only under `lock`.
class FinishTwiceOperation: Operation, @unchecked Sendable {
    /// Guards both flags; never held around a KVO call.
    private let lock = NSLock()
    private var executing = false
    private var finished = false

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.withLock { executing } }
    override var isFinished: Bool { lock.withLock { finished } }

    override func start() {
        guard !isCancelled else {
            finish()
            return
        }
        willChangeValue(forKey: "isExecuting")
        lock.withLock { executing = true }
        didChangeValue(forKey: "isExecuting")
        execute()
    }

    func execute() { taskDone() }

    /// The task's completion handler: finishes, then runs the cleanup, which finishes again.
    func taskDone() {
        finish()
        cleanUp()
    }

    func cleanUp() { finish() }

    func finish() {
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

/// The class as the harness sees it. `@unchecked Sendable` is sound: `probe` is a `let`.
final class ProbedFinishTwice: FinishTwiceOperation, @unchecked Sendable {
    let probe: SubclassProbe
    init(_ probe: SubclassProbe) { self.probe = probe; super.init() }
    override func execute() { probe.work(then: taskDone) }
    override func start() { probe.start { super.start() } }
    override func cancel() { probe.cancel { super.cancel() } }
    override var isReady: Bool { probe.isReady { super.isReady } }
    override var isExecuting: Bool { probe.isExecuting { super.isExecuting } }
    override var isFinished: Bool { probe.isFinished { super.isFinished } }
    override var isCancelled: Bool { probe.isCancelled { super.isCancelled } }
}
