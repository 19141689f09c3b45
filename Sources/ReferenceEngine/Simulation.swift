import OperationSpec

/// One run of a scenario on the reference engine. Everything is synchronous and virtual:
/// threads are frame stacks, time is a counter, and the only source of choice is the schedule
/// seed, which picks the next runnable thread at every step. Same scenario and seed, same trace.
final class Simulation {
    let scenario: Scenario
    let options: EngineOptions
    // The mutable state, declared twice. Swift checks every access to a class's stored `var`
    // at run time for an overlapping access to the same variable ("exclusivity"; in release
    // builds too since Swift 5, as Andrew Trick's "Swift 5 Exclusivity Enforcement" explains),
    // and on a 20,000-operation DAG those checks were 41 % of the engine's instructions
    // (callgrind: 1,790 M with them, 1,048 M without). The engine is
    // single-threaded and synchronous (a `Simulation` is made, run and dropped by one call of
    // `ReferenceEngine.run`, never shared), so the checks guard against our own bugs only.
    // Debug builds, where `swift test` runs every engine path the suites reach, keep them;
    // release builds, where runs are long, do not (`@exclusivity(unchecked)`).
    //
    // - `live`: indices of the threads that are not done, ascending. Every operation gets a
    //   thread, so `threads` grows with the scenario; the scheduler looks only at these
    //   (scanning every thread ever made at every step made a run quadratic in its
    //   operations). Ascending order keeps the runnable list, and so every seeded choice, the
    //   same as a scan of all threads.
    // - `runnable`: the live threads that can run now, rebuilt at every step into the same
    //   storage (a new array per step was a sixth of the engine's instructions on a
    //   20,000-operation DAG).
    // - `occurred`: triggers that have happened (looked up, never iterated: iteration order
    //   would leak hashing).
    // - `visited`: marks of the dependency walk in `reaches`: an operation was visited by the
    //   current walk when its mark equals `visitStamp`.
    // - `current`: the thread executing the current instruction.
#if DEBUG
    var rng: Xoshiro256
    var now = 0
    var steps = 0
    var events: [TraceEvent] = []
    var threads: [VirtualThread] = []
    var live: [Int] = []
    private var runnable: [Int] = []
    var ops: [SimulatedOperation]
    var queues: [SimulatedQueue]
    var tokens: Set<Int> = []
    var occurred: Set<Trigger> = []
    var workerNumber = 0
    var visited: [Int]
    var visitStamp = 0
    var current = 0
#else
    @exclusivity(unchecked) var rng: Xoshiro256
    @exclusivity(unchecked) var now = 0
    @exclusivity(unchecked) var steps = 0
    @exclusivity(unchecked) var events: [TraceEvent] = []
    @exclusivity(unchecked) var threads: [VirtualThread] = []
    @exclusivity(unchecked) var live: [Int] = []
    @exclusivity(unchecked) private var runnable: [Int] = []
    @exclusivity(unchecked) var ops: [SimulatedOperation]
    @exclusivity(unchecked) var queues: [SimulatedQueue]
    @exclusivity(unchecked) var tokens: Set<Int> = []
    @exclusivity(unchecked) var occurred: Set<Trigger> = []
    @exclusivity(unchecked) var workerNumber = 0
    @exclusivity(unchecked) var visited: [Int]
    @exclusivity(unchecked) var visitStamp = 0
    @exclusivity(unchecked) var current = 0
#endif
    /// The triggers the driver's steps wait for: only these are worth remembering (most
    /// scenarios have none, and hashing every start, main and finish into `occurred` was
    /// a measurable part of simulating 100,000 operations).
    let watched: Set<Trigger>
    private let faults: [Fault]
    func has(_ fault: Fault) -> Bool { faults.contains(fault) }

    /// What a getter returns (the one place a fault can make a getter lie).
    func getter(_ op: Int, _ key: StateKey) -> Value {
        if key == .isConcurrent && has(.concurrentFlagLost) { return .bool(false) }
        return ops[op].value(key)
    }

