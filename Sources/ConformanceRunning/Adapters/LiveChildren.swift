import ConformanceFormats
import OperationDriverKit
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
package enum LiveChildren {
    /// The unreaped drivers, and whether the process is stopping (`killAll` was called).
    private struct State {
        var pids: [pid_t] = []
        var stopping = false
    }
    private static let state = Mutex(State())

    /// Records a driver just spawned. Once the process is stopping, the driver is killed at once:
    /// a case may have been spawning it while `killAll` ran (a patient run of a case being
    /// confirmed, a shrink's next candidate), and it would otherwise live until its own limit
    /// (20 s for a patient run's silence).
    static func add(_ pid: pid_t) {
        state.withLock { s in
            s.pids.append(pid)
            if s.stopping { _ = kill(-pid, SIGKILL) }
        }
    }

    /// Whether the process is stopping: a start the machine refused is then not tried again.
    static var isStopping: Bool { state.withLock { $0.stopping } }

    static func remove(_ pid: pid_t) { state.withLock { s in s.pids.removeAll { $0 == pid } } }

    /// Kills every live child's process group, and every driver spawned from now on; returns how
    /// many there were.
    @discardableResult
    package static func killAll() -> Int {
        let count = state.withLock { s in
            s.stopping = true
            for pid in s.pids { _ = kill(-pid, SIGKILL) }
            return s.pids.count
        }
        // And what they started outside their groups (`ProcessMark`): every mark of this harness.
        ProcessMark.end("\(getpid()).", everyChild: true)
        return count
    }
}
