import ConformanceFormats
import ConformanceRunning
import Dispatch
import OperationDriverKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a body once for each index, each on a thread of its own, and returns when all have run.
///
/// Not `DispatchQueue.concurrentPerform`: on Linux that runs no more iterations at once than
/// the machine has cores, and one nested in another runs them one at a time, while a shrink's
/// runs mostly wait for their drivers (issue 45 measured never more than one live driver in
/// `bench --detect`, at most two in `run`). Not Foundation's `Thread` either: a thread the
/// machine cannot start (out of processes) fails silently there, and the wait for it would
/// never end (issue 43). Here such an index is run on the calling thread, after its own.
package enum SideBySide {
    /// How a thread is started: `detach`, or in tests a machine that refuses every thread.
    package typealias Starter = @Sendable (@escaping @Sendable () -> Void) -> Bool

    static func perform(_ count: Int, starting start: Starter = detach, _ body: @escaping @Sendable (Int) -> Void) {
        guard count > 1 else {
            if count == 1 { body(0) }
            return
        }
        let done = DispatchGroup()
        var leftToUs: [Int] = []
        for index in 1..<count {
            done.enter()
            let started = start {
                body(index)
                done.leave()
            }
            if !started {
                done.leave()
                leftToUs.append(index)
            }
        }
        body(0)
        for index in leftToUs { body(index) }
        // Without a deadline: every thread waited for did start, and runs a body that ends as the
        // calling thread's does (a shrink's runs are bounded by the driver's deadlines and a stop).
        done.wait()
    }

    /// The work a thread runs, handed to it through pthread_create's one pointer.
    private final class Work: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Starts a detached thread running `work`; false when the machine refuses the thread.
    package static func detach(_ work: @escaping @Sendable () -> Void) -> Bool {
        let handed = Unmanaged.passRetained(Work(work)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Glibc)
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, { pointer in
            guard let pointer else { return nil }
            Unmanaged<Work>.fromOpaque(pointer).takeRetainedValue().run()
            return nil
        }, handed)
        #else
        var thread: pthread_t?
        let status = pthread_create(&thread, &attributes, { pointer in
            Unmanaged<Work>.fromOpaque(pointer).takeRetainedValue().run()
            return nil
        }, handed)
        #endif
        if status != 0 {
            Unmanaged<Work>.fromOpaque(handed).release()
            return false
        }
        return true
    }
}
