// A driver for a careful asynchronous Operation subclass, as a user's package would write one
// (Examples/async-operation): the tests run it in a child process, as the harness runs every
// driver. Not a product: a fixture of the test suite, built by `swift build`.
import OperationDriverKit
import Foundation

/// A careful asynchronous base class. `@unchecked Sendable` is sound: the flags are read and
/// written only under `lock`.
class Careful: Operation, @unchecked Sendable {
    private let lock = NSLock()
    private var executing = false, finished = false
    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.withLock { executing } }
    override var isFinished: Bool { lock.withLock { finished } }
    override func start() {
        if isCancelled { finish(); return }
        willChangeValue(forKey: "isExecuting"); lock.withLock { executing = true }; didChangeValue(forKey: "isExecuting")
        execute()
    }
    func execute() { finish() }
    func finish() {
        guard lock.withLock({ !finished }) else { return }
        willChangeValue(forKey: "isFinished"); willChangeValue(forKey: "isExecuting")
        lock.withLock { executing = false; finished = true }
        didChangeValue(forKey: "isExecuting"); didChangeValue(forKey: "isFinished")
    }
}

/// The class as the harness sees it. `@unchecked Sendable` is sound: `probe` is a `let`.
final class Probed: Careful, @unchecked Sendable {
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

/// A queue of another type, written with OperationQueue's names: it forwards to one, and
/// cannot tell which threads are its own. `@unchecked Sendable` is sound: `inner` is a `let`
/// and OperationQueue is thread-safe.
final class Forwarding: QueueUnderTest, @unchecked Sendable {
    let inner = OperationQueue()
    func addOperation(_ op: Operation) { inner.addOperation(op) }
    func addOperations(_ ops: [Operation], waitUntilFinished wait: Bool) { inner.addOperations(ops, waitUntilFinished: wait) }
    func cancelAllOperations() { inner.cancelAllOperations() }
    var isSuspended: Bool { get { inner.isSuspended } set { inner.isSuspended = newValue } }
    var maxConcurrentOperationCount: Int { get { inner.maxConcurrentOperationCount } set { inner.maxConcurrentOperationCount = newValue } }
    func waitUntilAllOperationsAreFinished() { inner.waitUntilAllOperationsAreFinished() }
    var operationCount: Int { inner.operationCount }
    var name: String? { get { inner.name } set { inner.name = newValue } }
}

// `--no-subclass`: the same driver without a subclass, to see it refuse subclass operations.
// `--forwarding-surface2`: a queue of another type, declaring API surface 2 (the public opt-in).
if CommandLine.arguments.contains("--forwarding-surface2") {
    OperationDriver(name: "forwarding", queue: { Forwarding() }, apiSurface2: true).main()
} else if CommandLine.arguments.contains("--no-subclass") {
    OperationDriver(name: "careful", queue: { OperationQueue() }).main()
} else {
    OperationDriver(name: "careful", subclass: { Probed($0) }).main()
}
