import Foundation

/// The scenario's queues as the driver holds them: each one strongly until a `releaseQueue`
/// step lets it go (API surface 3), and weakly after, so that a released queue lives exactly as
/// long as the implementation keeps it alive.
struct QueueSlots {
    /// One queue's place. A class, so that a release is seen by every thread that reads the list.
    ///
    /// `@unchecked Sendable` is sound: its two references are read and written only under
    /// `lock`. The driving thread releases while operations' threads look the queue up
    /// (`ownsCurrentThread`, a `cancelAll` step); the lock is held only to copy or move a
    /// reference, never while the queue is called, and the driver's last reference is let go
    /// after it is unlocked (a queue's deinit may run then, and log events, which look queues
    /// up), so it cannot be part of a deadlock.
    final class Slot: @unchecked Sendable {
        private let lock = NSLock()
        /// The driver's reference, until the release.
        private var held: (any QueueUnderTest)?
        /// The reference a release leaves behind: it does not keep the queue alive.
        private weak var left: (any QueueUnderTest)?

        init(_ queue: any QueueUnderTest) { held = queue }

        /// The queue, held or still alive after its release; nil once it is gone.
        var queue: (any QueueUnderTest)? { lock.withLock { held ?? left } }

        /// Lets go of the driver's reference, keeping a weak one.
        func release() {
            let last: (any QueueUnderTest)? = lock.withLock {
                let queue = held
                left = queue
                held = nil
                return queue
            }
            // The last reference, if it is one, goes here, outside the lock.
            withExtendedLifetime(last) {}
        }
    }

    let slots: [Slot]

    init(_ queues: [any QueueUnderTest] = []) { slots = queues.map(Slot.init) }

    /// Queue `q`, for a step that names it: `Scenario.problems()` refuses a step that names a
    /// queue after its release, so every such queue is still held.
    subscript(q: Int) -> any QueueUnderTest {
        guard let queue = slots[q].queue else { preconditionFailure("queue \(q) was released, and a step named it") }
        return queue
    }

    /// The queues still alive, held or not, with their numbers.
    var live: [(index: Int, queue: any QueueUnderTest)] {
        slots.enumerated().compactMap { q, slot in slot.queue.map { (q, $0) } }
    }
}
