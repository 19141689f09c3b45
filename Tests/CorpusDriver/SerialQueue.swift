import OperationDriverKit
import Foundation

/// Flags guarded by a private serial dispatch queue: reads with `sync`, writes with `async`
/// ("writes need not wait"), each write between its will- and did-change. The did-change may
/// be sent before the write has run, but a reader told of the change reads with `sync` on the
/// same serial queue, behind the write: it sees the new value. Correct.
///
/// `@unchecked Sendable` is sound: `_executing` and `_finished` are read and written only on
/// `stateQueue`, which runs one block at a time in the order they were submitted.
class SerialQueueOperation: Operation, @unchecked Sendable {
    /// Serial: every access to the flags runs on it, one at a time.
    private let stateQueue = DispatchQueue(label: "corpus.serial-queue.state")
    private var _executing = false
    private var _finished = false

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { stateQueue.sync { _executing } }
    override var isFinished: Bool { stateQueue.sync { _finished } }

    private func setExecuting(_ value: Bool) {
        willChangeValue(forKey: "isExecuting")
        stateQueue.async { self._executing = value }
        didChangeValue(forKey: "isExecuting")
    }

    private func setFinished(_ value: Bool) {
        willChangeValue(forKey: "isFinished")
        stateQueue.async { self._finished = value }
        didChangeValue(forKey: "isFinished")
    }

    override func start() {
        if isCancelled {
            setFinished(true)
            return
        }
        setExecuting(true)
        execute()
    }

    func execute() { finish() }

    func finish() {
        setExecuting(false)
        setFinished(true)
    }
}

/// The class as the harness sees it. `@unchecked Sendable` is sound: `probe` is a `let`.
final class ProbedSerialQueue: SerialQueueOperation, @unchecked Sendable {
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
