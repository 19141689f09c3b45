import Foundation

/// An asynchronous operation base class with a timeout, written the way code that hands its
/// object to a C callback often is: the timer's context is the operation itself, unretained
/// ("to avoid a retain cycle"). Subclasses override `execute()` and call `finish()`.
///
/// Its state is locked and its start and finish are careful, so every rule of the documents
/// holds. Its one mistake is a memory error: the timer is not cancelled when the operation
/// finishes, and when it fires after the queue and its owner let go of the operation, the
/// handler reads freed memory. Swift's own checks cannot see it (the pointer is unmanaged);
/// AddressSanitizer can (`opconform run --sanitize address`, Specs/sanitizers.md).
///
/// `@unchecked Sendable` is sound for the state: `executing`, `finished` and `timedOut` are read
/// and written only under `lock`. The unretained pointer is the defect, on purpose.
open class TimeoutAsyncOperation: Operation, @unchecked Sendable {
    private let lock = NSLock()
    private var executing = false
    private var finished = false
    private var timedOut = false
    /// How long the task may run before the timeout marks it late.
    public let timeout: TimeInterval

    public init(timeout: TimeInterval = 0.02) {
        self.timeout = timeout
        super.init()
    }

    open override var isAsynchronous: Bool { true }
    open override var isExecuting: Bool { lock.withLock { executing } }
    open override var isFinished: Bool { lock.withLock { finished } }
    /// Whether the task ran past its timeout.
    public var isTimedOut: Bool { lock.withLock { timedOut } }

    open override func start() {
        if isCancelled {
            finish()
            return
        }
        willChangeValue(forKey: "isExecuting")
        lock.withLock { executing = true }
        didChangeValue(forKey: "isExecuting")
        armTimeout()
        execute()
    }

    /// The task: subclasses start it here and call `finish()` when it is done.
    open func execute() { finish() }

    public func finish() {
        let first: Bool = lock.withLock { !finished }
        guard first else { return }
        willChangeValue(forKey: "isFinished")
        willChangeValue(forKey: "isExecuting")
        lock.withLock {
            executing = false
            finished = true
        }
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
    }

    /// The mistake: the handler's context is `self`, unretained, and nothing cancels the timer.
    private func armTimeout() {
        let context = UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque())
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
            guard let pointer = UnsafeRawPointer(bitPattern: context) else { return }
            let operation = Unmanaged<TimeoutAsyncOperation>.fromOpaque(pointer).takeUnretainedValue()
            operation.timeoutFired()
        }
    }

    private func timeoutFired() {
        lock.withLock { if !finished { timedOut = true } }
    }
}
