// BLOCK: block operations (004 2.1 Table 2-1, 2.4).

extension RuleBook {
    static let blockOperations: [RuleCheck] = [
        RuleCheck(
            Rule(
                RuleID.blockAllBeforeFinish, .BLOCK,
                "A block operation becomes finished only after every one of its blocks has ended.",
                cites: [Citation(.guide, "2.1 Table 2-1"), Citation(.guide, "2.4")], strength: .documentedMust)
        ) { c in
            var r = CheckResult()
            for op in c.allOps where c.kind(op).isBlock {
                guard let f = c.facts.finishing(op) else { continue }
                let began = c.indices(op, .kind(.blockBegan))
                guard !began.isEmpty else { continue }
                r.hits += 1
                for b in began {
                    guard case .blockBegan(_, let n) = c.event(b).kind else { continue }
                    let ended = c.firstIndex(op, after: b) {
                        if case .blockEnded(_, n) = $0 { return true }; return false
                    }
                    if ended.map({ $0 > f }) ?? true {
                        r.violations.append(
                            c.violation(
                                RuleID.blockAllBeforeFinish,
                                "block operation \(op) began finishing while its block \(n) had not ended",
                                "finished only when all blocks have finished", [b, f]))
                        break
                    }
                }
            }
            return r
        },
        RuleCheck(
            Rule(
                RuleID.blockConcurrent, .BLOCK,
                "The blocks of one block operation are submitted together to a concurrent queue: a block waiting for a "
                    + "sibling block is not starved.",
                cites: [Citation(.guide, "2.4"), Citation(.guide, "2.1 Table 2-1")], strength: .documentedMust,
                needs: [.threadIdentity])
        ) { c in
            var r = CheckResult()
            // Only these kinds matter; looked up once, not per block operation.
            let blockEvents = c.facts.indices([.kind(.blockBegan), .kind(.blockEnded), .kind(.awaited)])
            for op in c.allOps {
                guard case .block(let blocks) = c.kind(op) else { continue }
                var signaller: [Int: Int] = [:]
                for (n, body) in blocks.enumerated() { for t in Step.signals(in: body) { signaller[t] = n } }
                // The block running on each thread at each moment (blocks may share a thread).
                var running: [Int: Int] = [:]
                for i in blockEvents {
                    let e = c.event(i)
                    switch e.kind {
                    case .blockBegan(op, let n): running[e.thread] = n; continue
                    case .blockEnded(op, _): running[e.thread] = nil; continue
                    default: break
                    }
                    guard case .awaited(let t, let ok) = e.kind, let mine = running[e.thread],
                        let theirs = signaller[t], theirs != mine
                    else { continue }
                    r.hits += 1
                    if !ok {
                        r.violations.append(
                            c.violation(
                                RuleID.blockConcurrent,
                                "block \(mine) of op \(op) timed out waiting for token \(t) from sibling block "
                                    + "\(theirs)",
                                "the blocks run concurrently", [i]))
                    }
                }
            }
            return r
        },
        lateCallThrows(
            Rule(
                RuleID.blockLateAddThrows, .BLOCK,
                "Adding an execution block to a block operation that is executing or finished fails with an error.",
                cites: [Citation(.guide, "2.4")], strength: .observedOnly, needs: [.thrownErrors])
        ) { call in
            if case .addExecutionBlock(let op) = call { return op }
            return nil
        },
        RuleCheck(
            Rule(
                RuleID.blockExecutionBlocks, .BLOCK,
                "executionBlocks holds every block of a block operation: the first and each one added with "
                    + "addExecutionBlock: that returned (class reference; not among the seed documents).",
                cites: [Citation(.guide, "2.4")], strength: .observedOnly, needs: [.apiSurface2],
                profiles: [.classReference])
        ) { c in
            var r = CheckResult()
            for op in c.allOps where c.kind(op).isBlock {
                for report in c.reports(op, .executionBlocks) where report.isRead {
                    guard case .int(let n) = report.value else { continue }
                    let i = report.i
                    // Blocks surely added before the read began, and those whose call had begun by
                    // its end: a read on another thread may race an add.
                    let adds = c.indices(op, .call(.addExecutionBlock))
                    let least =
                        c.kind(op).blockCount
                        + adds.filter { call in c.facts.returned(call).map { c.facts.began(i, after: $0) } ?? false }
                        .count
                    let most = c.kind(op).blockCount + adds.filter { $0 < i }.count
                    r.hits += 1
                    if n < least || n > most {
                        r.violations.append(
                            c.violation(
                                RuleID.blockExecutionBlocks, "op \(op) reported \(n) execution blocks",
                                least == most ? "\(least)" : "\(least) to \(most)", [i]))
                    }
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.blockEachOnce, .BLOCK,
                       "Each block of a block operation that runs its task runs exactly once.",
                       cites: [Citation(.guide, "2.4")], strength: .documentedMust)) { c in
            var r = CheckResult()
            for op in c.allOps where c.kind(op).isBlock {
                guard let main = c.indices(op, .kind(.mainBegan)).first else { continue }
                let expected =
                    c.kind(op).blockCount + c.indices(op, .returned(.addExecutionBlock)).filter { $0 < main }.count
                var runs = [Int](repeating: 0, count: expected)
                for b in c.indices(op, .kind(.blockBegan)) {
                    if case .blockBegan(_, let n) = c.event(b).kind, n < expected { runs[n] += 1 }
                }
                r.hits += 1
                if let n = runs.firstIndex(where: { $0 > 1 || ($0 == 0 && c.settled) }) {
                    r.violations.append(
                        c.violation(
                            RuleID.blockEachOnce, "block \(n) of op \(op) ran \(runs[n]) times", "exactly once", [main])
                    )
                }
            }
            return r
        },
    ]
}

extension Step {
    /// Tokens a body signals, looking inside conditionals and loops.
    static func signals(in body: [Step]) -> [Int] {
        body.flatMap { step -> [Int] in
            switch step {
            case .signal(let t): return [t]
            case .if(_, let a, let b): return signals(in: a) + signals(in: b)
            case .repeat(_, let a): return signals(in: a)
            default: return []
            }
        }
    }
}
