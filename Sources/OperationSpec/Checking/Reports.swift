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
