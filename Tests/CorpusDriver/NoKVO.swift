import OperationDriverKit
import Foundation

/// A locked state enum whose changes are never announced: no will- or did-change at all, as
/// some base classes do that treat isExecuting and isFinished as plain computed properties.
/// Nothing tells a queue the operation finished, on Darwin as on Linux: its waits and its slot
/// wait for ever (004 2.5.3 Table 2-2: "generate KVO notifications").
///
/// `@unchecked Sendable` is sound: `_state` is read and written only under `lock`.
class NoKVOOperation: Operation, @unchecked Sendable {
    enum State { case ready, executing, finished }

    /// Guards `_state`; held only for the read or the write.
    private let lock = NSLock()
    private var _state = State.ready

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.withLock { _state == .executing } }
    override var isFinished: Bool { lock.withLock { _state == .finished } }

    override func start() {
        if isCancelled {
            lock.withLock { _state = .finished }
            return
        }
        lock.withLock { _state = .executing }
        execute()
    }

    func execute() { finish() }

    func finish() { lock.withLock { _state = .finished } }
}

/// The class as the harness sees it. `@unchecked Sendable` is sound: `probe` is a `let`.
final class ProbedNoKVO: NoKVOOperation, @unchecked Sendable {
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
