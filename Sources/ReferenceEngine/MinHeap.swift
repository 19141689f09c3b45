/// A binary min-heap. The engine's queues keep their start candidates in one, so choosing the
/// next operation to start costs a logarithm of the queue's size instead of a scan of it (a
/// scan at every finish made a 100,000-operation chain take minutes); the scheduler keeps its
/// timers in one (`Wakeup`), for the same reason with many sleeping threads.
///
/// Deterministic: the order of equal elements depends only on the order of the calls, and the
/// engine's keys are never equal (they end with a position that is unique).
struct MinHeap<Element: Comparable> {
    private var items: [Element] = []

    var isEmpty: Bool { items.isEmpty }
    var min: Element? { items.first }

    mutating func insert(_ e: Element) {
        items.append(e)
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard items[i] < items[parent] else { break }
            items.swapAt(i, parent)
            i = parent
        }
    }

    @discardableResult
    mutating func removeMin() -> Element? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let e = items.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var smallest = i
            if l < items.count && items[l] < items[smallest] { smallest = l }
            if r < items.count && items[r] < items[smallest] { smallest = r }
            if smallest == i { break }
            items.swapAt(i, smallest)
            i = smallest
        }
        return e
    }
}
