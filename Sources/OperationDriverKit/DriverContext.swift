import Foundation
import OperationSpec

/// One run of a scenario on Foundation's Operation and a queue under test (`OperationQueue` for
/// the `foundation` implementation), with real threads: the operations, the queues, and the
/// interpreter of step programs.
///
/// `@unchecked Sendable` is sound: `ops` and `queues` are filled once by `prepare` before any
/// operation can run, and only read afterwards (a release changes a slot, which guards itself:
/// `QueueSlots`); the recorder guards its own state. The queues guard their own state too
/// (`QueueUnderTest` asks them to be usable from any thread).
final class DriverContext: @unchecked Sendable {
    /// Foundation on Linux has no thread priorities: events that carry one say -1, "cannot tell",
    /// and the capabilities leave `threadPriority` out.
    static let unknownPriority = -1.0
    let scenario: Scenario
    let recorder: DriverRecorder
    /// Seconds per unit of `work`.
    let unit: TimeInterval
    /// How many times longer than usual the driver waits before it calls a call stuck or a
    /// rendezvous missed (the request's `patience`, at least 1).
    var patience = 1
    /// Makes each of the scenario's queues.
    private let makeQueue: () -> any QueueUnderTest
    /// Makes an instance of the implementation's own subclass for each `subclass` operation.
    private let makeSubclass: ((SubclassProbe) -> Operation)?
    private(set) var ops = OperationTable.none
    /// Per operation, the driver step after which the driver lets go of it (-1: after the
    /// setup; nil: never), from `Scenario.lastDriverUses`.
    private(set) var lastUses: [Int?] = []
    private(set) var queues = QueueSlots()
    /// The scenario's dispatch queues (`setUnderlyingQueue`, `onDispatchQueue`), serial, made by
    /// `prepare` and only read afterwards.
    private(set) var dispatchQueues: [DispatchQueue] = []
    /// What the case's first `readMainQueue` returned (API surface 4): read and written only by
    /// the driving thread, which performs every driver action.
    var firstMainQueue: OperationQueue?

    /// `noise`: the request's timing noise (`TimingNoise`), made by the recorder at every
    /// instrumented point; nil for none.
    init(
        scenario: Scenario, unit: TimeInterval, recording: Bool = true, noise: TimingNoise? = nil,
        queue makeQueue: @escaping () -> any QueueUnderTest,
        subclass makeSubclass: ((SubclassProbe) -> Operation)? = nil, sink: @escaping (TraceEvent) -> Void
    ) {
        self.scenario = scenario
        self.unit = unit
        self.makeQueue = makeQueue
        self.makeSubclass = makeSubclass
        var lookup: (() -> Int?)!
        self.recorder = DriverRecorder(
            recording: recording, noise: noise, sink: sink, queueOfCurrentThread: { lookup() })
        // The first queue that says the thread is its own; nil when none can tell.
        lookup = { [unowned self] in self.queues.live.first { $0.queue.ownsCurrentThread == true }?.index }
    }

    func prepare() {
        queues = QueueSlots(scenario.queues.indices.map { q in
            let queue = makeQueue()
            queue.name = "opconform-\(q)"
            return queue
        })
        dispatchQueues = (0..<scenario.dispatchQueueCount).map { DispatchQueue(label: "opconform-dispatch-\($0)") }
        let blockAdded = Set(scenario.blockAddedOperations().map(\.op))   // looked up, never iterated
        // A block given to `addBlock` runs with its slot as `self`: the slot is held.
        lastUses = scenario.lastDriverUses()
        for i in lastUses.indices where blockAdded.contains(i) { lastUses[i] = nil }
        ops = OperationTable(scenario.operations.enumerated().map { i, config in
            let token = config.readyAfterSignal
            switch config.kind {
                case .main(let body), .invocation(let body):
                    return MainOperation(index: i, body: body, readyToken: token, context: self)
            case .block where blockAdded.contains(i):
                // Its block goes to `addOperation(_:)` as a closure (an `addBlock` step): the
                // queue makes the operation. The slot keeps operation numbers in place, and
                // nothing reaches it (`Scenario.problems()` refuses every other reference).
                return Operation()
            case .block(let blocks):
                let op = LoggedBlockOperation(index: i, readyToken: token, context: self)
                for (n, body) in blocks.enumerated() { op.addLoggedBlock(n, body) }
                return op
                case .concurrent(let program):
                    return ProgramOperation(index: i, program: program, readyToken: token, context: self)
            case .subclass(let work):
                // `OperationDriver.serve` refuses a scenario with these when it has no subclass.
                    guard let make = makeSubclass else {
                        preconditionFailure("a subclass operation reached a driver without a subclass")
                    }
                let probe = SubclassProbe(index: i, work: work, context: self)
                let operation = make(probe)
                Announcements.watch(operation, op: i, probe: probe, context: self)
                return operation
            }
        })
    }

