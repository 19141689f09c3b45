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
            return TraceFacts.code(codes[i], is: a, b)
        }
    }
}

/// The indices of an operation's events of one or two kinds, in trace order: a collection that
/// finds each next match in the operation's list as it is walked, so asking "when did op's
/// task begin" builds no array.
public struct EventIndices: BidirectionalCollection, Sendable {
    private let positions: ArraySlice<Int>
    private let codes: [UInt8]
    private let a: EventTag
    private let b: EventTag?

    init(positions: ArraySlice<Int>, codes: [UInt8], _ a: EventTag, _ b: EventTag?) {
        self.positions = positions
        self.codes = codes
        self.a = a
        self.b = b
    }

    /// Positions in the operation's list; `endIndex` is past its end.
    public var startIndex: Int { match(from: positions.startIndex) }
    public var endIndex: Int { positions.endIndex }
    public func index(after p: Int) -> Int { match(from: p + 1) }
    public func index(before p: Int) -> Int {
        var p = p - 1
        while p >= positions.startIndex && !matches(positions[p]) { p -= 1 }
        return p
    }
    public subscript(p: Int) -> Int { positions[p] }

    private func matches(_ i: Int) -> Bool {
        TraceFacts.code(codes[i], is: a, b)
    }

    private func match(from p: Int) -> Int {
        var p = p
        while p < positions.endIndex {
            if matches(positions[p]) { return p }
            p += 1
        }
        return positions.endIndex
    }
}
