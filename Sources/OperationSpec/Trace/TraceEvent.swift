/// One thing that happened, in the order it happened. `seq` is the event's position in the
/// trace, `thread` a small number naming the thread it happened on (0 is the driving thread).
public struct TraceEvent: Codable, Sendable, Equatable {
    public var seq: Int
    public var thread: Int
    public var kind: EventKind
    public init(seq: Int, thread: Int, _ kind: EventKind) {
        self.seq = seq
        self.thread = thread
        self.kind = kind
    }
}

public enum EventKind: Codable, Sendable, Equatable {
    /// A thread's first event: its name (queue worker threads carry the queue's naming scheme).
    case threadStarted(name: String, queue: Int?)
    case stepIssued(Int)
    case stepDone(Int)
    case triggerMissed(Int)
    case call(Call)
    case returned(Call)
    case threw(Call, MisuseKind, String)
    case mainBegan(op: Int, threadPriority: Double)
    case mainEnded(op: Int)
    case blockBegan(op: Int, block: Int)
    case blockEnded(op: Int, block: Int)
    case completionBegan(op: Int, threadPriority: Double)
    case completionEnded(op: Int)
    case willChange(op: Int, StateKey, Value)
    case didChange(op: Int, StateKey, Value)
    case read(op: Int, StateKey, Value)
    /// A concurrent subclass stored into its `executing` / `finished` ivar.
    case set(op: Int, StateKey, Bool)
    /// Code of `op`, an instance of the implementation's own subclass, called
    /// `didChangeValue(forKey: key)` (or its key-path form): what the class announced, whatever
    /// the key, misspelled ones included. `affects`: the state keys the class declares `key` as
    /// affecting (its `keyPathsForValuesAffecting<Key>`, as the probe was told); nil when the
    /// class declared nothing at all. Recorded by drivers with the `announcements` observation
    /// (Specs/trace-format.md, "announced").
    case announced(op: Int, key: String, affects: [StateKey]?)
    case operationCount(queue: Int, Int)
    /// What `[queue operations]` returned, in its order: the scenario's operation numbers, -1
    /// for an operation the driver does not know (one a queue made for an `addBlock` block).
    /// API surface 3.
    case operations(queue: Int, ops: [Int])
    /// What `[queue isSuspended]` returned (API surface 2).
    case suspended(queue: Int, Bool)
    /// What `[NSOperationQueue currentQueue]` returned to code of `op`: the scenario's queue, or
    /// nil for none of the scenario's queues (nil, the main queue, or a queue the scenario did
    /// not make). API surface 2.
    case currentQueue(op: Int, queue: Int?)
    /// What `[NSOperationQueue mainQueue]` returned to a `readMainQueue` action, on the driving
    /// thread: `same`, whether it is the object the case's first such read returned (true on
    /// the first); `suspended`, its `isSuspended`; `current`, whether `currentQueue` on the
    /// driving thread returned it too. API surface 4.
    case mainQueue(same: Bool, suspended: Bool, current: Bool)
    /// Whether a queue the driver let go of had been deallocated when a `readQueueDeallocated`
    /// action asked. API surface 4.
    case queueDeallocated(queue: Int, deallocated: Bool)
    /// What `OperationQueue.current?.underlyingQueue` returned to code of `op`: the scenario's
    /// dispatch queue, or nil for none of them. The `dispatchQueues` capability.
    case underlyingQueue(op: Int, dispatchQueue: Int?)
    /// Code of `op` began a unit of work of the given length.
    case work(op: Int, units: Int)
    case signal(token: Int)
    case awaited(token: Int, satisfied: Bool)
    case invocationResult(op: Int)
    /// The implementation died: signal number (0 if none) and its last words.
    case crash(signal: Int, message: String)
    /// Nothing more could happen while something still waited: what was pending.
    case hang(String)
    /// The implementation cannot perform a step (an API it lacks): it says why and goes on.
    case unsupported(String)
    /// The run was stopped before it could end (a step budget ran out): a truncated trace.
    case cut(String)
    /// The driver broke the protocol (a line that is not a message, an `error` answer, a `seq`
    /// out of order, an exit before the trace's last event...): what it did. The harness writes
    /// this event, never a driver. A trace that ends with it is not judged: the driver's
    /// account of what the implementation did cannot be trusted, and the fault is the driver's
    /// (or the harness's), not the implementation's.
    case breach(String)
    /// The run ended normally: every thread finished.
    case end

    /// Whether this kind is a trace's last event (`end`, `hang`, `crash`, `cut`, `breach`):
    /// nothing follows it.
    public var endsTrace: Bool {
        switch self {
        case .end, .hang, .crash, .cut, .breach: return true
        default: return false
        }
    }
}

/// The ordered history one run produced. A trace is data: it can be written, read back and
/// checked again offline.
public struct Trace: Codable, Sendable, Equatable {
    public var impl: String
    public var scheduleSeed: UInt64
    /// What this implementation could observe while producing the trace.
    public var capabilities: [Observation]
    public var events: [TraceEvent]

    public init(impl: String, scheduleSeed: UInt64, capabilities: [Observation], events: [TraceEvent]) {
        self.impl = impl
        self.scheduleSeed = scheduleSeed
        self.capabilities = capabilities
        self.events = events
    }

    /// How the run ended: normally, by a hang, a crash, or cut short.
    public var ending: Ending {
        switch events.last?.kind {
        case .end?: return .complete
        case .hang?: return .hang
        case .crash?: return .crash
        case .breach?: return .breach
        default: return .truncated
        }
    }

    /// `breach`: the driver broke the protocol, and the case was not judged.
    public enum Ending: String, Sendable { case complete, hang, crash, truncated, breach }
}
