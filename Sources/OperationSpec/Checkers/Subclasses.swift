// SUBCLASS: what a concurrent subclass must declare (004 2.5.3 Table 2-2; 001; 002).

extension RuleBook {
    static let subclasses: [RuleCheck] = [
        RuleCheck(Rule(RuleID.subclassConcurrentFlag, .SUBCLASS,
                       "An operation whose start returns before its task has finished reports isConcurrent YES.",
                cites: [
                    Citation(.guide, "2.5.3 Table 2-2"), Citation(.en, "isconcurrent"),
                    Citation(.zh, "2 (isAsynchronous)")
                ],
                       strength: .documentedMust)) { c in
            var r = CheckResult()
            for op in c.allOps where c.kind(op).overridesStart {
                guard let s = c.startCalls(op).first(where: { !$0.threw }), let end = s.end,
                    !c.facts.finishing(op, before: end),
                    c.facts.finishedAt[op] != nil || c.indices(op, .kind(.mainBegan)).contains(where: { $0 > end })
                else { continue }
                for report in c.observations(op, .isConcurrent) {
                    r.hits += 1
                    if report.value == .bool(false) {
                        // Swift on Linux cannot override isConcurrent; its getter returns isAsynchronous.
                        let required = "a concurrent operation reports isConcurrent YES (in Swift it overrides "
                            + "isAsynchronous, which isConcurrent returns; Objective-C may override either)"
                        r.violations.append(c.violation(RuleID.subclassConcurrentFlag,
                                                        "op \(op) runs asynchronously but reported isConcurrent NO",
                                                        required, [s.i, end, report.i]))
                    }
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.subclassFinishAfterStart, .SUBCLASS,
                       "A concurrent subclass in a queue reports isFinished YES only after its start was called.",
                cites: [Citation(.guide, "2.5.3 Table 2-2"), Citation(.guide, "Listing 2-6"), Citation(.en, "Start")],
                       strength: .documentedExample, subject: .subclass)) { c in
            var r = CheckResult()
            // A subclass owns its finished state, and start is "the starting point for your
            // operation": even a cancelled one is moved to finished there (Listing 2-6). One
            // that finishes while it waits in its queue (a cancel handler that completes at
            // once) tells the queue and its dependents it is done before the queue began it.
            // Only from the add on: an operation run by hand may be finished without a start,
            // as Listing 2-8 finishes a cancelled one. Nor when the task began before any start:
            // a queue that ran main without start (QUEUE-CALLS-START's business) let a correct
            // main finish it.
            for op in c.allOps where c.kind(op).overridesStart {
                guard let added = c.facts.addedAt[op]?.call else { continue }
                let first = c.facts.firstStart[op] ?? Int.max
                if let began = c.taskBegins(op).first, began < first { continue }
                // Judged: an operation that was started (its time before start was watched
                // whole) or one reported on before any start.
                var judged = c.facts.firstStart[op] != nil
                defer { if judged { r.hits += 1 } }
                for seen in c.observations(op, .isFinished) where seen.i > added && seen.i < first {
                    judged = true
                    if seen.value == .bool(true) {
                        r.violations.append(
                            c.violation(
                                RuleID.subclassFinishAfterStart,
                                "op \(op) reported isFinished YES before its start was called",
                                "a subclass finishes in or after start, cancelled or not (Listing 2-6)", [seen.i]))
                        break
                    }
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.subclassFinishAnnounced, .SUBCLASS,
                       "An operation of the implementation's own subclass that turns isFinished YES announces it: a "
                        + "did-change of isFinished, or of a key the class declares as affecting isFinished.",
                cites: [Citation(.guide, "2.5.3 Table 2-2"), Citation(.guide, "2.5.4"), Citation(.gnustep, "start")],
                       strength: .documentedMust, needs: [.announcements], subject: .subclass)) { c in
            var r = CheckResult()
            for op in c.allOps where c.kind(op).isSubclass {
                guard let finding = FinishAnnouncement.of(op, in: c) else { continue }
                r.hits += 1
                guard case .missing(let turned, let others) = finding else { continue }
                let said = others.isEmpty ? "announcing no change at all"
                    : "announcing only " + others.map { c.announcedKeyText($0) }.joined(separator: ", ")
                r.violations.append(c.violation(RuleID.subclassFinishAnnounced,
                    "op \(op) turned isFinished YES (read at seq \(c.event(turned).seq)) \(said)",
                    "a did-change of isFinished, or of a key the class declares as affecting it "
                        + "(keyPathsForValuesAffectingIsFinished): otherwise no queue learns the operation finished, "
                        + "on Darwin as on Linux (004 2.5.3 Table 2-2, 2.5.4)", [turned] + others))
            }
            return r
        },
    ]

    static let subclassMain: [RuleCheck] = [
        // 003 start: "must execute the -main method"; 004 Table 2-2 makes main optional for a
        // concurrent operation (Specs/not-rules.md, "Where the documents disagree"): GNUstep's.
        RuleCheck(Rule(RuleID.subclassStartRunsMain, .SUBCLASS,
                "A concurrent subclass whose start is accepted, never cancelled, runs its main before it reports "
                    + "isFinished YES.",
                       cites: [Citation(.gnustep, "start"), Citation(.ru, "start"), Citation(.zh, "2 (main)")],
                       strength: .documentedMust, profiles: [.gnustep], subject: .subclass)) { c in
            var r = CheckResult()
            for op in c.allOps where c.kind(op).overridesStart && c.kind(op).reportsConcurrent {
                guard c.facts.cancelCalledAt[op] == nil, let s = c.startCalls(op).first(where: { !$0.threw }),
                      let finished = c.reports(op, .isFinished).first(where: { $0.i > s.i && $0.value == .bool(true) })
                else { continue }
                r.hits += 1
                if c.firstIndex(op, after: s.i, .kind(.mainBegan)).map({ $0 > finished.i }) ?? true {
                    r.violations.append(c.violation(RuleID.subclassStartRunsMain,
                        "concurrent op \(op) reported isFinished YES before its main began",
                        "start runs main (003 start: it must execute the -main method)", [s.i, finished.i]))
                }
            }
            return r
        },
    ]

    static let invocation: [RuleCheck] = [
        RuleCheck(Rule(RuleID.invocationInvokes, .INVOCATION,
                "An invocation operation whose start is accepted and that finishes, never cancelled, invokes its "
                    + "method exactly once.",
                       cites: [Citation(.guide, "2.3")], strength: .documentedMust)) { c in
            var r = CheckResult()
            for op in c.allOps {
                // A start refused (not ready, already executing) runs nothing: GNUstep's worker
                // then finishes the operation anyway, which QUEUE-READY-ONLY and START-KVO judge.
                guard case .invocation = c.scenario.operations[op].kind, c.facts.cancelCalledAt[op] == nil,
                      c.startCalls(op).contains(where: { !$0.threw }), let finished = c.facts.finishedAt[op]
                else { continue }
                r.hits += 1
                let runs = c.indices(op, .kind(.mainBegan))
                if runs.count != 1 {
                    r.violations.append(c.violation(RuleID.invocationInvokes,
                        "invocation op \(op) finished having invoked its method \(runs.count) times",
                        "exactly once", Array(runs) + [finished]))
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.invocationCancelledResult, .INVOCATION,
                       "Asking a cancelled invocation operation for its result fails with an error.",
                       cites: [Citation(.guide, "2.7.2")], strength: .documentedMust, needs: [.thrownErrors])) { c in
            var r = CheckResult()
            for op in c.allOps {
                guard let cancel = c.facts.cancelCalledAt[op], let cancelled = c.facts.endOf[cancel],
                    !c.facts.finishing(op, before: cancel)
                else { continue }
                for call in c.indices(op, .call(.result)) where call > cancelled {
                    r.hits += 1
                    if let done = c.facts.returned(call) {
                        r.violations.append(
                            c.violation(
                                RuleID.invocationCancelledResult, "the result of cancelled op \(op) was returned",
                                "it throws", [cancel, call, done]))
                    }
                }
            }
            return r
        },
    ]
}

/// How an operation of the implementation's own subclass announced that it finished: what
/// SUBCLASS-FINISH-ANNOUNCED judges, and what the harness's excuse for Foundation on Linux's
/// missing dependent keys must see before it applies (`Attribution.unheardFinish`).
///
/// The moment judged is the first read of isFinished YES; an announcement counts from the last
/// read of NO before it (a class that announces before it changes is read NO by whoever it told),
/// and after it (a reader on another thread may see YES between the store and the did-change).
public enum FinishAnnouncement: Equatable, Sendable {
    /// A did-change of isFinished itself (an `announced` event, or a KVO `didChange`), or a
    /// finish the default start made and read back inside its own call: at `at`.
    case direct(at: Int)
    /// A did-change of a key the class declares as affecting isFinished (a dependent key).
    case dependent(at: Int)
    /// Keys were announced, but the class declared nothing, so whether one affects isFinished is
    /// unknown: the announcements' positions.
    case undeclared([Int])
    /// No announcement of isFinished or of a key declared to affect it: the first YES read, and
    /// the other announcements of the window (misspelled keys, keys declared for other states).
    case missing(turned: Int, others: [Int])

    /// The judgement for `op`; nil when the trace never shows its isFinished turn YES.
    public static func of(_ op: Int, in c: CheckContext) -> FinishAnnouncement? {
        var lastNo = -1
        var turned: Int?
        for i in c.indices(op, .kind(.read)) {
            guard case .read(_, .isFinished, .bool(let v)) = c.event(i).kind else { continue }
            if v { turned = i; break }
            lastNo = i
        }
        guard let turned else { return nil }
        // Read back on the thread of a start call of its own that has not returned: the default
        // start (a class that does not override it) finished the operation and told the queue
        // itself, with or without running main (a cancelled operation's start skips it), as
        // Foundation's does on Linux (it reads isFinished back, Operation.swift's start and
        // observeValue) and NSOperation's KVO does on Darwin. The class owes no announcement of
        // a finish it left to its superclass. A class's own start that sets finished unheard and
        // returns is not read back there (no-kvo's cancelled start), so it stays `missing`.
        let thread = c.event(turned).thread
        for s in c.startCalls(op) where s.i < turned && (s.end ?? Int.max) > turned && c.event(s.i).thread == thread {
            return .direct(at: s.i)
        }
        var others: [Int] = []
        var unknown = false
        for i in c.indices(op, .kind(.announced), .kind(.didChange)) where i > lastNo {
            switch c.event(i).kind {
            case .didChange(_, .isFinished, _): return .direct(at: i)
            case .announced(_, "isFinished", _): return .direct(at: i)
            case .announced(_, _, let affects?) where affects.contains(.isFinished): return .dependent(at: i)
            case .announced(_, let key, nil) where !misnamesFinished(key): unknown = true; others.append(i)
            case .announced: others.append(i)
            default: continue
            }
        }
        return unknown ? .undeclared(others) : .missing(turned: turned, others: others)
    }

    /// Whether `key` is a wrong spelling of isFinished rather than a possible dependent key: any
    /// key but `isFinished` whose letters, case aside, hold `finish` (`finished`, `isisFinished`,
    /// `IsFinished`). Without a declaration a class's other keys may be dependent keys (correct on
    /// Darwin, `undeclared`); a key that names the finish itself, wrongly, never is, since no
    /// observer of isFinished watches it. A declared key is judged by its declaration first.
    public static func misnamesFinished(_ key: String) -> Bool {
        key != "isFinished" && key.lowercased().contains("finish")
    }
}

extension CheckContext {
    /// `"state"`, or `"state" (declared as affecting isExecuting)`: an `announced` event's key.
    public func announcedKeyText(_ i: Int) -> String {
        guard case .announced(_, let key, let affects) = event(i).kind else { return "?" }
        let declared = affects.map {
            $0.isEmpty ? "" : " (declared as affecting " + $0.map(\.rawValue).joined(separator: ", ") + ")"
        }
        return "\"\(key)\"" + (declared ?? "")
    }
}
