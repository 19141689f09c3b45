import ConformanceFormats
import OperationSpec
import ReferenceEngine

/// Builds scenarios from a seed: queues, operations of every kind, dependency graphs of many
/// shapes, and a driver program of episodes triggered by observed events. Deterministic: the
/// same seed, options and `version` give the same scenario, byte for byte.
///
/// The driver is built in phases so that it never waits for something that cannot happen:
/// A (before anything is added: configuration, cancel-before, removals, misuse),
/// B (manual starts, then adds, in shuffled order, single or batched),
/// B2 (episodes triggered by events: cancel during or after, suspend while running, cancelAll,
/// late misuse, reads), C (resume everything, restore widths, wait for every queue, final reads).
/// With `GeneratorOptions.surface2`, `Surface2Decorator` then adds API surface 2's constructs.
public struct ScenarioGenerator: Sendable {
    /// The generator's version (`GeneratorVersion.current`: what bumps it, and why a case
    /// records the oldest version that builds it the same).
    public static let version = GeneratorVersion.current

    /// Whether a case made by generator `version` with `options` is rebuilt the same by this one.
    public static func rebuilds(version: Int, options: GeneratorOptions) -> Bool {
        GeneratorVersion.rebuilds(version: version, options: options)
    }

    /// The version a generated scenario records (`GeneratorVersion.stamp`).
    public static func stamp(_ options: GeneratorOptions) -> Int { GeneratorVersion.stamp(options) }

    public let options: GeneratorOptions

    public init(options: GeneratorOptions = GeneratorOptions()) { self.options = options }

    public func generate(seed: UInt64) -> Scenario {
        var b = Builder(rng: Xoshiro256(seed: seed), options: options)
        var scenario = b.build(seed: seed)
        // API surface 2 is drawn from a stream of its own, after the version 1 draws: with the
        // option off the scenario is the version 1 one, byte for byte. The reach episodes come
        // last, from a stream of their own too.
        if options.surface2 {
            var decorator = Surface2Decorator(seed: seed, options: options, scenario: scenario)
            scenario = decorator.decorate()
        }
        guard options.reach else { return scenario }
        var reach = ReachDecorator(seed: seed, options: options, scenario: scenario)
        return reach.decorate()
    }
}

private struct Builder {
    var rng: Xoshiro256
    let options: GeneratorOptions
    var queues: [QueueConfig] = []
    var ops: [OperationConfig] = []
    var placement: [Int?] = []        // queue of each operation, nil for manual or spare
    var spare: [Bool] = []            // never added nor started (targets of dependency misuse)
    var edges: [Edge] = []
    var driver: [DriverStep] = []
    var nextToken = 1
    var misuse = false
    /// With `splitMisuse`, which moment a misuse case misuses at: before the adds (`true`) or
    /// while the operations run (`false`); nil without the option (both, as in version 1).
    var early: Bool?
    /// The stream that chooses `early`, apart from the main one so that the main draws of a
    /// case stay version 1's up to the first misuse.
    static let splitSalt: UInt64 = 0x5EED_0F1A_7E00_0018
    /// Queued operations the driver started by hand first (misuse): each is added on its own,
    /// so its refused add cannot take innocent operations of a batch down with it.
    var startedFirst: [Int] = []
    /// The flaw each operation's subclass carries, if any (the spare operations misuse adds
    /// later have none).
    var flawOf: [SubclassFlaw?] = []
    func flaw(_ op: Int) -> SubclassFlaw? { op < flawOf.count ? flawOf[op] : nil }

    init(rng: Xoshiro256, options: GeneratorOptions) {
        self.rng = rng
        self.options = options
    }

