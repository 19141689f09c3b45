import ConformanceFormats
import OperationSpec
import ReferenceEngine

/// Adds the constructs of API surface 2 (`Specs/api-surface.md`) to a scenario the version 1
/// generator built, for an implementation that declares `apiSurface2` (`GeneratorOptions.surface2`).
///
/// It draws from a stream of its own (the case seed mixed with `salt`), after the version 1 draws
/// are all made: the version 1 scenario inside is the same whether the option is on or off, and
/// with it off nothing here runs, so older findings regenerate the same cases. Every decoration
/// keeps what the version 1 driver promises, that it never waits for what cannot happen: a
/// `readyAfterSignal` token is always signalled by a later driver step placed before anything
/// could wait for its operation, a block handed to a queue is added before the driver's last wait
/// on that queue, and a driver step waits for a `signaled` token only right after adding the code
/// that signals it to a queue that is open then (at worst the trigger is missed, never a hang).
///
/// Steps are inserted at positions of the version 1 driver (`inserts[p]` goes before its step
/// `p`), so positions computed from the version 1 program stay true as decorations pile up.
struct Surface2Decorator {
    /// Mixed into the case seed for this stream: "Surface2" in ASCII.
    static let salt: UInt64 = 0x5375_7266_6163_6532
    /// Short ASCII queue names (a driver's threads are then `<name>_<n>`).
    static let names = ["fetch", "io2", "net", "db", "render", "sync", "bg3", "q", "img", "work7"]

    var rng: Xoshiro256
    let size: Int
    var scenario: Scenario
    /// The version 1 driver the positions refer to.
    let base: [DriverStep]
    /// The version 1 steps as they go out (a decoration may add to a step's own code).
    var kept: [DriverStep]
    var inserts: [[DriverStep]]
    var nextToken: Int
    /// The operations of the version 1 scenario (decorations add operations after them).
    let v1Count: Int

    init(seed: UInt64, options: GeneratorOptions, scenario: Scenario) {
        rng = Xoshiro256(seed: seed ^ Self.salt)
        size = options.size
        self.scenario = scenario
        base = scenario.driver
        kept = scenario.driver
        inserts = Array(repeating: [], count: scenario.driver.count + 1)
        nextToken = Self.largestToken(in: scenario) + 1
        v1Count = scenario.operations.count
    }

    mutating func pick<T>(_ items: [T]) -> T { items[rng.below(items.count)] }
    mutating func chance(_ percent: Int) -> Bool { rng.below(100) < percent }
    mutating func token() -> Int { defer { nextToken += 1 }; return nextToken }
    /// A position in `lower...upper` of the version 1 driver.
    mutating func position(_ lower: Int, _ upper: Int) -> Int { lower + rng.below(max(1, upper - lower + 1)) }

    /// The decorations, each drawn in this fixed order.
    mutating func decorate() -> Scenario {
        nameQueues()
        makeReadyAfterSignal()
        makeSignaledTrigger()
        makeBlockAdds()
        readCurrentQueues()
        readExecutionBlocks()
        readSuspended()
        sleeps()
        var driver: [DriverStep] = []
        for p in base.indices { driver += inserts[p]; driver.append(kept[p]) }
        driver += inserts[base.count]
        scenario.driver = driver
        return scenario
    }

    // MARK: Facts about the version 1 driver

    /// The index of the step that first adds `op` to a queue, and the queue, if it is added
    /// singly or in a batch that does not wait.
    func addStep(of op: Int) -> (index: Int, queue: Int)? {
        for (i, step) in base.enumerated() {
            switch step.action {
            case .add(let o, let q) where o == op: return (i, q)
            case .addBatch(let list, let q, let wait) where list.contains(op): return wait ? nil : (i, q)
            default: continue
            }
        }
        return nil
    }

    /// The first step after `index` that is not an add: where the episodes that may wait for an
    /// added operation (B2) or its queue (C) begin.
    func endOfAdds(after index: Int) -> Int {
        var i = index + 1
        while i < base.count {
            switch base[i].action {
            case .add, .addBatch: i += 1
            default: return i
            }
        }
        return base.count
    }

    /// Operations the driver starts, or performs code of, by hand: left out of readiness games.
    func startedByHand(_ op: Int) -> Bool {
        base.contains { step in
            switch step.action {
            case .start(let o), .perform(let o, _): return o == op
            default: return false
            }
        }
    }

