// QUEUE: width, suspension, threads, removal, waiting, ownership, progress
// (003 NSOperationQueue, setMaxConcurrentOperationCount:, waitUntilFinished; 004 2.2, 2.6.2, 2.7.1.2, 2.9.1, 2.9.3-2.9.5).

extension RuleBook {
    static let queues: [RuleCheck] = [
        RuleCheck(Rule("QUEUE-MAX-CONCURRENT", .QUEUE,
                       "A queue never has more operations running than its maxConcurrentOperationCount; with 1 it runs one at a time, with 0 none.",
                       cites: [Citation(.guide, "2.9.1"), Citation(.gnustep, "setMaxConcurrentOperationCount:")], strength: .documentedMust)) { c in
            var r = CheckResult()
            for q in c.scenario.queues.indices {
                var running: [(op: Int, start: Int)] = []
                for s in c.queueStarts(q) {
                    guard case .call(.start(let x, _)) = c.event(s).kind else { continue }
                    running.removeAll { c.taskDone($0.op, before: s) }
                    // The queue decided before `start` was logged: any width in force since the
                    // operation was added may have allowed it.
                    let since = c.facts.addedAt[x]?.call ?? s
                    // The widest of them (the default width is unbounded); no array per start.
                    var width = c.facts.width[q].value(before: since + 1)
                    for change in c.facts.width[q].changes where change.at > since && change.at < s && width != QueueConfig.defaultMax {
                        width = change.value == QueueConfig.defaultMax ? QueueConfig.defaultMax : max(width, change.value)
                    }
                    running.append((x, s))
                    guard width != QueueConfig.defaultMax else { continue }
                    r.hits += 1
                    if running.count > width {
                        r.violations.append(c.violation("QUEUE-MAX-CONCURRENT",
                            "queue \(q) (max \(width)) started op \(x) while \(running.count - 1) of its operations were still running",
                            "at most \(width) at once", running.map(\.start)))
                    }
                }
            }
            return r
        },
        RuleCheck(Rule("QUEUE-SUSPENDED", .QUEUE,
                       "A suspended queue starts no operation until it is resumed.",
                       cites: [Citation(.guide, "2.9.5"), Citation(.guide, "2.9.1")], strength: .documentedMust)) { c in
            var r = CheckResult()
            for q in c.scenario.queues.indices {
                for op in c.allOps {
                    guard let add = c.facts.addedAt[op], add.queue == q, c.facts.acceptedAdds[op] == 1 else { continue }
                    // The moment the queue could first decide to run it: added, and its
                    // dependencies had begun finishing. A decision made before a suspension took
                    // effect may legitimately show as a start logged after it.
                    var released = add.call
                    for d in c.earlyDependencies(of: op, at: c.events.count) {
                        if let f = c.facts.finishing(d) { released = max(released, f) }
                    }
                    guard c.facts.suspension[q].value(before: released) else { continue }
                    r.hits += 1
                    if let s = c.startCalls(op).first(where: { $0.by == .queue }), c.facts.suspension[q].value(before: s.i),
                       !c.facts.suspension[q].changed(between: released, and: s.i) {
                        r.violations.append(c.violation("QUEUE-SUSPENDED", "suspended queue \(q) started op \(op)", "nothing new starts while suspended",
                                                        [c.facts.suspension[q].changes.last { $0.at < released }?.at, add.call, s.i]))
                    }
                }
            }
            return r
        },
        RuleCheck(Rule("QUEUE-SUSPEND-RUNNING-CONTINUE", .QUEUE,
                       "Suspending a queue does not pause its running operations: each still runs to its finish.",
                       cites: [Citation(.guide, "2.9.5")], strength: .documentedMust, needs: [.finishing])) { c in
            var r = CheckResult()
            guard c.settled else { return r }
            for q in c.scenario.queues.indices {
                for change in c.facts.suspension[q].changes where change.value {
                    for s in c.queueStarts(q) where s < change.at {
                        guard case .call(.start(let x, _)) = c.event(s).kind, !c.facts.finishing(x, before: change.at) else { continue }
                        r.hits += 1
                        if c.facts.finishedAt[x] == nil {
                            r.violations.append(c.violation("QUEUE-SUSPEND-RUNNING-CONTINUE", "op \(x), running when queue \(q) was suspended, never finished",
                                                            "running operations finish", [s, change.at]))
                        }
                    }
                }
            }
            return r
        },
        RuleCheck(Rule("QUEUE-THREADS", .QUEUE,
                       "A queue runs a non-concurrent operation's main on a thread it provides, not on the thread that added the operation.",
                       cites: [Citation(.guide, "2.2"), Citation(.ru, "Current Thread / Main Thread")], strength: .documentedMust, needs: [.threadIdentity])) { c in
            var r = CheckResult()
            for op in c.allOps where !c.kind(op).overridesStart {
                guard let (add, _) = c.facts.addedAt[op], let s = c.startCalls(op).first(where: { $0.by == .queue }),
                      let began = c.firstIndex(op, after: s.i, .kind(.mainBegan)) else { continue }
                r.hits += 1
                if c.event(began).thread == c.event(add).thread {
                    r.violations.append(c.violation("QUEUE-THREADS", "queued op \(op)'s main ran on the thread that added it",
                                                    "the queue provides the thread", [add, began]))
                }
            }
            return r
        },
        RuleCheck(Rule("QUEUE-REMOVES-FINISHED", .QUEUE,
                       "Finished operations, cancelled ones included, leave their queue: after waitUntilAllOperationsAreFinished returns, operationCount is 0.",
                       cites: [Citation(.guide, "2.7.1.2"), Citation(.gnustep, "cancel")], strength: .documentedMust)) { c in
            var r = CheckResult()
            for q in c.scenario.queues.indices {
                var lastWait: Int?
                for i in c.facts.queueEvents[q] {
                    switch c.event(i).kind {
                    case .returned(.waitUntilAllFinished(_)): lastWait = i
                    case .call(.addOperation(_, _)), .call(.addOperations(_, _, _)): lastWait = nil
                    case .operationCount(_, let n):
                        guard let w = lastWait, c.event(w).thread == c.event(i).thread else { continue }
                        r.hits += 1
                        if n != 0 {
                            r.violations.append(c.violation("QUEUE-REMOVES-FINISHED", "queue \(q) reported \(n) operations after waiting for all of them",
                                                            "finished operations leave the queue", [w, i]))
                        }
                    default: break
                    }
                }
            }
            return r
        },
        waitRule("QUEUE-WAIT-OP", "waitUntilFinished returns only after the operation has finished.", on: .waitUntilFinished,
                 cites: [Citation(.guide, "2.9.4"), Citation(.gnustep, "waitUntilFinished")]) { c, call, done in
            if case .waitUntilFinished(let op) = call { return [op] }
            return nil
        },
        waitRule("QUEUE-WAIT-ALL", "waitUntilAllOperationsAreFinished returns only after every operation added to the queue, even during the wait, has finished.", on: .waitUntilAllFinished,
                 cites: [Citation(.guide, "2.9.4")]) { c, call, done in
            guard case .waitUntilAllFinished(let q) = call else { return nil }
            return c.allOps.filter { op in c.facts.addedAt[op].map { $0.queue == q && (c.facts.endOf[$0.call] ?? Int.max) < done } ?? false }
        },
        waitRule("QUEUE-ADD-WAIT", "addOperations:waitUntilFinished:YES returns only after every operation it added has finished.", on: .addOperations,
                 cites: [Citation(.guide, "2.9.1")]) { _, call, _ in
            if case .addOperations(let list, _, true) = call { return list }
            return nil
        },
        RuleCheck(Rule("QUEUE-OWNERSHIP", .QUEUE,
                       "An operation already in a queue, executing or finished is refused by addOperation with an error.",
                       cites: [Citation(.guide, "2.9.3"), Citation(.guide, "2.7.2")], strength: .observedOnly, needs: [.thrownErrors])) { c in
            var r = CheckResult()
            for i in c.facts.indices([.call(.addOperation), .call(.addOperations)]) {
                let list: [Int]
                switch c.event(i).kind {
                case .call(.addOperation(let op, _)): list = [op]
                case .call(.addOperations(let ops, _, _)): list = ops
                default: continue
                }
                for op in list {
                    let owned = c.facts.addedAt[op].map { c.facts.endOf[$0.call].map { $0 < i } ?? false } ?? false
                    let busy = [c.facts.executingAt[op], c.facts.finishedAt[op]].compactMap { $0 }.contains { $0 < i }
                    guard owned || busy else { continue }
                    r.hits += 1
                    if let done = c.facts.returned(i) {
                        r.violations.append(c.violation("QUEUE-OWNERSHIP",
                            "adding op \(op), already " + (owned ? "in a queue" : "executing or finished") + ", returned normally",
                            "the call is refused", [c.facts.addedAt[op]?.call, i, done]))
                    }
                }
            }
            return r
        },
        RuleCheck(Rule("QUEUE-PROGRESS", .QUEUE,
                       "A queue that is not suspended and has a free slot does not leave a ready operation waiting: readiness, not priority, decides.",
                       cites: [Citation(.guide, "2.9.1"), Citation(.guide, "2.6.2")], strength: .documentedMust, needs: [.finishing])) { c in
            var r = CheckResult()
            guard c.settled else { return r }
            let end = c.events.count
            for q in c.scenario.queues.indices {
                let width = c.facts.width[q].final
                guard !c.facts.suspension[q].final, width != 0 else { continue }
                let busy = c.queueStarts(q).filter { s in
                    if case .call(.start(let x, _)) = c.event(s).kind { return !c.taskDone(x, before: end) && c.facts.finishedAt[x] == nil }
                    return false
                }.count
                guard width == QueueConfig.defaultMax ? busy == 0 : busy < width else { continue }
                for op in c.allOps {
                    guard let add = c.facts.addedAt[op], add.queue == q, c.facts.returned(add.call) != nil else { continue }
                    // A cancelled operation may leave the queue without being started (003 cancel).
                    if let cancel = c.facts.cancelCalledAt[op], (c.facts.firstStart[op] ?? Int.max) > cancel { continue }
                    let ready = c.facts.dependencies(of: op, at: end).allSatisfy { c.facts.finishedAt[$0] != nil }
                    guard ready else { continue }
                    r.hits += 1
                    if c.facts.firstStart[op] == nil {
                        r.violations.append(c.violation("QUEUE-PROGRESS", "ready op \(op) was never started by queue \(q), which had a free slot",
                                                        "a ready operation is started", [add.call]))
                    }
                }
            }
            return r
        },
        RuleCheck(Rule("QUEUE-READY-ONLY", .QUEUE,
                       "A queue starts only operations that are ready: every dependency finished, or the operation cancelled.",
                       cites: [Citation(.guide, "2.6.2"), Citation(.guide, "2.6.1"), Citation(.gnustep, "addDependency:")], strength: .documentedMust, needs: [.finishing])) { c in
            var r = CheckResult()
            for q in c.scenario.queues.indices {
                for s in c.queueStarts(q) {
                    guard case .call(.start(let x, _)) = c.event(s).kind else { continue }
                    let deps = c.earlyDependencies(of: x, at: s)
                    guard !deps.isEmpty else { continue }
                    r.hits += 1
                    if c.facts.cancelCalledAt[x].map({ $0 < s }) == true { continue }
                    if let d = deps.first(where: { !c.facts.finishing($0, before: s) }) {
                        r.violations.append(c.violation("QUEUE-READY-ONLY", "queue \(q) started op \(x) before its dependency op \(d) had finished",
                                                        "only ready operations are started", [s]))
                    }
                }
            }
            return r
        },
        RuleCheck(Rule("QUEUE-CALLS-START", .QUEUE,
                       "A queue runs an operation by calling its start, so a subclass's own start is what runs.",
                       cites: [Citation(.ru, "start is called by the operation queue"), Citation(.guide, "2.2"), Citation(.guide, "2.5.3 Table 2-2")],
                       strength: .documentedMust)) { c in
            var r = CheckResult()
            for op in c.allOps {
                guard c.facts.addedAt[op] != nil, let began = c.taskBegins(op).first else { continue }
                r.hits += 1
                if c.facts.firstStart[op].map({ $0 > began }) ?? true {
                    r.violations.append(c.violation("QUEUE-CALLS-START", "queued op \(op)'s task began without a call to its start",
                                                    "the queue calls start", [c.facts.addedAt[op]?.call, began]))
                }
            }
            return r
        },
        RuleCheck(Rule("QUEUE-THREAD-NAME", .QUEUE,
                       "GNUstep names a queue's worker threads NSOperationQ_<number> unless the queue was given a name.",
                       cites: [Citation(.gnustep, "NSOperationQueue")], strength: .documentedMust, needs: [.threadNames], profiles: [.gnustep])) { c in
            var r = CheckResult()
            for i in c.facts.indices(.kind(.threadStarted)) {
                guard case .threadStarted(let name, _?) = c.event(i).kind else { continue }
                r.hits += 1
                // Compared as bytes: the number is what GNUstep formats with %d (ASCII digits), and
                // Character's Unicode properties were most of this rule's time on large runs.
                let bytes = name.utf8, prefix = "NSOperationQ_".utf8, number = bytes.dropFirst(prefix.count)
                let named = bytes.starts(with: prefix) && !number.isEmpty
                    && number.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
                if !named {
                    r.violations.append(c.violation("QUEUE-THREAD-NAME", "a worker thread was named \"\(name)\"", "NSOperationQ_<number>", [i]))
                }
            }
            return r
        },
    ]

