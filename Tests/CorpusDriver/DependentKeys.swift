import OperationDriverKit
import Foundation

/// A locked state enum announced only as a change of `state`; `isExecuting`, `isFinished` and
/// `isReady` name `state` as the key affecting them (`keyPathsForValuesAffecting<Key>`), so that
/// KVO on Darwin announces their changes with `state`'s. Correct by 004 2.5.4 on Darwin; Linux's
/// Foundation has no dependent keys (nothing calls these methods, and its queue reacts only to a
/// did-change of `isFinished` itself), so its queue never learns the operation finished: a
/// platform limit, not the class's defect.
///
/// `@unchecked Sendable` is sound: `_state` is read and written only under `lock`.
class DependentKeysOperation: Operation, @unchecked Sendable {
    enum State { case ready, executing, finished }

    /// Guards `_state`; held only for the read or the write, never around a KVO call.
    private let lock = NSLock()
    private var _state = State.ready

    var state: State {
        get { lock.withLock { _state } }
        set {
            willChangeValue(forKey: "state")
            lock.withLock { _state = newValue }
            didChangeValue(forKey: "state")
        }
    }

    // `@objc class func` on Darwin, where KVO calls them; Linux has no Objective-C runtime.
    class func keyPathsForValuesAffectingIsReady() -> Set<String> { ["state"] }
    class func keyPathsForValuesAffectingIsExecuting() -> Set<String> { ["state"] }
    class func keyPathsForValuesAffectingIsFinished() -> Set<String> { ["state"] }

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

/// The class as the harness sees it, its dependent keys declared to the probe (the line the
/// harness needs to excuse Linux's missing dependent keys). `@unchecked Sendable` is sound:
/// `probe` is a `let`.
final class ProbedDependentKeys: DependentKeysOperation, @unchecked Sendable {
    let probe: SubclassProbe
    init(_ probe: SubclassProbe) {
        self.probe = probe
        super.init()
        probe.declare(Self.keyPathsForValuesAffectingIsFinished(), affecting: .isFinished)
        probe.declare(Self.keyPathsForValuesAffectingIsExecuting(), affecting: .isExecuting)
    }
    override func execute() { probe.work(then: finish) }
    override func start() { probe.start { super.start() } }
    override func cancel() { probe.cancel { super.cancel() } }
    override var isReady: Bool { probe.isReady { super.isReady } }
    override var isExecuting: Bool { probe.isExecuting { super.isExecuting } }
    override var isFinished: Bool { probe.isFinished { super.isFinished } }
    override var isCancelled: Bool { probe.isCancelled { super.isCancelled } }
}

/// The same class without the declaration: what the harness cannot prove (the finish is
/// announced as `state`, and nothing says `state` affects isFinished) is left unconfirmed.
/// `@unchecked Sendable` is sound: `probe` is a `let`.
final class ProbedUndeclaredKeys: DependentKeysOperation, @unchecked Sendable {
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
