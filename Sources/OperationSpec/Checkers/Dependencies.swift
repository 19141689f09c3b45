// DEP: dependencies order execution, across queues too; misuse is reported (003 addDependency; 004 2.6.1).

extension RuleBook {
    static let dependencies: [RuleCheck] = [
        order(
            RuleID.depOrder, crossQueue: false,
            "An operation's task does not begin before every dependency it had when it was "
                + "queued or started has finished.",
            cites: [Citation(.guide, "2.6.1"), Citation(.gnustep, "addDependency:"), Citation(.guide, "2.1")]),
        order(
            RuleID.depAcrossQueues, crossQueue: true,
            "A dependency on an operation in another queue orders execution just as one in the same queue does.",
            cites: [Citation(.guide, "2.6.1")]),
        misuseEdge(
            RuleID.depSelf, "An operation made to depend on itself is refused with an error, or else never runs.",
            cites: [Citation(.gnustep, "addDependency:"), Citation(.guide, "2.6.1")]
        ) { c, op, on, i in
            op == on ? [op] : nil
        },
        // 003 addDependency: "You must not create loops of dependencies (this would cause
        // deadlock)." 004 2.6.1: circular dependencies are "a programmer error that will prevent
        // the affected operations from ever running". Neither says the call fails: the edge is
        // accepted (Foundation and GNUstep do not check), and the operations wait for each other.
        // A cancelled operation is ready whatever its dependencies (003 isReady) and "still
        // considered to be finished", so its dependents are released (004 2.9.3): cancelling a
        // member lets the rest of the cycle run after it. Refusing the closing edge with an error
        // is not what the documents say, but it deadlocks nothing: it is tolerated, as observed
        // behaviour (an implementation may check, as the Python example driver does).
        misuseEdge(
            RuleID.depCycle,
            "A dependency that closes a cycle is accepted and \"will prevent the affected operations from ever "
                + "running\": no operation on the cycle runs unless a member of it is cancelled, whose finish releases "
                + "the rest (an implementation that refuses the edge with an error is tolerated).",
            cites: [Citation(.gnustep, "addDependency:"), Citation(.guide, "2.6.1"), Citation(.guide, "2.9.3")]
        ) { c, op, on, i in
            op == on ? nil : c.path(from: on, to: op, at: i)
        },
        RuleCheck(
            Rule(
                RuleID.depDuplicate, .DEP,
                "Adding a dependency an operation already has is refused with an error, or else leaves it listed once.",
                cites: [Citation(.gnustep, "addDependency:")], strength: .documentedMust, needs: [.thrownErrors])
        ) { c in
            var r = CheckResult()
            for i in c.facts.indices(.call(.addDependency)) {
                guard case .call(.addDependency(let op, let on)) = c.event(i).kind, op != on,
                    c.facts.dependencies(of: op, at: i).contains(on), let end = c.facts.endOf[i]
                else { continue }
                r.hits += 1
                guard c.facts.returned(i) != nil else { continue }
                // A will-change's value is the list when it was sent (before the change it announces).
                if let bad = c.observations(op, .dependencies).first(where: { rep in
                    if c.facts.began(rep.i, after: end), case .ops(let list) = rep.value {
                        return list.filter { $0 == on }.count > 1
                    }
                    return false
                }) {
                    r.violations.append(
                        c.violation(
                            RuleID.depDuplicate,
                            "op \(op) lists op \(on) more than once after a duplicate addDependency",
                            "a duplicate is refused or has no effect", [i, end, bad.i]))
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.depListed, .DEP,
                "Once addDependency: has returned, the receiver's dependencies list the target; once removeDependency: "
                    + "has returned, they no longer do.",
                cites: [
                    Citation(.gnustep, "addDependency:"), Citation(.gnustep, "removeDependency:"),
                    Citation(.guide, "2.6.1")
                ],
                       strength: .documentedMust)) { c in
            var r = CheckResult()
            for op in c.allOps {
                // Every change asked of op's dependencies, in order: where it began and ended.
                var changes: [(begin: Int, end: Int?, on: Int, adds: Bool)] = []
                for i in c.indices(op, .call(.addDependency), .call(.removeDependency)) {
                    switch c.event(i).kind {
                    case .call(.addDependency(op, let on)): changes.append((i, c.facts.endOf[i], on, true))
                    case .call(.removeDependency(op, let on)): changes.append((i, c.facts.endOf[i], on, false))
                    default: break
                    }
                }
                guard !changes.isEmpty else { continue }
                for report in c.reports(op, .dependencies) where report.isRead {
                    // Judged only with no change in flight: the read surely began after every
                    // change begun before it had ended.
                    guard case .ops(let list) = report.value,
                          changes.allSatisfy({ change in
                              change.begin > report.i || change.end.map { c.facts.began(report.i, after: $0) } == true
                          }) else { continue }
                    // Each target's last change before the read, if it returned normally (a refused
                    // one, a self-dependency or a cycle, is DEP-SELF's and DEP-CYCLE's).
                    var judged: [(on: Int, listed: Bool, at: Int)] = []
                    for on in Set(changes.map(\.on)).sorted() where on != op {
                        guard let last = changes.last(where: { $0.on == on && $0.begin < report.i }),
                              c.facts.returned(last.begin) != nil else { continue }
                        judged.append((on, last.adds, last.begin))
                    }
                    guard !judged.isEmpty else { continue }
                    r.hits += 1
                    if let bad = judged.first(where: { list.contains($0.on) != $0.listed }) {
                        r.violations.append(c.violation(RuleID.depListed,
                                "op \(op)'s dependencies read \(report.value) after op \(bad.on) was "
                                    + "\(bad.listed ? "added" : "removed")",
                            bad.listed ? "op \(bad.on) listed" : "op \(bad.on) not listed", [bad.at, report.i]))
                    }
                }
            }
            return r
        },
        RuleCheck(
            Rule(
                RuleID.depRemoveRestores, .DEP,
                "Removing an operation's last unfinished dependency makes it report isReady YES.",
                cites: [Citation(.guide, "2.5.4"), Citation(.gnustep, "isReady")], strength: .documentedMust)
        ) { c in
            var r = CheckResult()
            for i in c.facts.indices(.call(.removeDependency)) {
                guard case .call(.removeDependency(let op, let on)) = c.event(i).kind, let done = c.facts.returned(i),
                    c.facts.dependencies(of: op, at: i).contains(on),
                    c.facts.dependencies(of: op, at: done + 1).allSatisfy({ d in
                        c.facts.finishedAt[d].map { c.facts.settled($0, before: i) } ?? false
                    })
                else { continue }
                let nextAdd = c.facts.edges(of: op).map(\.added).filter { $0 > done }.min() ?? Int.max
                let after = c.reports(op, .isReady).filter {
                    c.facts.began($0.i, after: done) && $0.i < nextAdd && !c.overrideHolds(op, at: $0.i)
                }
                guard !after.isEmpty else { continue }
                r.hits += 1
                if let bad = after.first(where: { $0.isRead && $0.value == .bool(false) }) {
                    r.violations.append(
                        c.violation(
                            RuleID.depRemoveRestores,
                            "op \(op) reported isReady NO after its last unfinished dependency op \(on) was removed",
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
                        guard let edge = c.facts.edges(of: op).last(where: { $0.on == dep && $0.active(at: began) }),
                            edge.added < first
                        else { continue }
                        let theirs = c.facts.addedAt[dep]?.queue
                        let across = myQueue != nil && theirs != nil && myQueue != theirs
                        guard across == crossQueue else { continue }
                        r.hits += 1
                        if !c.facts.finishing(dep, before: began) {
                            r.violations.append(
                                c.violation(
                                    id,
                                    "op \(op)'s task began before its dependency op \(dep) had finished"
                                        + (across ? " (queues \(myQueue!) and \(theirs!))" : ""),
                                    "a dependent starts only after every dependency finished", [edge.added, began]))
                        }
                    }
                }
            }
            return r
        }
    }

    /// A refused-or-harmless edge: either the call throws, or the operations on the cycle it
    /// closes never run until the cycle is released. `cycle` names the cycle the edge `op` on
    /// `on` closes, if it does: its operations, each depending on the one before it and the first
    /// on the last (for a self edge, `[op]`).
    ///
    /// A member is a *release*: one that was cancelled (a cancelled operation is ready whatever
    /// its dependencies, 003 isReady), or one whose edge on the cycle was added after it was
    /// queued or started (such an edge "may not prevent" it from running, 004 2.6.1). An operation
    /// on the cycle may run if it is a release itself, if a release had begun finishing before it
    /// ran (a finished dependency, cancelled or not, releases its dependents, 004 2.9.3: the
    /// order along the chain is DEP-ORDER's business), or if an edge of the cycle had been
    /// removed by then. Otherwise its running breaks the rule.
    static func misuseEdge(_ id: String, _ statement: String, cites: [Citation],
                           cycle: @escaping @Sendable (CheckContext, Int, Int, Int) -> [Int]?) -> RuleCheck {
        RuleCheck(Rule(id, .DEP, statement, cites: cites, strength: .documentedMust, needs: [.thrownErrors])) { c in
            var r = CheckResult()
            for i in c.facts.indices(.call(.addDependency)) {
                guard case .call(.addDependency(let op, let on)) = c.event(i).kind, let members = cycle(c, op, on, i)
                else { continue }
                r.hits += 1
                guard let done = c.facts.returned(i) else { continue }
                // A cycle through an operation that had already finished deadlocks nothing.
                if members.contains(where: { c.facts.finishing($0, before: done) }) { continue }
                // Each member's dependency on the cycle, and when that edge was added (the new
                // edge's `added` is this call's return).
                let links = members.indices.map { k in
                    (op: members[k], on: members[(k + members.count - 1) % members.count])
                }
                let added = links.map { link in
                    c.facts.edges(of: link.op).last { $0.on == link.on && $0.added <= done }?.added ?? done
                }
                let releases = links.indices.filter { k in
                    let m = links[k].op
                    return c.facts.cancelCalledAt[m] != nil || (c.handedOver(m).map { $0 <= added[k] } ?? false)
                }.map { links[$0].op }
                for o in members {
                    guard !releases.contains(o), let ran = c.taskBegan(o, after: done) else { continue }
                    if releases.contains(where: { c.facts.finishing($0, before: ran) }) { continue }
                    if links.contains(where: { link in !c.facts.dependencies(of: link.op, at: ran).contains(link.on) })
                    {
                        continue
                    }
                    let shown = (members + [members[0]]).map(String.init).joined(separator: " -> ")
                    r.violations.append(
                        c.violation(
                            id,
                            "addDependency(op \(op) on \(on)) was accepted and op \(o) on the cycle \(shown) (each "
                                + "depending on the one before) ran before any cancelled member of it had finished",
                            "refuse the edge, or run no operation on the cycle until a cancelled "
                                + "member of it has finished",
                            [i, done, ran]))
                }
            }
            return r
        }
    }
}

extension CheckContext {
    /// The operations on a dependency path from `from` to `to` in force at event `i`, if any,
    /// from `to` back to `from`: each depends on the one before it.
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
