// DEP: dependencies order execution, across queues too; misuse is reported (003 addDependency; 004 2.6.1).

extension RuleBook {
    static let dependencies: [RuleCheck] = [
        order("DEP-ORDER", crossQueue: false, "An operation's task does not begin before every dependency it had when it was queued or started has finished.",
              cites: [Citation(.guide, "2.6.1"), Citation(.gnustep, "addDependency:"), Citation(.guide, "2.1")]),
        order("DEP-ACROSS-QUEUES", crossQueue: true, "A dependency on an operation in another queue orders execution just as one in the same queue does.",
              cites: [Citation(.guide, "2.6.1")]),
        misuseEdge("DEP-SELF", "An operation made to depend on itself is refused with an error, or else never runs.",
                   cites: [Citation(.gnustep, "addDependency:"), Citation(.guide, "2.6.1")]) { c, op, on, i in op == on ? [op] : nil },
        misuseEdge("DEP-CYCLE", "A dependency that would close a cycle is refused with an error, or else no operation on the cycle runs.",
                   cites: [Citation(.gnustep, "addDependency:"), Citation(.guide, "2.6.1")]) { c, op, on, i in
            op == on ? nil : c.path(from: on, to: op, at: i)
        },
        RuleCheck(Rule("DEP-DUPLICATE", .DEP,
                       "Adding a dependency an operation already has is refused with an error, or else leaves it listed once.",
                       cites: [Citation(.gnustep, "addDependency:")], strength: .documentedMust, needs: [.thrownErrors])) { c in
            var r = CheckResult()
            for i in c.facts.indices(.call(.addDependency)) {
                guard case .call(.addDependency(let op, let on)) = c.event(i).kind, op != on,
                      c.facts.dependencies(of: op, at: i).contains(on), let end = c.facts.endOf[i] else { continue }
                r.hits += 1
                guard c.facts.returned(i) != nil else { continue }
                if let bad = c.reports(op, .dependencies).first(where: { rep in
                    if c.facts.began(rep.i, after: end), case .ops(let list) = rep.value { return list.filter { $0 == on }.count > 1 }
                    return false
                }) {
                    r.violations.append(c.violation("DEP-DUPLICATE", "op \(op) lists op \(on) more than once after a duplicate addDependency",
                                                    "a duplicate is refused or has no effect", [i, end, bad.i]))
                }
            }
            return r
        },
        RuleCheck(Rule("DEP-REMOVE-RESTORES", .DEP,
                       "Removing an operation's last unfinished dependency makes it report isReady YES.",
                       cites: [Citation(.guide, "2.5.4"), Citation(.gnustep, "isReady")], strength: .documentedMust)) { c in
            var r = CheckResult()
            for i in c.facts.indices(.call(.removeDependency)) {
                guard case .call(.removeDependency(let op, let on)) = c.event(i).kind, let done = c.facts.returned(i),
                      c.facts.dependencies(of: op, at: i).contains(on),
                      c.facts.dependencies(of: op, at: done + 1).allSatisfy({ d in c.facts.finishedAt[d].map { c.facts.settled($0, before: i) } ?? false })
                else { continue }
                let nextAdd = c.facts.edges(of: op).map(\.added).filter { $0 > done }.min() ?? Int.max
                let after = c.reports(op, .isReady).filter { c.facts.began($0.i, after: done) && $0.i < nextAdd }
                guard !after.isEmpty else { continue }
                r.hits += 1
                if let bad = after.first(where: { $0.isRead && $0.value == .bool(false) }) {
                    r.violations.append(c.violation("DEP-REMOVE-RESTORES", "op \(op) reported isReady NO after its last unfinished dependency op \(on) was removed",
                                                    "removing the dependency makes the operation ready", [i, done, bad.i]))
                }
            }
            return r
        },
    ]

    static func order(_ id: String, crossQueue: Bool, _ statement: String, cites: [Citation]) -> RuleCheck {
        RuleCheck(Rule(id, .DEP, statement, cites: cites, strength: .documentedMust, needs: [.finishing])) { c in
            var r = CheckResult()
            for op in c.allOps {
                guard let first = c.handedOver(op) else { continue }
                let myQueue = c.facts.addedAt[op]?.queue
                for began in c.taskBegins(op) {
                    if c.facts.cancelCalledAt[op].map({ $0 < began }) == true { continue }
                    for dep in c.facts.dependencies(of: op, at: began) {
                        guard let edge = c.facts.edges(of: op).last(where: { $0.on == dep && $0.active(at: began) }), edge.added < first else { continue }
                        let theirs = c.facts.addedAt[dep]?.queue
                        let across = myQueue != nil && theirs != nil && myQueue != theirs
                        guard across == crossQueue else { continue }
                        r.hits += 1
                        if !c.facts.finishing(dep, before: began) {
                            r.violations.append(c.violation(id, "op \(op)'s task began before its dependency op \(dep) had finished" + (across ? " (queues \(myQueue!) and \(theirs!))" : ""),
                                                            "a dependent starts only after every dependency finished", [edge.added, began]))
                        }
                    }
                }
            }
            return r
        }
    }

    /// A refused-or-harmless edge: either the call throws, or the operations it names never run.
    static func misuseEdge(_ id: String, _ statement: String, cites: [Citation],
                           affected: @escaping @Sendable (CheckContext, Int, Int, Int) -> [Int]?) -> RuleCheck {
        RuleCheck(Rule(id, .DEP, statement, cites: cites, strength: .documentedMust, needs: [.thrownErrors])) { c in
            var r = CheckResult()
            for i in c.facts.indices(.call(.addDependency)) {
                guard case .call(.addDependency(let op, let on)) = c.event(i).kind, let stuck = affected(c, op, on, i) else { continue }
                r.hits += 1
                guard let done = c.facts.returned(i) else { continue }
                // A cycle through an operation that had already finished deadlocks nothing.
                if stuck.contains(where: { c.facts.finishing($0, before: done) }) { continue }
                for o in stuck {
                    if c.facts.cancelCalledAt[o] != nil { continue }
                    if let ran = c.taskBegan(o, after: done) {
                        r.violations.append(c.violation(id, "addDependency(op \(op) on \(on)) was accepted and op \(o) on the cycle ran anyway",
                                                        "refuse the edge, or never run the operations on the cycle", [i, done, ran]))
                    }
                }
            }
            return r
        }
    }
}

extension CheckContext {
    /// The operations on a dependency path from `from` to `to` in force at event `i`, if any.
    func path(from: Int, to: Int, at i: Int) -> [Int]? {
        // Nothing depends on `to`: no path can end there. This is the common case (operations
        // get their dependencies as they are built), and it keeps the search from walking the
        // whole graph for every edge, which made DEP-CYCLE quadratic in a long chain.
        guard from == to || facts.hasDependents(to, at: i) else { return nil }
        var parent = [Int?](repeating: nil, count: operationCount)
        var seen = [Bool](repeating: false, count: operationCount)
        var stack = [from]
        seen[from] = true
        while let n = stack.popLast() {
            if n == to {
                var path = [n], k = n
                while let p = parent[k] { path.append(p); k = p }
                return path
            }
            for d in facts.dependencies(of: n, at: i) where !seen[d] {
                seen[d] = true
                parent[d] = n
                stack.append(d)
            }
        }
        return nil
    }
}
