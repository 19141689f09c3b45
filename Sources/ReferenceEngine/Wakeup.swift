/// A timer of the scheduler: the thread sleeps, or waits with a deadline, until `time`. Stale
/// once the thread has woken (its `epoch` moved on): the heap of timers drops stale ones as they
/// come to the top. Keys are never equal (a thread's epoch grows with each sleep and wait).
struct Wakeup: Comparable {
    var time: Int
    var thread: Int
    var epoch: Int
    static func < (a: Wakeup, b: Wakeup) -> Bool { (a.time, a.thread, a.epoch) < (b.time, b.thread, b.epoch) }
}