    mutating func pick<T>(_ items: [T]) -> T { items[rng.below(items.count)] }
    mutating func chance(_ percent: Int) -> Bool { rng.below(100) < percent }
    /// A chance that a case focused on `focus` takes at `raised` percent instead: the same draw,
    /// compared with another threshold, so an unfocused case draws exactly as before.
    mutating func chance(_ percent: Int, raised: Int, for focus: GeneratorFocus) -> Bool {
        rng.below(100) < (options.focus == focus ? raised : percent)
    }
    mutating func weighted(_ weights: [Int]) -> Int {
        var r = rng.below(weights.reduce(0, +))
        for (i, w) in weights.enumerated() { if r < w { return i }; r -= w }
        return weights.count - 1
    }
    mutating func shuffled(_ list: [Int]) -> [Int] {
        var a = list
        if a.count > 1 { for i in stride(from: a.count - 1, to: 0, by: -1) { a.swapAt(i, rng.below(i + 1)) } }
        return a
    }
    mutating func token() -> Int { defer { nextToken += 1 }; return nextToken }

    mutating func build(seed: UInt64) -> Scenario {
        misuse = chance(
            options.misuseRate, raised: options.misuseRate > 0 ? max(options.misuseRate, 60) : 0, for: .misuse)
        if misuse && options.splitMisuse {
            var side = Xoshiro256(seed: seed ^ Self.splitSalt)
            early = side.below(2) == 0
        }
        makeQueues()
        makeOperations()
        makeDependencies()
        makeRendezvous()
        makeDriver()
        return Scenario(name: "generated", seed: seed, generatorVersion: ScenarioGenerator.stamp(options),
                        queues: queues, operations: ops, dependencies: edges, driver: driver)
    }

    // MARK: Structure

    mutating func makeQueues() {
        let n = 1 + weighted([40, 35, 15, 10])
        for _ in 0..<n {
            let width = [QueueConfig.defaultMax, 1, 2, 3 + rng.below(2)][weighted([35, 35, 20, 10])]
            queues.append(QueueConfig(maxConcurrent: width, suspended: chance(20)))
        }
    }

    mutating func body(_ op: Int) -> [Step] {
        // Listing 2-4: check for cancellation before each unit of work.
        var steps: [Step] = [.repeat(1 + rng.below(3), [.returnIfCancelled, .work(1 + rng.below(3))])]
        if chance(15) { steps.insert(.read(pick([.isExecuting, .isCancelled, .isReady]), .this), at: 0) }
        if chance(8), ops.count > 1 { steps.insert(.read(.isFinished, .op(rng.below(ops.count))), at: 0) }
        return steps
    }

    mutating func makeOperations() {
        let n = 1 + rng.below(max(1, min(64, options.size)))
        for i in 0..<n {
            ops.append(OperationConfig(kind: .main([])))  // placeholder so body() may name earlier ops
            let kind: OperationKind
            var flaw: SubclassFlaw?
            switch weighted([45, 20, 20, 10, 5]) {
            case 0, 4: kind = .main(body(i))
            case 1: kind = .block((0..<(1 + rng.below(3))).map { _ in [.work(1 + rng.below(3)), .returnIfCancelled] })
            case 2:
                // The draws of version 1: the chance, the correct program, then which flaw.
                let flawed = chance(options.flawRate)
                var program = correctProgram()
                if flawed && !options.subclass {
                    let f = pick(options.flawList)
                    program = f.apply(to: program)
                    flaw = f
                } else if flawed {
                    _ = pick(options.flawList)  // the implementation's own subclass runs its own code
                }
                // The implementation's own subclass does the program's work (its main without
                // the call that completes it); the same draws were made either way.
                kind =
                    options.subclass
                    ? .subclass(
                        program.main.filter {
                            if case .call = $0 { return false }; return true
                        })
                                        : .concurrent(program)
            default: kind = .invocation(body(i))
            }
            var config = OperationConfig(kind: kind)
            if chance(35, raised: 90, for: .priority) {
                config.queuePriority =
                    chance(50, raised: 15, for: .priority)
                    ? pick(QueuePriority.defined) : pick([-100, -9, -7, -6, -5, -3, -2, -1, 1, 2, 3, 5, 6, 7, 9, 100])
            }
            if chance(20) { config.threadPriority = pick([0.1, 0.25, 0.75, 0.9]) }
            if chance(30) { config.completion = chance(50) ? [] : [.work(1)] }
            ops[i] = config
            // A cancel handler that finishes at once is a flaw only in a queue: by hand, Listing
            // 2-8 finishes a cancelled operation without starting it.
            placement.append(chance(85) ? rng.below(queues.count) : flaw == .finishesWhileQueued ? 0 : nil)
            spare.append(false)
            flawOf.append(flaw)
        }
    }

