import OperationSpec

/// Hand edits of a real trace, for making bad traces: each edit finds an event by its exact
/// kind (the `nth` occurrence) and changes it. Sequence numbers are renumbered afterwards.
/// An edit whose anchor is missing fails the test that uses it, loudly.
struct TraceEditor {
    var trace: Trace
    private(set) var missing: [String] = []

    init(_ trace: Trace) { self.trace = trace }

    private mutating func find(_ kind: EventKind, nth: Int = 0) -> Int? {
        let hits = trace.events.indices.filter { trace.events[$0].kind == kind }
        guard nth < hits.count else { missing.append("\(kind) #\(nth)"); return nil }
        return hits[nth]
    }

    mutating func replace(_ kind: EventKind, nth: Int = 0, with new: EventKind) {
        if let i = find(kind, nth: nth) { trace.events[i].kind = new }
    }
    mutating func drop(_ kind: EventKind, nth: Int = 0) {
        if let i = find(kind, nth: nth) { trace.events.remove(at: i) }
    }
    mutating func dropAll(where match: (EventKind) -> Bool) {
        let before = trace.events.count
        trace.events.removeAll { match($0.kind) }
        if before == trace.events.count { missing.append("dropAll matched nothing") }
    }
    mutating func insert(_ new: EventKind, after kind: EventKind, nth: Int = 0, thread: Int? = nil) {
        if let i = find(kind, nth: nth) { trace.events.insert(TraceEvent(seq: 0, thread: thread ?? trace.events[i].thread, new), at: i + 1) }
    }
    mutating func rethread(_ kind: EventKind, nth: Int = 0, to thread: Int) {
        if let i = find(kind, nth: nth) { trace.events[i].thread = thread }
    }
    mutating func swapWithNext(_ kind: EventKind, nth: Int = 0) {
        if let i = find(kind, nth: nth), i + 1 < trace.events.count { trace.events.swapAt(i, i + 1) }
    }

    var result: Trace {
        var t = trace
        for i in t.events.indices { t.events[i].seq = i }
        return t
    }
}
