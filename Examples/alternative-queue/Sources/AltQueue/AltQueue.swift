import Foundation

/// A small operation queue written with `OperationQueue`'s names: operations start in order of
/// priority, first come first served within one, as many at once as the width allows, each on
/// a thread of its own, once they are ready. It can be suspended, cancelled and waited for.
///
/// `@unchecked Sendable` is sound: every stored `var` is read and written only while holding
/// `state`, which also lets waiters sleep until operations finish.
public final class AltQueue: @unchecked Sendable {
    /// A bug planted on purpose, to see the conformance harness catch it.
    public enum Bug: Sendable {
        /// `running <= width` where `running < width` was meant: one operation too many.
        case widthOffByOne
    }

    private let bug: Bug?
    /// Lock order: `state`, then whatever an operation's getters take (Foundation's own lock, a
    /// subclass's); no operation calls back into the queue while holding one of them.
    private let state = NSCondition()
    private var waiting: [Operation] = []   // added, not started; in the order they were added
    private var running: [Operation] = []   // started, not finished
    private var watched: [ObjectIdentifier] = []   // waiting operations a watcher waits for
    private var suspended = false
    private var width = -1
    private var label: String?

    public init(bug: Bug? = nil) { self.bug = bug }

    public var name: String? {
        get { locked { label } }
        set { locked { label = newValue } }
    }

    public var isSuspended: Bool {
        get { locked { suspended } }
        set {
            locked { suspended = newValue }
            schedule()
        }
    }

    /// -1 is no limit; 0 starts nothing.
    public var maxConcurrentOperationCount: Int {
        get { locked { width } }
        set {
            precondition(newValue >= -1, "maxConcurrentOperationCount must be -1 or more, not \(newValue)")
            locked { width = newValue }
            schedule()
        }
    }

    /// Operations added and not finished.
    public var operationCount: Int { locked { waiting.count + running.count } }

    public func addOperation(_ op: Operation) { addOperations([op], waitUntilFinished: false) }

    public func addOperations(_ ops: [Operation], waitUntilFinished wait: Bool) {
        // An operation belongs to one queue, once, and only before it has started (003
        // addOperation:). Cocoa throws and Foundation on Linux traps; a Swift method that does
        // not throw cannot refuse by an exception, and a trap is not a refusal (004 2.7.2: misuse
        // is reported, not fatal): AltQueue leaves such an operation out and says so on
        // standard error. It trapped here until the load test's 300 cases of seed 2 gave it a
        // misused operation (RUN-CRASH, AltQueue's own: a trap in AltQueue.swift).
        let accepted = ops.filter { op in
            if Self.claims.claim(op) && !op.isExecuting && !op.isFinished { return true }
            FileHandle.standardError.write(Data("AltQueue: refused \(op): already in a queue, executing or finished\n".utf8))
            return false
        }
        locked { waiting += accepted }
        schedule()
        if wait { for op in accepted { op.waitUntilFinished() } }
    }

    public func cancelAllOperations() {
        for op in locked({ waiting + running }) { op.cancel() }
        schedule()   // a cancelled operation is ready: it starts, skips its work and finishes
    }

    public func waitUntilAllOperationsAreFinished() {
        state.lock()
        while !waiting.isEmpty || !running.isEmpty { state.wait() }
        state.unlock()
    }

    /// Whether the calling thread is one of this queue's workers (each says whose it is).
    public var ownsCurrentThread: Bool? { Thread.current.threadDictionary[Self.worker] as? ObjectIdentifier == ObjectIdentifier(self) }
    private static let worker = "AltQueue.worker"

    /// Starts every ready operation there is room for, highest priority first, earliest first
    /// within one priority. Called whenever that may have changed: an operation was added or
    /// finished, a dependency finished, the queue was resumed, widened or cancelled.
    private func schedule() {
        state.lock()
        var starting: [Operation] = []
        while !suspended && hasRoom(), let next = nextReady() {
            running.append(waiting.remove(at: next))
            starting.append(running[running.count - 1])
        }
        // Foundation tells its own queue when an operation becomes ready; a queue of our own
        // cannot hear it (there is no KVO on Linux). So when there is room and nothing ready,
        // each waiting operation is watched: one thread waits for its dependencies to finish,
        // another looks whether it was cancelled (which makes it ready too).
        let unready = suspended || !hasRoom() ? [] : waiting.filter { op in !watched.contains(ObjectIdentifier(op)) }
        watched += unready.map(ObjectIdentifier.init)
        state.unlock()
        for op in starting { Thread { self.execute(op) }.start() }
        for op in unready {
            Thread { self.watch(op) }.start()
            Thread { self.watchCancellation(op) }.start()
        }
    }

