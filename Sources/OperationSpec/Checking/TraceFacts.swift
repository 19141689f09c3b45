/// Facts indexed from a trace in one pass, shared by all checkers: which events concern which
/// operation and queue, how calls paired with their returns, and the first evidence of each
/// state. "Evidence" is any event that shows a state: a did-change, a read, a will-change
/// carrying YES (the value before the change it announces: the state already held), an ivar
/// store, or a consequence (a completion block runs only after its operation finished).
public struct TraceFacts: Sendable {
    /// For each operation, the indices of the events about it, in order.
    public private(set) var opEvents: IndexGroups
    /// For each (operation, key): its reads and did-change notifications of that key, in order.
    private var reportsOf: IndexGroups
    /// For each event, its most specific `EventTag` code (a call's or return's by call kind).
    private var codes: [UInt8]
    /// `codes` and `keys` again, in `opEvents` order: a rule walking one operation's events for
    /// a kind or a key reads them side by side with the positions. Read through the positions,
    /// each was a load from anywhere in the trace (a cache miss on a large one).
    private var opCodes: [UInt8]
    private var opKeys: [Int8]
    /// For each operation, its `start` calls (any caller), in order.
    public private(set) var startCalls: IndexGroups
    /// Who made each start call, by its position in `startCalls` (so no rule reads the event).
    private var startCallers: [Caller]
    /// For each will-change, did-change, read and ivar store: its key's `StateKey.index`;
    /// -1 for other events. With `codes`, "is event j a did-change of isFinished" compares two
    /// bytes instead of copying the event.
    private var keys: [Int8]
    /// For each `EventTag`, the indices of the events of that kind, in order: see `indices(_:)`.
    private var byTag: IndexGroups
    /// For each queue, the indices of the calls about it and its worker threads' starts.
    public private(set) var queueEvents: [[Int]]
    /// For each `call` event, the index of its `returned` or `threw`; nil when it never ended
    /// (and for every other event). An array, not a dictionary: looked up for most calls by
    /// many checkers, hashing was a tenth of all checking time on large traces.
    public private(set) var endOf: OptionalEventPositions
    /// For each operation, the first evidence it was finished / cancelled / executing.
    public private(set) var finishedAt: [Int?]
    public private(set) var notifiedFinishedAt: [Int?]
    public private(set) var cancelledAt: [Int?]
    public private(set) var executingAt: [Int?]
    /// Successful additions to queues: (call index, queue) per operation, at most one.
    public private(set) var addedAt: [(call: Int, queue: Int)?]
    /// How many add calls of each operation returned normally. More than one means an
    /// implementation let it into a second queue (QUEUE-OWNERSHIP's business); which queue then
    /// started it cannot be told from the start alone, so per-queue rules leave it out.
    public private(set) var acceptedAdds: [Int]
    /// Dependency edges with the interval they were in force.
    public private(set) var edges: [EdgeLife] = []
    /// Per operation: the first sign it began finishing (a will-change of isFinished, or any
    /// finish evidence). Observers of one notification run in an order nobody promises, so a
    /// reaction to a finish may be logged before our own did-change; "finishing" is the safe mark.
    public private(set) var finishingAt: [Int?]
    /// Per operation: the first `start` call, any caller.
    public private(set) var firstStart: [Int?]
    /// Per operation: the first `cancel` (or `cancelAllOperations` of its queue) call.
    public private(set) var cancelCalledAt: [Int?]
    /// For each event, the index of the next event on the same thread (`count` if none):
    /// an event "settled" before `i` when its thread had moved on before `i`.
    public private(set) var nextOnThread: EventPositions
    /// For each event, the index of the previous event on the same thread (-1 if none).
    public private(set) var previousOnThread: EventPositions
    /// Per queue: its suspension and width over time, by the index each change took effect.
    public private(set) var suspension: [Timeline<Bool>]
    public private(set) var width: [Timeline<Int>]
    /// Per operation: normalised priority over time.
    public private(set) var priority: [Timeline<Int>]
    /// Indices into `edges` per operation, for quick lookup.
    private var edgesOf: IndexGroups
    /// Per operation, the edges that name it as the dependency (its dependents' edges).
    private var dependentEdgesOf: IndexGroups

