import Foundation
import OperationSpec

/// The trace of one run on real threads: events get a global sequence number and a small thread
/// number as they are recorded, and go straight to `sink` (the driver streams them), so a run that
/// dies loses nothing it had already seen.
///
/// `@unchecked Sendable` is sound: every stored property is read and written only while holding
/// `condition`, which also lets waiters sleep until the event they wait for is recorded.
final class FoundationRecorder: @unchecked Sendable {
    private let condition = NSCondition()
    private var count = 0
    private var threadNumbers: [UInt: Int] = [:]   // pthread id -> thread number; looked up, never iterated
    private var occurred: Set<Trigger> = []        // looked up, never iterated
    private var finished: Set<Int> = []            // operations with finish evidence; looked up only
    private var tokens: Set<Int> = []
    private var lastEventTime = Date()
    private let sink: (TraceEvent) -> Void
    /// Which queue the current thread works for, if any.
    private let queueOfCurrentThread: () -> Int?

    init(sink: @escaping (TraceEvent) -> Void, queueOfCurrentThread: @escaping () -> Int?) {
        self.sink = sink
        self.queueOfCurrentThread = queueOfCurrentThread
    }

    func record(_ kind: EventKind) {
        let queue = queueOfCurrentThread()
        let name = Thread.current.name ?? ""
        condition.lock()
        defer { condition.unlock() }
        let id = UInt(bitPattern: Int(bitPattern: pthread_self()))
        let thread: Int
        if let n = threadNumbers[id] {
            thread = n
        } else {
            thread = threadNumbers.count
            threadNumbers[id] = thread
            emit(.threadStarted(name: name, queue: queue), thread: thread)
        }
        emit(kind, thread: thread)
        condition.broadcast()
    }

    private func emit(_ kind: EventKind, thread: Int) {
        sink(TraceEvent(seq: count, thread: thread, kind))
        count += 1
        lastEventTime = Date()
        switch kind {
        case .call(.start(let op, _)): occurred.insert(.started(op))
        case .mainBegan(let op, _): occurred.insert(.mainBegan(op))
        case .blockBegan(let op, let b): occurred.insert(.blockBegan(op, block: b))
        case .read(let op, .isFinished, .bool(true)), .didChange(let op, .isFinished, .bool(true)), .set(let op, .isFinished, true):
            finished.insert(op); occurred.insert(.finished(op))
        case .signal(let t): tokens.insert(t)
        default: break
        }
    }

    /// Waits until the trigger happened (true), its operation finished without it, or the time
    /// ran out (false).
    func wait(for trigger: Trigger, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !occurred.contains(trigger) && !finished.contains(trigger.op) {
            if !condition.wait(until: deadline) { break }
        }
        return occurred.contains(trigger)
    }

    /// Rendezvous: waits for token `t` at most `timeout` seconds.
    func await(token t: Int, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !tokens.contains(t) { if !condition.wait(until: deadline) { break } }
        return tokens.contains(t)
    }

    /// Waits until nothing was recorded for `quiet` seconds, at most `timeout`; true if it got quiet.
    func settle(quiet: TimeInterval, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while Date().timeIntervalSince(lastEventTime) < quiet {
            if Date() > deadline { return false }
            _ = condition.wait(until: min(deadline, lastEventTime.addingTimeInterval(quiet)))
        }
        return true
    }
}
