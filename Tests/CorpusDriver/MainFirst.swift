import OperationDriverKit
import Foundation

/// Careful-lock's class with its start in the wrong order: it sets the task off on a global
/// queue first and says it executes after. The task runs while the operation still reports
/// isExecuting NO, until the start catches up (issue 44: "main() before the executing state is
/// set", found at 100 cases and not at 30).
///
/// `@unchecked Sendable` is sound: `_state` is read and written only under `lock`.
class MainFirstOperation: Operation, @unchecked Sendable {
    enum State { case ready, executing, finishing, finished }

    /// Guards `_state`; never held around a KVO call.
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
        guard lock.withLock({ _state == .ready }) else { return }
        DispatchQueue.global().async { self.execute() }
        // The task is already on its way; the state follows (unless the task already finished).
        Thread.sleep(forTimeInterval: 0.002)
        let moved = lock.withLock { () -> Bool in
            guard _state == .ready else { return false }
            return true
        }
        guard moved else { return }
        willChangeValue(forKey: "isExecuting")
        lock.withLock { if _state == .ready { _state = .executing } }
        didChangeValue(forKey: "isExecuting")
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
final class ProbedMainFirst: MainFirstOperation, @unchecked Sendable {
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
