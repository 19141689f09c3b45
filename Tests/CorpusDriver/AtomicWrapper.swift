import OperationDriverKit
import Foundation

/// A value behind a lock, read and written whole: the `@Atomic` wrapper of many code bases.
///
/// `@unchecked Sendable` is sound: `value` is read and written only under `lock`.
@propertyWrapper
final class Atomic<Value>: @unchecked Sendable {
    /// Guards `value`, for one read or one write (not a read-modify-write: that is the style's
    /// known weakness, see `AtomicWrapperOperation.finish`).
    private let lock = NSLock()
    private var value: Value

    init(wrappedValue: Value) { value = wrappedValue }

    var wrappedValue: Value {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}

/// Flags in `@Atomic` wrappers, each set between its will- and did-change.
///
/// `@unchecked Sendable` is sound for the flags (each read and write is under its wrapper's
/// lock); `finish` tests and sets in two steps (labelled `check-then-act-finish`).
class AtomicWrapperOperation: Operation, @unchecked Sendable {
    @Atomic private var executing = false
    @Atomic private var finished = false

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { executing }
    override var isFinished: Bool { finished }

    override func start() {
        guard !isCancelled else {
            finish()
            return
        }
        willChangeValue(forKey: "isExecuting")
        executing = true
        didChangeValue(forKey: "isExecuting")
        execute()
    }

    func execute() { finish() }

    func finish() {
        guard !finished else { return }
        willChangeValue(forKey: "isFinished")
        willChangeValue(forKey: "isExecuting")
        executing = false
        finished = true
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
    }
}

/// The class as the harness sees it. `@unchecked Sendable` is sound: `probe` is a `let`.
final class ProbedAtomicWrapper: AtomicWrapperOperation, @unchecked Sendable {
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