    init(scenario: Scenario, scheduleSeed: UInt64, options: EngineOptions) {
        self.scenario = scenario
        self.options = options
        self.rng = Xoshiro256(seed: scheduleSeed)
        self.faults = options.faults
        self.ops = scenario.operations.map { SimulatedOperation(kind: $0.kind) }
        self.queues = scenario.queues.map { _ in SimulatedQueue(maxConcurrent: QueueConfig.defaultMax, suspended: false) }
        self.visited = Array(repeating: 0, count: scenario.operations.count)
        self.watched = Set(scenario.driver.compactMap(\.after))
        // A large run's trace would be copied at every doubling, into fresh pages each time:
        // room for about what a plain operation logs (25 events) saves those copies. Small runs
        // grow as usual, so their stored traces keep no spare room.
        if scenario.operations.count >= 1_000 { events.reserveCapacity(25 * scenario.operations.count) }
    }

    /// Remembers that a trigger happened, if a driver step waits for it.
    func record(_ trigger: Trigger) {
        if !watched.isEmpty && watched.contains(trigger) { occurred.insert(trigger) }
    }

    // MARK: Running

    func run() -> [TraceEvent] {
        threads.append(VirtualThread(id: 0, name: "main", queue: nil, frames: [Frame(driverProgram())]))
        live = [0]
        while true {
            steps += 1
            if steps > options.stepBudget {
                emit(.cut("the run exceeded its budget of \(options.stepBudget) steps (a runaway program?)"), on: 0)
                break
            }
            wakeBlocked()
            runnable.removeAll(keepingCapacity: true)
            for t in live where threads[t].state == .runnable { runnable.append(t) }
            if !runnable.isEmpty {
                let t = runnable[rng.below(runnable.count)]
                execute(thread: t)
                if threads[t].state == .done { live.removeAll { $0 == t } }
                continue
            }
            if advanceTime() { continue }
            // Quiescence: nothing can run and no time is pending.
            if case .blocked(.trigger, _) = threads[0].state {
                // The trigger can no longer happen: the step runs anyway, and `afterTrigger` says so.
                threads[0].state = .runnable
                continue
            }
            let pending = live.map { threads[$0] }.filter { if case .blocked = $0.state { return true }; return false }
            if pending.isEmpty {
                emit(.end, on: 0)
            } else {
                emit(.hang(pending.map(describe).joined(separator: "; ")), on: pending[0].id)
            }
            break
        }
        return events
    }

    private func advanceTime() -> Bool {
        var next: Int?
        for i in live {
            switch threads[i].state {
            case .sleeping(let until): next = min(next ?? until, until)
            case .blocked(_, let deadline?): next = min(next ?? deadline, deadline)
            default: break
            }
        }
        guard let time = next else { return false }
        now = time
        for i in live {
            switch threads[i].state {
            case .sleeping(let until) where until <= now: threads[i].state = .runnable
            case .blocked(_, let deadline?) where deadline <= now: threads[i].state = .runnable
            default: break
            }
        }
        return true
    }

    private func wakeBlocked() {
        for i in live {
            if case .blocked(let wait, _) = threads[i].state, satisfied(wait) { threads[i].state = .runnable }
        }
    }

    func satisfied(_ wait: Wait) -> Bool {
        switch wait {
        case .finished(let op): return ops[op].finishSeen
        case .allFinished(let list): return list.allSatisfy { ops[$0].finishSeen }
        case .queueEmpty(let q): return queues[q].isEmpty
        case .token(let n): return tokens.contains(n)
        case .trigger(_, let trigger): return occurred.contains(trigger) || ops[trigger.op].finishSeen
        case .blocks(let op):
            let early = has(.blockOperationFinishesEarly) && ops[op].blocksLeft < ops[op].blocks.count
            return ops[op].blocksLeft == 0 || early
        }
    }

    private func describe(_ t: VirtualThread) -> String {
        guard case .blocked(let wait, _) = t.state else { return "thread \(t.id)" }
        let what: String
        switch wait {
        case .finished(let op): what = "operation \(op) to finish"
        case .allFinished(let list): what = "operations \(list) to finish"
        case .queueEmpty(let q): what = "queue \(q) to empty (holds \(queues[q].ops))"
        case .token(let n): what = "token \(n)"
        case .trigger(let step, let trig): what = "the trigger of driver step \(step) (\(trig))"
        case .blocks(let op): what = "the blocks of operation \(op)"
        }
        return "thread \(t.id) (\(t.name)) waits for \(what)"
    }

