import OperationDriverKit
import Foundation

/// Locked flags announced through a helper that builds the key from the property's name, and
/// builds it wrong: `"is" + "isFinished"`, so the class announces `isisFinished` (and
/// `isisExecuting`), keys no observer watches. Nothing tells a queue the operation finished, on
/// Darwin as on Linux.
///
/// `@unchecked Sendable` is sound: the flags are read and written only under `lock`.
class MisspelledKeyOperation: Operation, @unchecked Sendable {
    /// Guards the two flags; never held around a KVO call.
    private let lock = NSLock()
    private var _executing = false
    private var _finished = false

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.withLock { _executing } }
    override var isFinished: Bool { lock.withLock { _finished } }

    /// The defect: `name` is already `isExecuting` or `isFinished`.
    private func announce(_ name: String, _ change: () -> Void) {
        willChangeValue(forKey: "is" + name)
        change()
        didChangeValue(forKey: "is" + name)
    }

    override func start() {
        if isCancelled {
            announce("isFinished") { lock.withLock { _finished = true } }
            return
        }
        announce("isExecuting") { lock.withLock { _executing = true } }
        execute()
    }

    func execute() { finish() }

    func finish() {
        announce("isExecuting") { lock.withLock { _executing = false } }
        announce("isFinished") { lock.withLock { _finished = true } }
    }
}

/// The class as the harness sees it. `@unchecked Sendable` is sound: `probe` is a `let`.
final class ProbedMisspelledKey: MisspelledKeyOperation, @unchecked Sendable {
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
