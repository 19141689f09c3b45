/// Per event of a trace, another event's index, stored in 32 bits: the facts keep several
/// such arrays over every event, and at millions of events their size is what checking
/// a large trace waits on (a `[Int?]` takes 16 bytes an entry, this 4).
/// Trace positions fit in 32 bits: a trace of 2^31 events would not fit in memory anyway.
public struct EventPositions: Sendable {
    private var raw: [Int32]

    /// `count` entries, each `initial`.
    init(repeating initial: Int, count: Int) { raw = Array(repeating: Int32(initial), count: count) }

    public var count: Int { raw.count }
    public subscript(i: Int) -> Int {
        get { Int(raw[i]) }
        set { raw[i] = Int32(newValue) }
    }
}

/// Per event, another event's index or none (`nil`), in 32 bits: see `EventPositions`.
public struct OptionalEventPositions: Sendable {
    private var raw: [Int32]

    /// `count` entries, each nil.
    init(count: Int) { raw = Array(repeating: -1, count: count) }

    public var count: Int { raw.count }
    public subscript(i: Int) -> Int? {
        get { raw[i] < 0 ? nil : Int(raw[i]) }
        set { raw[i] = newValue.map { Int32($0) } ?? -1 }
    }
}
