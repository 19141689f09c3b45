import Conformance
import Foundation
import Synchronization

/// A careful class whose flags live in a `Mutex` (Synchronization): one critical section moves
/// them together, and the finish is idempotent.
///
/// `@unchecked Sendable` is sound: the only stored state is the `Mutex`, itself `Sendable`.
class CarefulMutexOperation: Operation, @unchecked Sendable {
    private struct Flags {
        var executing = false
        var finished = false
    }

    /// Guards the flags; never held around a KVO call.
    private let flags = Mutex(Flags())

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { flags.withLock { $0.executing } }
    override var isFinished: Bool { flags.withLock { $0.finished } }

    override func start() {
        guard !isCancelled else {
            finish()
            return
        }
        willChangeValue(forKey: "isExecuting")
        flags.withLock { $0.executing = true }
        didChangeValue(forKey: "isExecuting")
        execute()
    }

    func execute() { finish() }

    func finish() {
        // Only the first call changes anything: a second finish announces nothing.
        guard flags.withLock({ !$0.finished }) else { return }
        willChangeValue(forKey: "isFinished")
        willChangeValue(forKey: "isExecuting")
        let changed = flags.withLock { f -> Bool in
            guard !f.finished else { return false }
            f.executing = false
            f.finished = true
            return true
        }
        didChangeValue(forKey: "isExecuting")
        if changed { didChangeValue(forKey: "isFinished") }
    }
}

/// The class as the harness sees it. `@unchecked Sendable` is sound: `probe` is a `let`.
final class ProbedCarefulMutex: CarefulMutexOperation, @unchecked Sendable {
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
