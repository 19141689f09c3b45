/// A blocked thread the scheduler is to look at again, as of one of its waits (`epoch`): stale,
/// and skipped, once the thread has woken from that wait.
struct Registration {
    var thread: Int
    var epoch: Int
}
