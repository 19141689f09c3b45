/// One statement of an operation body, a block, a completion block or a subclass method.
/// `self` is the operation the code belongs to.
public indirect enum Step: Codable, Sendable, Equatable {
    /// Busy for some virtual time units (on a real implementation, a short bounded spin).
    case work(Int)
    /// `if ([self isCancelled]) return;`: the cancellation check of 004 2.5.2.
    case returnIfCancelled
    case `if`(Condition, then: [Step], else: [Step])
    case `repeat`(Int, [Step])
    case `return`
    /// `[self willChangeValueForKey:]` / `didChangeValueForKey:` (concurrent subclasses).
    case willChange(StateKey)
    case didChange(StateKey)
    /// `[self willChangeValueForKey:@"finished"]`: the notification sent under the key's name
    /// without its `is` prefix (`executing`, `finished`, `cancelled`, `ready`, `concurrent`), a
    /// subclass flaw (`unprefixed-keys`): the key paths a queue and the documents observe are
    /// `isExecuting` and `isFinished` (004 2.5.4), so where key-value observing is real nobody
    /// who watches `isFinished` hears it. Only the five `is` keys may be named.
    case willChangeUnprefixed(StateKey)
    case didChangeUnprefixed(StateKey)
    /// Store into the subclass's `executing` or `finished` ivar (concurrent subclasses).
    case set(StateKey, Bool)
    /// Call a helper routine of the subclass by name (e.g. `completeOperation`).
    case call(String)
    /// Call `[self main]` synchronously.
    case callMain
    /// `[super start]`: a concurrent subclass must never do this (003 start; 004 Table 2-2).
    case callSuperStart
    /// `[NSThread detachNewThreadSelector:… toTarget:op …]`: run a method of an operation on a new thread.
    case spawn(Method, OpRef)
    /// Call `start` on an operation from this code (e.g. "start self again", Listing 2-8's manual start).
    case start(OpRef)
    case cancel(OpRef)
    /// Read a state property of an operation; the value lands in the trace.
    case read(StateKey, OpRef)
    /// Rendezvous: make token `n` available (sticky).
    case signal(Int)
    /// Rendezvous: wait for token `n`, at most `timeout` work units; the outcome lands in the trace.
    case await(Int, timeout: Int)
    /// Read `[NSOperationQueue currentQueue]` (`OperationQueue.current`) from this code; the
    /// value lands in the trace as `currentQueue(op: self, queue)`. API surface 2.
    case readCurrentQueue
    /// `[queue cancelAllOperations]` on the scenario's queue `n`, from this code: a queue
    /// cancelled from the inside by one of its own operations, as corelibs' peer suite does
    /// (API surface 3). The call and its return land in the trace as the driver's would, on
    /// the thread that runs this code.
    case cancelAll(Int)
    /// Read `OperationQueue.current?.underlyingQueue` from this code; the value lands in the
    /// trace as `underlyingQueue(op: self, dispatchQueue)`, the scenario's dispatch queue or
    /// none. Needs the `dispatchQueues` capability.
    case readUnderlyingQueue

    /// The units a `work` step may last, the times a `repeat` may run its body, the units an
    /// `await` may wait: what `Scenario.problems()` allows.
    public static let workRange = 0...1_000_000
    public static let repeatRange = 0...10_000
    public static let awaitTimeoutRange = 1...1_000_000
}

public enum Method: String, Codable, Sendable, Equatable, CaseIterable {
    case start, main
}

public enum OpRef: Codable, Sendable, Equatable {
    case this
    case op(Int)
    public func resolve(_ this: Int) -> Int {
        switch self { case .this: return this; case .op(let n): return n }
    }
}

public indirect enum Condition: Codable, Sendable, Equatable {
    case isCancelled(OpRef)
    case isReady(OpRef)
    case isConcurrent(OpRef)
    case isExecuting(OpRef)
    case isFinished(OpRef)
    case not(Condition)
    case and(Condition, Condition)
}
