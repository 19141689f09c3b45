import Conformance

/// The part of every Swift reproducer that does not depend on its scenario: the event log,
/// tokens, bounded calls and the checks, all `fileprivate`, so several reproducers can share a
/// test target. Written out in full in each reproducer: it needs nothing but Foundation.
enum SwiftRuntime {
    /// The runtime's queues, when they are Foundation's.
    static let queuesLine = "    var queues: [OperationQueue] = []"
    /// The runtime's queues, when a queue of the user's own takes their place.
    static let userQueuesLine = "    var queues: [any ReproducerQueue] = []"

    /// What a queue of the user's own must have: `OperationQueue`'s members under their names,
    /// as the driver kit's `QueueUnderTest` asks (written here again: the reproducer needs
    /// nothing of OperationConformance).
    static func userQueue(_ queue: Reproducer.UserQueue) -> [String] {
        ["// MARK: - Your queue, in OperationQueue's place",
         "",
         "/// The part of OperationQueue's API the scenario uses, which your queue has under the same names.",
         "fileprivate protocol ReproducerQueue: AnyObject {",
         "    func addOperation(_ op: Operation)",
         "    func addOperation(_ block: @escaping @Sendable () -> Void)",
         "    func addOperations(_ ops: [Operation], waitUntilFinished wait: Bool)",
         "    func cancelAllOperations()",
         "    var isSuspended: Bool { get set }",
         "    var maxConcurrentOperationCount: Int { get set }",
         "    func waitUntilAllOperationsAreFinished()",
         "    var operationCount: Int { get }",
         "    var name: String? { get set }",
         "}",
         "extension ReproducerQueue {",
            "    /// As OperationQueue's: the block in a BlockOperation (004, \"Adding Operations "
                + "to an Operation Queue\").",
            "    func addOperation(_ block: @escaping @Sendable () -> Void) { "
                + "addOperation(BlockOperation(block: block)) }",
         "}",
         "extension \(queue.typeName): ReproducerQueue {}",
         ""]
    }

