/// Small queries over an operation's events that several families share.
extension CheckContext {
    /// Events about `op` that `match` accepts, as (index, event kind), computed as they are
    /// walked: building an array per operation per rule was a large part of checking a trace of
    /// 100,000 operations, and copying kinds a rule then skips was most of the rest.
    func opEvents(_ op: Int, _ match: EventMatch = .all) -> EventsAbout { facts.events(about: op, match) }

    /// Every `start` call on `op`: its index, caller, thread and the index of its end (if it ended).
    func startCalls(_ op: Int) -> TraceFacts.StartCalls { facts.starts(op) }

    /// Reports of a state key's value about `op`: reads and did-change notifications, each read
    /// from the trace as it is walked (an array per operation per rule was measurable at
    /// 100,000 operations).
    func reports(_ op: Int, _ key: StateKey) -> Reports {
        Reports(events: trace.events, positions: facts.reports(op, key))
    }

    /// Every observation of a state key's value about `op`: reads, and the values will- and
    /// did-changes carried (a will-change's is the value before the change it announces).
    func observations(_ op: Int, _ key: StateKey) -> ValueObservations {
        ValueObservations(facts.events(about: op, .keys(key, nil)))
    }

    /// The first time the task of `op`, an operation with the default start, began after a
    /// start call: from then on it is executing or finished (the default start sets executing
    /// before it runs the task, and only finishing clears it). Nil for a subclass that
    /// overrides start, which owns its state (Listing 2-6's order detaches main before it sets
    /// executing), and for a task run without a start call (QUEUE-CALLS-START's business).
    func startedTask(_ op: Int) -> Int? {
        guard !kind(op).overridesStart, let s = facts.firstStart[op] else { return nil }
        return taskBegins(op).first { $0 > s }
    }

    /// The first event about `op` after `i` of kind `a` (or `b`): compares tags, copies no event.
    func firstIndex(_ op: Int, after i: Int, _ a: EventTag, _ b: EventTag? = nil) -> Int? {
        indices(op, a, b).first { $0 > i }
    }

    /// The events about `op` of kind `a` (or `b`), in order.
    func indices(_ op: Int, _ a: EventTag, _ b: EventTag? = nil) -> EventIndices {
        facts.indices(about: op, a, b)
    }

    /// When `op`'s task began (its main, or any of its blocks), in order.
    func taskBegins(_ op: Int) -> EventIndices { indices(op, .kind(.mainBegan), .kind(.blockBegan)) }

    /// The queues each operation was offered to by an add call of any of the three kinds,
    /// accepted or not, in the order first offered: a queue may hold an operation whose add has
    /// not returned, or was refused.
    func queuesOffered() -> [[Int]] {
        var offered = Array(repeating: [Int](), count: scenario.operations.count)
        for i in facts.indices([.call(.addOperation), .call(.addOperations), .call(.addBlock)]) {
            let named: [Int], q: Int
            switch event(i).kind {
            case .call(.addOperation(let op, let queue)), .call(.addBlock(let op, let queue)):
                (named, q) = ([op], queue)
            case .call(.addOperations(let list, let queue, _)): (named, q) = (list, queue)
            default: continue
            }
            for op in named where offered.indices.contains(op) && !offered[op].contains(q) {
                offered[op].append(q)
            }
        }
        return offered
    }

    /// Whether the main of `op`, a main or invocation operation with the default start, had
    /// begun before event `a` and had not ended by event `b`: the operation was not finished.
    func mainRunning(_ op: Int, from a: Int, to b: Int) -> Bool {
        switch scenario.operations[op].kind {
        case .main, .invocation: break
        default: return false
        }
        guard let began = indices(op, .kind(.mainBegan)).last(where: { $0 < a }) else { return false }
        return !indices(op, .kind(.mainEnded)).contains { $0 > began && $0 < b }
    }

    /// The first time `op`'s task began after event `i`.
    func taskBegan(_ op: Int, after i: Int) -> Int? { taskBegins(op).first { $0 > i } }

