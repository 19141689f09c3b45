import OperationDriverKit
import Foundation

/// Locked flags, and a `cancel` override that finishes the operation whether or not it has
/// started and whether or not its task still runs (labelled `cancel-finishes-running` and
/// `cancel-finishes-unstarted`).
///
/// `@unchecked Sendable` is sound: the flags are read and written only under `lock`.
class CancelFinishesOperation: Operation, @unchecked Sendable {
    /// Guards `executing`, `finished` and `claimed`; never held around a KVO call.
    private let lock = NSLock()
    private var executing = false
    private var finished = false
    /// Whether a finish has begun: claimed once, so the task's end and a cancel finish it once.
    private var claimed = false

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

    override func cancel() {
        super.cancel()
        finish()
    }

    func execute() { finish() }

    func finish() {
        let first = lock.withLock { () -> Bool in
            if claimed { return false }
            claimed = true
            return true
        }
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

/// The class as the harness sees it. `@unchecked Sendable` is sound: `probe` is a `let`.
final class ProbedCancelFinishes: CancelFinishesOperation, @unchecked Sendable {
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
