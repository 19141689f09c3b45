/// The facts pass's walk over a trace: everything `TraceFacts` learns event by event, while it
/// is being learnt. Made (and so run) by `TraceFacts.init`, which then files and keeps what it found.
///
/// The event codes come first, from a `map` over a buffer pointer: that closure borrows each
/// event, where a `switch` on `events[i].kind` through an array's subscript copies the whole
/// event (retaining and releasing its strings and lists). The walk itself still copies each
/// event once as it hands it to `visit` (no spelling tried, `borrowing` included, avoided it);
/// the codes' `map` and inlining `visit` took a tenth off the facts pass (callgrind, 300
/// small traces).
struct FactsScan {
    let operations: Int
    /// Each event's most specific `EventTag` code (a call's or return's by call kind).
    let codes: [UInt8]
    /// Per event: the operation it is about (the rare second and later ones in `about.more`).
    var about: OperationFiling
    /// Per event: its (operation, key) report slot, the operation it starts and who started it.
    var reportKey: [Int32]
    var startKey: [Int32]
    var startBy: [Caller]
    /// Per event: its state key's `StateKey.index`, or -1.
    var keys: [Int8]
    var queueEvents: [[Int]]
    var finishedAt: [Int?]
    var notifiedFinishedAt: [Int?]
    var cancelledAt: [Int?]
    var executingAt: [Int?]
    var addedAt: [(call: Int, queue: Int)?]
    var acceptedAdds: [Int]
    var finishingAt: [Int?]
    var firstStart: [Int?]
    var cancelCalledAt: [Int?]
    var endOf: OptionalEventPositions
    var nextOnThread: EventPositions
    var previousOnThread: EventPositions
    var suspension: [Timeline<Bool>]
    var width: [Timeline<Int>]
    var priority: [Timeline<Int>]
    var edges: [TraceFacts.EdgeLife] = []
    /// removeDependency calls that returned: matched to their edges once all edges are filed.
    var removals: [(op: Int, on: Int, call: Int, end: Int)] = []
    /// Per thread number (small integers from 0, one per thread in order of appearance):
    /// its last event so far, and its stack of open call indices.
    private var lastOnThread: [Int] = []
    private var open: [[Int]] = []
    /// A malformed trace may number threads outside 0..<count: those get slots after it.
    private var oddThreads: [Int: Int] = [:]  // looked up, never iterated

    init(scenario: Scenario, events: [TraceEvent]) {
        let n = scenario.operations.count, count = events.count
        operations = n
        codes = Self.codes(events)
        about = OperationFiling(events: count)
        reportKey = Array(repeating: -1, count: count)
        startKey = Array(repeating: -1, count: count)
        startBy = Array(repeating: .driver, count: count)
        keys = Array(repeating: -1, count: count)
        queueEvents = Array(repeating: [], count: scenario.queues.count)
        finishedAt = Array(repeating: nil, count: n)
        notifiedFinishedAt = Array(repeating: nil, count: n)
        cancelledAt = Array(repeating: nil, count: n)
        executingAt = Array(repeating: nil, count: n)
        addedAt = Array(repeating: nil, count: n)
        acceptedAdds = Array(repeating: 0, count: n)
        finishingAt = Array(repeating: nil, count: n)
        firstStart = Array(repeating: nil, count: n)
        cancelCalledAt = Array(repeating: nil, count: n)
        endOf = OptionalEventPositions(count: count)
        nextOnThread = EventPositions(repeating: count, count: count)
        previousOnThread = EventPositions(repeating: -1, count: count)
        suspension = scenario.queues.map { _ in Timeline(initial: false) }
        width = scenario.queues.map { _ in Timeline(initial: QueueConfig.defaultMax) }
        priority = scenario.operations.map { _ in Timeline(initial: QueuePriority.normal) }
        run(events)
    }

