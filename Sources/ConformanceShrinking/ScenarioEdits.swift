import ConformanceFormats
import ConformanceRunning
import OperationDriverKit
import OperationSpec

/// Structural edits used by the shrinker. Each returns a scenario that still refers only to
/// things that exist: removing an operation or a queue drops what names it and renumbers the rest.
/// Tokens (`signal`, `await`, `readyAfterSignal`, the `signaled` trigger) name no operation or
/// queue, so no edit renumbers them.
extension Scenario {
    package func removingOperation(_ victim: Int) -> Scenario {
        var s = self
        func renumber(_ n: Int) -> Int { n > victim ? n - 1 : n }
        s.operations.remove(at: victim)
        s.operations = s.operations.map { $0.mappingSteps { Scenario.steps($0, without: victim, renumber) } }
        s.dependencies = s.dependencies.filter { $0.op != victim && $0.on != victim }.map {
            Edge(renumber($0.op), on: renumber($0.on))
        }
        s.driver = s.driver.compactMap { step -> DriverStep? in
            if let t = step.after, t.op == victim { return nil }
            guard let action = step.action.removing(op: victim, renumber) else { return nil }
            return DriverStep(after: step.after.map { $0.renumbered(renumber) }, action)
        }
        return s
    }

    /// Removes block `b` of block operation `op`; triggers on later blocks are renumbered and
    /// triggers on the removed block dropped, so no step silently moves to another block.
    package func removingBlock(_ b: Int, of op: Int) -> Scenario {
        var s = self
        guard case .block(var blocks) = s.operations[op].kind, b < blocks.count else { return s }
        blocks.remove(at: b)
        s.operations[op].kind = .block(blocks)
        s.driver = s.driver.compactMap { step in
            guard case .blockBegan(op, let n)? = step.after else { return step }
            if n == b { return nil }
            return DriverStep(after: n > b ? .blockBegan(op, block: n - 1) : step.after, step.action)
        }
        return s
    }

    /// Whether a concurrent subclass's protocol (its start, main, routines) names operation `op`
    /// in a condition or call: removing `op` would have to rewrite that protocol, which the
    /// shrinker never does.
    package func protocolNames(_ op: Int) -> Bool {
        operations.contains { config in
            // The implementation's own subclass has only its work: no protocol of ours to keep.
            guard !config.kind.isSubclass, let p = config.kind.program else { return false }
            let all = p.start + p.main + p.routines.flatMap(\.body)
            return Scenario.steps(all, without: op, { $0 }) != all
        }
    }

    package func removingQueue(_ victim: Int) -> Scenario {
        var s = self
        func renumber(_ q: Int) -> Int { q > victim ? q - 1 : q }
        s.queues.remove(at: victim)
        s.operations = s.operations.map { $0.mappingSteps { Scenario.steps($0, withoutQueue: victim, renumber) } }
        s.driver = s.driver.compactMap { step in
            guard var action = step.action.removing(queue: victim, renumber) else { return nil }
            switch action {
            case .perform(let o, let b): action = .perform(op: o, Scenario.steps(b, withoutQueue: victim, renumber))
            case .setCompletionBlock(let o, let b):
                action = .setCompletionBlock(op: o, Scenario.steps(b, withoutQueue: victim, renumber))
            case .addExecutionBlock(let o, let b):
                action = .addExecutionBlock(op: o, Scenario.steps(b, withoutQueue: victim, renumber))
            default: break
            }
            return DriverStep(after: step.after, action)
        }
        return s
    }

    /// Drops any step naming queue `victim` (a `cancelAll`), renumbers references to later queues.
    static func steps(_ body: [Step], withoutQueue victim: Int, _ renumber: (Int) -> Int) -> [Step] {
        body.compactMap { step -> Step? in
            switch step {
            case .cancelAll(let q): return q == victim ? nil : .cancelAll(renumber(q))
            case .if(let c, let a, let b):
                return .if(
                    c, then: steps(a, withoutQueue: victim, renumber), else: steps(b, withoutQueue: victim, renumber))
            case .repeat(let n, let a): return .repeat(n, steps(a, withoutQueue: victim, renumber))
            default: return step
            }
        }
    }

    /// Drops any step naming `victim`, renumbers references to later operations.
    static func steps(_ body: [Step], without victim: Int, _ renumber: (Int) -> Int) -> [Step] {
        body.compactMap { step -> Step? in
            switch step {
            case .spawn(let m, let r): return r.names(victim) ? nil : .spawn(m, r.renumbered(renumber))
            case .start(let r): return r.names(victim) ? nil : .start(r.renumbered(renumber))
            case .cancel(let r): return r.names(victim) ? nil : .cancel(r.renumbered(renumber))
            case .read(let k, let r): return r.names(victim) ? nil : .read(k, r.renumbered(renumber))
            case .if(let c, let a, let b):
                guard let c2 = c.removing(victim, renumber) else { return nil }
                return .if(c2, then: steps(a, without: victim, renumber), else: steps(b, without: victim, renumber))
            case .repeat(let n, let a): return .repeat(n, steps(a, without: victim, renumber))
            default: return step
            }
        }
    }
}

extension OperationConfig {
    /// Applies `transform` to every body this operation holds.
    func mappingSteps(_ transform: ([Step]) -> [Step]) -> OperationConfig {
        var c = self
        switch kind {
        case .main(let b): c.kind = .main(transform(b))
        case .invocation(let b): c.kind = .invocation(transform(b))
        case .block(let bs): c.kind = .block(bs.map(transform))
        case .concurrent(var p):
            p.start = transform(p.start)
            p.main = transform(p.main)
            p.routines = p.routines.map { Routine($0.name, transform($0.body)) }
            c.kind = .concurrent(p)
        case .subclass(let work): c.kind = .subclass(transform(work))
        }
        c.completion = completion.map(transform)
        return c
    }
}

