import Foundation

/// Keeps the harness's own locks out of ThreadSanitizer's view, in a driver built with
/// `-sanitize=thread` (issue 30).
///
/// Every instrumented point of a driver takes the recorder's lock, and every read through a
/// probe takes the probe's: to ThreadSanitizer each acquire is a happens-before edge from the
/// last release, on whatever thread. Those edges order the tested code's own accesses across
/// threads as its real users' programs never would, and hid a data race between a subclass's
/// task thread and its queue's (the corpus's `unsynchronised` class: no report in 30 cases).
/// So these locks tell the sanitizer's runtime, around each acquire and release, to ignore the
/// synchronisation (`AnnotateIgnoreSyncBegin`/`End`), and the recorder also its own memory
/// accesses while it holds its lock (`AnnotateIgnoreReadsBegin`/`End`, which ThreadSanitizer
/// counts for reads and writes alike), so its bookkeeping, no longer ordered for the sanitizer,
/// is not reported either. The tested code's accesses made while a probe's lock is held (its
/// getter) stay in view.
///
/// The annotations are the runtime's own functions, looked up once by name in the running
/// program; in a driver built without the sanitizer they are absent and nothing is called.
enum QuietSanitizer {
    typealias Annotation = @convention(c) (UnsafePointer<CChar>?, Int32) -> Void

    /// The four annotations, or nil without ThreadSanitizer's runtime.
    typealias Annotations = (syncBegin: Annotation, syncEnd: Annotation, accessBegin: Annotation, accessEnd: Annotation)
    static let annotations: Annotations? = {
        let program = dlopen(nil, RTLD_NOW)
        func find(_ name: String) -> Annotation? { dlsym(program, name).map { unsafeBitCast($0, to: Annotation.self) } }
        guard let a = find("AnnotateIgnoreSyncBegin"), let b = find("AnnotateIgnoreSyncEnd"),
              let c = find("AnnotateIgnoreReadsBegin"), let d = find("AnnotateIgnoreReadsEnd") else { return nil }
        return (a, b, c, d)
    }()

    /// `body` with its synchronisation unseen (and, with `accesses`, its memory accesses).
    @inline(__always)
    static func hidden<T>(accesses: Bool, _ body: () -> T) -> T {
        guard let a = annotations else { return body() }
        a.syncBegin(nil, 0)
        if accesses { a.accessBegin(nil, 0) }
        defer {
            if accesses { a.accessEnd(nil, 0) }
            a.syncEnd(nil, 0)
        }
        return body()
    }
}

/// The recorder's condition: its acquire and release, and everything done while it is held,
/// are unseen by ThreadSanitizer (`QuietSanitizer`). A wrapper, since Foundation's lock classes
/// cannot be subclassed here.
///
/// `@unchecked Sendable` is sound: its one stored property is a `let` of a thread-safe class.
final class QuietCondition: NSLocking, @unchecked Sendable {
    private let condition = NSCondition()

    func lock() {
        QuietSanitizer.annotations.map { $0.syncBegin(nil, 0); $0.accessBegin(nil, 0) }
        condition.lock()
    }

    func unlock() {
        condition.unlock()
        QuietSanitizer.annotations.map { $0.accessEnd(nil, 0); $0.syncEnd(nil, 0) }
    }

    func broadcast() { condition.broadcast() }
    func wait(until limit: Date) -> Bool { condition.wait(until: limit) }
}

/// A read lock whose acquire and release are unseen by ThreadSanitizer; what is read while it
/// is held (the tested code's getter) is seen. A probe's is recursive (`SubclassProbe`), a
/// driver operation's is not (`LoggedOperation`): a queue under test that reads its operations'
/// state is not ordered by the harness's lock either.
///
/// `@unchecked Sendable` is sound: its one stored property is a `let` of a thread-safe class.
final class QuietLock: NSLocking, @unchecked Sendable {
    private let base: NSLocking & Sendable

    init(recursive: Bool = false) { base = recursive ? NSRecursiveLock() : NSLock() }

    func lock() { QuietSanitizer.hidden(accesses: false) { base.lock() } }
    func unlock() { QuietSanitizer.hidden(accesses: false) { base.unlock() } }
}