    public struct EdgeLife: Sendable {
        public let op: Int, on: Int
        /// Index of the `returned` of the addDependency call.
        public let added: Int
        /// Index of the `call` of the removeDependency that ended it.
        public var removed: Int?
        /// In force at event `i`: added before it, and not removed by a call that began before it.
        public func active(at i: Int) -> Bool { added < i && (removed.map { i <= $0 } ?? true) }
    }

    private let events: [TraceEvent]

    public init(scenario: Scenario, trace: Trace) {
        self.events = trace.events
        let n = scenario.operations.count
        let scan = FactsScan(scenario: scenario, events: trace.events)
        let codes = scan.codes, keys = scan.keys, about = scan.about
        queueEvents = scan.queueEvents
        finishedAt = scan.finishedAt
        notifiedFinishedAt = scan.notifiedFinishedAt
        cancelledAt = scan.cancelledAt
        executingAt = scan.executingAt
        addedAt = scan.addedAt
        acceptedAdds = scan.acceptedAdds
        finishingAt = scan.finishingAt
        firstStart = scan.firstStart
        cancelCalledAt = scan.cancelCalledAt
        endOf = scan.endOf
        nextOnThread = scan.nextOnThread
        previousOnThread = scan.previousOnThread
        suspension = scan.suspension
        width = scan.width
        priority = scan.priority
        var edges = scan.edges
        func valid(_ op: Int) -> Bool { op >= 0 && op < n }
        self.opEvents = IndexGroups(keys: n, first: about.first, more: about.more)
        edgesOf = IndexGroups(keys: n, first: edges.map { valid($0.op) ? Int32($0.op) : -1 })
        dependentEdgesOf = IndexGroups(keys: n, first: edges.map { valid($0.on) ? Int32($0.on) : -1 })
        // A removal ends the latest edge to that dependency still in force when it returned.
        for r in scan.removals {
            for k in edgesOf[r.op].reversed()
            where edges[k].added < r.end && edges[k].on == r.on && edges[k].removed == nil {
                edges[k].removed = r.call
                break
            }
        }
        self.edges = edges
        self.reportsOf = IndexGroups(keys: n * Self.stateKeys, first: scan.reportKey)
        let startCalls = IndexGroups(keys: n, first: scan.startKey)
        var startCallers = [Caller](repeating: .driver, count: startCalls.total)
        for op in 0..<n { for p in startCalls[op].indices { startCallers[p] = scan.startBy[startCalls[op][p]] } }
        self.startCalls = startCalls
        self.startCallers = startCallers
        self.keys = keys
        opCodes = opEvents.gather(codes)
        opKeys = opEvents.gather(keys)
        // Every event under its kind, and calls and returns also under their call kind.
        var kind = [Int32](repeating: 0, count: codes.count), specific = [Int32](repeating: -1, count: codes.count)
        for i in codes.indices {
            let k = EventTag.kindCode(of: Int(codes[i]))
            kind[i] = Int32(k)
            if k != Int(codes[i]) { specific[i] = Int32(codes[i]) }
        }
        self.byTag = IndexGroups(keys: EventTag.count, first: kind, second: specific)
        self.codes = codes
    }

    /// Whether event `i` is of the kind `tag` names, without copying the event.
    public func isEvent(_ i: Int, _ tag: EventTag) -> Bool { EventTagMask(tag).contains(codes[i]) }

    /// The indices of the events about `op` of kind `a` (or `b`), in trace order.
    public func indices(about op: Int, _ a: EventTag, _ b: EventTag? = nil) -> EventIndices {
        EventIndices(positions: opEvents[op], codes: opCodes, EventTagMask(a, b))
    }

    /// The events about `op` that `match` accepts, with their kinds, in trace order.
    public func events(about op: Int, _ match: EventMatch = .all) -> EventsAbout {
        EventsAbout(events: events, codes: opCodes, keys: opKeys, positions: opEvents[op], match: match)
    }