extension OpRef {
    func names(_ op: Int) -> Bool { if case .op(op) = self { return true }; return false }
    func renumbered(_ f: (Int) -> Int) -> OpRef { if case .op(let n) = self { return .op(f(n)) }; return self }
}

extension Condition {
    func removing(_ victim: Int, _ f: (Int) -> Int) -> Condition? {
        func ref(_ r: OpRef, _ make: (OpRef) -> Condition) -> Condition? {
            r.names(victim) ? nil : make(r.renumbered(f))
        }
        switch self {
        case .isCancelled(let r): return ref(r, Condition.isCancelled)
        case .isReady(let r): return ref(r, Condition.isReady)
        case .isConcurrent(let r): return ref(r, Condition.isConcurrent)
        case .isExecuting(let r): return ref(r, Condition.isExecuting)
        case .isFinished(let r): return ref(r, Condition.isFinished)
        case .not(let c): return c.removing(victim, f).map(Condition.not)
        case .and(let a, let b):
            guard let a2 = a.removing(victim, f), let b2 = b.removing(victim, f) else { return nil }
            return .and(a2, b2)
        }
    }
}

extension Trigger {
    func renumbered(_ f: (Int) -> Int) -> Trigger {
        switch self {
        case .started(let o): return .started(f(o))
        case .mainBegan(let o): return .mainBegan(f(o))
        case .blockBegan(let o, let b): return .blockBegan(f(o), block: b)
        case .finished(let o): return .finished(f(o))
        case .signaled: return self
        }
    }
}

extension DriverAction {
    func removing(op victim: Int, _ f: (Int) -> Int) -> DriverAction? {
        switch self {
        case .add(let o, let q): return o == victim ? nil : .add(op: f(o), queue: q)
        case .addBatch(let list, let q, let w):
            let rest = list.filter { $0 != victim }.map(f)
            return rest.isEmpty ? nil : .addBatch(ops: rest, queue: q, wait: w)
        case .start(let o): return o == victim ? nil : .start(f(o))
        case .perform(let o, let steps):
            return o == victim ? nil : .perform(op: f(o), Scenario.steps(steps, without: victim, f))
        case .cancel(let o): return o == victim ? nil : .cancel(f(o))
        case .addDependency(let a, let b): return a == victim || b == victim ? nil : .addDependency(op: f(a), on: f(b))
        case .removeDependency(let a, let b):
            return a == victim || b == victim ? nil : .removeDependency(op: f(a), on: f(b))
        case .waitUntilFinished(let o): return o == victim ? nil : .waitUntilFinished(f(o))
        case .setCompletionBlock(let o, let b):
            return o == victim ? nil : .setCompletionBlock(op: f(o), Scenario.steps(b, without: victim, f))
        case .addExecutionBlock(let o, let b):
            return o == victim ? nil : .addExecutionBlock(op: f(o), Scenario.steps(b, without: victim, f))
        case .setQueuePriority(let o, let p): return o == victim ? nil : .setQueuePriority(op: f(o), p)
        case .setThreadPriority(let o, let p): return o == victim ? nil : .setThreadPriority(op: f(o), p)
        case .read(let k, let o): return o == victim ? nil : .read(k, op: f(o))
        case .result(let o): return o == victim ? nil : .result(f(o))
        // The block goes with its operation: nothing else may name it (`Scenario.problems()`).
        case .addBlock(let o, let q): return o == victim ? nil : .addBlock(op: f(o), queue: q)
        case .cancelAll, .suspend, .resume, .setMaxConcurrent, .waitUntilAllFinished, .readOperationCount,
            .readSuspended, .sleep,
             .releaseQueue, .readOperations, .readMainQueue, .readQueueDeallocated, .setUnderlyingQueue:
            return self
        }
    }

    func removing(queue victim: Int, _ f: (Int) -> Int) -> DriverAction? {
        switch self {
        case .add(let o, let q): return q == victim ? nil : .add(op: o, queue: f(q))
        case .addBatch(let list, let q, let w): return q == victim ? nil : .addBatch(ops: list, queue: f(q), wait: w)
        case .cancelAll(let q): return q == victim ? nil : .cancelAll(queue: f(q))
        case .suspend(let q): return q == victim ? nil : .suspend(queue: f(q))
        case .resume(let q): return q == victim ? nil : .resume(queue: f(q))
        case .setMaxConcurrent(let q, let n): return q == victim ? nil : .setMaxConcurrent(queue: f(q), n)
        case .waitUntilAllFinished(let q): return q == victim ? nil : .waitUntilAllFinished(queue: f(q))
        case .readOperationCount(let q): return q == victim ? nil : .readOperationCount(queue: f(q))
        case .readSuspended(let q): return q == victim ? nil : .readSuspended(queue: f(q))
        case .releaseQueue(let q): return q == victim ? nil : .releaseQueue(queue: f(q))
        case .readOperations(let q): return q == victim ? nil : .readOperations(queue: f(q))
        case .readQueueDeallocated(let q): return q == victim ? nil : .readQueueDeallocated(queue: f(q))
        case .setUnderlyingQueue(let q, let d):
            return q == victim ? nil : .setUnderlyingQueue(queue: f(q), dispatchQueue: d)
        // Without its queue the block is never handed over: its operation is then an ordinary
        // block operation that nothing adds, which is valid.
        case .addBlock(let o, let q): return q == victim ? nil : .addBlock(op: o, queue: f(q))
        default: return self
        }
    }
}