    /// "This wait returns only after these operations finished, and then it returns": any
    /// isFinished NO read after the return is a violation (finishing never goes back), with KVO
    /// the finish must precede the return, and a run that hangs in the wait after all of them
    /// finished is a violation too.
    /// `on` is the kind of call that waits: only its calls and returns are looked at.
    static func waitRule(_ id: String, _ statement: String, on wait: Call.Tag, cites: [Citation],
                         targets: @escaping @Sendable (CheckContext, Call, Int) -> [Int]?) -> RuleCheck {
        RuleCheck(Rule(id, .QUEUE, statement, cites: cites, strength: .documentedMust)) { c in
            var r = CheckResult()
            for i in c.facts.indices([.call(wait), .returned(wait)]) {
                let e = c.event(i)
                if c.trace.ending == .hang, case .call(let call) = e.kind, c.facts.endOf[i] == nil,
                   let ops = targets(c, call, c.events.count), !ops.isEmpty, c.can(.finishing) {
                    r.hits += 1
                    if ops.allSatisfy({ c.facts.finishedAt[$0] != nil }) {
                        r.violations.append(c.violation(id, "\(call) never returned, though every operation it waited for had finished",
                                                        "the wait returns once the work is done", [i, c.events.count - 1]))
                    }
                    continue
                }
                guard case .returned(let call) = e.kind, let ops = targets(c, call, i), !ops.isEmpty else { continue }
                r.hits += 1
                for op in ops {
                    if let bad = c.reports(op, .isFinished).first(where: { c.facts.began($0.i, after: i) && $0.isRead && $0.value == .bool(false) }) {
                        r.violations.append(c.violation(id, "\(call) returned while op \(op) had not finished", "the wait returns only after the work is done", [i, bad.i]))
                    } else if c.can(.kvo) && !c.facts.finishing(op, before: i) {
                        r.violations.append(c.violation(id, "\(call) returned before op \(op) began finishing", "the wait returns only after the work is done", [i]))
                    }
                }
            }
            return r
        }
    }
}

extension CheckContext {
    /// The `start` calls a queue made, in order (of operations in that queue only: one an
    /// implementation let into two queues may have been started by either).
    func queueStarts(_ q: Int) -> [Int] {
        facts.queueEvents[q].isEmpty ? [] : facts.indices(.call(.start)).filter { i in
            if case .call(.start(let op, .queue)) = events[i].kind { return facts.addedAt[op]?.queue == q && facts.acceptedAdds[op] == 1 }
            return false
        }
    }

    /// Whether an operation's run was over before event `i`, by the earliest sign: it began
    /// finishing, its main ended (non-concurrent), or its start returned (non-concurrent).
    func taskDone(_ op: Int, before i: Int) -> Bool {
        if facts.finishing(op, before: i) { return true }
        if kind(op).overridesStart { return false }
        // The first such event is before i exactly when any is (they are in trace order).
        return facts.indices(about: op, .kind(.mainEnded), .returned(.start)).first.map { $0 < i } ?? false
    }
}
