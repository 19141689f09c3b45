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
    /// Codes and keys by position in the operation's list (parallel to `positions`' base).
    private let codes: [UInt8]
    private let keys: [Int8]
    private let positions: IndexList
    private let filter: Filter
    private var p: Int

    /// The match, made ready to test: tags as a mask, keys as the bytes the facts store.
    private enum Filter {
        case all
        case keys(Int8, Int8)
        case tags(EventTagMask)
    }

    init(events: [TraceEvent], codes: [UInt8], keys: [Int8], positions: IndexList, match: EventMatch) {
        self.events = events
        self.codes = codes
        self.keys = keys
        self.positions = positions
        switch match {
        case .all: filter = .all
        // A missing second key repeats the first, so the test is two byte compares either way.
        case .keys(let a, let b): filter = .keys(Int8(a.index), b.map { Int8($0.index) } ?? Int8(a.index))
        case .tags(let a, let b): filter = .tags(EventTagMask(a, b))
        }
        self.p = positions.startIndex
    }

    public mutating func next() -> (i: Int, kind: EventKind)? {
        while p < positions.endIndex {
            let q = p
            p += 1
            if matches(q) { return (positions[q], events[positions[q]].kind) }
        }
        return nil
    }

    private func matches(_ p: Int) -> Bool {
        switch filter {
        case .all: return true
        case .keys(let a, let b): return keys[p] == a || keys[p] == b
        case .tags(let mask): return mask.contains(codes[p])
        }
    }
}

/// The indices of an operation's events of one or two kinds, in trace order: a collection that
/// finds each next match in the operation's list as it is walked, so asking "when did op's
/// task begin" builds no array.
public struct EventIndices: BidirectionalCollection, Sendable {
    private let positions: IndexList
    /// Codes by position in the operation's list (parallel to `positions`' base).
    private let codes: [UInt8]
    private let mask: EventTagMask

    init(positions: IndexList, codes: [UInt8], _ mask: EventTagMask) {
        self.positions = positions
        self.codes = codes
        self.mask = mask
    }

    /// Positions in the operation's list; `endIndex` is past its end.
    public var startIndex: Int { match(from: positions.startIndex) }
    public var endIndex: Int { positions.endIndex }
    public func index(after p: Int) -> Int { match(from: p + 1) }
    public func index(before p: Int) -> Int {
        var p = p - 1
        while p >= positions.startIndex && !mask.contains(codes[p]) { p -= 1 }
        return p
    }
    public subscript(p: Int) -> Int { positions[p] }

    private func match(from p: Int) -> Int {
        var p = p
        while p < positions.endIndex {
            if mask.contains(codes[p]) { return p }
            p += 1
        }
        return positions.endIndex
    }
}
