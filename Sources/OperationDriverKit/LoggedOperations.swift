import Foundation
import OperationSpec

/// The role of the current thread, for telling who called `start`: the driver, an operation's
/// own code, or (by default) a queue.
enum ThreadRole {
    static let key = "opconform.role"
    static var current: Caller {
        (Thread.current.threadDictionary[key] as? String).flatMap(Caller.init(rawValue:)) ?? .queue
    }
    static func with<T>(_ role: Caller, _ body: () -> T) -> T {
        let old = Thread.current.threadDictionary[key]
        Thread.current.threadDictionary[key] = role.rawValue
        defer { Thread.current.threadDictionary[key] = old }
        return body()
    }
}

/// What every operation subclass of a run needs: the recorder and the step interpreter.
protocol LoggedOperation: Operation {
    var index: Int { get }
    var context: DriverContext { get }
    /// Held while a getter reads its value and logs it (`logged`).
    var readLock: QuietLock { get }
    /// The token the operation's `isReady` override waits for (`OperationConfig.readyAfterSignal`),
    /// or nil for `isReady` as inherited.
    var readyToken: Int? { get }
}

extension LoggedOperation {
    func log(_ kind: EventKind) { context.recorder.record(kind) }
    /// A call bracketed by `call` and `returned` events (the bodies of the overrides below:
    /// Swift keeps overrides in each class, the logging lives here once).
    func logCall(_ call: Call, _ body: () -> Void) {
        log(.call(call))
        body()
        log(.returned(call))
    }
    func logStart(_ body: () -> Void) { logCall(.start(index, by: ThreadRole.current), body) }
    func logCancel(_ body: () -> Void) { logCall(.cancel(index), body) }
    /// The overridden `isReady`: the inherited answer, and NO until `readyToken` has been
    /// signalled (004, "Configuring Interoperation Dependencies": return NO until your custom
    /// condition holds, and call super to keep the default dependency management). The token
    /// is asked from whatever thread calls the getter; the recorder guards it.
    func ready(_ inherited: Bool) -> Bool {
        inherited && (readyToken.map(context.recorder.isSignalled) ?? true)
    }
    /// Reads a state getter and logs what it read, as one step: two threads reading at once
    /// log their values in the order they read them. Read and logged apart, a reader that saw
    /// isFinished NO could log it after another thread had read and logged YES, and the trace
    /// would show the operation going back to unfinished (STATE-FINISHED-MONOTONIC) when only
    /// the logging raced: a queue that watches its operations from several threads (one of a
    /// user's, `QueueUnderTest`) did it once in 300 cases.
    /// Lock order: `readLock`, then Foundation's own locks inside the getter, then the
    /// recorder's; the getters call nothing that takes `readLock` again.
    /// Timing noise comes before the lock is taken and after it is let go (`perturbing`: false
    /// for a caller that holds a lock of its own around this, and perturbs around that lock).
    func logged<T: Equatable>(_ key: StateKey, perturbing: Bool = true, _ value: () -> T, _ wrap: (T) -> Value) -> T {
        if perturbing { context.recorder.perturb() }
        let v: T = readLock.withLock {
            let v = value()
            context.recorder.record(.read(op: index, key, wrap(v)), perturbing: false)
            return v
        }
        if perturbing { context.recorder.perturb() }
        return v
    }
}

/// A plain subclass that overrides `main` (and an invocation operation, which Linux lacks).
/// Its getters log every call, the queue's own included: what the queue saw is evidence too.
///
/// `@unchecked Sendable` (inherited from Operation) is sound: the stored properties are `let`.
final class MainOperation: Operation, LoggedOperation, @unchecked Sendable {
    let index: Int
    let body: [Step]
    let readyToken: Int?
    unowned let context: DriverContext
    let readLock = QuietLock()

    init(index: Int, body: [Step], readyToken: Int? = nil, context: DriverContext) {
        self.index = index
        self.body = body
        self.readyToken = readyToken
        self.context = context
    }

    override func main() {
        log(.mainBegan(op: index, threadPriority: DriverContext.unknownPriority))
        context.run(body, this: index)
        log(.mainEnded(op: index))
    }
    override func start() { logStart { super.start() } }
    override func cancel() { logCancel { super.cancel() } }
    override var isReady: Bool { logged(.isReady, { ready(super.isReady) }, Value.bool) }
    override var isExecuting: Bool { logged(.isExecuting, { super.isExecuting }, Value.bool) }
    override var isFinished: Bool { logged(.isFinished, { super.isFinished }, Value.bool) }
    override var isCancelled: Bool { logged(.isCancelled, { super.isCancelled }, Value.bool) }
}

