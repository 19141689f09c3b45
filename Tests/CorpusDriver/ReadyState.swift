import OperationDriverKit
import Foundation

/// A locked state enum, and `isReady` overridden as `state == .ready && super.isReady`: the
/// operation reports isReady NO once it starts, and when finished (labelled
/// `not-ready-once-started`; 003 isReady says an executing or finished operation is ready).
///
/// `@unchecked Sendable` is sound: `_state` is read and written only under `lock`.
class ReadyStateOperation: Operation, @unchecked Sendable {
    enum State { case ready, executing, finished }

    /// Guards `_state`; never held around a KVO call.
    private let lock = NSLock()
    private var _state = State.ready

    private var state: State { lock.withLock { _state } }

    /// Moves to `new`, announcing the keys the move changes.
    private func move(to new: State) {
        let keys = new == .executing ? ["isReady", "isExecuting"] : ["isExecuting", "isFinished"]
        for key in keys { willChangeValue(forKey: key) }
        lock.withLock { _state = new }
        for key in keys.reversed() { didChangeValue(forKey: key) }
    }

    override var isReady: Bool { state == .ready && super.isReady }
    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { state == .executing }
    override var isFinished: Bool { state == .finished }

    override func start() {
        if isCancelled {
            move(to: .finished)
            return
        }
        move(to: .executing)
        execute()
    }

    func execute() { finish() }

    func finish() { move(to: .finished) }
}

/// The class as the harness sees it. `@unchecked Sendable` is sound: `probe` is a `let`.
final class ProbedReadyState: ReadyStateOperation, @unchecked Sendable {
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
