// QUEUE: width, suspension, threads, removal, waiting, ownership, progress
// (003 NSOperationQueue, setMaxConcurrentOperationCount:, waitUntilFinished;
// 004 2.2, 2.6.2, 2.7.1.2, 2.9.1, 2.9.3-2.9.5).

extension RuleBook {
    static let queues: [RuleCheck] = [
        RuleCheck(
            Rule(
                RuleID.queueMaxConcurrent, .QUEUE,
                "A queue never has more operations running than its maxConcurrentOperationCount; with 1 it runs one at "
                    + "a time, with 0 none.",
                cites: [Citation(.guide, "2.9.1"), Citation(.gnustep, "setMaxConcurrentOperationCount:")],
                strength: .documentedMust)
        ) { c in
            var r = CheckResult()
            for q in c.scenario.queues.indices {
                var running: [(op: Int, start: Int)] = []
                // A block given with addOperationWithBlock: has no start call to see: it counts
                // from its block's beginning to its end, a part of its operation's run, so an
                // overlap seen that way is a real one.
                let blocks = c.blockAdds(q)
                let blockBegins = blocks.compactMap { b in c.indices(b.op, .kind(.blockBegan)).first { $0 > b.call } }
                let starts = blockBegins.isEmpty ? c.queueStarts(q) : (c.queueStarts(q) + blockBegins).sorted()
                for s in starts {
                    let x: Int, added: Int?
                    switch c.event(s).kind {
                    case .call(.start(let o, _)): x = o; added = c.facts.addedAt[o]?.call
                    case .blockBegan(let o, _): x = o; added = blocks.last { $0.op == o && $0.call < s }?.call
                    default: continue
                    }
                    running.removeAll { c.kind($0.op).isBlock && c.facts.addedAt[$0.op] == nil
                        ? c.indices($0.op, .kind(.blockEnded)).first.map { $0 < s } ?? false
                        : c.taskDone($0.op, before: s) }
                    // The queue decided before `start` was logged: any width in force since the
                    // operation was added may have allowed it.
                    let since = added ?? s
                    // The widest of them (the default width is unbounded); no array per start.
                    var width = c.facts.width[q].value(before: since + 1)
                    for change in c.facts.width[q].changes
                    where change.at > since && change.at < s && width != QueueConfig.defaultMax {
                        width =
                            change.value == QueueConfig.defaultMax ? QueueConfig.defaultMax : max(width, change.value)
                    }
                    running.append((x, s))
                    guard width != QueueConfig.defaultMax else { continue }
                    r.hits += 1
                    if running.count > width {
                        r.violations.append(c.violation(RuleID.queueMaxConcurrent,
                                "queue \(q) (max \(width)) started "
                                    + (added != nil && c.facts.addedAt[x] == nil ? "the block of op \(x)" : "op \(x)")
                                    + " while \(running.count - 1) of its operations were still running",
                            "at most \(width) at once", running.map(\.start)))
                    }
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.queueSuspended, .QUEUE,
                       "A suspended queue starts no operation until it is resumed.",
                       cites: [Citation(.guide, "2.9.5"), Citation(.guide, "2.9.1")], strength: .documentedMust)) { c in
            var r = CheckResult()
            for q in c.scenario.queues.indices {
                for op in c.allOps {
                    guard let add = c.facts.addedAt[op], add.queue == q, c.facts.acceptedAdds[op] == 1 else { continue }
                    // The moment the queue could first decide to run it: added, and its
                    // dependencies had begun finishing or it was cancelled (a cancelled operation
                    // is ready whatever its dependencies, 004 2.7.1). A decision made before a
                    // suspension took effect may legitimately show as a start logged after it:
                    // GNUstep's queue takes an operation at its isReady notice and its worker
                    // calls start later (two gates of 2,000 cases, 2026-12-07, read that as a
                    // breach; Fixtures/traces/gnustep-suspended-after-cancel-made-ready.json).
                    var dependenciesDone = add.call
                    for d in c.earlyDependencies(of: op, at: c.events.count) {
                        if let f = c.facts.finishing(d) { dependenciesDone = max(dependenciesDone, f) }
                    }
                    let released = max(add.call, min(dependenciesDone, c.facts.cancelCalledAt[op] ?? dependenciesDone))
                    guard c.facts.suspension[q].value(before: released) else { continue }
                    r.hits += 1
                    if let s = c.startCalls(op).first(where: { $0.by == .queue }),
                        c.facts.suspension[q].value(before: s.i),
                       !c.facts.suspension[q].changed(between: released, and: s.i) {
                        r.violations.append(
                            c.violation(
                                RuleID.queueSuspended, "suspended queue \(q) started op \(op)",
                                "nothing new starts while suspended",
                                [c.facts.suspension[q].changes.last { $0.at < released }?.at, add.call, s.i]))
                    }
                }
                // A block given to addOperationWithBlock: (issue 30 item 3: a suspended queue that
                // still ran such blocks passed). The queue makes its operation, so no start is
                // logged: the block's beginning is the start.
                for add in c.blockAdds(q) where c.facts.suspension[q].value(before: add.call) {
                    r.hits += 1
                    if let b = c.indices(add.op, .kind(.blockBegan)).first, b > add.call,
                        c.facts.suspension[q].value(before: b),
                       !c.facts.suspension[q].changed(between: add.call, and: b) {
                        r.violations.append(
                            c.violation(
                                RuleID.queueSuspended,
                                "suspended queue \(q) ran the block of op \(add.op) given to addOperationWithBlock:",
                                "nothing new starts while suspended",
                                [c.facts.suspension[q].changes.last { $0.at < add.call }?.at, add.call, b]))
                    }
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.queueSuspendRunningContinue, .QUEUE,
                       "Suspending a queue does not pause its running operations: each still runs to its finish.",
                       cites: [Citation(.guide, "2.9.5")], strength: .documentedMust, needs: [.finishing])) { c in
            var r = CheckResult()
            guard c.settled else { return r }
            for q in c.scenario.queues.indices {
                for change in c.facts.suspension[q].changes where change.value {
                    for s in c.queueStarts(q) where s < change.at {
                        guard case .call(.start(let x, _)) = c.event(s).kind, !c.facts.finishing(x, before: change.at)
                        else { continue }
                        r.hits += 1
                        if c.facts.finishedAt[x] == nil {
                            r.violations.append(
                                c.violation(
                                    RuleID.queueSuspendRunningContinue,
                                    "op \(x), running when queue \(q) was suspended, never finished",
                                    "running operations finish", [s, change.at]))
                        }
                    }
                }
            }
            return r
        },
        RuleCheck(
            Rule(
                RuleID.queueThreads, .QUEUE,
                "A queue runs a non-concurrent operation's main on a thread it provides, not on the thread "
                    + "that added the operation.",
                cites: [Citation(.guide, "2.2"), Citation(.ru, "Current Thread / Main Thread")],
                strength: .documentedMust, needs: [.threadIdentity])
        ) { c in
            var r = CheckResult()
            for op in c.allOps where !c.kind(op).overridesStart {
                guard let (add, _) = c.facts.addedAt[op], let s = c.startCalls(op).first(where: { $0.by == .queue }),
                    let began = c.firstIndex(op, after: s.i, .kind(.mainBegan))
                else { continue }
                r.hits += 1
                if c.event(began).thread == c.event(add).thread {
                    r.violations.append(
                        c.violation(
                            RuleID.queueThreads, "queued op \(op)'s main ran on the thread that added it",
                            "the queue provides the thread", [add, began]))
                }
            }
            return r
        },
        RuleCheck(
            Rule(
                RuleID.queueRemovesFinished, .QUEUE,
                "Finished operations, cancelled ones included, leave their queue: after "
                    + "waitUntilAllOperationsAreFinished returns, operationCount is 0.",
                cites: [Citation(.guide, "2.7.1.2"), Citation(.gnustep, "cancel")], strength: .documentedMust)
        ) { c in
            var r = CheckResult()
            for q in c.scenario.queues.indices {
                var lastWait: Int?
                for i in c.facts.queueEvents[q] {
                    switch c.event(i).kind {
                    case .returned(.waitUntilAllFinished(_)): lastWait = i
                    case .call(.addOperation(_, _)), .call(.addOperations(_, _, _)), .call(.addBlock(_, _)):
                        lastWait = nil
                    case .operationCount(_, let n):
                        guard let w = lastWait, c.event(w).thread == c.event(i).thread else { continue }
                        r.hits += 1
                        if n != 0 {
                            r.violations.append(
                                c.violation(
                                    RuleID.queueRemovesFinished,
                                    "queue \(q) reported \(n) operations after waiting for all of them",
                                    "finished operations leave the queue", [w, i]))
                        }
                    default: break
                    }
                }
            }
            return r
        },
        waitRule(
            RuleID.queueWaitOp, "waitUntilFinished returns only after the operation has finished.",
            on: .waitUntilFinished,
            cites: [Citation(.guide, "2.9.4"), Citation(.gnustep, "waitUntilFinished")]
        ) { c, call, done in
            if case .waitUntilFinished(let op) = call { return [op] }
            return nil
        },
        waitRule(
            RuleID.queueWaitAll,
            "waitUntilAllOperationsAreFinished returns only after every operation added to the queue, even during the "
                + "wait, has finished.",
            on: .waitUntilAllFinished,
            cites: [Citation(.guide, "2.9.4")]
        ) { c, call, done in
            guard case .waitUntilAllFinished(let q) = call else { return nil }
            return c.allOps.filter { op in
                c.facts.addedAt[op].map { $0.queue == q && (c.facts.endOf[$0.call] ?? Int.max) < done } ?? false
            }
        },
        waitRule(
            RuleID.queueAddWait,
            "addOperations:waitUntilFinished:YES returns only after every operation it added has finished.",
            on: .addOperations,
            cites: [Citation(.guide, "2.9.1")]
        ) { _, call, _ in
            if case .addOperations(let list, _, true) = call { return list }
            return nil
        },
        RuleCheck(
            Rule(
                RuleID.queueOwnership, .QUEUE,
                "An operation already in a queue, executing or finished is refused by addOperation with an error.",
                cites: [Citation(.guide, "2.9.3"), Citation(.guide, "2.7.2")], strength: .observedOnly,
                needs: [.thrownErrors])
        ) { c in
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
                        r.violations.append(
                            c.violation(
                                RuleID.queueOwnership,
                                "adding op \(op), already " + (owned ? "in a queue" : "executing or finished")
                                    + ", returned normally",
                            "the call is refused", [c.facts.addedAt[op]?.call, i, done]))
                    }
                }
            }
            return r
        },
        RuleCheck(
            Rule(
                RuleID.queueProgress, .QUEUE,
                "A queue that is not suspended and has a free slot does not leave a ready operation waiting: "
                    + "readiness, not priority, decides.",
                cites: [Citation(.guide, "2.9.1"), Citation(.guide, "2.6.2")], strength: .documentedMust,
                needs: [.finishing])
        ) { c in
            var r = CheckResult()
            guard c.settled else { return r }
            let end = c.events.count
            for q in c.scenario.queues.indices {
                let width = c.facts.width[q].final
                guard !c.facts.suspension[q].final, width != 0 else { continue }
                let busy = c.queueStarts(q).filter { s in
                    if case .call(.start(let x, _)) = c.event(s).kind {
                        return !c.taskDone(x, before: end) && c.facts.finishedAt[x] == nil
                    }
                    return false
                }.count
                guard width == QueueConfig.defaultMax ? busy == 0 : busy < width else { continue }
                for op in c.allOps {
                    guard let add = c.facts.addedAt[op], add.queue == q, c.facts.returned(add.call) != nil else {
                        continue
                    }
                    // A cancelled operation may leave the queue without being started (003 cancel).
                    if let cancel = c.facts.cancelCalledAt[op], (c.facts.firstStart[op] ?? Int.max) > cancel {
                        continue
                    }
                    // An isReady override (readyAfterSignal) must have said YES too.
                    let ready = c.facts.dependencies(of: op, at: end).allSatisfy { c.facts.finishedAt[$0] != nil }
                        && (c.scenario.operations[op].readyAfterSignal == nil || c.overrideLifted(op) != nil)
                    guard ready else { continue }
                    r.hits += 1
                    if c.facts.firstStart[op] == nil {
                        r.violations.append(
                            c.violation(
                                RuleID.queueProgress,
                                "ready op \(op) was never started by queue \(q), which had a free slot",
                                "a ready operation is started", [add.call]))
                    }
                }
            }
            return r
        },
        RuleCheck(
            Rule(
                RuleID.queueReadyOnly, .QUEUE,
                "A queue starts only operations that are ready: every dependency finished, or the operation cancelled.",
                cites: [Citation(.guide, "2.6.2"), Citation(.guide, "2.6.1"), Citation(.gnustep, "addDependency:")],
                strength: .documentedMust, needs: [.finishing])
        ) { c in
            var r = CheckResult()
            for q in c.scenario.queues.indices {
                for s in c.queueStarts(q) {
                    guard case .call(.start(let x, _)) = c.event(s).kind else { continue }
                    let deps = c.earlyDependencies(of: x, at: s)
                    guard !deps.isEmpty else { continue }
                    r.hits += 1
                    if c.facts.cancelCalledAt[x].map({ $0 < s }) == true { continue }
                    if let d = deps.first(where: { !c.facts.finishing($0, before: s) }) {
                        r.violations.append(
                            c.violation(
                                RuleID.queueReadyOnly,
                                "queue \(q) started op \(x) before its dependency op \(d) had finished",
                                "only ready operations are started", [s]))
                    }
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.queueCallsStart, .QUEUE,
                       "A queue runs an operation by calling its start, so a subclass's own start is what runs.",
                cites: [
                    Citation(.ru, "start is called by the operation queue"), Citation(.guide, "2.2"),
                    Citation(.guide, "2.5.3 Table 2-2")
                ],
                       strength: .documentedMust)) { c in
            var r = CheckResult()
            for op in c.allOps {
                guard c.facts.addedAt[op] != nil, let began = c.taskBegins(op).first else { continue }
                r.hits += 1
                if c.facts.firstStart[op].map({ $0 > began }) ?? true {
                    r.violations.append(
                        c.violation(
                            RuleID.queueCallsStart, "queued op \(op)'s task began without a call to its start",
                            "the queue calls start", [c.facts.addedAt[op]?.call, began]))
                }
            }
            return r
        },
        RuleCheck(
            Rule(
                RuleID.queueThreadName, .QUEUE,
                "GNUstep names a queue's worker threads NSOperationQ_<number> unless the queue was given a name.",
                cites: [Citation(.gnustep, "NSOperationQueue")], strength: .documentedMust, needs: [.threadNames],
                profiles: [.gnustep])
        ) { c in
            var r = CheckResult()
            for i in c.facts.indices(.kind(.threadStarted)) {
                guard case .threadStarted(let name, let q?) = c.event(i).kind else { continue }
                // A named queue's threads are QUEUE-THREAD-NAME-SET's.
                if q >= 0 && q < c.scenario.queues.count && c.scenario.queues[q].name != nil { continue }
                r.hits += 1
                if !Self.isNumbered(name, after: "NSOperationQ_") {
                    r.violations.append(
                        c.violation(
                            RuleID.queueThreadName, "a worker thread was named \"\(name)\"", "NSOperationQ_<number>",
                            [i]))
                }
            }
            return r
        },
        RuleCheck(
            Rule(
                RuleID.queueThreadNameSet, .QUEUE,
                "GNUstep names the worker threads of a queue given a name with -setName: <name>_<number>.",
                cites: [Citation(.gnustep, "NSOperationQueue")], strength: .documentedMust,
                needs: [.threadNames, .apiSurface2], profiles: [.gnustep])
        ) { c in
            var r = CheckResult()
            for i in c.facts.indices(.kind(.threadStarted)) {
                guard case .threadStarted(let name, let q?) = c.event(i).kind, q >= 0, q < c.scenario.queues.count,
                    let queueName = c.scenario.queues[q].name
                else { continue }
                r.hits += 1
                if !Self.isNumbered(name, after: queueName + "_") {
                    r.violations.append(
                        c.violation(
                            RuleID.queueThreadNameSet,
                            "a worker thread of queue \(q), named \"\(queueName)\", was named \"\(name)\"",
                            "\(queueName)_<number>", [i]))
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.queueAddBlockRuns, .QUEUE,
                "A block given to addOperationWithBlock: runs once, not before the call, and, unless "
                    + "cancelAllOperations reaches it first, before the run ends on a queue that may run.",
                       cites: [Citation(.guide, "2.9.1")], strength: .documentedMust, needs: [.apiSurface2])) { c in
            var r = CheckResult()
            for q in c.scenario.queues.indices {
                for add in c.blockAdds(q) {
                    r.hits += 1
                    let begins = c.indices(add.op, .kind(.blockBegan))
                    if let early = begins.first(where: { $0 < add.call }) {
                        r.violations.append(
                            c.violation(
                                RuleID.queueAddBlockRuns,
                                "the block of op \(add.op) began before addOperationWithBlock: was called",
                                "it runs after it is added", [early, add.call]))
                    } else if begins.count > 1 {
                        r.violations.append(
                            c.violation(
                                RuleID.queueAddBlockRuns, "the block of op \(add.op) ran \(begins.count) times",
                                "it runs once", [add.call] + Array(begins)))
                    } else if begins.isEmpty, c.trace.ending == .complete, !c.facts.suspension[q].final,
                        c.facts.width[q].final != 0
                    {
                        let cancelled = c.facts.queueEvents[q].contains {
                            $0 > add.call && c.event($0).kind.isCancelAllCall
                        }
                        if !cancelled {
                            r.violations.append(
                                c.violation(
                                    RuleID.queueAddBlockRuns,
                                    "the block of op \(add.op) never ran, though the run ended "
                                        + "and queue \(q) could run it",
                                    "it runs", [add.call, c.events.count - 1]))
                        }
                    }
                }
            }
            return r
        },
        RuleCheck(
            Rule(
                RuleID.queueWaitAllBlocks, .QUEUE,
                "waitUntilAllOperationsAreFinished also waits for the blocks given to addOperationWithBlock: before "
                    + "it: each has run to its end, or was cancelled before it began.",
                cites: [Citation(.guide, "2.9.4"), Citation(.guide, "2.9.1")], strength: .documentedMust,
                needs: [.apiSurface2])
        ) { c in
            var r = CheckResult()
            for q in c.scenario.queues.indices {
                let adds = c.blockAdds(q)
                guard !adds.isEmpty else { continue }
                for i in c.facts.queueEvents[q] {
                    guard case .call(.waitUntilAllFinished) = c.event(i).kind, let done = c.facts.returned(i) else {
                        continue
                    }
                    for add in adds {
                        guard let added = c.facts.returned(add.call), added < i else { continue }
                        r.hits += 1
                        let began = c.indices(add.op, .kind(.blockBegan)).first { $0 > add.call && $0 < done }
                        let ended = c.indices(add.op, .kind(.blockEnded)).first { $0 > add.call && $0 < done }
                        if began != nil && ended == nil {
                            r.violations.append(
                                c.violation(
                                    RuleID.queueWaitAllBlocks,
                                    "waitUntilAllOperationsAreFinished on queue \(q) returned while the block of op "
                                        + "\(add.op) was still running",
                                    "the wait returns once the block has ended", [add.call, began, done]))
                        } else if began == nil {
                            let cancelled = c.facts.queueEvents[q].contains {
                                $0 > add.call && $0 < done && c.event($0).kind.isCancelAllCall
                            }
                            if !cancelled {
                                r.violations.append(
                                    c.violation(
                                        RuleID.queueWaitAllBlocks,
                                        "waitUntilAllOperationsAreFinished on queue \(q) returned before the block of "
                                            + "op \(add.op) had run",
                                        "the wait returns once the block has run", [add.call, i, done]))
                            }
                        }
                    }
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.queueSuspendedRead, .QUEUE,
                       "isSuspended reports what setSuspended: last set (NO for a new queue).",
                       cites: [Citation(.guide, "2.9.5")], strength: .documentedMust, needs: [.apiSurface2])) { c in
            var r = CheckResult()
            for i in c.facts.indices(.kind(.suspended)) {
                guard case .suspended(let q, let value) = c.event(i).kind, q >= 0, q < c.scenario.queues.count else {
                    continue
                }
                // Only the driving thread suspends and resumes, and it is the one reading: the
                // last setSuspended: before the read is in force.
                let last = c.facts.queueEvents[q].last { $0 < i && c.event($0).kind.isSetSuspendedCall }
                var expected = false
                if let l = last, case .call(.setSuspended(_, let b)) = c.event(l).kind { expected = b }
                r.hits += 1
                if value != expected {
                    r.violations.append(
                        c.violation(
                            RuleID.queueSuspendedRead, "queue \(q) reported isSuspended \(value ? "YES" : "NO")",
                            "\(expected ? "YES" : "NO"), as last set", [last, i]))
                }
            }
            return r
        },
        RuleCheck(
            Rule(
                RuleID.queueCurrent, .QUEUE,
                "Code a queue runs for an operation (a non-concurrent operation's main, or a block) sees that queue as "
                    + "currentQueue (class reference; not among the seed documents).",
                cites: [Citation(.guide, "2.9.1")], strength: .observedOnly, needs: [.apiSurface2],
                profiles: [.classReference])
        ) { c in
            var r = CheckResult()
            // Each block given with addOperationWithBlock: and where, found once for all reads.
            let blockAdds = c.scenario.queues.indices.flatMap { q in
                c.blockAdds(q).map { (op: $0.op, queue: q, call: $0.call) }
            }
            for i in c.facts.indices(.kind(.currentQueue)) {
                guard case .currentQueue(let op, let seen) = c.event(i).kind, op >= 0, op < c.operationCount,
                    !c.kind(op).overridesStart
                else { continue }
                let thread = c.event(i).thread
                // The innermost piece of op's code open on this thread: main or a block.
                let marks = c.facts.indices(about: op, .kind(.mainBegan), .kind(.blockBegan))
                guard let began = marks.last(where: { $0 < i && c.event($0).thread == thread }) else { continue }
                let ended = c.facts.indices(about: op, .kind(.mainEnded), .kind(.blockEnded)).contains {
                    $0 > began && $0 < i && c.event($0).thread == thread
                }
                guard !ended else { continue }
                // The queue that ran it: the one it was given to, when a queue started it.
                let queue: Int
                if let add = c.facts.addedAt[op], c.startCalls(op).contains(where: { $0.by == .queue && $0.i < began })
                {
                    queue = add.queue
                } else if let add = blockAdds.first(where: { $0.op == op && $0.call < began }) {
                    queue = add.queue
                }
                else { continue }
                r.hits += 1
                if seen != queue {
                    r.violations.append(
                        c.violation(
                            RuleID.queueCurrent,
                            "code of op \(op) run by queue \(queue) saw "
                                + (seen.map { "queue \($0)" } ?? "no queue of the scenario") + " as currentQueue",
                            "queue \(queue)", [began, i]))
                }
            }
            return r
        },
    ]

    /// Whether a thread name is `prefix` followed by a decimal number, as GNUstep names its
    /// workers. Compared as bytes: the number is what GNUstep formats with %d (ASCII digits), and
    /// Character's Unicode properties were most of QUEUE-THREAD-NAME's time on large runs.
    static func isNumbered(_ name: String, after prefix: String) -> Bool {
        let bytes = name.utf8, number = bytes.dropFirst(prefix.utf8.count)
        return bytes.starts(with: prefix.utf8) && !number.isEmpty
            && number.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

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
                        r.violations.append(
                            c.violation(
                                id, "\(call) never returned, though every operation it waited for had finished",
                                "the wait returns once the work is done", [i, c.events.count - 1]))
                    }
                    continue
                }
                guard case .returned(let call) = e.kind, let ops = targets(c, call, i), !ops.isEmpty else { continue }
                r.hits += 1
                for op in ops {
                    // Any observation of NO that began after the return: a read, or a will-change
                    // (its value is isFinished before the finish it announces, so the finish came later).
                    if let bad = c.observations(op, .isFinished).first(where: {
                        c.facts.began($0.i, after: i) && $0.value == .bool(false)
                    }) {
                        r.violations.append(
                            c.violation(
                                id, "\(call) returned while op \(op) had not finished",
                                "the wait returns only after the work is done", [i, bad.i]))
                    } else if c.can(.kvo) && !c.facts.finishing(op, before: i) {
                        r.violations.append(
                            c.violation(
                                id, "\(call) returned before op \(op) began finishing",
                                "the wait returns only after the work is done", [i]))
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
                if case .call(.start(let op, .queue)) = events[i].kind {
                    return facts.addedAt[op]?.queue == q && facts.acceptedAdds[op] == 1
                }
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