    /// Lets go of every operation whose last use was driver step `step` (-1: the setup).
    func letGo(after step: Int) {
        for i in lastUses.indices where lastUses[i] == step { ops.letGo(i) }
    }

    func log(_ kind: EventKind) { recorder.record(kind) }

    /// Reads isExecuting of operation `op` through its own getter (so its probe logs the read),
    /// on the calling thread: the probe's look at that flag (`SubclassProbe`). Nothing during
    /// `prepare`, while `ops` is still being made (a getter called from an initializer).
    func readIsExecuting(of op: Int) {
        guard op < ops.count, let operation = ops.live(op) else { return }
        _ = operation.isExecuting
    }

    /// In a driver built with ThreadSanitizer: reads `op`'s isExecuting and isFinished through
    /// its getters, unlogged, on a thread made for the purpose, from the moment its task begins
    /// until it says it finished (at most `watchReads` times, 20 µs apart); nothing otherwise.
    ///
    /// The guide says both getters are safe to call from other threads at any time (004 2.5.3,
    /// Table 2-2), and a queue's or an observer's thread does call them while the task runs.
    /// This thread does that and nothing else, so it takes no lock the task's thread takes
    /// later: a class whose flags have no lock of their own is reported at its next store
    /// (DATA-RACE), and one whose getters lock is ordered by its own lock and is not. Issue 44:
    /// the driver's reads alone, ordered by Foundation's locks, showed the race in about 1 case
    /// of 100 to 300, and a single read was often pushed out of the sanitizer's memory of
    /// recent accesses (four per word) before the store came; reading until the end keeps the
    /// latest read there. Unlogged (`SubclassProbe.unloggedKey`): the sanitizer's report, with
    /// both stacks, is the evidence, and the trace stays the same size.
    func readWhileTheTaskRuns(_ op: Int) {
        guard QuietSanitizer.annotations != nil else { return }
        Thread { [self] in
            Thread.current.threadDictionary[SubclassProbe.unloggedKey] = true
            guard op < ops.count, let operation = ops.live(op) else { return }
            for _ in 0..<Self.watchReads {
                _ = operation.isExecuting
                if operation.isFinished { return }
                usleep(20)
            }
        }.start()
    }

    /// The most reads `readWhileTheTaskRuns` makes of one operation.
    static let watchReads = 2_000

    /// Reads `isFinished` of every operation of the tested subclass, each read logged through
    /// its probe, on a thread of its own, waiting at most `seconds` for them: called when the
    /// case has hung, before its trace ends. On Linux, a subclass that announces its finish
    /// only through a dependent key of `state` (correct KVO, and correct on Darwin) is never
    /// heard by Foundation's queue, which has no dependent keys, so nothing reads its getter
    /// again and the trace alone cannot tell "finished, unheard" from "never finished". The
    /// class's own word settles it (issue 29: the verdict rests on what the code itself did).
    /// A getter stuck on a lock the hung thread holds is given up on after `seconds`. (The
    /// watchdog calls it only for a stalled driver call, and `ops` was made before the first
    /// call was marked pending: the recorder's lock, taken by both, orders the two.)
    func readSubclassStates(within seconds: TimeInterval) {
        let subclassOps = scenario.operations.indices.filter {
            scenario.operations[$0].kind.isSubclass && $0 < ops.count
        }
        guard !subclassOps.isEmpty else { return }
        let done = DispatchSemaphore(value: 0)
        let targets = subclassOps.compactMap { ops.live($0) }
        let thread = Thread {
            for op in targets { _ = op.isFinished }
            done.signal()
        }
        thread.name = "opconform after the hang"
        thread.start()
        _ = done.wait(timeout: .now() + seconds)
    }