    /// Each event's most specific `EventTag` code, each event borrowed (see above).
    static func codes(_ events: [TraceEvent]) -> [UInt8] {
        events.withUnsafeBufferPointer { events in
            events.map { event in
                switch event.kind {
                case .call(let c): UInt8(EventTag.call(c.tag).code)
                case .returned(let c): UInt8(EventTag.returned(c.tag).code)
                default: UInt8(event.kind.tag.rawValue)
                }
            }
        }
    }

    /// Walks every event once, in order.
    private mutating func run(_ events: [TraceEvent]) {
        events.withUnsafeBufferPointer { events in
            for i in events.indices { visit(events[i], i, events) }
        }
    }

    private func valid(_ op: Int) -> Bool { op >= 0 && op < operations }
    private static func first(_ slot: inout [Int?], _ op: Int, _ i: Int) { if slot[op] == nil { slot[op] = i } }

    private mutating func slot(_ thread: Int) -> Int {
        if thread >= 0 && thread < codes.count { return thread }
        if let s = oddThreads[thread] { return s }
        let s = codes.count + oddThreads.count
        oddThreads[thread] = s
        return s
    }

    /// Inlined into `run`'s loop: as a call, the facts pass took a tenth more instructions.
    @inline(__always)
    private mutating func visit(_ event: TraceEvent, _ i: Int, _ events: UnsafeBufferPointer<TraceEvent>) {
        let t = linkOnThread(event.thread, i)
        switch event.kind {
        case .threadStarted(_, let q?): if q < queueEvents.count { queueEvents[q].append(i) }
        case .call(let c):
            open[t].append(i)
            began(c, at: i)
            fileCall(c, i)
        case .returned(let c), .threw(let c, _, _):
            // The call this ends: the innermost open one on its thread with the same call
            // (its code compared first, so few events are read).
            let callCode = UInt8(EventTag.call(c.tag).code)
            if let k = open[t].lastIndex(where: { codes[$0] == callCode && events[$0].kind.call == c }) {
                let start = open[t].remove(at: k)
                endOf[start] = i
                if codes[i] != UInt8(EventTag.kind(.threw).code) { returned(c, call: start, at: i) }
            }
            fileCall(c, i)
        case .didChange(let op, let key, let v), .read(let op, let key, let v):
            keys[i] = Int8(key.index)
            guard valid(op) else { return }
            about.file(op, i)
            reportKey[i] = Int32(TraceFacts.reportKey(op, key))
            if v == .bool(true) {
                if key == .isFinished { Self.first(&finishedAt, op, i) }
                if key == .isCancelled { Self.first(&cancelledAt, op, i) }
                if key == .isExecuting { Self.first(&executingAt, op, i) }
                if key == .isFinished, codes[i] == UInt8(EventTag.kind(.didChange).code) {
                    Self.first(&notifiedFinishedAt, op, i)
                }
            }
        case .set(let op, let key, let v):
            keys[i] = Int8(key.index)
            guard valid(op) else { return }
            about.file(op, i)
            if v, key == .isFinished { Self.first(&finishedAt, op, i) }
            if v, key == .isExecuting { Self.first(&executingAt, op, i) }
        case .completionBegan(let op, _):
            guard valid(op) else { return }
            about.file(op, i)
            Self.first(&finishedAt, op, i)
        case .willChange(let op, let key, let v):
            keys[i] = Int8(key.index)
            guard valid(op) else { return }
            about.file(op, i)
            if key == .isFinished { Self.first(&finishingAt, op, i) }
            // A will-change carries the value before the change it announces: YES there is a
            // state the operation was already in, as a read of YES would show.
            if v == .bool(true) {
                if key == .isFinished { Self.first(&finishedAt, op, i) }
                if key == .isCancelled { Self.first(&cancelledAt, op, i) }
                if key == .isExecuting { Self.first(&executingAt, op, i) }
            }
        case .mainBegan(let op, _), .mainEnded(let op), .blockBegan(let op, _),
             .blockEnded(let op, _), .completionEnded(let op), .invocationResult(let op), .work(let op, _),
             .announced(let op, _, _):
            if valid(op) { about.file(op, i) }
        case .operationCount(let q, _), .operations(let q, _):
            if q < queueEvents.count { queueEvents[q].append(i) }
        default: break
        }
    }

