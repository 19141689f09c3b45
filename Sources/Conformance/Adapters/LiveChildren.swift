#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The drivers this process has started and not yet reaped, so that an interrupted run can kill
/// them all at once (`killAll`) instead of waiting for each case's own limits.
///
/// A pid is added right after it is spawned and removed before it is reaped (under the same
/// lock `killAll` holds), so a pid in the list is always one of our unreaped children: never a
/// number the system has given to another process.
public enum LiveChildren {
    private static let pids = Mutex<[pid_t]>([])

    static func add(_ pid: pid_t) { pids.withLock { $0.append(pid) } }

    static func remove(_ pid: pid_t) { pids.withLock { list in list.removeAll { $0 == pid } } }

    /// Kills every live child's process group; returns how many there were.
    @discardableResult
    public static func killAll() -> Int {
        let count = pids.withLock { list in
            for pid in list { _ = kill(-pid, SIGKILL) }
            return list.count
        }
        // And what they started outside their groups (`ProcessMark`): every mark of this harness.
        ProcessMark.end("\(getpid()).", everyChild: true)
        return count
    }
}