    /// Whether event `i` is a will-change / did-change / read / ivar store of `key`, without
    /// copying the event.
    public func isWill(_ i: Int, _ key: StateKey) -> Bool {
        keys[i] == Int8(key.index) && Int(codes[i]) == Self.willCode
    }
    public func isDid(_ i: Int, _ key: StateKey) -> Bool { keys[i] == Int8(key.index) && Int(codes[i]) == Self.didCode }
    public func isRead(_ i: Int, _ key: StateKey) -> Bool {
        keys[i] == Int8(key.index) && Int(codes[i]) == Self.readCode
    }
    public func isSet(_ i: Int, _ key: StateKey) -> Bool { keys[i] == Int8(key.index) && Int(codes[i]) == Self.setCode }
    private static let willCode = EventTag.kind(.willChange).code, didCode = EventTag.kind(.didChange).code
    private static let readCode = EventTag.kind(.read).code, setCode = EventTag.kind(.set).code
    /// The key of a will-change, did-change, read or ivar store at `i`; nil for other events.
    public func stateKey(_ i: Int) -> StateKey? { keys[i] < 0 ? nil : Self.stateKeyAt[Int(keys[i])] }
    private static let stateKeyAt = StateKey.allCases
    /// The thread event `i` happened on.
    public func thread(_ i: Int) -> Int { events[i].thread }

    /// Every `start` call on `op`, in order: where it is, who called, on which thread, and how it ended.
    public func starts(_ op: Int) -> StartCalls {
        StartCalls(positions: startCalls[op], callers: startCallers, endOf: endOf, codes: codes, events: events)
    }
    /// One `start` call.
    public struct StartCall: Sendable {
        public let i: Int, by: Caller, thread: Int
        /// Its return or throw, if it ended.
        public let end: Int?
        public let threw: Bool
    }
    /// The start calls of one operation, read in place.
    /// (It holds the few arrays it reads, not the whole facts: copying those is a retain each.)
    public struct StartCalls: RandomAccessCollection, Sendable {
        let positions: IndexList
        let callers: [Caller]
        let endOf: OptionalEventPositions
        let codes: [UInt8]
        let events: [TraceEvent]
        public var startIndex: Int { positions.startIndex }
        public var endIndex: Int { positions.endIndex }
        public subscript(p: Int) -> StartCall {
            let i = positions[p], end = endOf[i]
            return StartCall(i: i, by: callers[p], thread: events[i].thread, end: end,
                             threw: end.map { Int(codes[$0]) == Self.threwCode } ?? false)
        }
        private static let threwCode = EventTag.kind(.threw).code
    }

    /// The reads and did-change notifications of `key` about `op`, in trace order.
    public func reports(_ op: Int, _ key: StateKey) -> IndexList { reportsOf[Self.reportKey(op, key)] }
    static func reportKey(_ op: Int, _ key: StateKey) -> Int { op * stateKeys + key.index }
    /// Counted once: `allCases` builds a new array on every use.
    private static let stateKeys = StateKey.allCases.count

    /// The events of one kind, in trace order.
    public func indices(_ tag: EventTag) -> IndexList { byTag[tag.code] }
    /// The events of any of these kinds, in trace order.
    public func indices(_ tags: [EventTag]) -> [Int] {
        if tags.count == 1 { return Array(byTag[tags[0].code]) }
        return tags.flatMap { byTag[$0.code] }.sorted()
    }

    /// Whether the operation had begun finishing before event `i` (the lenient mark).
    public func finishing(_ op: Int, before i: Int) -> Bool {
        // Either mark before i will do: no array is built (this is asked very often).
        if let f = finishingAt[op], f < i { return true }
        if let f = finishedAt[op], f < i { return true }
        return false
    }
    /// The first sign the operation began finishing, if any (the earlier of the two marks).
    public func finishing(_ op: Int) -> Int? { Self.earlier(finishingAt[op], finishedAt[op]) }
    /// The earlier of two marks, either of which may be missing.
    static func earlier(_ a: Int?, _ b: Int?) -> Int? {
        switch (a, b) {
        case let (x?, y?): return min(x, y)
        case let (x, y): return x ?? y
        }
    }
    /// Whether event `e`'s thread had moved on past it before event `i`.
    public func settled(_ e: Int, before i: Int) -> Bool { nextOnThread[e] < i }

