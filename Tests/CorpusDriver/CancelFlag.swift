import OperationDriverKit
import Foundation

/// Careful-lock's class with a cancelled flag of its own: `cancel()` sets it whatever the state,
/// and `isCancelled` returns it. A finished operation cancelled later reports isCancelled YES,
/// which the class reference says a cancel of a finished operation must not change (issue 44:
/// one of the public classes did this; a first run never cancelled a finished operation).
///
/// `@unchecked Sendable` is sound: `_state` and `_cancelled` are read and written only under
/// `lock`.
class CancelFlagOperation: Operation, @unchecked Sendable {
    enum State { case ready, executing, finishing, finished }

    /// Guards `_state` and `_cancelled`; never held around a KVO call.
    private let lock = NSLock()
    private var _state = State.ready
    private var _cancelled = false

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.withLock { _state == .executing || _state == .finishing } }
    override var isFinished: Bool { lock.withLock { _state == .finished } }
    override var isCancelled: Bool { lock.withLock { _cancelled } }

    override func cancel() {
        willChangeValue(forKey: "isCancelled")
        lock.withLock { _cancelled = true }
        didChangeValue(forKey: "isCancelled")
        super.cancel()
    }

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
final class ProbedCancelFlag: CancelFlagOperation, @unchecked Sendable {
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
