import OperationDriverKit
import Foundation

/// A mutex at a stable address, as `os_unfair_lock` must be on Darwin: a pthread mutex here.
///
/// `@unchecked Sendable` is sound: the mutex is made for use from several threads, and its
/// memory is allocated once, never moved, and freed only in `deinit`.
final class UnfairLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }
}

/// Flags under an unfair-lock-style mutex, KVO pairs around each change; its `start` never
/// checks `isCancelled` (labelled `start-ignores-cancel`).
///
/// `@unchecked Sendable` is sound: the flags are read and written only under `lock`.
class UnfairLockOperation: Operation, @unchecked Sendable {
    /// Guards `executing` and `finished`; never held around a KVO call.
    private let lock = UnfairLock()
    private var executing = false
    private var finished = false

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.locked { executing } }
    override var isFinished: Bool { lock.locked { finished } }

    override func start() {
        willChangeValue(forKey: "isExecuting")
        lock.locked { executing = true }
        didChangeValue(forKey: "isExecuting")
        execute()
    }

    func execute() { finish() }

    func finish() {
        willChangeValue(forKey: "isFinished")
        willChangeValue(forKey: "isExecuting")
        lock.locked {
            executing = false
            finished = true
        }
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
    }
}

/// The class as the harness sees it. `@unchecked Sendable` is sound: `probe` is a `let`.
final class ProbedUnfairLock: UnfairLockOperation, @unchecked Sendable {
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
