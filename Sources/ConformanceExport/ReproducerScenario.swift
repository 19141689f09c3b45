import Conformance
import Foundation
import OperationSpec

/// What both reproducer writers (`ObjCReproducer`, `SwiftReproducer`) ask of a scenario, in one
/// place so the two languages cannot drift apart.
enum ReproducerScenario {
    /// Whether operation `i` only names the block of an `addBlock` step (it has no object).
    static func isBlockAdded(_ s: Scenario, _ i: Int) -> Bool {
        s.driver.contains { if case .addBlock(let op, _) = $0.action { return op == i }; return false }
    }

    /// The method a routine of an asynchronous subclass becomes: its name made an identifier of
    /// both languages. ASCII letters and digits are kept and any other scalar is written `_XX_`
    /// (hexadecimal), so nothing from the file but those reaches the code, and two names never
    /// become one method.
    static func routineName(_ name: String) -> String {
        var out = "routine_"
        for scalar in name.unicodeScalars {
            if scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) {
                out.unicodeScalars.append(scalar)
            } else {
                out += "_" + String(scalar.value, radix: 16, uppercase: true) + "_"
            }
        }
        return out
    }

    /// The operations added to queue `q` by driver steps before step `k`, in order of adding.
    static func addedTo(_ s: Scenario, _ q: Int, before k: Int) -> [Int] {
        var list: [Int] = []
        for step in s.driver.prefix(k) {
            switch step.action {
            case .add(let op, let queue) where queue == q: if !list.contains(op) { list.append(op) }
            case .addBatch(let ops, let queue, _) where queue == q:
                for op in ops where !list.contains(op) { list.append(op) }
            default: break
            }
        }
        return list
    }

    /// Why a faithful serial queue `q` need not start `high` before `low`, or nil when it must:
    /// the order is decided when `high` is queued and ready before the queue can choose `low`.
    /// That holds when nothing starts `low` by hand, and either `low` depends on `high`
    /// (directly or through others, by dependencies the scenario never removes, none of them on
    /// an operation that can be cancelled, which would make it ready), or `q` is serial from the
    /// adds on and `high`'s add is an earlier step than `low`'s or the queue is suspended from the
    /// first of the two adds to the last, and `high` is ready all along (no dependency when
    /// added and none added later, no isReady override, its priority not set after the adds).
    /// Otherwise the adds race with the queue's choice, and PRIORITY-ORDER excuses a queue that
    /// chose `low` before `high` was there to choose: a claim that `high` starts first would
    /// accuse a faithful queue.
    static func undecidedOrder(_ s: Scenario, queue q: Int, first high: Int, then low: Int) -> String? {
        // Code in a body that cancels or starts an operation may name any of them: counted as
        // naming every one.
        let bodyCancels = anyStep(s) {
            switch $0 { case .cancel, .cancelAll: return true; default: return false }
        }
        let bodyStarts = anyStep(s) {
            switch $0 { case .start, .spawn(.start, _): return true; default: return false }
        }
        let cancelled = { (op: Int) -> Bool in
            bodyCancels || s.driver.contains {
                    switch $0.action {
                    case .cancel(let x): return x == op;
                    case .cancelAll: return true;
                    default: return false
                    }
            }
        }
        if bodyStarts
            || s.driver.contains(where: {
                if case .start(let x) = $0.action { return x == low }; return false
            })
        {
            return "op \(low) may be started by hand, not by the queue"
        }
        if waits(s, low, on: high, unless: cancelled) { return nil }
        var width = s.queues.indices.contains(q) ? s.queues[q].maxConcurrent : 1
        var suspended = s.queues.indices.contains(q) ? s.queues[q].suspended : false
        var deps = s.dependencies.filter { $0.op == high }.map(\.on)
        var highAdd: (step: Int, suspended: Bool)?, lowAdd: (step: Int, suspended: Bool)?
        var resumedBetween = false
        for (k, step) in s.driver.enumerated() {
            switch step.action {
            case .setMaxConcurrent(let queue, let n) where queue == q:
                if highAdd != nil || lowAdd != nil { return "queue \(q)'s width is changed (step \(k)) after the adds" }
                width = n
            case .suspend(let queue) where queue == q: suspended = true
            case .resume(let queue) where queue == q:
                suspended = false
                if (highAdd == nil) != (lowAdd == nil) { resumedBetween = true }
            case .addDependency(let op, let on) where op == high:
                if highAdd != nil || lowAdd != nil { return "op \(high) gains a dependency (step \(k)) after the adds" }
                if !deps.contains(on) { deps.append(on) }
            case .removeDependency(let op, let on) where op == high: deps.removeAll { $0 == on }
            case .setQueuePriority(let op, _) where (op == high || op == low) && (highAdd != nil || lowAdd != nil):
                return "op \(op)'s priority is set (step \(k)) after the adds"
            case .add(let op, let queue) where queue == q:
                if op == high, highAdd == nil { highAdd = (k, suspended) }
                if op == low, lowAdd == nil { lowAdd = (k, suspended) }
            case .addBatch(let ops, let queue, _) where queue == q:
                if ops.contains(high), highAdd == nil { highAdd = (k, suspended) }
                if ops.contains(low), lowAdd == nil { lowAdd = (k, suspended) }
            default: break
            }
            if (k == highAdd?.step || k == lowAdd?.step), width != 1 {
                return "queue \(q) is not serial (width \(width)) when the operations are added"
            }
            if k == highAdd?.step, !deps.isEmpty {
                return
                    "op \(high) has dependencies (\(deps.map { "op \($0)" }.joined(separator: ", "))) when it is "
                        + "added, so it need not be ready when the queue chooses"
            }
        }
        guard let h = highAdd, let l = lowAdd else {
            return "the scenario does not add both op \(high) and op \(low) to queue \(q)"
        }
        if s.operations.indices.contains(high), s.operations[high].readyAfterSignal != nil {
            return "op \(high) overrides isReady, so it need not be ready when the queue chooses"
        }
        if h.step < l.step { return nil }
        if h.suspended && l.suspended && !resumedBetween { return nil }
        if h.step == l.step {
            return
                "op \(low) and op \(high) are added in one batch (step \(l.step)) to a queue that is not suspended, "
                    + "which may start op \(low) before op \(high) is handed to it"
        }
        return
            "op \(low) is added (step \(l.step)) before op \(high) (step \(h.step)) to a queue that is not suspended "
                + "in between, so the queue may choose op \(low) before op \(high) is there to choose"
    }

    /// Whether `op` waits for `target` through dependencies the scenario never removes, with
    /// nothing on the way that `cancellable` says can be cancelled (a cancelled operation is
    /// ready whatever it waits for): then a faithful queue cannot start `op` first, whatever the
    /// timing of the adds.
    static func waits(_ s: Scenario, _ op: Int, on target: Int, unless cancellable: (Int) -> Bool) -> Bool {
        let removed = s.driver.compactMap { step -> Edge? in
            if case .removeDependency(let op, let on) = step.action { return Edge(op, on: on) }
            return nil
        }
        let edges = s.dependencies.filter { !removed.contains($0) }
        var pending = [op], seen: [Int] = []
        while let next = pending.popLast() {
            if next == target { return true }
            if seen.contains(next) || cancellable(next) { continue }
            seen.append(next)
            pending += edges.filter { $0.op == next }.map(\.on)
        }
        return false
    }

    /// Whether any step of the scenario's step lists, within `if` and `repeat` too, matches.
    static func anyStep(_ s: Scenario, _ match: (Step) -> Bool) -> Bool {
        func scan(_ steps: [Step]) -> Bool {
            steps.contains { step in
                switch step {
                case .if(_, let then, let otherwise): return match(step) || scan(then) || scan(otherwise)
                case .repeat(_, let body): return match(step) || scan(body)
                default: return match(step)
                }
            }
        }
        return s.stepLists.contains(where: scan)
    }

    /// A driver step as one line of scenario JSON, for the comment above its code.
    static func describe(_ step: DriverStep) -> String {
        ScenarioFormat.oneLine(step)
    }
}
