import OperationDriverKit
import Foundation

/// A block-based asynchronous operation: the task is a block given a completion handler, and the
/// handler finishes the operation. Its `start` returns at once when the operation was cancelled,
/// without finishing it (labelled `cancelled-never-finishes`).
///
/// `@unchecked Sendable` is sound: the flags are read and written only under `lock`, and `task`
/// is a `let` of a `@Sendable` type.
class BlockHandlerOperation: Operation, @unchecked Sendable {
    typealias Task = @Sendable (_ completion: @escaping @Sendable () -> Void) -> Void

    private let task: Task
    /// Guards `executing` and `finished`; never held around a KVO call.
    private let lock = NSLock()
    private var executing = false
    private var finished = false

    init(task: @escaping Task) {
        self.task = task
        super.init()
    }

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.withLock { executing } }
    override var isFinished: Bool { lock.withLock { finished } }

    override func start() {
        guard !isCancelled else { return }
        willChangeValue(forKey: "isExecuting")
        lock.withLock { executing = true }
        didChangeValue(forKey: "isExecuting")
        task { [weak self] in self?.finish() }
    }

    private func finish() {
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

/// The class as the harness sees it: its task is the probe's work. `@unchecked Sendable` is
/// sound: `probe` is a `let`.
final class ProbedBlockHandler: BlockHandlerOperation, @unchecked Sendable {
    let probe: SubclassProbe
    init(_ probe: SubclassProbe) {
        self.probe = probe
        super.init(task: { completion in probe.work(then: completion) })
    }
    override func start() { probe.start { super.start() } }
    override func cancel() { probe.cancel { super.cancel() } }
    override var isReady: Bool { probe.isReady { super.isReady } }
    override var isExecuting: Bool { probe.isExecuting { super.isExecuting } }
    override var isFinished: Bool { probe.isFinished { super.isFinished } }
    override var isCancelled: Bool { probe.isCancelled { super.isCancelled } }
}