    /// The first event about `op` after `i` that `match` accepts (for a payload a tag cannot say).
    func firstIndex(_ op: Int, after i: Int, where match: (EventKind) -> Bool) -> Int? {
        facts.opEvents[op].first { $0 > i && match(trace.events[$0].kind) }
    }

    /// When `op` was handed to its runtime: added to a queue, or first started. Dependencies added
    /// after this "may not prevent" it from running (004 2.6.1), so ordering rules ignore them.
    func handedOver(_ op: Int) -> Int? { TraceFacts.earlier(facts.addedAt[op]?.call, facts.firstStart[op]) }

    /// Dependencies of `op` in force at event `i` that were added before `op` was handed over.
    func earlyDependencies(of op: Int, at i: Int) -> ActiveDependencies {
        ActiveDependencies(edges: facts.edges(of: op), at: i, addedBefore: handedOver(op) ?? Int.max)
    }

    /// If `op` was surely executing or finished at event `i`: the event that shows it.
    /// A subclass that overrides start owns its state, and Listing 2-7 passes through a moment
    /// when it is neither (executing cleared, finished not yet set), so for it only its own
    /// ivar stores count. For the base class, once started it stays executing or finished.
    func busySince(_ op: Int, at i: Int) -> Int? {
        if kind(op).overridesStart {
            var executing: Int?, finished: Int?
            for (j, kind) in opEvents(op, .tags(.kind(.set), nil)) where j < i {
                if case .set(_, let key, let v) = kind {
                    if key == .isExecuting { executing = v ? j : nil }
                    if key == .isFinished && v && finished == nil { finished = j }
                }
            }
            return finished ?? executing
        }
        let began = taskBegins(op).first
        let started = TraceFacts.earlier(TraceFacts.earlier(facts.executingAt[op], facts.finishedAt[op]), began)
        return started.flatMap { $0 < i ? $0 : nil }
    }

    /// Whether the notification at `i` comes in one burst with a change of `op`'s isExecuting or
    /// isFinished on the same thread: walking back over that thread's notifications and ivar
    /// stores, one of them is about those keys of `op`, before anything else was logged.
    func inBurstOfStateChange(_ op: Int, _ i: Int) -> Bool {
        var j = facts.previousOnThread[i]
        while j >= 0 {
            switch event(j).kind {
            case .willChange(op, .isExecuting, _), .didChange(op, .isExecuting, _), .willChange(op, .isFinished, _),
                 .didChange(op, .isFinished, _), .set(op, _, _):
                return true
            case .willChange, .didChange, .set: j = facts.previousOnThread[j]
            default: return false
            }
        }
        return false
    }

    var operationCount: Int { scenario.operations.count }

    /// The blocks handed to queue `q` with `addOperationWithBlock:` whose call returned: the
    /// scenario operation that names each block, and the call's event, in trace order.
    func blockAdds(_ q: Int) -> [(op: Int, call: Int)] {
        guard q >= 0 && q < facts.queueEvents.count else { return [] }
        return facts.queueEvents[q].compactMap { i in
            guard case .call(.addBlock(let op, _)) = event(i).kind, op >= 0, op < operationCount,
                facts.returned(i) != nil
            else { return nil }
            return (op, i)
        }
    }

    /// Where the isReady override of `op` (`readyAfterSignal`) was lifted: the isReady
    /// did-change that the thread which first signalled its token sent after the signal. Nil
    /// while the override holds, when `op` has none, or when the notification is not in the
    /// trace (a driver without `kvo`): then nothing after it can be trusted to have seen the token.
    func overrideLifted(_ op: Int) -> Int? {
        guard let t = scenario.operations[op].readyAfterSignal,
            let s = facts.indices(.kind(.signal)).first(where: {
                if case .signal(t) = event($0).kind { return true }; return false
            })
        else { return nil }
        let thread = event(s).thread
        return indices(op, .kind(.didChange)).first {
            $0 > s && event($0).thread == thread && event($0).kind.isDid(.isReady)
        }
    }

