import Foundation
import OperationSpec

/// What your own asynchronous `Operation` subclass forwards to, so that the harness sees it:
/// every `start` and `cancel` call, every getter call (the queue's own included), and its unit of
/// work. A driver for a subclass gives each of a scenario's asynchronous operations a probe;
/// your test subclass wraps its overrides in the probe's methods and does the probe's work as
/// its task:
///
/// ```swift
/// final class Probed: MyAsyncOperation, @unchecked Sendable {
///     let probe: SubclassProbe
///     init(_ probe: SubclassProbe) { self.probe = probe; super.init() }
///     override func execute() { probe.work(then: finish) }        // your class's task, and how it ends
///     override func start() { probe.start { super.start() } }
///     override func cancel() { probe.cancel { super.cancel() } }
///     override var isReady: Bool { probe.isReady { super.isReady } }
///     override var isExecuting: Bool { probe.isExecuting { super.isExecuting } }
///     override var isFinished: Bool { probe.isFinished { super.isFinished } }
///     override var isCancelled: Bool { probe.isCancelled { super.isCancelled } }
/// }
/// OperationDriver(name: "my-async-operation", subclass: { Probed($0) }).main()
/// ```
///
/// Your class's stores into its state are not seen: the rules judge it by what its getters
/// return, when, and to whom, by its calls, and by the keys it announces (on Linux the kit hears
/// every `didChangeValue(forKey:)` your class sends, `Announcements`). Foundation's queue reads `isFinished` when told
/// the operation finished (its did-change handling), so every move to finished that the queue
/// can act on is in the trace.
///
/// `@unchecked Sendable` is sound: the stored properties are `let` but `declarations`, which is
/// read and written only under `declarationLock` (`readLock` guards nothing but the order of a
/// read and its record; see `read`).
public final class SubclassProbe: @unchecked Sendable {
    let index: Int
    let work: [Step]
    unowned let context: DriverContext
    /// Recursive: a getter of your class may, on the same thread, cause another read through
    /// this probe (a getter that stores `state` sends its will/did-changes, and Foundation's
    /// did-change handling reads `isFinished` back). A plain lock deadlocked there, and the
    /// harness reported the probe's own deadlock as the class's hang (the corpus's
    /// `ready-writes` class).
    private let readLock = QuietLock(recursive: true)
    /// Guards `declarations`, for `declare` and its look-ups only.
    private let declarationLock = QuietLock()
    /// Keys the class declares as affecting each state key (`declare`). Sound under the class's
    /// `@unchecked Sendable`: read and written only under `declarationLock`.
    private var declarations: [StateKey: [String]] = [:]

    init(index: Int, work: [Step], context: DriverContext) {
        self.index = index
        self.work = work
        self.context = context
    }

    /// Does the operation's unit of work on a thread of its own, as an asynchronous task would
    /// be done, then calls `finish` on that thread: your class's way to end the operation.
    /// Call it where your class starts its task (`execute()`, `main()`...). The work checks
    /// `isCancelled` between its units, as the guide's Listing 2-4 does.
    public func work(then finish: @escaping @Sendable () -> Void) {
        let (index, work, context) = (self.index, self.work, self.context)
        let thread = Thread {
            ThreadRole.with(.program) {
                context.log(.mainBegan(op: index, threadPriority: DriverContext.unknownPriority))
                context.readWhileTheTaskRuns(index)
                context.run(work, this: index)
                // The task is over and the class has not been told yet: a started operation
                // still reports executing here (STATE-EXECUTING-DURING-TASK). A read at the
                // task's end, not its start, leaves Listing 2-6's own race (the task may begin
                // before start stores executing) out of the verdict.
                context.readIsExecuting(of: index)
                context.log(.mainEnded(op: index))
            }
            finish()
        }
        thread.start()
    }

    /// Wrap your `start` override's call to `super.start()` (or your class's whole start).
    public func start(_ body: () -> Void) { call(.start(index, by: ThreadRole.current), body) }
    /// Wrap your `cancel` override's call to `super.cancel()`.
    public func cancel(_ body: () -> Void) { call(.cancel(index), body) }

    /// Says which keys your class declares as affecting `key`: one line in your test
    /// subclass's initializer, mirroring your class's `keyPathsForValuesAffecting<Key>`, such as
    /// `probe.declare(Self.keyPathsForValuesAffectingIsFinished(), affecting: .isFinished)`.
    ///
    /// Foundation on Linux has no dependent keys: a class that announces its finish only as a
    /// change of such a key (correct on Darwin) is never heard by the queue there. The harness
    /// excuses that as the platform's limit only for a key you declare here, seen announced
    /// when the operation turned finished; a class that declares nothing is left unconfirmed,
    /// and one that announces an undeclared key, or none, fails SUBCLASS-FINISH-ANNOUNCED.
    public func declare(_ keys: Set<String>, affecting key: StateKey) {
        declarationLock.withLock { declarations[key] = keys.sorted() }
    }

    /// The state keys `announced` is declared to affect; nil when nothing was declared.
    func declaredAffecting(_ announced: String) -> [StateKey]? {
        declarationLock.withLock {
            declarations.isEmpty ? nil : StateKey.allCases.filter { declarations[$0]?.contains(announced) == true }
        }
    }

    /// Marks a thread whose reads through a probe are not logged: the watcher of a driver built
    /// with ThreadSanitizer (`DriverContext.readWhileTheTaskRuns`).
    static let unloggedKey = "opconform.unlogged"

    public func isReady(_ value: () -> Bool) -> Bool { read(.isReady, value) }
    public func isExecuting(_ value: () -> Bool) -> Bool { read(.isExecuting, value) }
    public func isFinished(_ value: () -> Bool) -> Bool { read(.isFinished, value) }
    public func isCancelled(_ value: () -> Bool) -> Bool { read(.isCancelled, value) }

    private func call(_ c: Call, _ body: () -> Void) {
        context.log(.call(c))
        body()
        context.log(.returned(c))
    }

    /// Reads and records as one step, so two threads reading at once record their values in the
    /// order they read them (as the driver's own operations do, `LoggedOperation.logged`).
    /// Lock order: this lock, then your class's, then the recorder's; taken again by the same
    /// thread, it is entered again.
    /// Timing noise comes before the lock is taken and after it is let go.
    private func read(_ key: StateKey, _ value: () -> Bool) -> Bool {
        if QuietSanitizer.annotations != nil, Thread.current.threadDictionary[Self.unloggedKey] != nil {
            return value()
        }
        context.recorder.perturb()
        let v = readLock.withLock {
            let v = value()
            context.recorder.record(.read(op: index, key, .bool(v)), perturbing: false)
            return v
        }
        // Whoever was just told "finished" (the queue, on the finishing thread, inside the
        // class's did-change) reads isExecuting at once too: a class that stores finished
        // before it resets executing is then seen in its both-YES window every time, not only
        // when another thread's read happens to land in it (issue 30, item 4).
        if key == .isFinished && v { context.readIsExecuting(of: index) }
        context.recorder.perturb()
        return v
    }
}