/// A block operation whose blocks and main log themselves.
///
/// `@unchecked Sendable` (inherited) is sound: the stored properties are `let`.
final class LoggedBlockOperation: BlockOperation, LoggedOperation, @unchecked Sendable {
    let index: Int
    let readyToken: Int?
    unowned let context: DriverContext
    let readLock = QuietLock()

    init(index: Int, readyToken: Int? = nil, context: DriverContext) {
        self.index = index
        self.readyToken = readyToken
        self.context = context
    }

    func addLoggedBlock(_ number: Int, _ body: [Step]) {
        let (index, context) = (self.index, self.context)
        addExecutionBlock {
            context.recorder.record(.blockBegan(op: index, block: number))
            context.run(body, this: index)
            context.recorder.record(.blockEnded(op: index, block: number))
        }
    }

    override func main() {
        log(.mainBegan(op: index, threadPriority: DriverContext.unknownPriority))
        super.main()
        log(.mainEnded(op: index))
    }
    override func start() { logStart { super.start() } }
    override func cancel() { logCancel { super.cancel() } }
    override var isReady: Bool { logged(.isReady, { ready(super.isReady) }, Value.bool) }
    override var isExecuting: Bool { logged(.isExecuting, { super.isExecuting }, Value.bool) }
    override var isFinished: Bool { logged(.isFinished, { super.isFinished }, Value.bool) }
    override var isCancelled: Bool { logged(.isCancelled, { super.isCancelled }, Value.bool) }
}

/// An asynchronous subclass running its step program for real: its own `start`, `main`,
/// `executing` and `finished` ivars, and its own will/did-change calls. On Linux the will-change
/// does nothing and the did-change for isFinished is how the queue learns the operation finished.
///
/// `@unchecked Sendable` is sound: the ivars are read and written only under `lock`; the other
/// stored properties are `let`.
final class ProgramOperation: Operation, LoggedOperation, @unchecked Sendable {
    let index: Int
    let program: ConcurrentProgram
    let readyToken: Int?
    unowned let context: DriverContext
    let readLock = QuietLock()
    private let lock = NSLock()
    private var executingIvar = false
    private var finishedIvar = false

    init(index: Int, program: ConcurrentProgram, readyToken: Int? = nil, context: DriverContext) {
        self.index = index
        self.program = program
        self.readyToken = readyToken
        self.context = context
    }

    /// Stores into an ivar and logs the store under the lock the getters read and log under,
    /// so the trace orders stores and reads as they happened: a store logged before it is
    /// made would let a reader log the old value after it (seen as isFinished going back to NO).
    /// Lock order: `lock`, then the recorder's; nothing takes them the other way round.
    /// Timing noise comes before the lock is taken and after it is let go.
    func set(_ key: StateKey, _ value: Bool) {
        context.recorder.perturb()
        lock.withLock {
            if key == .isExecuting { executingIvar = value } else if key == .isFinished { finishedIvar = value }
            context.recorder.record(.set(op: index, key, value), perturbing: false)
        }
        context.recorder.perturb()
    }

    func superStart() { super.start() }

    override var isAsynchronous: Bool { program.overridesIsConcurrent }
    override var isExecuting: Bool {
        context.recorder.perturb()
        let v = lock.withLock { logged(.isExecuting, perturbing: false, { executingIvar }, Value.bool) }
        context.recorder.perturb()
        return v
    }
    override var isFinished: Bool {
        context.recorder.perturb()
        let v = lock.withLock { logged(.isFinished, perturbing: false, { finishedIvar }, Value.bool) }
        context.recorder.perturb()
        return v
    }
    override var isReady: Bool { logged(.isReady, { ready(super.isReady) }, Value.bool) }
    override var isCancelled: Bool { logged(.isCancelled, { super.isCancelled }, Value.bool) }

    override func start() { logStart { context.run(program.start, this: index) } }
    override func main() {
        log(.mainBegan(op: index, threadPriority: DriverContext.unknownPriority))
        context.run(program.main, this: index)
        log(.mainEnded(op: index))
    }
    override func cancel() { logCancel { super.cancel() } }
}
