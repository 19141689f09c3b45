// KVO: the notifications an operation owes its observers (004 2.5.3, 2.5.4, Listings 2-6, 2-7; 001; 002).

extension RuleBook {
    static let kvo: [RuleCheck] = [
        RuleCheck(Rule(RuleID.kvoSetBracketed, .KVO,
                "A concurrent subclass changes isExecuting or isFinished only between a will-change and a did-change "
                    + "for that key on the same thread.",
                cites: [
                    Citation(.guide, "2.5.3 Table 2-2"), Citation(.guide, "2.5.4"), Citation(.gnustep, "start"),
                    Citation(.ru, "isFinished, isExecuting")
                ],
                       strength: .documentedMust, needs: [.kvo], subject: .subclass)) { c in
            var r = CheckResult()
            for op in c.allOps where c.kind(op).overridesStart {
                var value: [StateKey: Bool] = [.isExecuting: false, .isFinished: false]
                for (i, k) in c.opEvents(op, .tags(.kind(.set), nil)) {
                    guard case .set(_, let key, let v) = k, value[key] != v else { continue }
                    value[key] = v
                    r.hits += 1
                    let t = c.event(i).thread
                    let same = c.facts.opEvents[op].filter { c.event($0).thread == t }
                    let will = same.last { $0 < i && c.event($0).kind.isWill(key) }
                    let didBetween =
                        will.map { w in same.contains { $0 > w && $0 < i && c.event($0).kind.isDid(key) } } ?? true
                    let didAfter = same.contains { $0 > i && c.event($0).kind.isDid(key) }
                    if will == nil || didBetween || (!didAfter && c.settled && !c.inFlight(op, key)) {
                        r.violations.append(c.violation(RuleID.kvoSetBracketed,
                                "op \(op) set \(key.rawValue) to \(v ? "YES" : "NO") "
                                    + (will == nil || didBetween
                                        ? "without a will-change before it" : "without a did-change after it"),
                            "will-change, change, did-change on the same thread", [will, i]))
                    }
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.kvoCompletionOrder, .KVO,
                "A concurrent subclass that finishes after executing notifies in the order: will isFinished, will "
                    + "isExecuting, did isExecuting, did isFinished.",
                cites: [
                    Citation(.guide, "Listing 2-7"), Citation(.en, "completeoperation"),
                    Citation(.zh, "completeOperation")
                ],
                       strength: .documentedExample, needs: [.kvo], subject: .subclass)) { c in
            var r = CheckResult()
            // The listing is a subclass's code; the base class may order its own notifications
            // differently (GNUstep 1.28 sends did isFinished before did isExecuting).
            for op in c.allOps where c.kind(op).overridesStart {
                guard let did = c.facts.notifiedFinishedAt[op], let exec = c.facts.executingAt[op], exec < did else {
                    continue
                }
                let t = c.event(did).thread
                let keyed = c.facts.opEvents[op].filter { j in
                    c.event(j).thread == t && {
                        switch c.event(j).kind {
                            case .willChange(_, .isFinished, _), .willChange(_, .isExecuting, _),
                                .didChange(_, .isFinished, _), .didChange(_, .isExecuting, _):
                                return true
                        default: return false
                        }
                    }()
                }
                guard let at = keyed.firstIndex(of: did),
                    var from = keyed[...at].lastIndex(where: { c.event($0).kind.isWill(.isFinished) })
                else { continue }
                // The completion's notifications, whole: the will isExecuting written just before
                // the will isFinished (the nested order) and the did isExecuting just after the
                // did isFinished belong to it, so the message quotes what really happened.
                var to = at
                while from > keyed.startIndex, c.event(keyed[from - 1]).kind.isWill(.isExecuting) { from -= 1 }
                while to + 1 < keyed.endIndex, case .didChange(_, .isExecuting, _) = c.event(keyed[to + 1]).kind {
                    to += 1
                }
                r.hits += 1
                let seq = keyed[from...to].map { j -> String in
                    switch c.event(j).kind {
                    case .willChange(_, let k, _): return "will " + k.rawValue
                    case .didChange(_, let k, _): return "did " + k.rawValue
                    default: return ""
                    }
                }
                let expected = ["will isFinished", "will isExecuting", "did isExecuting", "did isFinished"]
                if seq != expected {
                    r.violations.append(
                        c.violation(
                            RuleID.kvoCompletionOrder,
                            "op \(op) finished with notifications " + seq.joined(separator: ", "),
                            expected.joined(separator: ", "), Array(keyed[from...to])))
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.kvoCancelledStart, .KVO,
                "A concurrent subclass started after it was cancelled goes straight to finished: it never reports "
                    + "isExecuting YES and it notifies isFinished.",
                       cites: [Citation(.guide, "Listing 2-6"), Citation(.en, "Start"), Citation(.zh, "start")],
                       strength: .documentedExample, needs: [.kvo], subject: .subclass)) { c in
            var r = CheckResult()
            // Listing 2-6 is a subclass's start; the base class's own start on a cancelled
            // operation may pass through executing (GNUstep 1.28 does).
            for op in c.allOps where c.kind(op).overridesStart {
                guard let call = c.facts.cancelCalledAt[op], let done = c.facts.endOf[call],
                    let s = c.startCalls(op).first(where: { $0.i > done && !$0.threw }), c.facts.firstStart[op] == s.i
                else { continue }
                r.hits += 1
                // A will-change carrying YES was sent while isExecuting already said YES.
                if let exec = c.facts.opEvents[op].first(where: { j in j > s.i && {
                    switch c.event(j).kind {
                            case .didChange(_, .isExecuting, .bool(true)), .read(_, .isExecuting, .bool(true)),
                                .set(_, .isExecuting, true),
                         .willChange(_, .isExecuting, .bool(true)): return true
                    default: return false
                    } }() }) {
                    r.violations.append(
                        c.violation(
                            RuleID.kvoCancelledStart, "op \(op), started after cancel, reported isExecuting YES",
                            "a cancelled operation moves straight to finished", [call, s.i, exec]))
                } else if c.settled && c.facts.notifiedFinishedAt[op] == nil && !c.inFlight(op, .isFinished) {
                    r.violations.append(
                        c.violation(
                            RuleID.kvoCancelledStart, "op \(op), started after cancel, never notified isFinished",
                            "will/did isFinished even when cancelled", [call, s.i]))
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.kvoBalanced, .KVO,
                "Every did-change follows a will-change for the same operation and key on the same thread, and every "
                    + "will-change is followed by its did-change.",
                cites: [Citation(.guide, "2.5.4"), Citation(.guide, "Listing 2-6"), Citation(.guide, "Listing 2-7")],
                       strength: .documentedMust, needs: [.kvo])) { c in
            var r = CheckResult()
            // Will and did pair up per (thread, operation, key): walked per operation over its
            // own events, with the few (thread, key) stacks of one operation in a small array
            // (a dictionary keyed by strings over the whole trace took 1.3 s on 2.5 million
            // events). Reported in trace order: unpaired did-changes by index, then unpaired
            // will-changes by the first will-change of their stack, as before.
            // A stack is a slot (thread, key, its first will-change); the open will-changes of
            // all slots share one array, reused for every operation, so nothing is allocated
            // per operation.
            var unpairedDids: [(i: Int, op: Int, key: StateKey, thread: Int)] = []
            var unpairedWills: [(first: Int, will: Int)] = []
            var slots: [(thread: Int, key: StateKey, first: Int)] = []
            var open: [(slot: Int, will: Int)] = []
            let willTag = EventTag.kind(.willChange), didTag = EventTag.kind(.didChange)
            for op in c.allOps {
                slots.removeAll(keepingCapacity: true)
                open.removeAll(keepingCapacity: true)
                for i in c.indices(op, willTag, didTag) {
                    let isWill = c.facts.isEvent(i, willTag)
                    guard let key = c.facts.stateKey(i) else { continue }
                    let thread = c.facts.thread(i)
                    let slot = slots.firstIndex { $0.thread == thread && $0.key == key }
                    if isWill {
                        if let slot {
                            open.append((slot, i))
                        } else {
                            slots.append((thread, key, i)); open.append((slots.count - 1, i))
                        }
                    } else {
                        r.hits += 1
                        if let slot, let k = open.lastIndex(where: { $0.slot == slot }) {
                            open.remove(at: k)
                        } else {
                            unpairedDids.append((i, op, key, thread))
                        }
                    }
                }
                for o in open { unpairedWills.append((slots[o.slot].first, o.will)) }
            }
            for d in unpairedDids.sorted(by: { $0.i < $1.i }) {
                r.violations.append(
                    c.violation(
                        RuleID.kvoBalanced,
                        "op \(d.op) sent did-change \(d.key.rawValue) with no will-change before it on thread "
                            + "\(d.thread)",
                        "will and did come in pairs", [d.i]))
            }
            if c.trace.ending == .complete {
                for w in unpairedWills.sorted(by: { ($0.first, $0.will) < ($1.first, $1.will) }) {
                    r.violations.append(
                        c.violation(
                            RuleID.kvoBalanced, "a will-change was never followed by its did-change",
                            "will and did come in pairs", [w.will]))
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.kvoFinishAlways, .KVO,
                       "Every operation that finishes, cancelled or not, sends a did-change for isFinished.",
                       cites: [Citation(.guide, "2.5.3"), Citation(.guide, "2.6.1"), Citation(.guide, "2.9.3")],
                       strength: .documentedMust, needs: [.kvo])) { c in
            var r = CheckResult()
            guard c.settled else { return r }
            for op in c.allOps {
                guard let f = c.facts.finishedAt[op] else { continue }
                r.hits += 1
                if c.facts.notifiedFinishedAt[op] == nil && !c.inFlight(op, .isFinished) {
                    r.violations.append(
                        c.violation(
                            RuleID.kvoFinishAlways, "op \(op) became finished without a did-change for isFinished",
                            "a finish notification is always sent; dependents and queues rely on it", [f]))
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.kvoFinishOnce, .KVO,
                "A concurrent subclass started once announces isFinished becoming YES once: no second did-change "
                    + "reporting YES follows the first.",
                cites: [Citation(.guide, "Listing 2-7"), Citation(.guide, "2.5.3"), Citation(.en, "completeoperation")],
                       strength: .documentedExample, needs: [.kvo], subject: .subclass)) { c in
            var r = CheckResult()
            // A second announcement tells every observer again that the operation finished: a
            // queue frees its slot twice, a completion block may run twice. An operation whose
            // start was called more than once is left out: that is the caller's misuse, which
            // the START rules judge (Listing 2-6 itself finishes again when started again
            // after a cancel).
            for op in c.allOps where c.kind(op).overridesStart && c.startCalls(op).count <= 1 {
                var first: Int?
                for i in c.indices(op, .kind(.didChange)) {
                    guard case .didChange(_, .isFinished, .bool(true)) = c.event(i).kind else { continue }
                    r.hits += 1
                    if let f = first {
                        r.violations.append(
                            c.violation(
                                RuleID.kvoFinishOnce, "op \(op) announced isFinished YES a second time",
                                "a subclass finishes once: one completeOperation, under a lock if two threads may try",
                                [f, i]))
                        break
                    }
                    first = i
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.kvoFinishChanges, .KVO,
                "A concurrent subclass started once announces isFinished only around its change: each did-change "
                    + "reports a value other than its will-change's.",
                cites: [
                    Citation(.guide, "Listing 2-6"), Citation(.guide, "Listing 2-7"),
                    Citation(.guide, "2.5.3 Table 2-2")
                ],
                       strength: .documentedExample, needs: [.kvo], subject: .subclass)) { c in
            var r = CheckResult()
            // Will and did pair up per thread, as KVO-BALANCED pairs them; an unpaired one is
            // KVO-BALANCED's business. A will-change carries the value when it was sent and a
            // did-change the value after: equal, the observers were told of a finish that did
            // not happen (a notification with no store) or that had happened before (a second
            // finish). isFinished only: the documents' own completion code announces isExecuting
            // with its finish whether or not it changed (Listing 2-8 on a cancelled operation
            // that never executed; Listing 2-7 when Listing 2-6's race let main finish before
            // start stored executing), so an unchanged isExecuting is not the subclass's fault.
            for op in c.allOps where c.kind(op).overridesStart && c.startCalls(op).count <= 1 {
                var open: [(thread: Int, i: Int, value: Value)] = []
                for i in c.indices(op, .kind(.willChange), .kind(.didChange)) {
                    let thread = c.facts.thread(i)
                    switch c.event(i).kind {
                    case .willChange(_, .isFinished, let v):
                        open.append((thread, i, v))
                    case .didChange(_, .isFinished, let v):
                        guard let k = open.lastIndex(where: { $0.thread == thread }) else { continue }
                        let will = open.remove(at: k)
                        r.hits += 1
                        if will.value == v {
                            r.violations.append(
                                c.violation(
                                    RuleID.kvoFinishChanges,
                                    "op \(op) announced a change of isFinished but it stayed \(v)",
                                    "will/did-change isFinished around the store of finished = YES (Listings 2-6, 2-7)",
                                    [will.i, i]))
                        }
                    default: continue
                    }
                }
            }
            return r
        },
        kvoCall(
            RuleID.kvoCancelled, key: .isCancelled, on: [.cancel],
            "Cancelling an operation that was neither finished nor cancelled notifies isCancelled during the call.",
            cites: [Citation(.guide, "2.5.4"), Citation(.guide, "2.9.3")]
        ) { c, call in
            // Judged only when no start began before the cancel returned: a queue's start logged
            // during the call may have run the operation to its end before cancel looked, and a
            // finished operation's cancel rightly says nothing (seen once on GNUstep under load:
            // a 2 ms task started and finished inside a descheduled cancel).
            guard case .cancel(let op) = call.kind, c.facts.cancelCalledAt[op] == call.i else { return nil }
            let returned = c.facts.returned(call.i) ?? call.i
            guard c.facts.firstStart[op].map({ $0 > returned }) ?? true else { return nil }
            return op
        },
        kvoCall(
            RuleID.kvoDependencies, key: .dependencies, on: [.addDependency, .removeDependency],
            "addDependency and removeDependency that change the dependencies notify the "
                + "dependencies key during the call.",
            cites: [Citation(.guide, "2.5.4")]
        ) { c, call in
            switch call.kind {
            case .addDependency(let op, let on):
                return c.facts.dependencies(of: op, at: call.i).contains(on) || op == on ? nil : op
            case .removeDependency(let op, let on):
                return c.facts.dependencies(of: op, at: call.i).contains(on) ? op : nil
            default: return nil
            }
        },
        kvoCall(
            RuleID.kvoQueuePriority, key: .queuePriority, on: [.setQueuePriority],
            "setQueuePriority that changes the priority notifies queuePriority during the call.",
            cites: [Citation(.guide, "2.5.4")]
        ) { c, call in
            guard case .setQueuePriority(let op, let raw) = call.kind,
                c.facts.priority[op].value(before: call.i) != QueuePriority.normalized(raw)
            else { return nil }
            return op
        },
        kvoCall(
            RuleID.kvoCompletionBlock, key: .completionBlock, on: [.setCompletionBlock],
            "setCompletionBlock notifies completionBlock during the call.",
            cites: [Citation(.guide, "2.5.4")]
        ) { _, call in
            if case .setCompletionBlock(let op) = call.kind { return op }
            return nil
        }
    ]

    /// A rule of the form "this call, when it succeeds and changes something, notifies `key`
    /// (will and did) before it returns". `subject` says whether a call applies, and for which op;
    /// `on` names the kinds of call it can apply to (only those are looked at).
    static func kvoCall(_ id: String, key: StateKey, on calls: [Call.Tag], _ statement: String, cites: [Citation],
                        subject: @escaping @Sendable (CheckContext, (i: Int, kind: Call)) -> Int?) -> RuleCheck {
        RuleCheck(Rule(id, .KVO, statement, cites: cites, strength: .documentedMust, needs: [.kvo])) { c in
            var r = CheckResult()
            for i in c.facts.indices(calls.map { .call($0) }) {
                guard case .call(let call) = c.event(i).kind, let done = c.facts.returned(i),
                    let op = subject(c, (i, call))
                else { continue }
                r.hits += 1
                var will = false, did = false
                for j in c.facts.opEvents[op] where j > i && j < done {
                    if c.facts.isWill(j, key) { will = true } else if c.facts.isDid(j, key) { did = true }
                }
                if !will || !did {
                    r.violations.append(
                        c.violation(
                            id,
                            "\(call) returned without " + (will ? "a did-change" : "a will-change")
                                + " for \(key.rawValue)",
                            "will and did change for \(key.rawValue) during the call", [i, done]))
                }
            }
            return r
        }
    }
}