    /// Called with `state` held.
    private func hasRoom() -> Bool {
        width < 0 || (bug == .widthOffByOne ? running.count <= width : running.count < width)
    }

    /// The index in `waiting` of the operation to start next, if one is ready. Called with
    /// `state` held.
    private func nextReady() -> Int? {
        let order = waiting.indices.sorted { a, b in
            let (pa, pb) = (waiting[a].queuePriority.rawValue, waiting[b].queuePriority.rawValue)
            return pa != pb ? pa > pb : a < b
        }
        return order.first { waiting[$0].isReady }
    }

    /// Runs on a worker thread: the operation's own start, then the wait for its finish (an
    /// asynchronous operation finishes after its start returns).
    private func execute(_ op: Operation) {
        Thread.current.threadDictionary[Self.worker] = ObjectIdentifier(self)
        // Chosen as ready under the lock, but a dependency may have been added since, and
        // Foundation's start traps on an operation that is not ready: look again just before,
        // and put it back to wait if so. The window between this look and Foundation's own is
        // left; it cannot be closed from outside Foundation.
        guard op.isReady || op.isCancelled else {
            locked {
                running.removeAll { $0 === op }
                waiting.append(op)
                watched.removeAll { $0 == ObjectIdentifier(op) }
            }
            return schedule()
        }
        op.start()
        op.waitUntilFinished()
        locked {
            running.removeAll { $0 === op }
            state.broadcast()
        }
        schedule()
    }

    /// Waits until none of `op`'s dependencies is unfinished, then lets the queue look again.
    /// An operation that is not ready although no dependency is unfinished (Foundation's
    /// `removeDependency` leaves one so) stays watched: nothing will change, and looking again
    /// at once would spin.
    private func watch(_ op: Operation) {
        var waited = false
        while let dependency = op.dependencies.first(where: { !$0.isFinished }) {
            dependency.waitUntilFinished()
            waited = true
        }
        // Every dependency says finished, but Foundation lowers the operation's count of
        // unfinished dependencies only after a dependency's finish is announced: for a moment
        // it is still not ready. Returning then left it watched and never looked at again
        // (QUEUE-PROGRESS and a hang, in 5 of 10 runs of 300 cases under 4x load). So it is
        // looked at for up to 50 ms; one that stays not ready with every dependency finished
        // (Foundation's removeDependency bug) stays watched, as looking again at once would spin.
        if !waited {
            var looked = 0
            while !op.isReady && looked < 50 { Thread.sleep(forTimeInterval: 0.001); looked += 1 }
            guard op.isReady else { return }
        }
        locked { watched.removeAll { $0 == ObjectIdentifier(op) } }
        schedule()
    }

    /// Looks whether a waiting `op` was cancelled: after 1 ms, 2 ms, 4 ms... then every 128 ms,
    /// for 2 s. Looking for ever would keep a run that is stuck from ever going quiet (the
    /// harness tells a hang by silence); not looking misses a cancel that nothing else follows
    /// (CANCEL-BEFORE-START-FINISHES caught that). Each look reads `isCancelled` under `state`,
    /// so the operation cannot start in between.
    private func watchCancellation(_ op: Operation) {
        var (delay, waited) = (0.001, 0.0)
        while waited < 2 {
            Thread.sleep(forTimeInterval: delay)
            waited += delay
            delay = min(delay * 2, 0.128)
            guard let cancelled = locked({ waiting.contains { $0 === op } ? op.isCancelled : nil }) else { return }
            if cancelled { return schedule() }
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        state.lock()
        defer { state.unlock() }
        return body()
    }

    /// The operations any queue of this kind has been given: an operation goes into one queue
    /// once. Each is kept alive here: an `ObjectIdentifier` is an address, and a freed
    /// operation's address is soon a new operation's, which was then refused as "already in a
    /// queue" and trapped (the harness found it once a trap in this file stopped passing for
    /// Foundation's: the driver serves case after case in one process).
    /// `@unchecked Sendable` is sound: `claimed` is read and written only under `lock`.
    private final class Claims: @unchecked Sendable {
        private let lock = NSLock()
        private var claimed: [ObjectIdentifier: Operation] = [:]   // looked up, never iterated
        func claim(_ op: Operation) -> Bool {
            lock.withLock {
                guard claimed[ObjectIdentifier(op)] == nil else { return false }
                claimed[ObjectIdentifier(op)] = op
                return true
            }
        }
    }
    private static let claims = Claims()
}