    /// A correct concurrent subclass: checks cancellation, sets executing before detaching main,
    /// finishes with Listing 2-7's notifications.
    mutating func correctProgram() -> ConcurrentProgram {
        ConcurrentProgram(
            overridesIsConcurrent: true,
            start: [
                .if(
                    .isCancelled(.this),
                    then: [.willChange(.isFinished), .set(.isFinished, true), .didChange(.isFinished), .return],
                    else: []),
                .willChange(.isExecuting), .set(.isExecuting, true), .didChange(.isExecuting), .spawn(.main, .this)
            ],
            // Check before each unit of work, and complete whether cancelled or not: returning early
            // would leave the operation executing for ever.
            main: [
                .repeat(1 + rng.below(3), [.if(.not(.isCancelled(.this)), then: [.work(1 + rng.below(2))], else: [])]),
                .call("completeOperation")
            ],
            routines: [Routine("completeOperation", Self.completeOperation)])
    }

    static let completeOperation = ConcurrentProgram.completeOperation

    mutating func makeDependencies() {
        let n = ops.count
        guard n > 1 else { return }
        var set: [Edge] = []
        func add(_ op: Int, _ on: Int) { if op != on, !set.contains(Edge(op, on: on)) { set.append(Edge(op, on: on)) } }
        switch weighted([15, 20, 15, 15, 15, 20]) {
        case 1: for i in 1..<n { add(i, i - 1) }                                                       // chain
        case 2: for i in 1..<n { add(i, 0) }; if n > 2 { for i in 1..<(n - 1) { add(n - 1, i) } }      // diamond
        case 3: for i in 0..<(n - 1) { add(n - 1, i) }                                                 // fan-in
        case 4: for i in 1..<n { add(i, 0) }                                                           // fan-out
        case 5: for j in 1..<n { for i in 0..<j where chance(25) { add(j, i) } }                       // random DAG
        default: break
        }
        // Manual operations are started by the driver: they depend on nothing.
        edges = set.filter { placement[$0.op] != nil }
    }

    /// Blocks of one operation, or two operations, wait for each other's tokens.
    mutating func makeRendezvous() {
        for i in ops.indices {
            guard case .block(var blocks) = ops[i].kind, blocks.count >= 2, chance(40) else { continue }
            let a = token(), b = token()
            blocks[0] = [.signal(a), .await(b, timeout: 8)] + blocks[0]
            blocks[1] = [.signal(b), .await(a, timeout: 8)] + blocks[1]
            ops[i].kind = .block(blocks)
        }
        let mains = ops.indices.filter { if case .main = ops[$0].kind { return placement[$0] != nil }; return false }
        if mains.count >= 2, chance(15) {
            let x = pick(mains), y = pick(mains)
            guard x != y, case .main(let bx) = ops[x].kind, case .main(let by) = ops[y].kind else { return }
            let t = token()
            ops[x].kind = .main([.signal(t)] + bx)
            ops[y].kind = .main([.await(t, timeout: 6)] + by)
        }
    }

    // MARK: The driver

    mutating func step(_ action: DriverAction, after: Trigger? = nil) {
        driver.append(DriverStep(after: after, action))
    }

    /// The driver program, phase by phase (A, B, B2, C: see `ScenarioGenerator`).
    /// Each phase draws in the order the generator always has, so a seed's driver stays the same.
    mutating func makeDriver() {
        let queued = ops.indices.filter { placement[$0] != nil }
        let manual = ops.indices.filter { placement[$0] == nil }
        var suspended = queues.map(\.suspended)
        let zeroed = configureBeforeAdds(queued: queued, suspended: suspended)
        startAndAdd(queued: queued, manual: manual, suspended: suspended, zeroed: zeroed)
        let held = flawsOutsideStartAndMain(queued: queued, suspended: suspended, zeroed: zeroed)
        triggeredEpisodes(queued: queued, suspended: &suspended, zeroed: zeroed)
        finishAndLook(manual: manual, suspended: suspended, zeroed: zeroed, held: held)
    }

