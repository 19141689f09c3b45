/// The state of one queue in the simulation.
///
/// Members are kept in the order they were added, as slots that are emptied when an operation
/// leaves, so that leaving costs nothing however large the queue (removing from an array shifted
/// every later member). The operations it may start next are kept in a heap of candidates ordered
/// by (rank, slot): the highest priority first, among equals the earliest added (004 2.6.2). A
/// candidate is offered whenever an operation in the queue becomes ready or changes priority;
/// entries that went stale since (started, left, no longer ready, priority changed) are dropped
/// when they come to the top. The choice is the one a scan of the members in order would make.
struct SimulatedQueue {
    var maxConcurrent: Int
    var suspended: Bool
    /// The queue's `name` (API surface 2), which names its worker threads `<name>_<n>` as
    /// GNUstep's do (003); nil for the default `NSOperationQ_<n>`.
    var name: String?
    /// Operations it started whose finish it has not yet seen.
    var running = 0
    /// The scenario's dispatch queue set as its `underlyingQueue`, nil for none. It changes
    /// nothing the engine schedules (the documents promise nothing of it); it is what
    /// `readUnderlyingQueue` reads.
    var underlyingQueue: Int?
    /// The driver let go of it (`releaseQueue`): it is gone once it holds nothing and runs
    /// nothing (what `readQueueDeallocated` reads).
    var released = false
    /// Every operation ever added, in order (what `waitUntilAllFinished` reads afterwards).
    var everAdded: [Int] = []
    /// One slot per add, in order: the operation, or nil once it left.
    private var slots: [Int?] = []
    /// The slot each member holds, by operation (-1: not a member). An array, not a dictionary
    /// of arrays: that was an allocation per member and a hash per lookup, a measurable part
    /// of simulating 100,000 operations.
    private var slotOf: [Int] = []
    /// Slots beyond the first, which only the `addedTwice` fault gives. Looked up, never iterated.
    private var moreSlots: [Int: [Int]] = [:]
    private(set) var count = 0
    private var candidates = MinHeap<Candidate>()

    struct Candidate: Comparable {
        /// Smaller starts first: the negated priority, or 0 when priority is ignored.
        var rank: Int
        var slot: Int
        var op: Int
        static func < (a: Candidate, b: Candidate) -> Bool { (a.rank, a.slot) < (b.rank, b.slot) }
    }

    init(maxConcurrent: Int, suspended: Bool, name: String? = nil) {
        self.maxConcurrent = maxConcurrent
        self.suspended = suspended
        self.name = name
    }

    /// The members in the order they were added: the queue's `operations`.
    var ops: [Int] { slots.compactMap { $0 } }
    var isEmpty: Bool { count == 0 }

    mutating func append(_ op: Int) {
        if op >= slotOf.count { slotOf.append(contentsOf: repeatElement(-1, count: op + 1 - slotOf.count)) }
        if slotOf[op] < 0 { slotOf[op] = slots.count } else { moreSlots[op, default: []].append(slots.count) }
        slots.append(op)
        everAdded.append(op)
        count += 1
    }

    /// The operation leaves the queue (every slot it holds).
    mutating func remove(_ op: Int) {
        guard op < slotOf.count, slotOf[op] >= 0 else { return }
        slots[slotOf[op]] = nil
        slotOf[op] = -1
        count -= 1
        guard !moreSlots.isEmpty, let more = moreSlots.removeValue(forKey: op) else { return }
        for s in more { slots[s] = nil }
        count -= more.count
    }

    /// Offers the member as a start candidate with `rank` (a no-op for a non-member).
    mutating func offer(_ op: Int, rank: Int) {
        guard op < slotOf.count, slotOf[op] >= 0 else { return }
        candidates.insert(Candidate(rank: rank, slot: slotOf[op], op: op))
        guard !moreSlots.isEmpty else { return }
        for s in moreSlots[op] ?? [] { candidates.insert(Candidate(rank: rank, slot: s, op: op)) }
    }

    /// Removes and returns the best candidate still valid by `isValid(op, rank)`, dropping stale
    /// ones on the way; nil when there is none.
    mutating func takeCandidate(_ isValid: (Int, Int) -> Bool) -> Int? {
        while let top = candidates.removeMin() {
            if slots[top.slot] == top.op && isValid(top.op, top.rank) { return top.op }
        }
        return nil
    }
}
