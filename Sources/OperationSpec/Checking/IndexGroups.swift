/// Lists of event indices, one per key (an operation, an `EventTag`), held in one flat array
/// with an offset per key. Built once per trace by a counting sort from keys the facts pass
/// wrote into flat arrays: a separate growing array per operation meant a hundred thousand
/// small allocations for a trace of 100,000 operations, and dozens for every small trace.
public struct IndexGroups: Sendable {
    /// `items[offsets[k] ..< offsets[k + 1]]` is key k's list, in trace order.
    private let offsets: [Int]
    /// 32 bits an index: on a trace of 100,000 operations the lists hold millions, and the
    /// checkers read them over and over, so half the bytes is half the memory traffic.
    private let items: [Int32]

    /// How many indices are filed, under all keys together. The lists `subscript` returns
    /// keep their positions in `0 ..< total`, so a parallel array can hold something per item.
    public var total: Int { items.count }

    /// The indices filed under `key`, in trace order.
    public subscript(key: Int) -> IndexList { IndexList(items: items, range: offsets[key] ..< offsets[key + 1]) }

    /// `values[i]` for every filed index `i`, by position: a copy of a per-event array laid out
    /// like the lists, for reading alongside them.
    func gather<T>(_ values: [T]) -> [T] { items.map { values[Int($0)] } }

    /// Files each event index `i` under `first[i]` and `second[i]` (when not negative), and
    /// under the keys `more` pairs with it (`more` in index order). Keys must be below `keys`.
    /// Trace positions fit in 32 bits: a trace of 2^31 events would not fit in memory anyway.
    init(keys: Int, first: [Int32], second: [Int32]? = nil, more: [(key: Int32, index: Int32)] = []) {
        var offsets = [Int](repeating: 0, count: keys + 1)
        for k in first where k >= 0 { offsets[Int(k) + 1] += 1 }
        if let second { for k in second where k >= 0 { offsets[Int(k) + 1] += 1 } }
        for p in more { offsets[Int(p.key) + 1] += 1 }
        for k in 0..<keys { offsets[k + 1] += offsets[k] }
        var next = offsets
        // The filing loop writes through buffer pointers: written by subscript, each store
        // checked that `items` and `next` were unshared, a runtime call per store, which was
        // most of this function's cost. A key out of range traps in the counting above, before
        // any store; so every key is below `keys`, and every slot below `offsets[keys]` by
        // construction of the counts, and the stores stay in bounds.
        let items = [Int32](unsafeUninitializedCapacity: offsets[keys]) { items, filled in
            next.withUnsafeMutableBufferPointer { next in
                func put(_ k: Int, _ i: Int) {
                    items.initializeElement(at: next[k], to: Int32(i))
                    next[k] += 1
                }
                var m = 0
                for i in first.indices {
                    if first[i] >= 0 { put(Int(first[i]), i) }
                    if let second, second[i] >= 0 { put(Int(second[i]), i) }
                    while m < more.count && Int(more[m].index) == i {
                        put(Int(more[m].key), i)
                        m += 1
                    }
                }
                // Every count above was filed once: all `offsets[keys]` slots are initialized.
                precondition(m == more.count, "IndexGroups: `more` must be in index order, within `first`")
            }
            filled = offsets[keys]
        }
        self.offsets = offsets
        self.items = items
    }
}

/// One key's list in `IndexGroups`: event indices in trace order. Its positions are those of
/// the flat list (`startIndex` is where the key's list begins there), so an array laid out like
/// the lists (`gather`) is read at the same positions.
public struct IndexList: RandomAccessCollection, Sendable {
    private let items: [Int32]
    private let range: Range<Int>

    init(items: [Int32], range: Range<Int>) {
        self.items = items
        self.range = range
    }

    public var startIndex: Int { range.lowerBound }
    public var endIndex: Int { range.upperBound }
    public subscript(p: Int) -> Int { Int(items[p]) }
}
