import ConformanceFormats
import OperationSpec
import ReferenceEngine

/// Adds the episodes that reach the paths a user's first run missed (issue 44): a cancel of a
/// finished operation, getters read while the task runs, a cancel as an operation starts with
/// reads right after it, a cancelled operation started by hand, and (at the misuse rate) a
/// second start of a finished class that overrides start. Applied with the option
/// `reach` (generator version 3), after the version 2 draws and API surface 2's.
///
/// Each public class that slipped through broke its rule on one of these paths, shown by a
/// one-operation case written by hand, while 30 default cases never took it: the version 2
/// driver cancels a finished operation in 8 % of operations, reads a getter during the task
/// only by chance, and never cancels an operation it then starts by hand. The reach table
/// (`ReachTable`, `opconform reach`) counts the cells these episodes fill.
///
/// It draws from a stream of its own (the case seed mixed with `salt`), so the scenario before
/// it is the same whether the option is on or off. Like the version 1 driver, it never waits
/// for what cannot happen: an episode that waits for an operation to begin its main is placed
/// after every add, while its queue is open; a cancel of a finished operation comes after the
/// driver's last wait, when everything has finished; a started-by-hand operation is a new one
/// (within `size`), in no queue and on nothing's dependency list.
struct ReachDecorator {
    /// Mixed into the case seed for this stream: "Reach44!" in ASCII.
    static let salt: UInt64 = 0x5265_6163_6834_3421

    var rng: Xoshiro256
    let options: GeneratorOptions
    var scenario: Scenario
    /// The driver before the decoration: `inserts[p]` goes before its step `p`.
    let base: [DriverStep]
    var inserts: [[DriverStep]]
    /// The operations before the decoration.
    let before: Int

    init(seed: UInt64, options: GeneratorOptions, scenario: Scenario) {
        rng = Xoshiro256(seed: seed ^ Self.salt)
        self.options = options
        self.scenario = scenario
        base = scenario.driver
        inserts = Array(repeating: [], count: scenario.driver.count + 1)
        before = scenario.operations.count
    }

    mutating func pick<T>(_ items: [T]) -> T { items[rng.below(items.count)] }
    mutating func chance(_ percent: Int) -> Bool { rng.below(100) < percent }

    /// The episodes, each drawn in this fixed order.
    mutating func decorate() -> Scenario {
        let running = runningOperations()
        readDuringTask(running)
        cancelAsItStarts(running)
        startCancelledByHand()
        cancelFinished()
        restartFinished()
        var driver: [DriverStep] = []
        for p in base.indices { driver += inserts[p]; driver.append(base[p]) }
        driver += inserts[base.count]
        scenario.driver = driver
        return scenario
    }

    // MARK: Facts about the driver before

    /// Operations that some step adds to a queue, and the position just after the last
    /// add of the driver (where the version 1 driver's episodes begin), when its queue is open
    /// there and nothing before cancels it or starts it by hand: its task will run, and a step
    /// placed there that waits for it to begin does not wait for what cannot happen.
    func runningOperations() -> (ops: [Int], position: Int) {
        guard let lastAdd = base.lastIndex(where: { step in
            switch step.action {
            case .add, .addBatch, .addBlock: return true
            default: return false
            }
        }) else { return ([], 0) }
        let position = lastAdd + 1
        var found: [Int] = []
        for op in 0..<before {
            guard let queue = queueOf(op), isOpen(queue, before: position) else { continue }
            let touched = base.prefix(position).contains { step in
                switch step.action {
                case .cancel(op), .start(op): return true
                case .cancelAll(let q): return q == queue
                case .perform(let o, _): return o == op
                default: return false
                }
            }
            if !touched { found.append(op) }
        }
        return (found, position)
    }

    /// The queue a step adds `op` to (the first such step). An operation handed over with
    /// `addBlock` is the queue's to make: no step may name it, so it has none.
    func queueOf(_ op: Int) -> Int? {
        for step in base {
            switch step.action {
            case .add(let o, let q) where o == op: return q
            case .addBatch(let list, let q, _) where list.contains(op): return q
            default: continue
            }
        }
        return nil
    }

    /// Whether queue `q` can start operations just before step `p`, as far as the steps before
    /// it say (suspension and width 0).
    func isOpen(_ q: Int, before p: Int) -> Bool { scenario.isOpen(queue: q, before: p, in: base) }

    // MARK: Episodes