    /// Whether queue `q` can start operations just before version 1 step `p`, as far as the
    /// steps before it say (suspension and width 0).
    func isOpen(_ q: Int, before p: Int) -> Bool { scenario.isOpen(queue: q, before: p, in: base) }

    /// The driver's last `waitUntilAllFinished` on `q` (the end when there is none).
    func lastWait(on q: Int) -> Int {
        base.lastIndex { if case .waitUntilAllFinished(q) = $0.action { return true }; return false } ?? base.count
    }

    static func largestToken(in s: Scenario) -> Int {
        var largest = 0
        func scan(_ steps: [Step]) {
            for step in steps {
                switch step {
                case .signal(let t), .await(let t, _): largest = max(largest, t)
                case .if(_, let a, let b): scan(a); scan(b)
                case .repeat(_, let a): scan(a)
                default: break
                }
            }
        }
        s.stepLists.forEach(scan)
        for o in s.operations { if let t = o.readyAfterSignal { largest = max(largest, t) } }
        for step in s.driver { if case .signaled(let t)? = step.after { largest = max(largest, t) } }
        return largest
    }

    // MARK: Decorations

    /// Some queues get a short name (set first in their configuration).
    mutating func nameQueues() {
        for q in scenario.queues.indices where chance(25) { scenario.queues[q].name = pick(Self.names) }
    }

    /// An operation added to a queue whose class overrides isReady to wait for a fresh token; a
    /// later driver step signals it (after a sleep, sometimes, so the queue has had time to get
    /// it wrong), before the episodes that could wait for the operation begin.
    mutating func makeReadyAfterSignal() {
        guard chance(15) else { return }
        let eligible = (0..<v1Count).filter { op in
            !scenario.operations[op].kind.isSubclass && !startedByHand(op) && addStep(of: op) != nil
        }
        guard !eligible.isEmpty else { return }
        for _ in 0..<(chance(20) ? 2 : 1) {
            let op = pick(eligible)
            guard scenario.operations[op].readyAfterSignal == nil, let (a, _) = addStep(of: op) else { continue }
            let t = token()
            scenario.operations[op].readyAfterSignal = t
            let p = position(a + 1, endOfAdds(after: a))
            if chance(50) { inserts[p].append(DriverStep(.sleep(1 + rng.below(3)))) }
            let body: [Step] = chance(30) ? [.readCurrentQueue, .signal(t)] : [.signal(t)]
            inserts[p].append(DriverStep(.perform(op: rng.below(v1Count), body)))
        }
    }

    /// A driver step that waits for a token some queued operation's code signals, placed among
    /// the adds after that operation's, while its queue is open and nothing holds it back.
    mutating func makeSignaledTrigger() {
        guard chance(20) else { return }
        let eligible = (0..<v1Count).filter { op in
            guard scenario.operations[op].readyAfterSignal == nil, !startedByHand(op),
                  !scenario.dependencies.contains(where: { $0.op == op }), let (a, q) = addStep(of: op),
                  isOpen(q, before: a + 1) else { return false }
            // Cancelled before it was added: its code would never run.
            return !base.prefix(a).contains { if case .cancel(op) = $0.action { return true }; return false }
        }
        guard !eligible.isEmpty else { return }
        let op = pick(eligible)
        guard let (a, q) = addStep(of: op) else { return }
        let t = token()
        scenario.operations[op].kind = signalling(scenario.operations[op].kind, t)
        let action: DriverAction =
            chance(50) ? .read(pick([.isExecuting, .isFinished, .isCancelled]), op: op) : .readOperationCount(queue: q)
        inserts[position(a + 1, endOfAdds(after: a))].append(DriverStep(after: .signaled(t), action))
    }

    /// The kind with `signal(t)` as the first thing its code does.
    func signalling(_ kind: OperationKind, _ t: Int) -> OperationKind {
        switch kind {
        case .main(let b): return .main([.signal(t)] + b)
        case .invocation(let b): return .invocation([.signal(t)] + b)
        case .subclass(let b): return .subclass([.signal(t)] + b)
        case .block(var blocks):
            blocks[0] = [.signal(t)] + blocks[0]
            return .block(blocks)
        case .concurrent(var p):
            p.main = [.signal(t)] + p.main
            return .concurrent(p)
        }
    }

