import ConformanceFormats
import OperationDriverKit
import Synchronization

/// A request to stop a run early: the command line makes one and sets it on SIGINT or SIGTERM.
/// The runner starts no new case once it is set, drops the cases that were running (their
/// drivers were killed with the request, so their endings say nothing about the
/// implementation), and the shrinker stops at once, keeping the smallest case it had confirmed.
/// What was decided is then written as usual, marked as interrupted.
///
/// One per run, never a global: a test process runs many runs at once.
public final class StopRequest: Sendable {
    private let flag = Atomic<Bool>(false)
    public init() {}
    public func request() { flag.store(true, ordering: .sequentiallyConsistent) }
    package var isRequested: Bool { flag.load(ordering: .sequentiallyConsistent) }
}
