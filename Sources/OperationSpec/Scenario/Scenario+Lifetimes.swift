extension Scenario {
    /// When a driver may let go of each operation: the index of the last driver step that
    /// needs the object, -1 when no step does (set up, then never touched), or nil when the
    /// driver must hold it to the end (code of some operation names it, or its isReady waits for
    /// a signal that code sends, at a time no step index fixes; or it depends on another).
    ///
    /// A driver that holds every operation until the case ends keeps each one alive, so a queue
    /// that goes on using an operation it has already let go of never touches freed memory:
    /// Foundation's crash after an asynchronous operation finishes while still queued (issue 30)
    /// was invisible by construction. Letting go at the last use gives the queue the only
    /// reference, as in a program that adds an operation and forgets it.
    ///
    /// A step needs an operation when its action names it. `waitUntilAllFinished` of a queue
    /// does not: the queue holds what it has not finished, and the driver reads `isFinished`
    /// afterwards only of the operations something still holds (one nothing holds was finished
    /// and let go by its queue, and the platform's own finish read `isFinished` on the way,
    /// which is the trace's evidence). Holding them through the wait kept alive exactly the
    /// operation a queue had let go of too early. Dependencies need nothing: the dependent
    /// operation holds its dependency itself.
    public func lastDriverUses() -> [Int?] {
        var last: [Int?] = Array(repeating: -1, count: operations.count)
        func use(_ op: Int, _ step: Int) {
            guard op >= 0, op < last.count, last[op] != nil else { return }
            last[op] = step
        }
        for (s, step) in driver.enumerated() {
            for op in step.action.namedOperations { use(op, s) }
            if case .perform(_, let steps) = step.action {
                for o in operations.indices where Self.names(o, in: steps) { use(o, s) }
            }
        }
        let lists = stepLists
        for o in operations.indices where lists.contains(where: { Self.names(o, in: $0) }) { last[o] = nil }
        // A `signal` step, in any operation's code, announces isReady of the operations whose
        // override waits for its token.
        for o in operations.indices where operations[o].readyAfterSignal != nil { last[o] = nil }
        // An operation that depends on another is held: Foundation's keeps its dependents
        // unretained, and the finish of a dependency locks a freed one (SIGSEGV; reported in
        // Specs/implementations/foundation-linux-bugs.md, DEPENDENT-RELEASED-USE-AFTER-FREE).
        // Letting go of them ended 4 to 8 % of every Foundation run's cases on that one bug.
        for e in dependencies where e.op != e.on && e.op >= 0 && e.op < last.count { last[e.op] = nil }
        for step in driver {
            if case .addDependency(let o, let on) = step.action, o != on, o >= 0, o < last.count { last[o] = nil }
        }
        return last
    }
}