    static let text = #"""
// MARK: - What every reproducer of this kind shares (scenario-independent)

fileprivate enum Ev: Int {
    case start, mainBegan, mainEnded, blockBegan, blockEnded, completionBegan, completionEnded, will, did, set, read,
         signal, awaited, call, returned, threw, stuck, thread
    // Patterns only: matched by the events that show them.
    case finished, finishing, active, taskBegan, taskEnded
}
fileprivate enum Key: Int, CaseIterable {
    case isCancelled, isConcurrent, isExecuting, isFinished, isReady, dependencies, queuePriority, completionBlock, \#
threadPriority, executionBlocks
}
fileprivate enum Call: Int {
    case cancel, add, addBatch, setCompletionBlock, addExecutionBlock, result, waitUntilFinished, \#
waitUntilAllFinished, addDependency, removeDependency, start
}
fileprivate struct Event {
    var kind: Ev, op: Int, a: Int, b: Int, thread: ObjectIdentifier, text: String?
}
fileprivate struct P {
    var kind: Ev, op: Int, a: Int, b: Int
    init(_ kind: Ev, _ op: Int, _ a: Int, _ b: Int) { (self.kind, self.op, self.a, self.b) = (kind, op, a, b) }
    func matches(_ e: Event) -> Bool {
        if op >= 0 && e.op != op { return false }
        let fin = Key.isFinished.rawValue, exe = Key.isExecuting.rawValue
        switch kind {
        case .finished: return (e.kind == .did || e.kind == .read) && e.a == fin && e.b == 1
        case .finishing: return ((e.kind == .will || e.kind == .did) && e.a == fin) || (e.kind == .read && e.a == fin \#
&& e.b == 1) || e.kind == .completionBegan
        case .active: return e.kind == .mainBegan || e.kind == .blockBegan || ((e.kind == .did || e.kind == .read) && \#
(e.a == fin || e.a == exe) && e.b == 1)
        case .taskBegan: return e.kind == .mainBegan || e.kind == .blockBegan
        case .taskEnded: return e.kind == .mainEnded || e.kind == .blockEnded
        default: return e.kind == kind && (a < 0 || e.a == a) && (b < 0 || e.b == b)
        }
    }
}

/// One run of the scenario: its operations and queues, and what it recorded.
/// `@unchecked Sendable` is sound: `events` and `signalled` are only touched under `lock`
/// (a leaf lock: nothing is called while it is held); `ops` and `queues` are filled before any
/// operation runs and only read after; `abandoned` is the driving thread's alone.
fileprivate final class Run: @unchecked Sendable {
    let lock = NSCondition()
    var events: [Event] = []
    var signalled: [Int] = []
    var ops: [Operation] = []
    var queues: [OperationQueue] = []
    var abandoned = false
    let bound: TimeInterval
    init(bound: TimeInterval) { self.bound = bound }

    static var quiet: Bool {
        get { Thread.current.threadDictionary["repro.quiet"] != nil }
        set { Thread.current.threadDictionary["repro.quiet"] = newValue ? true : nil }
    }
    func record(_ kind: Ev, _ op: Int, _ a: Int = -1, _ b: Int = -1, text: String? = nil) {
        let e = Event(kind: kind, op: op, a: a, b: b, thread: ObjectIdentifier(Thread.current), text: text)
        lock.withLock { events.append(e) }
    }
    func logged(_ op: Int, _ key: Key, _ value: Bool) -> Bool {
        if !Run.quiet { record(.read, op, key.rawValue, value ? 1 : 0) }
        return value
    }
    func taskThread(_ op: Int) { record(.thread, op, text: Thread.current.name ?? "") }
    func snapshot() -> [Event] { lock.withLock { events } }
    func find(_ p: P, from: Int = 0) -> Int? {
        let all = snapshot()
        guard from < all.count else { return nil }
        return (from..<all.count).first { p.matches(all[$0]) }
    }
    func describe(_ i: Int) -> String {
        let e = snapshot()[i]
        var s = "#\(i) thread \(e.thread.hashValue & 0xffff) "
        switch e.kind {
        case .signal, .awaited: s += "\(e.kind) token \(e.a)" + (e.kind == .awaited ? (e.b == 1 ? " received" : " \#
timed out") : "")
        case .call, .returned, .threw, .stuck: s += "\(e.kind == .stuck ? "did not return" : "\(e.kind)") \#
\(Call(rawValue: e.a).map { "\($0)" } ?? "?") \(e.op)"
        case .will, .did, .set, .read: s += "op \(e.op) \(e.kind) \(Key(rawValue: e.a).map { "\($0)" } ?? "?")" + \#
(e.b < 0 ? "" : e.b == 1 ? " YES" : " NO")
        case .blockBegan, .blockEnded: s += "op \(e.op) \(e.kind) \(e.a)"
        default: s += "op \(e.op) \(e.kind)" + (e.text.map { " \"\($0)\"" } ?? "")
        }
        return s
    }

    // MARK: the checks: nil when the claim holds, or what was seen instead

    func occurs(_ p: P) -> String? { find(p) == nil ? "it never happened" : nil }
    func never(_ p: P) -> String? { find(p).map { "it happened: " + describe($0) } }
    func before(_ first: P, _ then: P) -> String? {
        guard let t = find(then) else { return nil }
        if let f = find(first), f < t { return nil }
        return describe(t) + (find(first).map { " came before " + describe($0) } ?? ", and what must come before it \#
never came")
    }
    func countIs(_ p: P, _ n: Int) -> String? {
        let count = snapshot().filter(p.matches).count
        return count == n ? nil : "it happened \(count) times"
    }
    func valuesAfter(_ anchor: P, _ p: P, _ value: Int) -> String? {
        guard let a = find(anchor) else { return nil }
        let all = snapshot()
        return (a + 1 ..< max(a + 1, all.count)).first { p.matches(all[$0]) && all[$0].b != value }.map(describe)
    }
    func callsAfterThrow(_ call: Call, _ op: Int, _ anchor: P) -> String? {
        guard let a = find(anchor) else { return nil }
        var i = a
        while let c = find(P(.call, op, call.rawValue, -1), from: i + 1) {
            let r = find(P(.returned, op, call.rawValue, -1), from: c + 1), t = find(P(.threw, op, call.rawValue, \#
-1), from: c + 1)
            if let r, t.map({ r < $0 }) ?? true { return describe(r) + " (after " + describe(a) + ")" }
            i = c
        }
        return nil
    }
    func duringCall(_ call: Call, _ op: Int, _ p: P) -> String? {
        var i = -1
        while let c = find(P(.call, op, call.rawValue, -1), from: i + 1) {
            if let r = find(P(.returned, op, call.rawValue, -1), from: c + 1), find(p, from: c + 1).map({ $0 > r }) \#
?? true {
                return "nothing between " + describe(c) + " and " + describe(r)
            }
            i = c
        }
        return nil
    }
    func implies(_ p: P, _ q: P) -> String? {
        guard let i = find(p), find(q) == nil else { return nil }
        return describe(i) + ", and then nothing"
    }
    func notDuring(_ p: P, _ from: P, _ to: P) -> String? {
        var open = 0
        for (i, e) in snapshot().enumerated() {
            if from.matches(e) { open += 1 } else if to.matches(e) && open > 0 { open -= 1 } else if p.matches(e) && \#
open > 0 { return describe(i) + " while the span was open" }
        }
        return nil
    }
    func exclusive(_ op: Int) -> String? {
        var executing = 0, finished = 0
        for (i, e) in snapshot().enumerated() where e.op == op && (e.kind == .read || e.kind == .did) && e.b >= 0 {
            if e.a == Key.isExecuting.rawValue { executing = e.b } else if e.a == Key.isFinished.rawValue { finished \#
= e.b } else { continue }
            if executing == 1 && finished == 1 { return "isExecuting YES and isFinished YES, the second at " + \#
describe(i) }
        }
        return nil
    }
    func atMostRunning(_ ops: [Int], _ width: Int) -> String? {
        let all = snapshot()
        var spans: [(op: Int, from: Int, to: Int)] = []
        for op in ops {
            guard let began = all.firstIndex(where: { e in e.op == op && (e.kind == .start || e.kind == .mainBegan || \#
e.kind == .blockBegan) }),
                  let ended = all.lastIndex(where: { e in e.op == op && (e.kind == .mainEnded || e.kind == \#
.blockEnded) }), ended > began else { continue }
            spans.append((op, began, ended))
        }
        for s in spans {
            let running = spans.filter { $0.from <= s.from && $0.to > s.from }
            if running.count > width {
                return "\(running.count) ran at once (" + running.map { "op \($0.op)" }.joined(separator: ", ") + "), \#
the last starting at " + describe(s.from)
            }
        }
        return nil
    }
    func threadPrefix(_ op: Int, _ prefix: String) -> String? {
        snapshot().indices.first { i in let e = snapshot()[i]; return e.kind == .thread && e.op == op && !(e.text ?? \#
"").hasPrefix(prefix) }.map(describe)
    }

    // MARK: what operations and the program do

    func signal(_ t: Int) {
        record(.signal, -1, t)
        lock.withLock { signalled.append(t); lock.broadcast() }
    }
    func isSignalled(_ t: Int) -> Bool { lock.withLock { signalled.contains(t) } }
    func await(_ t: Int, _ units: Int) {
        let deadline = Date(timeIntervalSinceNow: Double(units) * 0.001)
        let got: Bool = lock.withLock {
            while !signalled.contains(t) && lock.wait(until: deadline) {}
            return signalled.contains(t)
        }
        record(.awaited, -1, t, got ? 1 : 0)
    }
    func readKey(_ op: Int, _ key: Key) {
        let o = ops[op]
        switch key {
        case .isCancelled: _ = o.isCancelled     // the getter overrides record these
        case .isExecuting: _ = o.isExecuting
        case .isFinished: _ = o.isFinished
        case .isReady: _ = o.isReady
        case .isConcurrent: record(.read, op, key.rawValue, o.isAsynchronous ? 1 : 0)
        case .completionBlock: record(.read, op, key.rawValue, o.completionBlock != nil ? 1 : 0)
        case .queuePriority: record(.read, op, key.rawValue, o.queuePriority.rawValue)
        case .dependencies: record(.read, op, key.rawValue, o.dependencies.count)
        case .executionBlocks: record(.read, op, key.rawValue, (o as? BlockOperation)?.executionBlocks.count ?? 0)
        case .threadPriority: break            // swift-corelibs-foundation's Operation has no threadPriority
        }
    }
    func called(_ call: Call, _ target: Int, _ body: () -> Void) {
        record(.call, target, call.rawValue)
        body()
        record(.returned, target, call.rawValue)
    }
    /// A call that may never return runs on a thread of its own; the driver waits for it at most
    /// `bound` seconds, then records it as stuck and skips the rest of the run.
    func bounded(_ call: Call, _ target: Int, _ body: @escaping @Sendable () -> Void) {
        record(.call, target, call.rawValue)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread { body(); done.signal() }
        if done.wait(timeout: .now() + bound) == .success { record(.returned, target, call.rawValue) } else { \#
record(.stuck, target, call.rawValue); abandoned = true }
    }
    /// A driver step's trigger: waits (at most `bound`) until the condition holds.
    func after(_ condition: () -> Bool) {
        let deadline = Date(timeIntervalSinceNow: bound)
        while !condition() && Date() < deadline { usleep(500) }
    }
    func quietlyFinished(_ op: Int) -> Bool {
        Run.quiet = true
        defer { Run.quiet = false }
        return ops[op].isFinished
    }
    /// Waits (at most `bound`) until every operation handed to a queue or started has finished,
    /// then until nothing has been recorded for 0.2 s: completion blocks run after the finish.
    func settle(_ handed: [Int]) {
        let deadline = Date(timeIntervalSinceNow: bound)
        for op in handed { while !quietlyFinished(op) && Date() < deadline { usleep(500) } }
        var seen = -1
        while seen != snapshot().count && Date() < deadline {
            seen = snapshot().count
            usleep(200_000)
        }
    }
}

fileprivate func work(_ units: Int) { Thread.sleep(forTimeInterval: Double(units) * 0.001) }
"""#
}
