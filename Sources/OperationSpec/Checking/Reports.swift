/// An operation's reports of one state key (reads and did-change notifications), in trace
/// order, each with its value: read in place from the trace as the collection is walked.
public struct Reports: RandomAccessCollection, Sendable {
    private let events: [TraceEvent]
    private let positions: IndexList

    init(events: [TraceEvent], positions: IndexList) {
        self.events = events
        self.positions = positions
    }

    public var startIndex: Int { positions.startIndex }
    public var endIndex: Int { positions.endIndex }
    public subscript(p: Int) -> (i: Int, value: Value, isRead: Bool) {
        let i = positions[p]
        switch events[i].kind {
        case .read(_, _, let v): return (i, v, true)
        case .didChange(_, _, let v): return (i, v, false)
        default: preconditionFailure("the facts file only reads and did-changes as reports")
        }
    }
}

/// Where an observation of a state key's value comes from.
public enum ValueSource: Sendable, Equatable {
    /// A getter call and what it returned.
    case read
    /// The value a will-change carried: the property's value when the notification was sent,
    /// before the change it announces.
    case willChange
    /// The value a did-change carried: the property's value when the notification was sent,
    /// after the change.
    case didChange
}

/// An operation's observations of one state key, in trace order: its reads, and the value
/// every will- and did-change of the key carried. Each is what the getter said at one moment,
/// taken before it was logged (judge it against earlier events with `TraceFacts.began`). A
/// will-change's value is as much an observation as a read: an implementation that posts
/// `will isExecuting (YES)` after it finished showed both YES at once, read or not. `Reports`
/// leaves will-changes out; rules that judge what the property *was* use this instead.
/// Ivar stores are not observations of the getter: rules that want them walk `opEvents`.
public struct ValueObservations: Sequence, IteratorProtocol, Sendable {
    private var events: EventsAbout

    init(_ events: EventsAbout) { self.events = events }

    public mutating func next() -> (i: Int, value: Value, source: ValueSource)? {
        while let (i, kind) = events.next() {
            switch kind {
            case .read(_, _, let v): return (i, v, .read)
            case .willChange(_, _, let v): return (i, v, .willChange)
            case .didChange(_, _, let v): return (i, v, .didChange)
            default: continue
            }
        }
        return nil
    }
}