    /// Once an operation's task has begun: `isReady`, `isExecuting` and `isFinished`, read at
    /// once. A class whose `isReady` is `state == .ready` says NO here; one that calls `main`
    /// before it says it executes is caught by the `isExecuting` read.
    mutating func readDuringTask(_ running: (ops: [Int], position: Int)) {
        guard !running.ops.isEmpty, chance(45) else { return }
        let p = running.position
        for _ in 0..<(chance(30) ? 2 : 1) {
            let op = pick(running.ops)
            let keys: [StateKey] = chance(50) ? [.isReady, .isExecuting, .isFinished] : [.isExecuting, .isReady]
            inserts[p].append(DriverStep(after: .mainBegan(op), .read(keys[0], op: op)))
            for key in keys.dropFirst() { inserts[p].append(DriverStep(.read(key, op: op))) }
            // A wait while the task runs, for an operation nothing can hold back: one with a
            // dependency may be waiting for a queue that is suspended until phase C, and its
            // main-began trigger missed (a wait there would wait for what cannot happen yet).
            // `ReachTests` runs 1,000 cases on the reference engine, which ends such a wait as a
            // hang, to hold it.
            // An operation that is ready only once a later step signals it (API surface 2's
            // readyAfterSignal) is held back by the driver itself: no wait for it here.
            if !scenario.dependencies.contains(where: { $0.op == op }), scenario.operations[op].readyAfterSignal == nil,
               chance(25) {
                inserts[p].append(DriverStep(.waitUntilFinished(op)))
            }
        }
    }

    /// A cancel the moment an operation has been started, and its state read right after: two
    /// calls in a short window, where a start that sets its state late races the cancel.
    mutating func cancelAsItStarts(_ running: (ops: [Int], position: Int)) {
        guard !running.ops.isEmpty, chance(30) else { return }
        let op = pick(running.ops), p = running.position
        inserts[p].append(DriverStep(after: .started(op), .cancel(op)))
        for key in [StateKey.isExecuting, .isCancelled, .isFinished, .isReady] where chance(70) {
            inserts[p].append(DriverStep(.read(key, op: op)))
        }
    }

    /// A new operation, cancelled and then started by hand on the driving thread (004 2.5.3:
    /// start must check for cancellation and finish without running the task). Its kind is one
    /// of the scenario's asynchronous kinds when it has one, so a user's subclass is the one
    /// tested; it is waited for after the driver's last step.
    mutating func startCancelledByHand() {
        guard scenario.operations.count < options.size, chance(30) else { return }
        let kinds = (0..<before).compactMap { op -> OperationKind? in
            switch scenario.operations[op].kind {
            case .subclass: return .subclass([.work(1)])
            case .concurrent: return .concurrent(.correct(work: [.work(1)]))
            default: return nil
            }
        }
        let kind = kinds.isEmpty ? OperationKind.main([.work(1)]) : kinds[0]
        let op = scenario.operations.count
        scenario.operations.append(OperationConfig(kind: kind))
        // Before the adds or after them: the driving thread is free at either place.
        let p = chance(50) ? 0 : base.count
        inserts[p].append(DriverStep(.cancel(op)))
        for key in [StateKey.isReady, .isFinished] where chance(70) {
            inserts[p].append(DriverStep(.read(key, op: op)))
        }
        inserts[p].append(DriverStep(.start(op)))
        inserts[p].append(DriverStep(.read(pick([StateKey.isFinished, .isExecuting]), op: op)))
        inserts[base.count].append(DriverStep(.waitUntilFinished(op)))
        inserts[base.count].append(DriverStep(.read(.isFinished, op: op)))
    }

    /// Misuse, in `misuseRate` % of cases: a second start of a finished operation of the
    /// user's own class (`OperationKind.subclass`), after the driver's last step, and its state
    /// read right after. The guide calls a start of a finished operation an error of the
    /// caller's (004 2.7.2), so no rule of the documents judges what the class does next
    /// (`CheckContext.Restart`); the class reference says a start of a finished operation
    /// returns without running anything, and START-FINISHED-OWN warns, under the
    /// `class-reference` profile, of a class that runs again.
    /// Only once finished, never while the task runs: whether a start then meets a running or a
    /// finished operation would depend on timing, and so would the verdict.
    mutating func restartFinished() {
        // The user's class only: a concurrent program the generator wrote is the harness's own
        // code (the guide's listings, which do not guard), not what the run tests.
        let candidates = startedOrAdded().filter { scenario.operations[$0].kind.isSubclass }
        guard !candidates.isEmpty, chance(options.misuseRate) else { return }
        let op = pick(candidates)
        inserts[base.count].append(DriverStep(after: .finished(op), .start(op)))
        for key in [StateKey.isFinished, .isExecuting] where chance(80) {
            inserts[base.count].append(DriverStep(.read(key, op: op)))
        }
    }

    /// The operations before the decoration that some step adds to a queue or starts by hand.
    func startedOrAdded() -> [Int] {
        (0..<before).filter { op in
            base.contains { step in
                switch step.action {
                case .add(op, _), .start(op): return true
                case .addBatch(let list, _, _): return list.contains(op)
                default: return false
                }
            }
        }
    }

    /// After the driver's last step, when every operation has finished: a cancel of one or two
    /// of them, and their state read after it (the class reference: cancelling a finished
    /// operation has no effect on it).
    mutating func cancelFinished() {
        let candidates = startedOrAdded()
        guard !candidates.isEmpty, chance(45) else { return }
        for _ in 0..<(chance(30) ? 2 : 1) {
            let op = pick(candidates)
            inserts[base.count].append(DriverStep(after: .finished(op), .cancel(op)))
            for key in [StateKey.isCancelled, .isFinished, .isExecuting] where chance(80) {
                inserts[base.count].append(DriverStep(.read(key, op: op)))
            }
        }
    }
}