    /// Links event `i` to the one before it on its thread, and returns the thread's slot.
    /// Inlined into `visit`, as `visit` is into `run`.
    @inline(__always)
    private mutating func linkOnThread(_ thread: Int, _ i: Int) -> Int {
        let t = slot(thread)
        if t >= lastOnThread.count {
            lastOnThread.append(contentsOf: repeatElement(-1, count: t + 1 - lastOnThread.count))
            open.append(contentsOf: repeatElement([], count: t + 1 - open.count))
        }
        let prev = lastOnThread[t]
        if prev >= 0 { nextOnThread[prev] = i; previousOnThread[i] = prev }
        lastOnThread[t] = i
        return t
    }

    /// What a call changed from its begin at `i`, before it returns (if it ever does).
    /// Inlined into `visit`, as `visit` is into `run`.
    @inline(__always)
    private mutating func began(_ c: Call, at i: Int) {
        switch c {
        case .start(let op, let by):
            if valid(op) { Self.first(&firstStart, op, i); startKey[i] = Int32(op); startBy[i] = by }
        case .cancel(let op): if valid(op) { Self.first(&cancelCalledAt, op, i) }
        case .cancelAll(let q):
            for op in 0..<operations where addedAt[op]?.queue == q && finishedAt[op] == nil {
                Self.first(&cancelCalledAt, op, i)
            }
        // A resume takes effect from its call: the queue may start operations inside the
        // call, and the call may never return (GNUstep can deadlock in it) while those
        // starts are in the trace. A suspension counts only once its call has returned.
        case .setSuspended(let q, false): if q < suspension.count { suspension[q].record(false, at: i) }
        // A width takes effect from its call too: GNUstep sets it, then starts operations
        // inside the same call, which may never return (it can deadlock there).
        case .setMaxConcurrent(let q, let v): if q < width.count { width[q].record(v, at: i) }
        default: break
        }
    }

    /// A call's event (its begin or its end) filed under its operations and its queue.
    private mutating func fileCall(_ c: Call, _ i: Int) {
        if let op = c.op, valid(op) { about.file(op, i) }
        if case .addOperations(let list, _, _) = c { for op in list where valid(op) { about.file(op, i) } }
        if let q = TraceFacts.queue(c), q < queueEvents.count { queueEvents[q].append(i) }
    }

    /// What a call that returned normally (begun at `start`, ended at `i`) changed.
    private mutating func returned(_ c: Call, call start: Int, at i: Int) {
        switch c {
        case .addOperation(let op, let q):
            if valid(op) { acceptedAdds[op] += 1; if addedAt[op] == nil { addedAt[op] = (start, q) } }
        case .addOperations(let list, let q, _):
            for op in list where valid(op) { acceptedAdds[op] += 1; if addedAt[op] == nil { addedAt[op] = (start, q) } }
        case .addDependency(let op, let on):
            edges.append(TraceFacts.EdgeLife(op: op, on: on, added: i))
        case .removeDependency(let op, let on):
            if valid(op) { removals.append((op, on, start, i)) }
        case .setSuspended(let q, true): if q < suspension.count { suspension[q].record(true, at: i) }
        case .setQueuePriority(let op, let raw):
            if valid(op) { priority[op].record(QueuePriority.normalized(raw), at: i) }
        default: break
        }
    }
}

/// Which operation each event is about, while the facts pass runs: one per event in a flat
/// array, and the rare second and later ones (an `addOperations` batch) in `more`.
struct OperationFiling {
    var first: [Int32]
    var more: [(key: Int32, index: Int32)] = []
    init(events: Int) { first = Array(repeating: -1, count: events) }
    mutating func file(_ op: Int, _ i: Int) {
        if first[i] < 0 { first[i] = Int32(op) } else { more.append((Int32(op), Int32(i))) }
    }
}
