// STATE: invariants of the state properties (003 isFinished, isConcurrent, cancel; 004 2.2, Listing 2-7).

extension RuleBook {
    static let state: [RuleCheck] = [
        RuleCheck(Rule(RuleID.stateExclusive, .STATE,
                       "An operation never reports isExecuting and isFinished both YES.",
                cites: [
                    Citation(.gnustep, "isFinished"), Citation(.gnustep, "start"), Citation(.guide, "Listing 2-7"),
                    Citation(.guide, "2.5.3 Table 2-2")
                ],
                       strength: .documentedMust)) { c in
            var r = CheckResult()
            for op in c.allOps {
                // Exact: a subclass's own ivar stores show both values at every moment.
                var ivars: [StateKey: Int] = [:]
                // Sound for any source: finishing never goes back, so an observation of executing
                // YES that began after evidence of finished YES shows both at once. The evidence
                // is the facts' first (a read, a did-change, a will-change carrying YES, an ivar
                // store, or the completion block beginning); an observation of executing is a
                // read or the value a will- or did-change carried when it was sent: a
                // `will isExecuting (YES)` posted after `did isFinished (YES)` is both YES.
                let finished = c.facts.finishedAt[op]
                for (i, k) in c.opEvents(op, .keys(.isExecuting, .isFinished)) {
                    var both: [Int]?
                    switch k {
                    case .set(_, let key, let v) where key == .isExecuting || key == .isFinished:
                        r.hits += 1
                        ivars[key] = v ? i : nil
                        if let e = ivars[.isExecuting], let f = ivars[.isFinished] { both = [e, f] }
                    case .didChange(_, .isExecuting, let v), .read(_, .isExecuting, let v),
                        .willChange(_, .isExecuting, let v):
                        guard let f = finished, f < i else { continue }
                        r.hits += 1
                        if v == .bool(true) && c.facts.began(i, after: f) { both = [f, i] }
                    default: continue
                    }
                    if let w = both {
                        r.violations.append(
                            c.violation(
                                RuleID.stateExclusive, "op \(op) was executing and finished at once",
                                "isExecuting and isFinished are never both YES", w))
                        break  // one report per operation: later overlaps follow from the first
                    }
                }
            }
            return r
        },
        monotonic(
            RuleID.stateFinishedMonotonic, .isFinished,
            "Once an operation reports isFinished YES it never reports NO again.",
            cites: [Citation(.gnustep, "isFinished"), Citation(.guide, "2.5.3")]),
        monotonic(
            RuleID.stateCancelledMonotonic, .isCancelled,
            "Once an operation reports isCancelled YES it never reports NO again.",
            cites: [Citation(.gnustep, "cancel")]),
        RuleCheck(
            Rule(
                RuleID.stateFinishedRegardless, .STATE,
                "An operation that was started becomes finished, whether it completed, was cancelled or failed.",
                cites: [Citation(.gnustep, "isFinished"), Citation(.gnustep, "main"), Citation(.guide, "2.5.3")],
                strength: .documentedMust, needs: [.finishing])
        ) { c in
            var r = CheckResult()
            guard c.settled else { return r }
            for op in c.allOps {
                guard let s = c.startCalls(op).first(where: { !$0.threw && $0.end != nil }) else { continue }
                r.hits += 1
                if c.facts.finishedAt[op] == nil {
                    r.violations.append(
                        c.violation(
                            RuleID.stateFinishedRegardless, "op \(op) was started and never became finished",
                            "every started operation reaches isFinished", [s.i, s.end]))
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.stateFinishedAfterTask, .STATE,
                "An operation reports isFinished YES only once its task is done: not before its main or task has "
                    + "begun, nor while it still runs.",
                       cites: [Citation(.gnustep, "isFinished"), Citation(.guide, "2.5.3 Table 2-2")],
                       strength: .documentedMust)) { c in
            var r = CheckResult()
            for op in c.allOps {
                // The task is the operation's first main (a concurrent subclass's task, as the
                // driver's probe and the engine log it). Blocks are BLOCK-*'s; a second main is
                // STATE-MAIN-ONCE's.
                guard let began = c.indices(op, .kind(.mainBegan)).first else { continue }
                r.hits += 1
                guard let finished = c.facts.finishedAt[op] else { continue }
                let ended = c.firstIndex(op, after: began, .kind(.mainEnded))
                // Both marks are logged when they happen, and evidence of finished YES is logged
                // after the value was YES: a task mark after it surely came later.
                if finished < began {
                    // Started, reported finished, and only then did its task begin (an
                    // asynchronous flag with the default start: main returned before the task
                    // it set off had even begun).
                    guard let s = c.facts.firstStart[op], s < finished else { continue }
                    r.violations.append(c.violation(RuleID.stateFinishedAfterTask,
                        "op \(op) reported finished before its task began",
                        "isFinished YES only once the task is done", [s, finished, began]))
                } else if let e = ended, finished < e {
                    // Finished while its task ran. A task that finishes itself (Listing 2-7's
                    // completeOperation at the end of main) announces it on its own thread
                    // first: a will-change or store of isFinished before anyone saw YES. Without
                    // one, someone else finished it (a cancel that finishes a running
                    // operation, a start whose default finish did not wait for the task).
                    let thread = c.event(began).thread
                    let ownFinish = c.facts.opEvents[op].contains { i in
                        i > began && i <= finished && c.event(i).thread == thread && c.event(i).kind.isFinishing(op)
                    }
                    if !ownFinish {
                        r.violations.append(c.violation(RuleID.stateFinishedAfterTask,
                            "op \(op) reported finished while its task still ran",
                            "isFinished YES only once the task is done", [began, finished, e]))
                    } else if let work = workAfter(c, op, thread: thread, from: finished, to: e) {
                        // It finished itself, then went on working: completeOperation called
                        // before the work rather than after it.
                        r.violations.append(c.violation(RuleID.stateFinishedAfterTask,
                            "op \(op) reported finished, then its task did more work",
                            "isFinished YES only once the task is done", [began, finished, work]))
                    }
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.stateExecutingDuringTask, .STATE,
                       "A started operation reports isExecuting YES while its task runs, until it begins to finish.",
                       cites: [Citation(.guide, "2.5.3 Table 2-2"), Citation(.guide, "Listing 2-6")],
                       strength: .documentedMust)) { c in
            var r = CheckResult()
            for op in c.allOps {
                // The task is the operation's first main (as STATE-FINISHED-AFTER-TASK takes it).
                // A read counts when it began after the task began and was logged before the
                // task's end was: the task was running for all of it. Once the operation shows
                // any sign of finishing (Listing 2-7's completeOperation resets executing inside
                // the task), NO is its business, not this rule's.
                guard let began = c.indices(op, .kind(.mainBegan)).first,
                      let ended = c.firstIndex(op, after: began, .kind(.mainEnded)) else { continue }
                let finishing = c.facts.finishingAt[op] ?? Int.max
                for (i, k) in c.opEvents(op, .keys(.isExecuting, nil)) where i > began && i < ended {
                    guard case .read(_, .isExecuting, let v) = k, c.facts.began(i, after: began) else { continue }
                    r.hits += 1
                    guard v == .bool(false), i < finishing, !twoStepFinish(c, op, readAt: i) else { continue }
                    r.violations.append(
                        c.violation(
                            RuleID.stateExecutingDuringTask,
                            "op \(op) reported isExecuting NO while its task ran",
                            "isExecuting YES from the task's start until the operation begins to finish",
                            [began, i, ended]))
                    break  // one report per operation
                }
            }
            return r
        },
        RuleCheck(
            Rule(
                RuleID.stateNotConcurrentDefault, .STATE,
                "An operation that does not override isConcurrent reports NO.",
                cites: [Citation(.gnustep, "isConcurrent"), Citation(.guide, "2.2")], strength: .documentedMust)
        ) { c in
            var r = CheckResult()
            for op in c.allOps where !c.kind(op).reportsConcurrent {
                // Notifications of isConcurrent carry its value too (GNUstep's driver observes it).
                for seen in c.observations(op, .isConcurrent) {
                    r.hits += 1
                    if seen.value == .bool(true) {
                        r.violations.append(
                            c.violation(
                                RuleID.stateNotConcurrentDefault,
                                "op \(op) reported isConcurrent YES without overriding it",
                                "the default isConcurrent is NO", [seen.i]))
                    }
                }
            }
            return r
        },
        RuleCheck(
            Rule(
                RuleID.stateNotExecutingBeforeStart, .STATE,
                "An operation does not report isExecuting YES before its start has been called.",
                cites: [Citation(.guide, "2.9.2"), Citation(.gnustep, "start")], strength: .documentedMust)
        ) { c in
            var r = CheckResult()
            for op in c.allOps {
                let first = c.facts.firstStart[op] ?? Int.max
                // A will-change's value counts as a read's does: it is what isExecuting said when
                // the notification was sent.
                for seen in c.observations(op, .isExecuting) where seen.i < first {
                    r.hits += 1
                    if seen.value == .bool(true) {
                        r.violations.append(
                            c.violation(
                                RuleID.stateNotExecutingBeforeStart,
                                "op \(op) reported isExecuting YES before start was called",
                                "an operation executes only once started", [seen.i]))
                    }
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.stateMainOnce, .STATE,
                       "An operation's main runs at most once, however often it is started or added.",
                       cites: [Citation(.guide, "2.7.2"), Citation(.guide, "2.9.3")], strength: .documentedMust)) { c in
            var r = CheckResult()
            for op in c.allOps where !c.kind(op).overridesStart {
                let mains = c.indices(op, .kind(.mainBegan))
                guard !mains.isEmpty else { continue }
                r.hits += 1
                if mains.count > 1 {
                    r.violations.append(
                        c.violation(
                            RuleID.stateMainOnce, "op \(op)'s main ran \(mains.count) times", "main runs at most once",
                            Array(mains)))
                }
            }
            return r
        },
    ]

    /// Whether a read of isExecuting NO at `readAt` falls in a finish told in two steps: the
    /// change of isExecuting the operation told around the read, then isFinished YES, with no
    /// work of its task in between. The class set `executing = NO` with its own KVO pair and
    /// then `finished = YES` with another (swift-corelibs-foundation's TestOperationQueue writes
    /// its asynchronous operation so); a reader between the pairs sees neither. The guide's
    /// Listing 2-7 brackets both in one pair, but that is an example (KVO-COMPLETION-ORDER warns
    /// of the order), not a must: Table 2-2 asks that the state be kept, reported and announced,
    /// and a task whose work is done is no longer executing. So the gap is the beginning of the
    /// finish (issue 42, TwoStepFinishTests).
    static func twoStepFinish(_ c: CheckContext, _ op: Int, readAt i: Int) -> Bool {
        guard let finished = c.facts.finishing(op) ?? firstYes(c, op, .isFinished, after: i), finished > i else {
            return false
        }
        let told = c.indices(op, .kind(.willChange), .kind(.didChange)).filter { $0 < finished }
            + c.indices(op, .kind(.announced)).filter { $0 < finished }
        let around = told.sorted().filter { j in
            switch c.event(j).kind {
            case .willChange(_, .isExecuting, _), .didChange(_, .isExecuting, _), .announced(_, "isExecuting", _):
                return true
            default: return false
            }
        }
        // The change of isExecuting that took it to NO: the last one told before the read if no
        // read of YES came between (a will-change is told before the store, a did-change after
        // it), else the first one told after the read (a reader on another thread saw the store
        // before the did-change).
        let lastYes = c.indices(op, .kind(.read)).last { j in
            guard j < i, case .read(_, .isExecuting, .bool(true)) = c.event(j).kind else { return false }
            return true
        } ?? -1
        guard let change = around.last(where: { $0 < i && $0 > lastYes }) ?? around.first(where: { $0 > i }) else {
            return false
        }
        let thread = c.event(change).thread
        return workAfter(c, op, thread: thread, from: min(change, i), to: finished) == nil
    }

    /// The first read of `key` YES of `op` after `i`.
    static func firstYes(_ c: CheckContext, _ op: Int, _ key: StateKey, after i: Int) -> Int? {
        c.indices(op, .kind(.read)).first { j in
            guard j > i, case .read(_, key, .bool(true)) = c.event(j).kind else { return false }
            return true
        }
    }

    /// The first unit of work `op`'s task did on `thread` between `from` and `to`, leaving out
    /// the operation's completion block (which may run on the thread that finished it, and whose
    /// work is logged as the operation's).
    static func workAfter(_ c: CheckContext, _ op: Int, thread: Int, from: Int, to: Int) -> Int? {
        var inCompletion = false
        for i in c.facts.opEvents[op] where i > from && i < to && c.event(i).thread == thread {
            switch c.event(i).kind {
            case .completionBegan: inCompletion = true
            case .completionEnded: inCompletion = false
            case .work where !inCompletion: return i
            default: continue
            }
        }
        return nil
    }

    static func monotonic(_ id: String, _ key: StateKey, _ statement: String, cites: [Citation]) -> RuleCheck {
        RuleCheck(Rule(id, .STATE, statement, cites: cites, strength: .documentedMust)) { c in
            var r = CheckResult()
            for op in c.allOps {
                var yes: Int?
                for (i, k) in c.opEvents(op, .keys(key, nil)) {
                    let v: Bool
                    // A will-change's value is the property's when it was sent, before the
                    // change it announces: `will isFinished (NO)` after a YES is a going back
                    // as surely as a read of NO is (and before the YES, the normal finish).
                    switch k {
                    case .didChange(_, key, .bool(let b)), .read(_, key, .bool(let b)),
                        .willChange(_, key, .bool(let b)):
                        v = b
                    case .set(_, key, let b): v = b
                    default: continue
                    }
                    if let first = yes {
                        r.hits += 1
                        // A NO logged after the YES may have been taken before it: only a NO
                        // that surely began after the YES is a going back.
                        if !v && c.facts.began(i, after: first) {
                            r.violations.append(
                                c.violation(
                                    id, "op \(op) reported \(key.rawValue) NO after YES",
                                    "\(key.rawValue) never goes back to NO", [first, i]))
                            yes = nil
                        }
                    } else if v { yes = i }
                }
            }
            return r
        }
    }
}
