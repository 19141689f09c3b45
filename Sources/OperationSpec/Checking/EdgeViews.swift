/// The dependency edges of one operation, read in place from the facts pass's flat edge list.
/// Rules ask "which dependencies were in force at event i" for most operations at several
/// events; answering with a new array each time was a tenth of the checking time of a large
/// random DAG, so these are views: they hold the shared arrays and build nothing.
public struct EdgeList: RandomAccessCollection, Sendable {
    private let edges: [TraceFacts.EdgeLife]
    private let chosen: IndexList

    init(edges: [TraceFacts.EdgeLife], chosen: IndexList) {
        self.edges = edges
        self.chosen = chosen
    }

    public var startIndex: Int { chosen.startIndex }
    public var endIndex: Int { chosen.endIndex }
    public subscript(position: Int) -> TraceFacts.EdgeLife { edges[chosen[position]] }
}

/// The operations one operation depended on at one event (optionally only through edges added
/// before a cutoff), in the order the edges were added: a sequence computed as it is walked.
public struct ActiveDependencies: Sequence, IteratorProtocol, Sendable {
    private let edges: EdgeList
    private let at: Int
    private let addedBefore: Int
    private var position: Int

    init(edges: EdgeList, at i: Int, addedBefore cutoff: Int = Int.max) {
        self.edges = edges
        self.at = i
        self.addedBefore = cutoff
        self.position = edges.startIndex
    }

    public mutating func next() -> Int? {
        while position < edges.endIndex {
            let e = edges[position]
            position += 1
            if e.added < addedBefore && e.active(at: at) { return e.on }
        }
        return nil
    }

    /// No dependency was in force.
    public var isEmpty: Bool {
        var copy = self
        return copy.next() == nil
    }
}