    /// Phase A: configuration, cancels, removals and misuse before anything runs.
    /// Returns which queues it set to width 0 (to be widened again in phase C).
    mutating func configureBeforeAdds(queued: [Int], suspended: [Bool]) -> [Bool] {
        var zeroed = Array(repeating: false, count: queues.count)
        for op in ops.indices where chance(10) {
            step(.setQueuePriority(op: op, pick([-8, -4, 0, 4, 8, -3, 5, 9])))
            step(.read(.queuePriority, op: op))
        }
        for _ in 0..<(1 + rng.below(3)) {
            step(
                .read(
                    pick([.isReady, .isExecuting, .isConcurrent, .queuePriority, .dependencies, .isCancelled]),
                    op: rng.below(ops.count)))
        }
        for op in queued where chance(8, raised: 40, for: .cancel) {
            step(.cancel(op))
            step(.read(.isCancelled, op: op))
            step(.read(.isReady, op: op))
        }
        for e in edges where chance(8, raised: 60, for: .removeDependency) {
            step(.removeDependency(op: e.op, on: e.on))
            step(.read(.isReady, op: e.op))
        }
        for op in ops.indices where ops[op].kind.isBlock && chance(10) { step(.addExecutionBlock(op: op, [.work(1)])) }
        for q in queues.indices where !suspended[q] && chance(8) {
            step(.setMaxConcurrent(queue: q, 0))
            zeroed[q] = true
        }
        if misuse && early != false { misuseBeforeAdds(queued: queued) }
        return zeroed
    }

    /// Phase B: the manual operations' starts, then the adds, in shuffled order, single or batched.
    mutating func startAndAdd(queued: [Int], manual: [Int], suspended: [Bool], zeroed: [Bool]) {
        for op in manual {
            if ops[op].kind.overridesStart && chance(50) {
                step(.perform(op: op, performOperation))
            } else {
                step(.start(op))
            }
        }
        var order = shuffled(queued)
        while !order.isEmpty {
            let q = placement[order[0]]!
            let batch = startedFirst.contains(order[0]) ? [order[0]]
                : Array(order.prefix { placement[$0] == q && !startedFirst.contains($0) }.prefix(1 + rng.below(3)))
            order.removeFirst(batch.count)
            if batch.count > 1 {
                // Waiting is safe only when nothing in the batch can be held back.
                let free =
                    !suspended[q] && !zeroed[q]
                    && batch.allSatisfy { op in edges.filter { $0.op == op }.allSatisfy { batch.contains($0.on) } }
                step(.addBatch(ops: batch, queue: q, wait: free && chance(25, raised: 100, for: .waitingAdd)))
            } else {
                step(.add(op: batch[0], queue: q))
            }
        }
        if misuse && early != false, let op = queued.first, queues.count > 1, chance(50) {
            step(.add(op: op, queue: (placement[op]! + 1) % queues.count))  // already in a queue
        }
    }

    /// The flaws that live outside start and main, right after the adds; returns the timed operations held to phase C.
    ///
    /// A cancel handler that finishes at once comes right after the adds, so the queue most
    /// likely has not started the operation; a timeout on the driving thread races main to
    /// finish it (it fires when main begins and waits as long as main works, so both check
    /// isFinished at about once).
    mutating func flawsOutsideStartAndMain(queued: [Int], suspended: [Bool], zeroed: [Bool]) -> [Int] {
        for op in queued where flaw(op) == .finishesWhileQueued { cancelHandlerFinishes(op) }
        // An operation whose queue is held (suspended, or width 0) until phase C gets its
        // timeout there, after the queue is let go: before, its main cannot begin, the trigger
        // would be missed, the timeout would run at once and the flaw would be another one (a
        // finish while queued).
        let timed = ops.indices.filter { flaw($0) == .unlockedState && !spare[$0] }
        let held = timed.filter { op in placement[op].map { suspended[$0] || zeroed[$0] } ?? false }
        for op in timed where !held.contains(op) { timeoutRacingMain(op) }
        return held
    }

