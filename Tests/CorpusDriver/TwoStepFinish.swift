import OperationDriverKit
import Foundation

/// Locked flags set as two KVO pairs when the work is done: first `isExecuting = false` with its
/// own will/did pair, then `isFinished = true` with its own, the way swift-corelibs-foundation's
/// own test suite writes its asynchronous operation (TestOperationQueue's AsyncOperation). A
/// reader between the two pairs sees neither executing nor finished: the beginning of the
/// finish, not a break of "executing while the task runs" (the task's work is over). Correct.
///
/// `@unchecked Sendable` is sound: `_executing` and `_finished` are read and written only under
/// `lock`.
class TwoStepFinishOperation: Operation, @unchecked Sendable {
    /// Guards both flags; held only for the read or the write, never across a KVO call.
    private let lock = NSLock()
    private var _executing = false
    private var _finished = false

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.withLock { _executing } }
    override var isFinished: Bool { lock.withLock { _finished } }

    private func setExecuting(_ value: Bool) {
        willChangeValue(forKey: "isExecuting")
        lock.withLock { _executing = value }
        didChangeValue(forKey: "isExecuting")
    }

    private func setFinished(_ value: Bool) {
        willChangeValue(forKey: "isFinished")
        lock.withLock { _finished = value }
        didChangeValue(forKey: "isFinished")
    }

    override func start() {
        if isCancelled {
            setFinished(true)
            return
        }
        setExecuting(true)
        execute()
    }

    func execute() { finish() }

    func finish() {
        setExecuting(false)
        setFinished(true)
    }
}

/// The class as the harness sees it. `@unchecked Sendable` is sound: `probe` is a `let`.
final class ProbedTwoStepFinish: TwoStepFinishOperation, @unchecked Sendable {
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
