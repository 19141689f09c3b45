// COMPLETION: when and how a completion block runs (004 2.1, 2.6.3, 2.6.4, 2.7.2).

extension RuleBook {
    static let completion: [RuleCheck] = [
        RuleCheck(Rule(RuleID.completionAfterFinish, .COMPLETION,
                "A completion block begins only after its operation began finishing and, for the "
                    + "default start, after main ended.",
                       cites: [Citation(.guide, "2.6.4"), Citation(.guide, "2.1")], strength: .documentedMust)) { c in
            var r = CheckResult()
            for op in c.allOps {
                for began in c.indices(op, .kind(.completionBegan)) {
                    r.hits += 1
                    let tasks = c.taskBegins(op)
                    let ends = c.indices(op, .kind(.mainEnded), .kind(.blockEnded))
                    let marks = c.facts.opEvents[op].filter { j in j < began && { switch c.event(j).kind {
                                case .willChange(_, .isFinished, _), .set(_, .isFinished, true),
                                    .didChange(_, .isFinished, .bool(true)), .read(_, .isFinished, .bool(true)):
                                    return true
                        default: return false } }() }
                    // A subclass that overrides start finishes itself, often from inside main
                    // (Listing 2-7), so for it the finish is the mark, not main's return.
                    let taskDone =
                        c.kind(op).overridesStart
                        || tasks.filter { $0 < began }.count <= ends.filter { $0 < began }.count
                    if !taskDone || (c.can(.kvo) && marks.isEmpty) {
                        r.violations.append(c.violation(RuleID.completionAfterFinish,
                                "op \(op)'s completion block began "
                                    + (taskDone
                                        ? "before the operation began finishing" : "while its task was still running"),
                            "the completion block runs after the main task finishes", [tasks.last, began]))
                    }
                }
            }
            return r
        },
        RuleCheck(
            Rule(
                RuleID.completionOnce, .COMPLETION,
                "A completion block set before its operation finished runs exactly once, "
                    + "cancelled operations included.",
                cites: [Citation(.guide, "2.6.4"), Citation(.guide, "2.9.3")], strength: .documentedMust,
                needs: [.finishing])
        ) { c in
            var r = CheckResult()
            for op in c.allOps {
                let runs = c.indices(op, .kind(.completionBegan))
                let set = c.indices(op, .call(.setCompletionBlock))
                    .compactMap { c.facts.returned($0) }.first
                guard let s = set, let f = c.facts.finishedAt[op], s < f || !runs.isEmpty else { continue }
                r.hits += 1
                if runs.count > 1 {
                    r.violations.append(
                        c.violation(
                            RuleID.completionOnce, "op \(op)'s completion block ran \(runs.count) times",
                            "exactly once", Array(runs)))
                } else if runs.isEmpty && c.settled && !c.facts.finishing(op, before: s) {
                    r.violations.append(
                        c.violation(
                            RuleID.completionOnce, "op \(op) finished and its completion block never ran",
                            "exactly once", [s, f]))
                }
            }
            return r
        },
        lateCallThrows(
            Rule(
                RuleID.completionLateThrows, .COMPLETION,
                "Setting a completion block on an operation that is executing or finished fails with an error.",
                cites: [Citation(.guide, "2.7.2")], strength: .documentedMust, needs: [.thrownErrors])
        ) { call in
            if case .setCompletionBlock(let op) = call { return op }
            return nil
        },
        RuleCheck(Rule(RuleID.completionThreadPriority, .COMPLETION,
                       "A completion block runs at the default thread priority, 0.5.",
                       cites: [Citation(.guide, "2.6.3")], strength: .documentedMust, needs: [.threadPriority])) { c in
            var r = CheckResult()
            for i in c.facts.indices(.kind(.completionBegan)) {
                guard case .completionBegan(let op, let p) = c.event(i).kind else { continue }
                r.hits += 1
                if abs(p - 0.5) > 1e-9 {
                    r.violations.append(
                        c.violation(
                            RuleID.completionThreadPriority, "op \(op)'s completion block ran at thread priority \(p)",
                            "0.5", [i]))
                }
            }
            return r
        },
    ]
}