    /// The `unlocked-state` flaw's timeout: once main begins, work as long as main does, then finish if needed.
    mutating func timeoutRacingMain(_ op: Int) {
        step(
            .perform(op: op, [.work(Self.workUnits(ops[op].kind.program?.main ?? [])), .call("finishIfNeeded")]),
            after: .mainBegan(op))
    }

    /// Phase B2: episodes triggered by what the operations do, and late misuse and reads.
    /// Cancels during or after, suspends while running (marked in `suspended`), cancelAll, late dependencies.
    mutating func triggeredEpisodes(queued: [Int], suspended: inout [Bool], zeroed: [Bool]) {
        for op in queued {
            switch weighted([70, 10, 8, 6, 6]) {
            case 1: step(.cancel(op), after: .mainBegan(op)); step(.read(.isCancelled, op: op))
            case 2: step(.cancel(op), after: .finished(op)); step(.read(.isCancelled, op: op))
            case 3: step(.read(pick([.isExecuting, .isReady, .isFinished]), op: op), after: .started(op))
            case 4: if case .invocation = ops[op].kind { step(.cancel(op)); step(.result(op), after: .finished(op)) }
            default: break
            }
        }
        for q in queues.indices where chance(10, raised: 60, for: .suspendRunning) {
            guard let member = queued.first(where: { placement[$0] == q }) else { continue }
            step(.suspend(queue: q), after: .mainBegan(member))
            suspended[q] = true
        }
        for q in queues.indices where chance(6, raised: 60, for: .cancelAll) {
            let members = queued.filter { placement[$0] == q }
            guard let first = members.first else { continue }
            step(.cancelAll(queue: q), after: .started(first))
            step(.read(.isCancelled, op: members.last!))
        }
        if chance(15), let y = queued.last, let x = queued.first, x != y, !edges.contains(Edge(y, on: x)) {
            step(.addDependency(op: y, on: x), after: .started(x))  // late: may not hold y back (004 2.6.1)
        }
        if chance(15, raised: 60, for: .priority), let op = queued.randomPick(&rng) {
            step(.setQueuePriority(op: op, pick([-8, 8, 3, -5])), after: .started(queued[0]))
        }
        if misuse && early != true { misuseWhileRunning(queued: queued) }
        if chance(20), !suspended.contains(true), !zeroed.contains(true), let op = queued.randomPick(&rng) {
            step(.waitUntilFinished(op))
        }
        for _ in 0..<rng.below(3) {
            step(.read(pick([.isReady, .isExecuting, .isFinished, .isCancelled]), op: rng.below(ops.count)))
        }
    }

    /// Phase C: let everything finish (resume, restore widths, the held timeouts), wait for it, and look.
    mutating func finishAndLook(manual: [Int], suspended: [Bool], zeroed: [Bool], held: [Int]) {
        for q in queues.indices where suspended[q] { step(.resume(queue: q)) }
        for q in queues.indices where zeroed[q] {
            step(.setMaxConcurrent(queue: q, pick([1, 2, QueueConfig.defaultMax])))
        }
        for op in held { timeoutRacingMain(op) }
        for op in manual where ops[op].kind.overridesStart && !spare[op] { step(.waitUntilFinished(op)) }
        for q in shuffled(Array(queues.indices)) {
            if chance(30) { step(.readOperationCount(queue: q)) }
            step(.waitUntilAllFinished(queue: q))
        }
        for op in ops.indices where chance(25) {
            step(
                .read(pick([.isReady, .isFinished, .isCancelled, .isExecuting, .isConcurrent, .queuePriority]), op: op))
        }
        for op in ops.indices where chance(5) { step(.cancel(op)); step(.read(.isCancelled, op: op)) }
    }