    // MARK: Events and threads

    @discardableResult
    func emit(_ kind: EventKind, on thread: Int? = nil) -> Int {
        let t = thread ?? current
        let seq = events.count
        events.append(TraceEvent(seq: seq, thread: t, kind))
        switch kind {
        case .call(.start(let op, _)): record(.started(op))
        case .mainBegan(let op, _): record(.mainBegan(op))
        case .blockBegan(let op, let b): record(.blockBegan(op, block: b))
        default: break
        }
        return seq
    }

    func spawn(name: String, queue: Int? = nil, _ frame: Frame) {
        live.append(threads.count)
        threads.append(VirtualThread(id: threads.count, name: name, queue: queue, frames: [frame]))
    }

    func block(_ wait: Wait, deadline: Int? = nil) {
        threads[current].state = .blocked(wait, deadline: deadline)
    }

    private func execute(thread t: Int) {
        current = t
        if !threads[t].announced {
            threads[t].announced = true
            emit(.threadStarted(name: threads[t].name, queue: threads[t].queue))
        }
        // The top frame is read and advanced in place: popping and pushing it back copied its
        // code array at every instruction.
        guard let top = threads[t].frames.indices.last else { threads[t].state = .done; return }
        let pc = threads[t].frames[top].pc
        if pc >= threads[t].frames[top].code.count {
            finishFrame(threads[t].frames.removeLast())
            if threads[t].frames.isEmpty { threads[t].state = .done }
            return
        }
        let instr = threads[t].frames[top].code[pc]
        let this = threads[t].frames[top].this
        threads[t].frames[top].pc = pc + 1
        perform(instr, this: this)
        if threads[t].frames.isEmpty, threads[t].state == .runnable { threads[t].state = .done }
    }

    /// A frame ran off its end: a routine records how it ended.
    private func finishFrame(_ frame: Frame) {
        switch frame.exit {
        case .returned(let call)?: emit(.returned(call))
        case .mainEnded(let op)?: emit(.mainEnded(op: op))
        case .blockEnded(let op, let b)?:
            emit(.blockEnded(op: op, block: b))
            ops[op].blocksLeft -= 1
        case .completionEnded(let op)?: emit(.completionEnded(op: op))
        case .plain?, nil: break
        }
    }

    func push(_ frame: Frame) { threads[current].frames.append(frame) }

    /// `return`: unwind to the innermost routine boundary and end that routine.
    func returnFromRoutine() {
        while let frame = threads[current].frames.popLast() {
            if frame.exit != nil { finishFrame(frame); return }
        }
    }

    /// A public call refuses: unwind to the call's boundary and record `threw` instead of `returned`.
    func throwFromCall(_ kind: MisuseKind, _ message: String) {
        while let frame = threads[current].frames.popLast() {
            if case .returned(let call)? = frame.exit {
                emit(.threw(call, kind, message))
                return
            }
        }
    }

    // MARK: The driver

    /// Configuration the scenario asks for before its first step, then its steps.
    private func driverProgram() -> [Instr] {
        var code: [Instr] = []
        for (q, config) in scenario.queues.enumerated() {
            if config.maxConcurrent != QueueConfig.defaultMax { code.append(.action(.setMaxConcurrent(queue: q, config.maxConcurrent))) }
            if config.suspended { code.append(.action(.suspend(queue: q))) }
        }
        for (o, config) in scenario.operations.enumerated() {
            if let p = config.queuePriority { code.append(.action(.setQueuePriority(op: o, p))) }
            if let p = config.threadPriority { code.append(.action(.setThreadPriority(op: o, p))) }
            if let c = config.completion { code.append(.action(.setCompletionBlock(op: o, c))) }
        }
        for edge in scenario.dependencies { code.append(.action(.addDependency(op: edge.op, on: edge.on))) }
        for (i, step) in scenario.driver.enumerated() {
            if let trigger = step.after { code.append(.awaitTrigger(step: i, trigger)) }
            code.append(.stepIssued(i))
            code.append(.action(step.action))
            code.append(.stepDone(i))
        }
        return code
    }
}
