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
    // - `runnable`: the threads that can run now, in a structure that names the k-th in
    //   ascending order at once: the seed's choice is the one a scan of every live thread made,
    //   and a step costs the same however many threads are alive (`RunnableThreads`).
    // - `wakeups`: a timer per sleep and per wait with a deadline, earliest first, so time
    //   advances without a scan of the sleepers (`Simulation+Scheduling`).
    // - `recheck`, `polled`, `tokenWaiters`, `blockWaiters`: which blocked threads to look at
    //   again before the next step, so a waiting thread costs nothing until something it waits
    //   for may have happened (`Simulation+Scheduling` says which is which).
    // - `liveThreads`, `framesHeld`: threads made and not done, and the frames they hold,
    //   checked against `options.threadBudget` and `options.frameBudget` after every step.
    // - `occurred`: triggers that have happened (looked up, never iterated: iteration order
    //   would leak hashing). `tokenWaiters` likewise is looked up by token, never iterated.
    // - `visited`: marks of the dependency walk in `reaches`: an operation was visited by the
    //   current walk when its mark equals `visitStamp`.
    // - `current`: the thread executing the current instruction.
#if DEBUG
    var rng: Xoshiro256
    var now = 0
    var steps = 0
    var events: [TraceEvent] = []
    var threads: [VirtualThread] = []
    var runnable = RunnableThreads()
    var wakeups = MinHeap<Wakeup>()
    var recheck: [Registration] = []
    var polled: [Registration] = []
    var tokenWaiters: [Int: [Registration]] = [:]
    var blockWaiters: [[Registration]]
    var liveThreads = 0
    var framesHeld = 0
    var statistics = RunStatistics()
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
    @exclusivity(unchecked) var runnable = RunnableThreads()
    @exclusivity(unchecked) var wakeups = MinHeap<Wakeup>()
    @exclusivity(unchecked) var recheck: [Registration] = []
    @exclusivity(unchecked) var polled: [Registration] = []
    @exclusivity(unchecked) var tokenWaiters: [Int: [Registration]] = [:]
    @exclusivity(unchecked) var blockWaiters: [[Registration]]
    @exclusivity(unchecked) var liveThreads = 0
    @exclusivity(unchecked) var framesHeld = 0
    @exclusivity(unchecked) var statistics = RunStatistics()
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
    /// The operations whose `isReady` override waits for each token, in operation-number order
    /// (`readyAfterSignal`): looked up by token when one is signalled, never iterated.
    let readinessOverrides: [Int: [Int]]
    private let faults: [Fault]
    func has(_ fault: Fault) -> Bool { faults.contains(fault) }

    /// What a getter returns (the one place a fault can make a getter lie).
    func getter(_ op: Int, _ key: StateKey) -> Value {
        if key == .isConcurrent && has(.concurrentFlagLost) { return .bool(false) }
        if key == .queuePriority && has(.priorityReadClamped) { return .int(max(-4, min(4, ops[op].priority))) }
        return ops[op].value(key)
    }

    init(scenario: Scenario, scheduleSeed: UInt64, options: EngineOptions) {
        self.scenario = scenario
        self.options = options
        self.rng = Xoshiro256(seed: scheduleSeed)
        self.faults = options.faults
        let handedAsBlocks = Set(scenario.blockAddedOperations().map(\.op))
        self.ops = scenario.operations.indices.map { o in
            SimulatedOperation(kind: scenario.operations[o].kind, hidden: handedAsBlocks.contains(o),
                               readyAfterSignal: scenario.operations[o].readyAfterSignal)
        }
        // The name is set first and cannot fail, so it is in place before the driver's first
        // instruction, with no event (the scenario format: configuration, not a call).
        self.queues = scenario.queues.map {
            SimulatedQueue(maxConcurrent: QueueConfig.defaultMax, suspended: false, name: $0.name)
        }
        var overrides: [Int: [Int]] = [:]
        for (o, config) in scenario.operations.enumerated() {
            if let t = config.readyAfterSignal { overrides[t, default: []].append(o) }
        }
        self.readinessOverrides = overrides
        self.visited = Array(repeating: 0, count: scenario.operations.count)
        self.blockWaiters = Array(repeating: [], count: scenario.operations.count)
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

    /// Whether the trigger has happened: an operation's event was recorded, or the token of a
    /// `signaled` trigger was signalled (tokens stay signalled, so it is not recorded twice).
    func happened(_ trigger: Trigger) -> Bool {
        if case .signaled(let token) = trigger { return tokens.contains(token) }
        return occurred.contains(trigger)
    }

    // MARK: Running

    func run() -> [TraceEvent] {
        makeThread(VirtualThread(id: 0, name: "main", queue: nil, currentQueue: nil, frames: [Frame(driverProgram())]))
        while true {
            steps += 1
            if steps > options.stepBudget {
                emit(.cut("the run exceeded its budget of \(options.stepBudget) steps (a runaway program?)"), on: 0)
                break
            }
            wakeSatisfied()
            if !runnable.isEmpty {
                execute(thread: runnable.element(at: rng.below(runnable.count)))
                if let why = overBudget() {
                    emit(.cut(why), on: 0)
                    break
                }
                continue
            }
            if advanceTime() { continue }
            // Quiescence: nothing can run and no time is pending.
            if case .blocked(.trigger, _) = threads[0].state {
                // The trigger can no longer happen: the step runs anyway, and `afterTrigger` says so.
                setState(0, .runnable)
                continue
            }
            // Once per run, so a scan of every thread ever made is fine here.
            let pending = threads.filter { if case .blocked = $0.state { return true }; return false }
            if pending.isEmpty {
                emit(.end, on: 0)
            } else {
                emit(.hang(pending.map(describe).joined(separator: "; ")), on: pending[0].id)
            }
            break
        }
        statistics.steps = steps
        return events
    }

    func satisfied(_ wait: Wait) -> Bool {
        switch wait {
        case .finished(let op): return ops[op].finishSeen
        case .allFinished(let list): return list.allSatisfy { ops[$0].finishSeen }
        case .queueEmpty(let q): return queues[q].isEmpty
        case .token(let n): return tokens.contains(n)
        case .trigger(_, let trigger):
            guard let op = trigger.op else { return happened(trigger) }
            return occurred.contains(trigger) || ops[op].finishSeen
        case .blocks(let op):
            let early = has(.blockOperationFinishesEarly) && ops[op].blocksLeft < ops[op].blocks.count
            return ops[op].blocksLeft == 0 || early
        }
    }

    private func describe(_ t: VirtualThread) -> String {
        guard case .blocked(let wait, _) = t.state else { return "thread \(t.id)" }
        let what: String
        switch wait {
        case .finished(let op): what = "operation \(op) to finish" + cycleNote([op])
        case .allFinished(let list): what = "operations \(list) to finish" + cycleNote(list)
        case .queueEmpty(let q): what = "queue \(q) to empty (holds \(queues[q].ops))" + cycleNote(queues[q].ops)
        // No step signals a negative token: only a fault waits for one (`waitOnCancelledHangs`).
        case .token(let n) where n < 0: what = "nothing: a wait that can never end (an injected fault)"
        case .token(let n): what = "token \(n)"
        case .trigger(let step, let trig): what = "the trigger of driver step \(step) (\(trig))"
        case .blocks(let op): what = "the blocks of operation \(op)"
        }
        return "thread \(t.id) (\(t.name)) waits for \(what)"
    }

    /// Why a wait on these operations can never end, when the reason is a dependency cycle: the
    /// first of them (in the order given) that lies on a cycle of unfinished operations, with the
    /// cycle. A cycle is accepted and deadlocks its operations (003 addDependency:, 004 2.6.1), so
    /// a wait for one of them ends the run with `hang`, and the hang says so. Asked once per run.
    private func cycleNote(_ candidates: [Int]) -> String {
        for op in candidates where !ops[op].finishSeen {
            if let cycle = cycle(through: op) {
                return " (operation \(op) is on a dependency cycle: " + cycle.map(String.init).joined(separator: " -> ")
                    + ", each depending on the next)"
            }
        }
        return ""
    }

    /// A dependency cycle of unfinished operations through `op`, as `op`, what it depends on, …,
    /// `op` again; nil if there is none. A depth-first walk in the order dependencies were added.
    private func cycle(through op: Int) -> [Int]? {
        var parent = [Int?](repeating: nil, count: ops.count)
        var seen = [Bool](repeating: false, count: ops.count)
        var stack = [op]
        while let n = stack.popLast() {
            for d in ops[n].deps where !ops[d].finishSeen {
                if d == op {
                    // Back from `n` to `op` through the walk's parents, then turned round.
                    var back: [Int] = []
                    var k = n
                    while k != op, let p = parent[k] { back.append(k); k = p }
                    var cycle = [op]
                    cycle.append(contentsOf: back.reversed())
                    cycle.append(op)
                    return cycle
                }
                if !seen[d] { seen[d] = true; parent[d] = n; stack.append(d) }
            }
        }
        return nil
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

    /// Why the run must end after the step just taken, if it must: it has more threads alive,
    /// or they hold more frames, than the options allow. Checked after a whole step, so the
    /// trace never shows a step half done; a step makes at most a few threads and frames (a
    /// queue's workers, a block operation's blocks), so the overshoot is bounded by the scenario.
    private func overBudget() -> String? {
        if liveThreads > options.threadBudget {
            return "the run had more than \(options.threadBudget) virtual threads alive at once (a spawn bomb?)"
        }
        if framesHeld > options.frameBudget {
            return "the run's threads held more than \(options.frameBudget) frames at once (a runaway recursion?)"
        }
        return nil
    }

    /// A new thread: a worker of `queue`, or (queue nil) another thread whose code runs for
    /// `currentQueue` (`VirtualThread.currentQueue`); a worker's code runs for its own queue.
    func spawn(name: String, queue: Int? = nil, currentQueue: Int? = nil, _ frame: Frame) {
        makeThread(
            VirtualThread(
                id: threads.count, name: name, queue: queue, currentQueue: queue ?? currentQueue, frames: [frame]))
    }

    /// The queue each thread's code runs for, by thread number (`VirtualThread.currentQueue`).
    var currentQueues: [Int?] { threads.map(\.currentQueue) }

    private func makeThread(_ thread: VirtualThread) {
        threads.append(thread)
        runnable.insert(thread.id)
        liveThreads += 1
        framesHeld += thread.frames.count
        statistics.threadsMade += 1
        statistics.peakLiveThreads = max(statistics.peakLiveThreads, liveThreads)
        statistics.peakFramesHeld = max(statistics.peakFramesHeld, framesHeld)
    }

    func block(_ wait: Wait, deadline: Int? = nil) {
        setState(current, .blocked(wait, deadline: deadline))
    }

    private func execute(thread t: Int) {
        current = t
        if !threads[t].announced {
            threads[t].announced = true
            emit(.threadStarted(name: threads[t].name, queue: threads[t].queue))
        }
        // The top frame is read and advanced in place: popping and pushing it back copied its
        // code array at every instruction.
        guard let top = threads[t].frames.indices.last else { setState(t, .done); return }
        var pc = threads[t].frames[top].pc
        if pc >= threads[t].frames[top].code.count {
            if pc > 0 && threads[t].frames[top].passesLeft > 0 {
                // The next pass of a `repeat` begins in this step, as the next copy of an
                // unrolled body would have.
                threads[t].frames[top].passesLeft -= 1
                pc = 0
            } else {
                framesHeld -= 1
                finishFrame(threads[t].frames.removeLast())
                if threads[t].frames.isEmpty { setState(t, .done) }
                return
            }
        }
        let instr = threads[t].frames[top].code[pc]
        let this = threads[t].frames[top].this
        threads[t].frames[top].pc = pc + 1
        perform(instr, this: this)
        if threads[t].frames.isEmpty, case .runnable = threads[t].state { setState(t, .done) }
    }

    /// A frame ran off its end: a routine records how it ended.
    private func finishFrame(_ frame: Frame) {
        switch frame.exit {
        case .returned(let call)?: emit(.returned(call))
        case .mainEnded(let op)?: emit(.mainEnded(op: op))
        case .blockEnded(let op, let b)?:
            emit(.blockEnded(op: op, block: b))
            ops[op].blocksLeft -= 1
            blocksChanged(op)
        case .completionEnded(let op)?: emit(.completionEnded(op: op))
        case .plain?, nil: break
        }
    }

    func push(_ frame: Frame) {
        threads[current].frames.append(frame)
        framesHeld += 1
        statistics.peakFramesHeld = max(statistics.peakFramesHeld, framesHeld)
    }

    /// `return`: unwind to the innermost routine boundary and end that routine.
    func returnFromRoutine() {
        while let frame = threads[current].frames.popLast() {
            framesHeld -= 1
            if frame.exit != nil { finishFrame(frame); return }
        }
    }

    /// A public call refuses: unwind to the call's boundary and record `threw` instead of `returned`.
    func throwFromCall(_ kind: MisuseKind, _ message: String) {
        while let frame = threads[current].frames.popLast() {
            framesHeld -= 1
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
            if config.maxConcurrent != QueueConfig.defaultMax {
                code.append(.action(.setMaxConcurrent(queue: q, config.maxConcurrent)))
            }
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