    /// The `finishes-while-queued` flaw's cancel handler: `[super cancel]`, then finish at once,
    /// started or not.
    mutating func cancelHandlerFinishes(_ op: Int) {
        step(.cancel(op))
        step(.perform(op: op, [.call("completeOperation")]))
    }

    /// The work units a body runs when nothing cancels it (each branch's `then`).
    static func workUnits(_ steps: [Step]) -> Int {
        steps.reduce(0) { total, step in
            switch step {
            case .work(let n): return total + n
            case .repeat(let n, let body): return total + n * workUnits(body)
            case .if(_, let then, _): return total + workUnits(then)
            default: return total
            }
        }
    }

    /// Listing 2-8's performOperation:, run with self bound to the operation.
    var performOperation: [Step] {
        [.if(.and(.isReady(.this), .not(.isCancelled(.this))),
             then: [.if(.not(.isConcurrent(.this)), then: [.start(.this)], else: [.spawn(.start, .this)])],
             else: [])]
    }

    mutating func misuseBeforeAdds(queued: [Int]) {
        var choice = rng.below(3)
        // Every branch must misuse something, so the rate asked for is the rate obtained.
        if choice == 1 && queued.isEmpty { choice = 0 }
        if choice == 2 && !queued.contains(where: { !ops[$0].kind.overridesStart }) { choice = 0 }
        switch choice {
        case 0:
            // Two spare operations that are never run: a self, a duplicate and a cyclic edge.
            let a = ops.count, b = ops.count + 1
            for _ in 0..<2 {
                ops.append(OperationConfig(kind: .main([.work(1)]))); placement.append(nil); spare.append(true)
            }
            step(.addDependency(op: a, on: a))
            step(.addDependency(op: a, on: b))
            step(.addDependency(op: a, on: b))
            step(.addDependency(op: b, on: a))
            step(.read(.dependencies, op: a))
        case 1:
            // A spare operation depending on a queued one, started before it can be ready.
            guard let dep = queued.first else { return }
            let a = ops.count
            ops.append(OperationConfig(kind: .main([.work(1)]))); placement.append(nil); spare.append(true)
            edges.append(Edge(a, on: dep))
            step(.start(a))
        default:
            // Started by hand before it is added: the add that follows must be refused.
            if let op = queued.first(where: { !ops[$0].kind.overridesStart }) {
                step(.start(op)); startedFirst.append(op)
            }
        }
    }

    mutating func misuseWhileRunning(queued: [Int]) {
        guard let any = queued.randomPick(&rng) else { return }
        // A second start of a subclass that overrides start runs the subclass's code, not the
        // runtime's: only operations with the default start are started again.
        let own = queued.filter { !ops[$0].kind.overridesStart }
        let op = own.isEmpty ? any : own[rng.below(own.count)]
        var choice = rng.below(4)
        if choice < 2 && own.isEmpty { choice = 2 }
        // Split misuse (an implementation that traps on it): only the late misuses whose outcome
        // is decided, never raced. A start while the operation executes, or an execution block
        // while its blocks run, traps or not depending on whether the operation finished first,
        // so the case's ending would depend on timing; a start after it finished and a completion
        // block set once it started do not. The draw is the same; only its meaning narrows.
        if early == false { choice = choice == 1 || (choice == 0 && !own.isEmpty) ? 1 : 2 }
        switch choice {
        case 0: step(.start(op), after: .mainBegan(op))
        case 1: step(.start(op), after: .finished(op))
        case 2: step(.setCompletionBlock(op: op, []), after: .started(op))
        default:
            if let block = queued.first(where: { ops[$0].kind.isBlock }) {
                step(.addExecutionBlock(op: block, []), after: .blockBegan(block, block: 0))
            }
            else { step(.setCompletionBlock(op: op, []), after: .finished(op)) }
        }
    }
}

extension Array where Element == Int {
    func randomPick(_ rng: inout Xoshiro256) -> Int? { isEmpty ? nil : self[rng.below(count)] }
}
