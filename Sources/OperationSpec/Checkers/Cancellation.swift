// CANCEL: what cancel does and does not do (003 cancel; 004 2.5.2, 2.5.3, 2.9.2, 2.9.3).

extension RuleBook {
    static let cancellation: [RuleCheck] = [
        RuleCheck(
            Rule(
                RuleID.cancelSetsFlag, .CANCEL,
                "After cancel returns on an operation that had not finished, isCancelled reports YES.",
                cites: [Citation(.gnustep, "cancel"), Citation(.guide, "2.5.2")], strength: .documentedMust)
        ) { c in
            var r = CheckResult()
            for op in c.allOps {
                // Every observation that began after the return counts: a read, or the value a
                // notification carried (a `will isCancelled (NO)` sent after cancel returned
                // shows the flag was not yet set, as a read of NO would).
                let seen = Array(c.observations(op, .isCancelled))
                guard !seen.isEmpty else { continue }
                // The next observation of NO from each position on, so that a cancel called
                // thousands of times is checked in time linear in the trace, not quadratic.
                var nextNo = [Int](repeating: seen.count, count: seen.count + 1)
                for k in seen.indices.reversed() { nextNo[k] = seen[k].value == .bool(false) ? k : nextNo[k + 1] }
                for call in c.indices(op, .call(.cancel)) {
                    guard let done = c.facts.returned(call) else { continue }
                    // Only where the operation surely had not finished: never started before the
                    // call, or its main still running when the call returned (the default start
                    // finishes only after main ends; issue 34: a running operation's cancel was
                    // never judged).
                    let notStarted = c.facts.firstStart[op].map { $0 > done } ?? true
                    guard notStarted || c.mainRunning(op, from: call, to: done) else { continue }
                    // Observations after `done` that did not begin after it are each the first
                    // event of its thread after `done`: at most one a thread, so both searches
                    // below skip only a few.
                    var k = TraceFacts.firstIndex(in: seen.count) { seen[$0].i > done }
                    while k < seen.count && !c.facts.began(seen[k].i, after: done) { k += 1 }
                    guard k < seen.count else { continue }
                    r.hits += 1
                    var bad = nextNo[k]
                    while bad < seen.count && !c.facts.began(seen[bad].i, after: done) { bad = nextNo[bad + 1] }
                    if bad < seen.count {
                        r.violations.append(
                            c.violation(
                                RuleID.cancelSetsFlag,
                                "op \(op) reported isCancelled NO after cancel returned", "isCancelled YES",
                                [call, done, seen[bad].i]))
                    }
                }
            }
            return r
        },
        RuleCheck(
            Rule(
                RuleID.cancelNotStop, .CANCEL,
                "Cancelling an operation whose task is running does not stop it: its main (and each begun block) still "
                    + "runs to its end.",
                cites: [Citation(.gnustep, "cancel"), Citation(.guide, "2.5.2")], strength: .documentedMust)
        ) { c in
            var r = CheckResult()
            guard c.settled else { return r }
            for op in c.allOps {
                guard let call = c.facts.cancelCalledAt[op] else { continue }
                for began in c.taskBegins(op) where began < call {
                    let ended: Int?
                    switch c.event(began).kind {
                    case .mainBegan: ended = c.firstIndex(op, after: began, .kind(.mainEnded))
                    case .blockBegan(_, let b):
                        ended = c.firstIndex(op, after: began) {
                            if case .blockEnded(_, b) = $0 { return true }; return false
                        }
                    default: ended = nil
                    }
                    if let e = ended, e < call { continue }
                    r.hits += 1
                    if ended == nil {
                        r.violations.append(
                            c.violation(
                                RuleID.cancelNotStop,
                                "op \(op)'s task, running when cancel was called, never reached its end",
                                "cancel does not stop a running task", [began, call]))
                    }
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.cancelBeforeStartSkipsMain, .CANCEL,
                       "An operation cancelled before it is started never runs its main or its blocks.",
                cites: [
                    Citation(.guide, "2.9.2"), Citation(.guide, "2.9.3"), Citation(.guide, "Listing 2-6"),
                    Citation(.ru, "start"), Citation(.zh, "start")
                ],
                       strength: .documentedMust)) { c in
            var r = CheckResult()
            for op in c.allOps {
                guard let call = c.facts.cancelCalledAt[op], let done = c.facts.endOf[call],
                      let start = c.startCalls(op).first(where: { $0.i > done && !$0.threw }),
                      c.facts.firstStart[op] == start.i else { continue }
                r.hits += 1
                if let ran = c.taskBegan(op, after: start.i) {
                    r.violations.append(
                        c.violation(
                            RuleID.cancelBeforeStartSkipsMain,
                            "op \(op) was cancelled before it started, yet its task began",
                            "a cancelled operation never runs", [call, start.i, ran]))
                }
            }
            return r
        },
        RuleCheck(
            Rule(
                RuleID.cancelBeforeStartFinishes, .CANCEL,
                "A queued operation cancelled before it starts still becomes finished, so its dependents are released.",
                cites: [Citation(.guide, "2.9.3"), Citation(.guide, "2.5.3"), Citation(.gnustep, "cancel")],
                strength: .documentedMust, needs: [.finishing])
        ) { c in
            var r = CheckResult()
            guard c.settled else { return r }
            let end = c.events.count
            // Per queue, up to two operations it started that never began finishing: each holds
            // a slot for ever. Two are enough to tell whether one other than a given op exists;
            // found once, not per cancelled operation (which was quadratic after a cancelAll).
            var holders: [[Int]]?
            func slotHolders() -> [[Int]] {
                if let h = holders { return h }
                var h: [[Int]] = Array(repeating: [], count: c.scenario.queues.count)
                for o in c.allOps {
                    guard let q = c.facts.addedAt[o]?.queue, q < h.count, h[q].count < 2,
                        !c.facts.finishing(o, before: end),
                        c.startCalls(o).contains(where: { $0.by == .queue })
                    else { continue }
                    h[q].append(o)
                }
                holders = h
                return h
            }
            for op in c.allOps {
                // Cancelled before it started, whether before or after it was added.
                guard let (add, q) = c.facts.addedAt[op], let call = c.facts.cancelCalledAt[op],
                      c.facts.firstStart[op].map({ $0 > call }) ?? true else { continue }
                // A queue left suspended or at width 0, or with a slot held by an operation that
                // never finished, may fairly never get to it.
                if c.facts.suspension[q].value(before: end) || c.facts.width[q].value(before: end) == 0 { continue }
                if slotHolders()[q].contains(where: { $0 != op }) { continue }
                r.hits += 1
                if c.facts.finishedAt[op] == nil {
                    r.violations.append(
                        c.violation(
                            RuleID.cancelBeforeStartFinishes,
                            "op \(op), cancelled in queue \(q) before it started, never became finished",
                            "a cancelled operation still finishes", [add, call]))
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.cancelFinishedNoop, .CANCEL,
                "Cancelling an operation that has already finished has no effect: isCancelled keeps its value and no "
                    + "change is notified.",
                       cites: [Citation(.gnustep, "cancel")], strength: .documentedMust)) { c in
            var r = CheckResult()
            for op in c.allOps {
                for call in c.indices(op, .call(.cancel)) {
                    guard let finished = c.facts.finishedAt[op], c.facts.settled(finished, before: call),
                          !c.facts.cancelled(op, before: call), c.facts.cancelCalledAt[op] == call else { continue }
                    let after = c.opEvents(op).filter { $0.i > call }
                    // Any observation of YES shows the flip, a will-change's value included (a
                    // will-change carrying YES was sent after the flag was already set).
                    let flips = after.filter { switch $0.kind {
                        case .didChange(_, .isCancelled, .bool(true)), .read(_, .isCancelled, .bool(true)),
                            .willChange(_, .isCancelled, .bool(true)):
                            return true
                        default: return false } }
                    guard
                        c.can(.kvo)
                            || after.contains(where: {
                                if case .read(_, .isCancelled, _) = $0.kind { return true }; return false
                            })
                    else { continue }
                    r.hits += 1
                    if let bad = flips.first {
                        r.violations.append(
                            c.violation(
                                RuleID.cancelFinishedNoop,
                                "op \(op) became cancelled by a cancel sent after it finished",
                                "cancel on a finished operation has no effect", [finished, call, bad.i]))
                    }
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.cancelAll, .CANCEL,
                       "cancelAllOperations cancels every operation in the queue that has not finished.",
                       cites: [Citation(.guide, "2.9.3")], strength: .documentedMust)) { c in
            var r = CheckResult()
            for i in c.facts.indices(.call(.cancelAll)) {
                guard case .call(.cancelAll(let q)) = c.event(i).kind, let done = c.facts.returned(i) else { continue }
                for op in c.allOps {
                    guard let add = c.facts.addedAt[op], add.queue == q, add.call < i else { continue }
                    // Waiting: not started before the call returned. Executing (issue 30, item 3:
                    // a queue that skips its running operations passed): started, and surely
                    // unfinished when the call returned, since its task ended only after it and
                    // it had shown no sign of finishing before.
                    let waiting = c.facts.firstStart[op].map({ $0 > done }) ?? true
                    let executing = !waiting && !c.facts.finishing(op, before: done)
                        && c.indices(op, .kind(.mainEnded), .kind(.blockEnded)).contains { $0 > done }
                    guard waiting || executing else { continue }
                    let state = waiting ? "waiting" : "executing"
                    // Observations that began after the return: reads, and the values notifications
                    // carried (a will-change of NO then shows the operation not yet cancelled).
                    let seen = c.observations(op, .isCancelled).filter { c.facts.began($0.i, after: done) }
                    let notified = c.reports(op, .isCancelled).contains {
                        !$0.isRead && $0.i > i && $0.i < done && $0.value == .bool(true)
                    }
                    guard !seen.isEmpty || c.can(.kvo) else { continue }
                    r.hits += 1
                    if let bad = seen.first(where: { $0.value == .bool(false) }) {
                        r.violations.append(
                            c.violation(
                                RuleID.cancelAll,
                                "op \(op), \(state) in queue \(q), reported isCancelled NO after "
                                    + "cancelAllOperations returned",
                                "every operation in the queue is cancelled", [i, done, bad.i]))
                    } else if c.can(.kvo) && !notified && c.facts.cancelled(op, before: i) == false {
                        r.violations.append(
                            c.violation(
                                RuleID.cancelAll,
                                "op \(op), \(state) in queue \(q), was not cancelled (no isCancelled notification) by "
                                    + "cancelAllOperations",
                                "every operation in the queue is cancelled", [i, done]))
                    }
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.cancelCheckedInMain, .CANCEL,
                "After an operation is cancelled while its main runs, main does not begin a second unit of work "
                    + "without first checking isCancelled.",
                cites: [
                    Citation(.guide, "2.5.2"), Citation(.guide, "Listing 2-4"), Citation(.en, "main"),
                    Citation(.zh, "main")
                ],
                       strength: .documentedAdvice, subject: .subclass)) { c in
            var r = CheckResult()
            for op in c.allOps {
                guard let call = c.facts.cancelCalledAt[op], let done = c.facts.endOf[call],
                      let began = c.indices(op, .kind(.mainBegan)).first, began < call else { continue }
                let thread = c.event(began).thread
                let ended = c.firstIndex(op, after: began, .kind(.mainEnded)) ?? c.events.count
                guard ended > done else { continue }
                r.hits += 1
                // Listing 2-4 checks before each unit of work, so a cancel that lands just after a
                // check lets one more unit run; a second one means main stopped checking.
                var units: [Int] = []
                for j in c.facts.opEvents[op] where j > done && j < ended && c.event(j).thread == thread {
                    if case .read(_, .isCancelled, _) = c.event(j).kind { break }
                    if case .work = c.event(j).kind { units.append(j) }
                }
                if units.count > 1 {
                    r.violations.append(
                        c.violation(
                            RuleID.cancelCheckedInMain,
                            "op \(op) was cancelled during main and main went on to \(units.count) more units of work "
                                + "without reading isCancelled",
                            "main checks isCancelled before each unit of work",
                            [call, done] + units.prefix(2).map(Optional.some)))
                }
            }
            return r
        },
    ]
}
