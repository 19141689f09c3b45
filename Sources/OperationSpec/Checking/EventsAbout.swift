/// Which of an operation's events a rule wants to see: all of them, those about one or two
/// state keys (will- and did-changes, reads, ivar stores), or those of one or two kinds.
public enum EventMatch: Sendable {
    case all
    case keys(StateKey, StateKey?)
    case tags(EventTag, EventTag?)
}

/// The events about one operation, with their kinds, filtered by an `EventMatch` before any
/// event is copied. Most rules look at a few of an operation's events; copying every event's
/// kind (strings and arrays inside, so a retain and a release each) to look at it was a large
/// part of checking time.
public struct EventsAbout: Sequence, IteratorProtocol, Sendable {
    private let events: [TraceEvent]
    private let codes: [UInt8]
    private let keys: [Int8]
    private let positions: ArraySlice<Int>
    private let match: EventMatch
    private var p: Int

    init(events: [TraceEvent], codes: [UInt8], keys: [Int8], positions: ArraySlice<Int>, match: EventMatch) {
        self.events = events
        self.codes = codes
        self.keys = keys
        self.positions = positions
        self.match = match
        self.p = positions.startIndex
    }

    public mutating func next() -> (i: Int, kind: EventKind)? {
        while p < positions.endIndex {
            let i = positions[p]
            p += 1
            if matches(i) { return (i, events[i].kind) }
        }
        return nil
    }

    private func matches(_ i: Int) -> Bool {
        switch match {
        case .all: return true
        case .keys(let a, let b):
            let k = keys[i]
            return k == Int8(a.index) || (b.map { k == Int8($0.index) } ?? false)
        case .tags(let a, let b):
            return TraceFacts.code(codes[i], is: a) || (b.map { TraceFacts.code(codes[i], is: $0) } ?? false)
        }
    }
}
