/// The threads that can run now: a set of thread numbers that finds its k-th smallest member in
/// a logarithm of the number of threads (a Fenwick tree of 0/1 counts over thread numbers).
///
/// The schedule seed picks the k-th runnable thread in ascending order, the choice a scan of
/// every live thread made at every step; keeping the set instead of rebuilding it makes a step
/// cost the same with 10 threads alive or 100,000 (a spawn bomb's scans had taken minutes).
struct RunnableThreads {
    /// `tree[i]` (1-based) counts the members among thread numbers `i - lowbit(i) ..< i`.
    private var tree: [Int] = [0]
    private var member: [Bool] = []
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func insert(_ t: Int) {
        if t >= member.count { grow(to: t + 1) }
        guard !member[t] else { return }
        member[t] = true
        count += 1
        add(t, 1)
    }

    mutating func remove(_ t: Int) {
        guard t < member.count, member[t] else { return }
        member[t] = false
        count -= 1
        add(t, -1)
    }

    /// The `k`-th smallest member, counting from 0; `k` must be below `count`.
    func element(at k: Int) -> Int {
        let n = member.count
        var position = 0, remaining = k + 1
        var step = 1
        while step * 2 <= n { step *= 2 }
        while step > 0 {
            let next = position + step
            if next <= n && tree[next] < remaining {
                position = next
                remaining -= tree[next]
            }
            step /= 2
        }
        return position
    }

    private mutating func add(_ t: Int, _ delta: Int) {
        var i = t + 1
        while i < tree.count {
            tree[i] += delta
            i += i & -i
        }
    }

    /// Doubles the room and rebuilds the tree from the members in one pass (linear), so growing
    /// one thread at a time costs a constant per thread.
    private mutating func grow(to needed: Int) {
        let n = max(needed, 2 * member.count, 16)
        member.append(contentsOf: repeatElement(false, count: n - member.count))
        tree = Array(repeating: 0, count: n + 1)
        for i in 1...n {
            if member[i - 1] { tree[i] += 1 }
            let parent = i + (i & -i)
            if parent <= n { tree[parent] += tree[i] }
        }
    }
}
