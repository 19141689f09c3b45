import OperationDriverKit
import Foundation

/// A locked state enum whose `isReady` getter "refreshes" the state: whenever `super.isReady`
/// says YES it writes `state = .ready`, so reading `isReady` sends a running or finished
/// operation back to ready (labelled `ready-read-resets-state`).
///
/// `@unchecked Sendable` is sound for the memory: `_state` is read and written only under `lock`.
class ReadyWritesOperation: Operation, @unchecked Sendable {
    enum State { case ready, executing, finished }

    /// Guards `_state`; never held around a KVO call.
    private let lock = NSLock()
    private var _state = State.ready

    /// Announces isExecuting and isFinished around each change (not isReady: Foundation reads
    /// isReady when told it changed, which would write the state again).
    var state: State {
        get { lock.withLock { _state } }
        set {
            willChangeValue(forKey: "isExecuting")
            willChangeValue(forKey: "isFinished")
            lock.withLock { _state = newValue }
            didChangeValue(forKey: "isFinished")
            didChangeValue(forKey: "isExecuting")
        }
    }

    override var isReady: Bool {
        let ready = super.isReady
        if ready && state != .ready { state = .ready }
        return ready && state == .ready
    }
    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { state == .executing }
    override var isFinished: Bool { state == .finished }

    override func start() {
        if isCancelled {
            state = .finished
            return
        }
        state = .executing
        execute()
    }

    func execute() { finish() }

    func finish() { state = .finished }
}

/// The class as the harness sees it. `@unchecked Sendable` is sound: `probe` is a `let`.
final class ProbedReadyWrites: ReadyWritesOperation, @unchecked Sendable {
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
