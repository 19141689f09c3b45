import OperationDriverKit
import Foundation

/// What the task holds while it runs: when the last reference to it goes, the operation
/// finishes ("the task cannot forget to finish").
final class FinishToken: Sendable {
    private let onRelease: @Sendable () -> Void
    init(onRelease: @escaping @Sendable () -> Void) { self.onRelease = onRelease }
    deinit { onRelease() }
}

/// Locked flags; `start` hands the task a `FinishToken` whose `deinit` finishes the operation
/// (labelled `finish-on-release`: right while nothing else keeps the token).
///
/// `@unchecked Sendable` is sound: the flags are read and written only under `lock`.
class DeinitTokenOperation: Operation, @unchecked Sendable {
    /// Guards `executing` and `finished`; never held around a KVO call.
    private let lock = NSLock()
    private var executing = false
    private var finished = false

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.withLock { executing } }
    override var isFinished: Bool { lock.withLock { finished } }

    override func start() {
        guard !isCancelled else {
            finish()
            return
        }
        willChangeValue(forKey: "isExecuting")
        lock.withLock { executing = true }
        didChangeValue(forKey: "isExecuting")
        execute(holding: FinishToken { [self] in finish() })
    }

    /// Starts the task, which keeps `token` until it is done.
    func execute(holding token: FinishToken) {}

    func finish() {
        willChangeValue(forKey: "isFinished")
        willChangeValue(forKey: "isExecuting")
        lock.withLock {
            executing = false
            finished = true
        }
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
    }
}

/// The class as the harness sees it. `@unchecked Sendable` is sound: `probe` is a `let`.
final class ProbedDeinitToken: DeinitTokenOperation, @unchecked Sendable {
    let probe: SubclassProbe
    init(_ probe: SubclassProbe) { self.probe = probe; super.init() }
    override func execute(holding token: FinishToken) { probe.work(then: { withExtendedLifetime(token) {} }) }
    override func start() { probe.start { super.start() } }
    override func cancel() { probe.cancel { super.cancel() } }
    override var isReady: Bool { probe.isReady { super.isReady } }
    override var isExecuting: Bool { probe.isExecuting { super.isExecuting } }
    override var isFinished: Bool { probe.isFinished { super.isFinished } }
    override var isCancelled: Bool { probe.isCancelled { super.isCancelled } }
}
