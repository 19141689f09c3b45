import OperationDriverKit
import Foundation

/// A state enum whose `willSet`/`didSet` send will- and did-change pairs for the keys of the old
/// and the new state, the most common style of the tutorials (`#keyPath(isExecuting)` on Darwin,
/// where `#keyPath` needs the Objective-C runtime: the strings here).
///
/// `@unchecked Sendable` is unsound on purpose, as in the wild: `state` has no lock (labelled
/// `unlocked-state`, a data race no trace shows).
class StateKVOOperation: Operation, @unchecked Sendable {
    enum State: String {
        case ready, executing, finished
        var key: String { "is" + rawValue.prefix(1).uppercased() + rawValue.dropFirst() }
    }

    var state = State.ready {
        willSet {
            willChangeValue(forKey: newValue.key)
            willChangeValue(forKey: state.key)
        }
        didSet {
            didChangeValue(forKey: oldValue.key)
            didChangeValue(forKey: state.key)
        }
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

    /// The task: starts it and calls `finish()` when it is done.
    func execute() { finish() }

    func finish() { state = .finished }
}

/// The class as the harness sees it. `@unchecked Sendable` is sound for what it adds: `probe`
/// is a `let`.
final class ProbedStateKVO: StateKVOOperation, @unchecked Sendable {
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