    /// Whether observation `r` (a read, or the value a notification carries) surely began after
    /// event `e`. A value is taken before it is logged, so another thread may change things in
    /// between: `r` began after `e` only if `r` is on `e`'s thread, or `r`'s thread logged
    /// something after `e` and before `r`.
    /// The first of `0..<count` for which `isAfter` holds, where it holds for every position
    /// from some point on (a binary search); `count` when it holds for none.
    public static func firstIndex(in count: Int, where isAfter: (Int) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if isAfter(middle) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    public func began(_ r: Int, after e: Int) -> Bool {
        guard r > e else { return false }
        return events[r].thread == events[e].thread || previousOnThread[r] > e
    }

    /// Whether the notification at `e`, and every notification its observers sent from it on the
    /// same thread, was over before event `i`: the thread had logged something other than a
    /// will- or did-change after `e`, before `i`.
    public func burstOver(_ e: Int, before i: Int) -> Bool {
        var j = nextOnThread[e]
        while j < i {
            switch events[j].kind {
            case .willChange, .didChange: j = nextOnThread[j]
            default: return true
            }
        }
        return false
    }
    /// Whether the operation had shown itself finished before event `i`.
    public func finished(_ op: Int, before i: Int) -> Bool { finishedAt[op].map { $0 < i } ?? false }
    public func cancelled(_ op: Int, before i: Int) -> Bool { cancelledAt[op].map { $0 < i } ?? false }
    /// Dependencies of `op` in force at event `i`.
    public func dependencies(of op: Int, at i: Int) -> ActiveDependencies {
        ActiveDependencies(edges: edges(of: op), at: i)
    }
    /// Whether some operation depended on `op` at event `i`.
    public func hasDependents(_ op: Int, at i: Int) -> Bool {
        dependentEdgesOf[op].contains { edges[$0].active(at: i) }
    }
    /// Every dependency `op` ever had, with its interval.
    public func edges(of op: Int) -> EdgeList { EdgeList(edges: edges, chosen: edgesOf[op]) }
    /// The end of the call at `i` if it returned normally.
    public func returned(_ i: Int) -> Int? {
        guard let end = endOf[i], case .returned = events[end].kind else { return nil }
        return end
    }
    public func threw(_ i: Int) -> MisuseKind? {
        guard let end = endOf[i], case .threw(_, let kind, _) = events[end].kind else { return nil }
        return kind
    }

    static func queue(_ c: Call) -> Int? {
        switch c {
        case .addOperation(_, let q), .addOperations(_, let q, _), .cancelAll(let q), .setSuspended(let q, _),
             .setMaxConcurrent(let q, _), .waitUntilAllFinished(let q), .addBlock(_, let q):
            return q
        default: return nil
        }
    }
}

extension EventKind {
    /// The call a `call` / `returned` / `threw` event is about.
    public var call: Call? {
        switch self {
        case .call(let c), .returned(let c), .threw(let c, _, _): return c
        default: return nil
        }
    }
}

/// A value that changes at known trace positions: "what was it at event i" by binary search.
public struct Timeline<T: Sendable & Equatable>: Sendable {
    public let initial: T
    public private(set) var changes: [(at: Int, value: T)] = []
    public init(initial: T) { self.initial = initial }
    mutating func record(_ value: T, at i: Int) {
        changes.append((i, value))
        if changes.count > 1, changes[changes.count - 2].at > i { changes.sort { $0.at < $1.at } }
    }
    /// The value in force just before event `i`.
    public func value(before i: Int) -> T {
        var lo = 0, hi = changes.count
        while lo < hi { let mid = (lo + hi) / 2; if changes[mid].at < i { lo = mid + 1 } else { hi = mid } }
        return lo == 0 ? initial : changes[lo - 1].value
    }
    /// The last value.
    public var final: T { changes.last?.value ?? initial }
    /// Whether the value changed in the open interval (a, b).
    public func changed(between a: Int, and b: Int) -> Bool { changes.contains { $0.at > a && $0.at < b } }
}