    /// The will-change the signalling code sent for `op`'s isReady when it lifted the override:
    /// the last one before the lift's did-change on the signal's thread, or, when that
    /// did-change never came (a queue that starts the operation inside the notification and
    /// hangs there: a GNUstep gate, 2026-12-07), the first one on that thread after the signal
    /// within the same driver step.
    func overrideLiftNotice(_ op: Int) -> Int? {
        if let did = overrideLifted(op) {
            return indices(op, .kind(.willChange)).last {
                $0 < did && event($0).thread == event(did).thread && facts.isWill($0, .isReady)
            }
        }
        guard let t = scenario.operations[op].readyAfterSignal,
            let s = facts.indices(.kind(.signal)).first(where: {
                if case .signal(t) = event($0).kind { return true }; return false
            })
        else { return nil }
        var j = facts.nextOnThread[s]
        while j < events.count {
            switch event(j).kind {
            case .stepIssued, .stepDone, .signal: return nil
            case .willChange(op, .isReady, _): return j
            default: j = facts.nextOnThread[j]
            }
        }
        return nil
    }

    /// Whether a report of `op`'s readiness at event `i` may come from its isReady override
    /// before the override was lifted: the runtime's readiness rules do not judge it then (the
    /// subclass's `isReady` says NO whatever the runtime would say, as 004 2.6.1 allows).
    func overrideHolds(_ op: Int, at i: Int) -> Bool {
        guard scenario.operations[op].readyAfterSignal != nil else { return false }
        guard let lifted = overrideLifted(op) else { return true }
        return !facts.began(i, after: lifted)
    }
    var allOps: Range<Int> { 0..<scenario.operations.count }
    func can(_ what: Observation) -> Bool { trace.capabilities.contains(what) }
}

extension EventKind {
    func isDid(_ key: StateKey, _ value: Value? = nil) -> Bool {
        if case .didChange(_, key, let v) = self { return value == nil || v == value }
        return false
    }
    /// A will- or did-change of `op`'s isFinished, or a store into its finished ivar: the
    /// operation's own code moving it to finished.
    func isFinishing(_ op: Int) -> Bool {
        switch self {
        case .willChange(op, .isFinished, _), .didChange(op, .isFinished, _), .set(op, .isFinished, _): return true
        default: return false
        }
    }
    var isCancelAllCall: Bool { if case .call(.cancelAll) = self { return true }; return false }
    var isSetSuspendedCall: Bool { if case .call(.setSuspended) = self { return true }; return false }
    var isSuperStartCall: Bool { if case .call(.superStart(_)) = self { return true }; return false }
    func isRead(_ key: StateKey, _ value: Value? = nil) -> Bool {
        if case .read(_, key, let v) = self { return value == nil || v == value }
        return false
    }
    func isWill(_ key: StateKey) -> Bool {
        if case .willChange(_, key, _) = self { return true }
        return false
    }
}

extension RuleBook {
    /// "This call on an operation that has started (executing, finished, or its task begun) is
    /// refused with an error." `subject` names the operation a call is about, or nil.
    static func lateCallThrows(_ rule: Rule, subject: @escaping @Sendable (Call) -> Int?) -> RuleCheck {
        RuleCheck(rule) { c in
            var r = CheckResult()
            for i in c.facts.indices(.kind(.call)) {
                guard case .call(let call) = c.event(i).kind, let op = subject(call), let end = c.facts.endOf[i],
                      let started = c.busySince(op, at: i) else { continue }
                r.hits += 1
                if c.facts.returned(i) != nil {
                    r.violations.append(
                        c.violation(
                            rule.id, "\(call) on op \(op), which had already started, returned normally",
                            "the call is refused with an error", [started, i, end]))
                }
            }
            return r
        }
    }
}
