import OperationDriverKit
import Foundation

/// Flags of its own for `isExecuting` and `isFinished`, `isAsynchronous` YES, and no `start`:
/// the default start runs `main`, which sets the task off; the task's end stores finished with
/// its KVO pair. Nothing ever stores executing (labelled `executing-never-set`), and a cancelled
/// operation, whose `main` the default start skips, never stores finished
/// (`cancelled-never-finishes`).
///
/// `@unchecked Sendable` is sound: the flags are read and written only under `lock`.
class FlagOnlyOperation: Operation, @unchecked Sendable {
    /// Guards both flags; never held around a KVO call.
    private let lock = NSLock()
    private var executing = false
    private var finished = false

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.withLock { executing } }
    override var isFinished: Bool { lock.withLock { finished } }

    override func main() {
        guard !isCancelled else {
            finish()
            return
        }
        execute()
    }

    /// Sets the task off; the task calls `finish()` when it is done.
    func execute() { finish() }

    func finish() {
        willChangeValue(forKey: "isFinished")
        lock.withLock { finished = true }
        didChangeValue(forKey: "isFinished")
    }
}

/// The class as the harness sees it. `@unchecked Sendable` is sound: `probe` is a `let`.
final class ProbedFlagOnly: FlagOnlyOperation, @unchecked Sendable {
    let probe: SubclassProbe
    init(_ probe: SubclassProbe) { self.probe = probe; super.init() }
    override func execute() { probe.work(then: finish) }
    override func start() { probe.start { super.start() } }
    override func cancel() { probe.cancel { super.cancel() } }
    override var isReady: Bool { probe.isReady { super.isReady } }
    override var isExecuting: Bool { probe.isExecuting { super.isExecuting } }
    override var isFinished: Bool { probe.isFinished { super.isFinished } }
    override var isCancelled: Bool { probe.isCancelled { super.isCancelled } }
}
