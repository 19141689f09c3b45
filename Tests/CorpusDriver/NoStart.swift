import OperationDriverKit
import Foundation

/// Only `isAsynchronous` YES and a `main` that starts the task and returns, as if
/// `isAsynchronous` made the operation wait for it: the default `start` runs `main` on the
/// calling thread and finishes the operation when `main` returns, while the task still runs
/// (labelled `finished-before-task`).
///
/// `@unchecked Sendable` is sound: the class adds `done`, read and written only under `lock`.
class NoStartOperation: Operation, @unchecked Sendable {
    /// Guards `done`.
    private let lock = NSLock()
    private var done = false

    override var isAsynchronous: Bool { true }

    override func main() {
        guard !isCancelled else { return }
        execute()
    }

    /// Starts the task; the task calls `taskDone()` when it is over.
    func execute() { taskDone() }

    /// What the author meant to be the end of the operation: it only records it.
    func taskDone() { lock.withLock { done = true } }
}

/// The class as the harness sees it. `@unchecked Sendable` is sound: `probe` is a `let`.
final class ProbedNoStart: NoStartOperation, @unchecked Sendable {
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