    /// New block operations handed to a queue with `addBlock`, at a random place before the
    /// driver's last wait on that queue (so the wait covers them), while the scenario stays
    /// within `size` operations. A block may signal a token a driver step right after waits for.
    mutating func makeBlockAdds() {
        guard chance(30), !scenario.queues.isEmpty else { return }
        for _ in 0..<(1 + rng.below(2)) where scenario.operations.count < size {
            let q = rng.below(scenario.queues.count)
            let p = position(0, lastWait(on: q))
            var block: [Step] = [.work(1 + rng.below(3))]
            if chance(40) { block.insert(.readCurrentQueue, at: rng.below(2)) }
            let signals = chance(35) && isOpen(q, before: p)
            let t = signals ? token() : 0
            if signals { block.append(.signal(t)) }
            let op = scenario.operations.count
            scenario.operations.append(OperationConfig(kind: .block([block])))
            inserts[p].append(DriverStep(.addBlock(op: op, queue: q)))
            if signals { inserts[p].append(DriverStep(after: .signaled(t), .readOperationCount(queue: q))) }
        }
    }

    /// `readCurrentQueue` in some bodies: main, invocation and block bodies, a concurrent
    /// subclass's main (a detached thread: none), completion blocks (none), and code the driver
    /// performs (none).
    mutating func readCurrentQueues() {
        for op in 0..<v1Count {
            if chance(12) {
                switch scenario.operations[op].kind {
                case .main(var b):
                    b.insert(.readCurrentQueue, at: rng.below(b.count + 1)); scenario.operations[op].kind = .main(b)
                case .invocation(var b):
                    b.insert(.readCurrentQueue, at: rng.below(b.count + 1));
                    scenario.operations[op].kind = .invocation(b)
                case .subclass(var b):
                    b.insert(.readCurrentQueue, at: rng.below(b.count + 1)); scenario.operations[op].kind = .subclass(b)
                case .block(var blocks):
                    let k = rng.below(blocks.count)
                    blocks[k].insert(.readCurrentQueue, at: rng.below(blocks[k].count + 1))
                    scenario.operations[op].kind = .block(blocks)
                case .concurrent(var p):
                    p.main.insert(.readCurrentQueue, at: 0)
                    scenario.operations[op].kind = .concurrent(p)
                }
            }
            if scenario.operations[op].completion != nil && chance(15) {
                scenario.operations[op].completion?.insert(.readCurrentQueue, at: 0)
            }
        }
        for (i, step) in base.enumerated() {
            guard case .perform(let op, let body) = step.action, chance(30) else { continue }
            kept[i].action = .perform(op: op, [.readCurrentQueue] + body)
        }
    }

    /// Reads of a block operation's `executionBlocks`: from the driver anywhere, and from one of
    /// its own blocks.
    mutating func readExecutionBlocks() {
        let handed = Set(scenario.blockAddedOperations().map(\.op))
        for op in 0..<v1Count where scenario.operations[op].kind.isBlock && !handed.contains(op) {
            if chance(15) { inserts[position(0, base.count)].append(DriverStep(.read(.executionBlocks, op: op))) }
            if chance(10), case .block(var blocks) = scenario.operations[op].kind {
                let k = rng.below(blocks.count)
                blocks[k].append(.read(.executionBlocks, .this))
                scenario.operations[op].kind = .block(blocks)
            }
        }
    }

    /// `readSuspended` after some suspend and resume steps, and now and then anywhere.
    mutating func readSuspended() {
        for (i, step) in base.enumerated() {
            switch step.action {
            case .suspend(let q), .resume(let q):
                if chance(40) { inserts[i + 1].insert(DriverStep(.readSuspended(queue: q)), at: 0) }
            default: break
            }
        }
        if chance(10), !scenario.queues.isEmpty {
            inserts[position(0, base.count)].append(DriverStep(.readSuspended(queue: rng.below(scenario.queues.count))))
        }
    }

    /// The driving thread idles now and then.
    mutating func sleeps() {
        guard chance(15) else { return }
        for _ in 0..<(1 + rng.below(2)) {
            inserts[position(0, base.count)].append(DriverStep(.sleep(1 + rng.below(4))))
        }
    }
}
