import OperationDriverKit
import Foundation

/// A locked state enum with a `cancelled` state of its own: `cancel()` moves any operation that
/// is not executing to it, "so that a cancelled operation never looks done", a finished one
/// included. A finished operation that is cancelled then reports isFinished NO again (labelled
/// `cancel-unfinishes`: 003 cancel, "cancelling a finished operation has no effect").
///
/// `@unchecked Sendable` is sound: `_state` is read and written only under `lock`.
class CancelUnfinishesOperation: Operation, @unchecked Sendable {
    enum State { case ready, executing, finished, cancelled }

    /// Guards `_state`; held only for the read or the write, never across a KVO call.
    private let lock = NSLock()
    private var _state = State.ready

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.withLock { _state == .executing } }
    override var isFinished: Bool { lock.withLock { _state == .finished } }

    private func move(to state: State) {
        willChangeValue(forKey: "isExecuting")
        willChangeValue(forKey: "isFinished")
        lock.withLock { _state = state }
        didChangeValue(forKey: "isFinished")
        didChangeValue(forKey: "isExecuting")
    }

    override func start() {
        if isCancelled {
            move(to: .finished)
            return
        }
        move(to: .executing)
        execute()
    }

    override func cancel() {
        super.cancel()
        if lock.withLock({ _state }) != .executing { move(to: .cancelled) }
    }

    func execute() { finish() }

    func finish() { move(to: .finished) }
}

/// The class as the harness sees it. `@unchecked Sendable` is sound: `probe` is a `let`.
final class ProbedCancelUnfinishes: CancelUnfinishesOperation, @unchecked Sendable {
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