    /// What the case left behind once its trace has ended, if anything: a queue that still
    /// holds operations, an operation still executing, code of the case still running on some
    /// thread (`DriverRecorder.stillRunning`). Nil means the process may serve the next case
    /// (protocol 3, Specs/driver-protocol.md, "Sessions"); anything else ends the process, since
    /// that code would run into the next case's time, threads and standard output.
    func leftovers() -> String? {
        if let (q, queue) = queues.live.first(where: { $0.queue.operationCount > 0 }) {
            return "queue \(q) still holds \(queue.operationCount) operations"
        }
        if let op = ops.indices.first(where: { ops.live($0)?.isExecuting == true }) {
            return "operation \(op) is still executing"
        }
        // An operation nothing holds any more is over.
        return recorder.stillRunning { ops.live($0)?.isFinished ?? true }
    }

    /// Runs steps with `self` = operation `this`; returns true when a `return` ended the routine.
    @discardableResult
    func run(_ steps: [Step], this: Int) -> Bool {
        for step in steps {
            if perform(step, this: this) { return true }
        }
        return false
    }

    private func perform(_ step: Step, this: Int) -> Bool {
        let op = ops[this]
        switch step {
        case .work(let n):
            guard n > 0 else { return false }
            log(.work(op: this, units: n))
            Thread.sleep(forTimeInterval: Double(n) * unit)
        case .returnIfCancelled:
            return op.isCancelled
        case .if(let condition, let then, let otherwise):
            return run(evaluate(condition, this: this) ? then : otherwise, this: this)
        case .repeat(let n, let body):
            for _ in 0..<max(0, n) { if run(body, this: this) { return true } }
        case .return:
            return true
        case .willChange(let key):
            log(.willChange(op: this, key, read(key, of: this, logging: false)))
            op.willChangeValue(forKey: key.rawValue)
        case .didChange(let key):
            log(.didChange(op: this, key, read(key, of: this, logging: false)))
            op.didChangeValue(forKey: key.rawValue)
        case .willChangeUnprefixed(let key):
            if Self.unprefixedKeysHeard { log(.willChange(op: this, key, read(key, of: this, logging: false))) }
            op.willChangeValue(forKey: key.unprefixedName ?? key.rawValue)
        case .didChangeUnprefixed(let key):
            if Self.unprefixedKeysHeard { log(.didChange(op: this, key, read(key, of: this, logging: false))) }
            op.didChangeValue(forKey: key.unprefixedName ?? key.rawValue)
        case .set(let key, let value):
            if let program = op as? ProgramOperation {
                program.set(key, value)
            } else {
                log(.set(op: this, key, value))
            }
        case .call(let name):
            if let body = (op as? ProgramOperation)?.program.routine(named: name) { run(body, this: this) }
        case .callMain:
            op.main()
        case .callSuperStart:
            log(.call(.superStart(this)))
            (op as? ProgramOperation)?.superStart()
            log(.returned(.superStart(this)))
        case .spawn(let method, let ref):
            let target = ops[ref.resolve(this)]
            let recorder = self.recorder
            recorder.threadSpawned()
            let thread = Thread {
                ThreadRole.with(.program) { if method == .start { target.start() } else { target.main() } }
                recorder.spawnedThreadEnded()
            }
            thread.start()
        case .start(let ref):
            let target = ops[ref.resolve(this)]
            ThreadRole.with(.program) { target.start() }
        case .cancel(let ref):
            ops[ref.resolve(this)].cancel()
        case .cancelAll(let q):
            // From the operation's own code (API surface 3), logged as the driver's call is.
            let queue = queues[q]
            call(.cancelAll(queue: q)) { queue.cancelAllOperations() }
        case .read(let key, let ref):
            _ = read(key, of: ref.resolve(this), logging: true)
        case .signal(let t):
            log(.signal(token: t))
            // The operations whose isReady override waits for this token became ready: the
            // signalling code says so, as 004 asks of such a subclass ("generate KVO
            // notifications for the isReady key path"), in operation-number order.
            for (o, config) in scenario.operations.enumerated() where config.readyAfterSignal == t {
                _ = perform(.willChange(.isReady), this: o)
                _ = perform(.didChange(.isReady), this: o)
            }
        case .readCurrentQueue:
            if let current = currentQueue() {
                log(.currentQueue(op: this, queue: current))
            } else {
                log(
                    .unsupported(
                        "the queue under test cannot tell which queue runs the calling code (it is not an "
                            + "OperationQueue, and its ownsCurrentThread is nil)"
                    ))
            }
        case .readUnderlyingQueue:
            // Foundation's own answer, compared by identity with the scenario's dispatch queues.
            let underlying = OperationQueue.current?.underlyingQueue
            log(.underlyingQueue(op: this, dispatchQueue: dispatchQueues.firstIndex { $0 === underlying }))
        case .await(let t, let timeout):
            let ok = recorder.await(token: t, timeout: Double(timeout * patience) * unit)
            log(.awaited(token: t, satisfied: ok))
        }
        return false
    }

