// PRIORITY and THREAD: queue priority and its normalisation, thread priority
// (003 setQueuePriority:, setThreadPriority:; 004 2.6.2, 2.6.3).

extension RuleBook {
    static let priority: [RuleCheck] = [
        RuleCheck(Rule(RuleID.priorityOrder, .PRIORITY,
                "When a serial queue picks its next operation, a ready operation of higher priority goes before a "
                    + "ready one of lower priority.",
                       cites: [Citation(.guide, "2.6.2"), Citation(.guide, "2.9.1")], strength: .documentedMust)) { c in
            var r = CheckResult()
            // The queues each operation was offered to, accepted or not. A start by a queue names
            // no queue: an operation let into two (QUEUE-OWNERSHIP) may be started by the other,
            // which the gate of 2026-11-27 blamed on GNUstep's serial queue (case 1138).
            let offered = c.queuesOffered()
            for q in c.scenario.queues.indices {
                var previous: Int?
                // Calls that let a held queue choose again: a resume of a suspended queue, and a
                // width raised from 0. A resume of a running queue changes nothing, so a start
                // logged after it may have been chosen before it (a false alarm under load).
                func held(before i: Int) -> Bool {
                    c.facts.suspension[q].value(before: i) || c.facts.width[q].value(before: i) == 0
                }
                func stayedHeld(from a: Int, to b: Int) -> Bool {
                    let changes = c.facts.suspension[q].changes.map(\.at) + c.facts.width[q].changes.map(\.at)
                    return changes.allSatisfy { $0 <= a || $0 >= b || held(before: $0 + 1) }
                }
                var releases: [Int] = []
                for i in c.facts.queueEvents[q] where c.facts.endOf[i] != nil && held(before: i) {
                    if case .call(.setSuspended(_, false)) = c.event(i).kind { releases.append(i) }
                    if case .call(.setMaxConcurrent(_, let w)) = c.event(i).kind, w != 0 { releases.append(i) }
                }
                let starts = c.facts.indices(.call(.start)).filter { i in
                    if case .call(.start(let op, .queue)) = c.event(i).kind { return c.facts.addedAt[op]?.queue == q }
                    return false
                }
                for s in starts {
                    guard case .call(.start(let x, _)) = c.event(s).kind else { continue }
                    defer { previous = offered[x] == [q] ? x : nil }   // another queue's start is no choice of this one
                    guard c.facts.width[q].value(before: s) == 1, offered[x] == [q] else { continue }
                    // The choice was made after the previous operation finished, or the queue was resumed.
                    // The earliest sign of the previous operation's finish: the queue may choose
                    // before our own did-change is logged.
                    //
                    // A release is a choice point for x only when x was added while the queue was
                    // held and it stayed held until then: the queue cannot have chosen x before
                    // the call began, and may have chosen it at any moment after, inside the call
                    // too (GNUstep starts operations before its resume returns). Judged from the
                    // call's return instead, the rule blamed GNUstep for not starting an operation
                    // that became ready inside the resume, after the queue had chosen (issue 30).
                    let resumePoints = releases.filter { r in
                        r < s && c.facts.addedAt[x].map { add in
                            add.call < r && held(before: add.call) && stayedHeld(from: add.call, to: r)
                        } == true
                    }
                    let previousFinish = previous.flatMap { p in
                        [c.facts.finishingAt[p], c.facts.finishedAt[p]].compactMap { $0 }.min()
                    }
                    let choice = ([previousFinish] + resumePoints.map(Optional.some)).compactMap { $0 }.filter {
                        $0 < s
                    }.max()
                    guard let cp = choice, !c.facts.width[q].changed(between: cp, and: s) else { continue }
                    // x is judged at the highest priority it had between the choice point and its
                    // start: the queue may have chosen it at any moment in between (GNUstep takes
                    // its next operation as the previous one's finish is observed; a later
                    // setQueuePriority that lowered x made that choice read as wrong).
                    let timeline = c.facts.priority[x]
                    let px = ([timeline.value(before: s)] + timeline.changes.filter { $0.at > cp && $0.at < s }
                        .map { timeline.value(before: $0.at) }).max()!
                    let rivals = c.allOps.filter { y in
                        y != x && offered[y] == [q]
                            && c.facts.addedAt[y].map { $0.queue == q && (c.facts.endOf[$0.call] ?? Int.max) < cp }
                                == true
                            // (queued for sure: its add had returned; a batch may be handed to the
                            // queue one operation at a time while the call runs, as GNUstep does)
                            && (c.facts.firstStart[y] ?? Int.max) > s && !c.facts.finishing(y, before: s)
                            && !c.facts.priority[y].changed(between: cp, and: s)
                            // A rival was surely ready when its dependencies' finish notifications,
                            // and everything their observers did, were over before the choice.
                            && (c.facts.cancelled(y, before: cp)
                                || c.facts.dependencies(of: y, at: cp).allSatisfy { d in
                                    c.facts.notifiedFinishedAt[d].map { c.facts.burstOver($0, before: cp) } ?? false
                                })
                            // An isReady override (readyAfterSignal) holds even a cancelled one
                            // back until its lifting notification was over.
                            && (c.scenario.operations[y].readyAfterSignal == nil
                                || c.overrideLifted(y).map { c.facts.burstOver($0, before: cp) } ?? false)
                    }
                    guard !rivals.isEmpty else { continue }
                    r.hits += 1
                    if let y = rivals.first(where: { c.facts.priority[$0].value(before: s) > px }) {
                        r.violations.append(c.violation(RuleID.priorityOrder,
                                "serial queue \(q) started op \(x) (priority \(px)) while op \(y) (priority "
                                    + "\(c.facts.priority[y].value(before: s))) was ready too",
                            "the higher priority ready operation starts first", [cp, s]))
                    }
                }
            }
            return r
        },
        RuleCheck(
            Rule(
                RuleID.priorityNormalize, .PRIORITY,
                "A queue priority that is not one of the defined values reads back as the next "
                    + "defined value towards Normal.",
                cites: [Citation(.gnustep, "setQueuePriority:")], strength: .documentedMust,
                needs: [.undefinedQueuePriorities])
        ) { c in
            var r = CheckResult()
            for op in c.allOps {
                var expected: Int?, raw = 0, setAt = 0
                for (i, k) in c.opEvents(op, .tags(.returned(.setQueuePriority), .kind(.read))) {
                    if case .returned(.setQueuePriority(_, let v)) = k {
                        expected = QueuePriority.normalized(v); raw = v; setAt = i
                    }
                    guard let want = expected, case .read(_, .queuePriority, .int(let got)) = k,
                        c.facts.began(i, after: setAt)
                    else { continue }
                    if QueuePriority.defined.contains(raw) { continue }
                    r.hits += 1
                    if got != want {
                        r.violations.append(
                            c.violation(
                                RuleID.priorityNormalize, "op \(op)'s priority, set to \(raw), read back as \(got)",
                                "\(want), the next defined value towards Normal", [i]))
                    }
                }
            }
            return r
        },
        RuleCheck(
            Rule(
                RuleID.priorityReadback, .PRIORITY,
                "A queue priority set to one of the defined values reads back unchanged.",
                cites: [Citation(.gnustep, "setQueuePriority:"), Citation(.guide, "2.6.2")], strength: .documentedMust)
        ) { c in
            var r = CheckResult()
            for op in c.allOps {
                let sets = c.indices(op, .call(.setQueuePriority))
                for report in c.reports(op, .queuePriority) where report.isRead {
                    // Judged only with no set in flight: the read surely began after the last set
                    // ended (on its thread, or its thread did something since).
                    guard let last = sets.last(where: { $0 < report.i }), let end = c.facts.endOf[last],
                        c.facts.began(report.i, after: end),
                        c.facts.returned(last) != nil, case .call(.setQueuePriority(_, let v)) = c.event(last).kind,
                        QueuePriority.defined.contains(v)
                    else { continue }
                    r.hits += 1
                    if report.value != .int(v) {
                        r.violations.append(
                            c.violation(
                                RuleID.priorityReadback,
                                "op \(op)'s priority, set to \(v), read back as \(report.value)", "\(v), as set",
                                [last, report.i]))
                    }
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.priorityDefaultNormal, .PRIORITY,
                       "An operation whose priority was never set reports Normal (0).",
                       cites: [Citation(.guide, "2.6.2")], strength: .documentedMust)) { c in
            var r = CheckResult()
            for op in c.allOps {
                let firstSet = c.indices(op, .call(.setQueuePriority)).first ?? Int.max
                for report in c.reports(op, .queuePriority) where report.isRead && report.i < firstSet {
                    r.hits += 1
                    if report.value != .int(QueuePriority.normal) {
                        r.violations.append(
                            c.violation(
                                RuleID.priorityDefaultNormal,
                                "op \(op) reported priority \(report.value) before any was set", "Normal (0)",
                                [report.i]))
                    }
                }
            }
            return r
        },
    ]

    static let threadPriority: [RuleCheck] = [
        RuleCheck(
            Rule(
                RuleID.threadPriorityMain, .THREAD,
                "The default start runs main at the operation's thread priority: the value set "
                    + "before it started, or 0.5.",
                cites: [Citation(.guide, "2.6.3"), Citation(.gnustep, "setThreadPriority:")], strength: .documentedMust,
                needs: [.threadPriority])
        ) { c in
            var r = CheckResult()
            for op in c.allOps where !c.kind(op).overridesStart {
                guard let s = c.facts.firstStart[op], let began = c.firstIndex(op, after: s, .kind(.mainBegan)),
                    case .mainBegan(_, let p) = c.event(began).kind
                else { continue }
                var want = 0.5
                for (i, k) in c.opEvents(op, .tags(.returned(.setThreadPriority), nil)) where i < s {
                    if case .returned(.setThreadPriority(_, let v)) = k { want = v }
                }
                guard (0...1).contains(want) else { continue }
                r.hits += 1
                if abs(p - want) > 1e-9 {
                    r.violations.append(
                        c.violation(
                            RuleID.threadPriorityMain, "op \(op)'s main ran at thread priority \(p)", "\(want)",
                            [s, began]))
                }
            }
            return r
        },
    ]
}
