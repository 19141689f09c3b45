import OperationDriverKit
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
        /// Whether a finish has begun.
        var claimed = false
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
        // Claimed in one critical section: only the first call announces anything, so every
        // will-change has its did-change.
        let first = flags.withLock { f -> Bool in
            guard !f.claimed else { return false }
            f.claimed = true
            return true
        }
        guard first else { return }
        willChangeValue(forKey: "isFinished")
        willChangeValue(forKey: "isExecuting")
        flags.withLock {
            $0.executing = false
            $0.finished = true
        }
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
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