    /// Reads a property. The four state getters log themselves (they are overridden); the others
    /// are logged here when `logging`.
    func read(_ key: StateKey, of index: Int, logging: Bool) -> Value {
        let op = ops[index]
        let value: Value
        switch key {
        case .isCancelled: value = .bool(op.isCancelled)
        case .isExecuting: value = .bool(op.isExecuting)
        case .isFinished: value = .bool(op.isFinished)
        case .isReady: value = .bool(op.isReady)
        // Linux has isAsynchronous only (002: it replaces isConcurrent).
        case .isConcurrent: value = .bool(op.isAsynchronous)
        case .dependencies: value = .ops(op.dependencies.compactMap { ops.index(of: $0) })
        case .queuePriority: value = .int(op.queuePriority.rawValue)
        case .completionBlock: value = .bool(op.completionBlock != nil)
        case .threadPriority: value = .double(Self.unknownPriority)
        // `Scenario.problems()` allows this key only for block operations.
        case .executionBlocks: value = .int((op as? BlockOperation)?.executionBlocks.count ?? 0)
        }
        let selfLogging = [StateKey.isCancelled, .isExecuting, .isFinished, .isReady].contains(key)
        if logging && !selfLogging { log(.read(op: index, key, value)) }
        return value
    }

    /// What `OperationQueue.current` says, as the number of the scenario's queue that is it
    /// (compared by identity), wrapped: `.some(nil)` for none of them (nil, the main queue,
    /// another queue). A queue under test that is not an `OperationQueue` has no entry in
    /// `OperationQueue.current`: it answers through `ownsCurrentThread`, and when one of them
    /// cannot tell, the result is nil ("cannot say").
    func currentQueue() -> Int?? {
        let live = queues.live
        if live.allSatisfy({ $0.queue is OperationQueue }) {
            guard let current = OperationQueue.current else { return .some(nil) }
            return .some(live.first { ($0.queue as AnyObject) === current }?.index)
        }
        var owner: Int?
        for (q, queue) in live {
            guard let owns = queue.ownsCurrentThread else { return nil }
            if owns && owner == nil { owner = q }
        }
        return .some(owner)
    }

    /// Whether a notification sent under a key's name without `is` (`finished`) is heard as the
    /// key's own. swift-corelibs-foundation has no key-value observing: `Operation` reacts to
    /// `didChangeValue(forKey:)` itself and takes `finished`, `executing`, `ready` and
    /// `cancelled` for the `is` names (Sources/Foundation/Operation.swift, the
    /// `_NSOperationIs…Alternate` constants and `observeValue(forKeyPath:ofObject:)`), so the
    /// `unprefixed-keys` flaw is no flaw there and the notification is logged under its key.
    /// The harness is not run on Darwin, where it is not measured whether key-value observing
    /// relates the two names; there it logs nothing, as the reference engine does, which follows
    /// the documents (the key paths are `isFinished` and `isExecuting`, 004 2.5.4).
    #if canImport(Darwin)
    static let unprefixedKeysHeard = false
    #else
    static let unprefixedKeysHeard = true
    #endif

    private func evaluate(_ condition: Condition, this: Int) -> Bool {
        switch condition {
        case .isCancelled(let r): return ops[r.resolve(this)].isCancelled
        case .isReady(let r): return ops[r.resolve(this)].isReady
        case .isConcurrent(let r): return read(.isConcurrent, of: r.resolve(this), logging: true) == .bool(true)
        case .isExecuting(let r): return ops[r.resolve(this)].isExecuting
        case .isFinished(let r): return ops[r.resolve(this)].isFinished
        case .not(let c): return !evaluate(c, this: this)
        case .and(let a, let b): return evaluate(a, this: this) && evaluate(b, this: this)
        }
    }
}
