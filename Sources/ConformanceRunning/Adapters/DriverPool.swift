import ConformanceFormats
import Foundation
import OperationDriverKit

/// Driver processes of one implementation waiting for their next case (protocol 3,
/// Specs/driver-protocol.md, "Sessions"). A case takes one, or starts a fresh process when none
/// waits; a case that ends with `done` saying `next` gives its process back. At most as many
/// wait as cases ran at once. When the pool goes (its implementation is no longer used), the
/// processes still waiting are told to exit (`DriverProcess.retire`); a harness that exits
/// first closes their standard input all the same, and they exit then.
///
/// `@unchecked Sendable` is sound: `idle` and `starts` are read and written only under `lock`.
final class DriverPool: @unchecked Sendable {
    private let lock = NSLock()
    private var idle: [DriverProcess] = []
    private var starts = 0

    /// A process that waits for a case and wrote nothing since its last one, if any; the
    /// others are retired.
    func take() -> DriverProcess? {
        while let process = lock.withLock({ idle.popLast() }) {
            if process.isIdleAndClean { return process }
            process.retire(grace: 0)
        }
        return nil
    }

    func give(_ process: DriverProcess) { lock.withLock { idle.append(process) } }

    /// Processes waiting now, and processes started for this implementation's cases so far
    /// (for tests and the bench).
    var waiting: Int { lock.withLock { idle.count } }
    var started: Int { lock.withLock { starts } }
    func countStart() { lock.withLock { starts += 1 } }

    /// Ends every process that waits, and returns once they are reaped: their CPU time is then
    /// the harness's children's (`CPUTime`), and nothing of the run is left running.
    func retireAll() {
        let all = lock.withLock { () -> [DriverProcess] in defer { idle = [] }; return idle }
        let done = DispatchGroup()
        for process in all { process.retire(done: done) }
        // Bounded (issue 43): a retiring thread the machine could not start never leaves.
        _ = done.wait(timeout: .now() + 2 + DriverProcess.reapDeadline + 5)
    }

    deinit { for process in idle { process.retire() } }
}
