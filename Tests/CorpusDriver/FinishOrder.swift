import OperationDriverKit
import Foundation

/// Locked flags and Listing 2-6's start, but a finish that announces finished before it resets
/// executing: between the two, the operation reports both YES (labelled
/// `finished-before-executing-reset`). Foundation's queue reads the flags inside the first
/// did-change, so whoever it wakes sees the window.
///
/// `@unchecked Sendable` is sound: the flags are read and written only under `lock`.
class FinishOrderOperation: Operation, @unchecked Sendable {
    /// Guards both flags; never held around a KVO call.
    private let lock = NSLock()
    private var executing = false
    private var finished = false

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.withLock { executing } }
    override var isFinished: Bool { lock.withLock { finished } }

    override func start() {
        guard !isCancelled else {
            willChangeValue(forKey: "isFinished")
            lock.withLock { finished = true }
            didChangeValue(forKey: "isFinished")
            return
        }
        willChangeValue(forKey: "isExecuting")
        lock.withLock { executing = true }
        didChangeValue(forKey: "isExecuting")
        execute()
    }

    func execute() { finish() }

    func finish() {
        willChangeValue(forKey: "isFinished")
        lock.withLock { finished = true }
        didChangeValue(forKey: "isFinished")
        willChangeValue(forKey: "isExecuting")
        lock.withLock { executing = false }
        didChangeValue(forKey: "isExecuting")
    }
}

/// The class as the harness sees it. `@unchecked Sendable` is sound: `probe` is a `let`.
final class ProbedFinishOrder: FinishOrderOperation, @unchecked Sendable {
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
