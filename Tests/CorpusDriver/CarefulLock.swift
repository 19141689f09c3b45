import OperationDriverKit
import Foundation

/// A careful state enum under NSLock: `start` checks `isCancelled` and goes straight to
/// finished, the finish is claimed once, and each change is announced in Listing 2-7's order.
///
/// `@unchecked Sendable` is sound: `_state` is read and written only under `lock`.
class CarefulLockOperation: Operation, @unchecked Sendable {
    enum State { case ready, executing, finishing, finished }

    /// Guards `_state`; never held around a KVO call, so an observer may read the flags.
    private let lock = NSLock()
    private var _state = State.ready

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.withLock { _state == .executing || _state == .finishing } }
    override var isFinished: Bool { lock.withLock { _state == .finished } }

    override func start() {
        if isCancelled {
            finish()
            return
        }
        let began = lock.withLock { () -> Bool in
            guard _state == .ready else { return false }
            return true
        }
        guard began else { return }
        willChangeValue(forKey: "isExecuting")
        lock.withLock { _state = .executing }
        didChangeValue(forKey: "isExecuting")
        execute()
    }

    func execute() { finish() }

    func finish() {
        // Claims the finish: `.finishing` still reports executing, so the flags change together.
        let wasExecuting = lock.withLock { () -> Bool? in
            switch _state {
            case .ready: _state = .finishing; return false
            case .executing: _state = .finishing; return true
            case .finishing, .finished: return nil
            }
        }
        guard let wasExecuting else { return }
        willChangeValue(forKey: "isFinished")
        if wasExecuting { willChangeValue(forKey: "isExecuting") }
        lock.withLock { _state = .finished }
        if wasExecuting { didChangeValue(forKey: "isExecuting") }
        didChangeValue(forKey: "isFinished")
    }
}

/// The class as the harness sees it. `@unchecked Sendable` is sound: `probe` is a `let`.
final class ProbedCarefulLock: CarefulLockOperation, @unchecked Sendable {
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
