import OperationDriverKit
import Foundation

/// Careful-lock's class with a cancelled flag of its own: `cancel()` sets it whatever the state,
/// and `isCancelled` returns it. A finished operation cancelled later reports isCancelled YES,
/// which the class reference says a cancel of a finished operation must not change (issue 44:
/// one of the public classes did this; a first run never cancelled a finished operation).
/// Everything else is careful-lock's own code, inherited: its start checks this `isCancelled`.
///
/// `@unchecked Sendable` is sound: `_cancelled` is read and written only under `flagLock`, and
/// the rest is careful-lock's, sound there.
class CancelFlagOperation: CarefulLockOperation, @unchecked Sendable {
    /// Guards `_cancelled`; never held around a KVO call.
    private let flagLock = NSLock()
    private var _cancelled = false

    override var isCancelled: Bool { flagLock.withLock { _cancelled } }

    override func cancel() {
        willChangeValue(forKey: "isCancelled")
        flagLock.withLock { _cancelled = true }
        didChangeValue(forKey: "isCancelled")
        super.cancel()
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
