// START: the default start and its refusals; what a concurrent subclass's start must do
// (003 start; 004 2.2, 2.5.3 Table 2-2, 2.7.2, 2.9.2; 001; 002).

extension RuleBook {
    static let start: [RuleCheck] = [
        RuleCheck(
            Rule(
                RuleID.startNotReadyThrows, .START,
                "Calling the default start of an operation that is not ready fails with an error and runs nothing.",
                cites: [Citation(.guide, "2.7.2"), Citation(.guide, "2.9.2")], strength: .documentedMust,
                needs: [.thrownErrors, .finishing])
        ) { c in
            var r = CheckResult()
            for op in c.allOps where !c.kind(op).overridesStart {
                for s in c.startCalls(op) where s.by != .queue {
                    guard let end = s.end, !(c.facts.cancelCalledAt[op].map { $0 < end } ?? false),
                        !c.facts.finishing(op, before: end), c.facts.executingAt[op].map({ $0 > end }) ?? true,
                        let pending = c.earlyDependencies(of: op, at: s.i).first(where: {
                            !c.facts.finishing($0, before: end)
                        })
                    else { continue }
                    r.hits += 1
                    if !s.threw {
                        r.violations.append(
                            c.violation(
                                RuleID.startNotReadyThrows,
                                "start on op \(op) returned normally while its dependency op "
                                    + "\(pending) had not finished",
                                "start on an operation that is not ready throws", [s.i, end]))
                    }
                }
            }
            return r
        },
        RuleCheck(
            Rule(
                RuleID.startExecutingThrows, .START,
                "Calling the default start of an operation that is executing fails with an error.",
                cites: [Citation(.guide, "2.7.2")], strength: .documentedMust, needs: [.thrownErrors, .finishing])
        ) { c in
            var r = CheckResult()
            for op in c.allOps where !c.kind(op).overridesStart {
                // Executing since its task began, or since a report of isExecuting YES (a read, a
                // notification's value) after the first start call: the default start sets
                // executing before it runs the task, so a second start can come in between.
                let reported = c.facts.executingAt[op].flatMap { e in
                    c.facts.firstStart[op].map { $0 < e } == true ? e : nil
                }
                guard let began = TraceFacts.earlier(c.taskBegins(op).first, reported) else { continue }
                for s in c.startCalls(op) where s.i > began {
                    guard let end = s.end, !c.facts.finishing(op, before: end) else { continue }
                    r.hits += 1
                    if !s.threw {
                        r.violations.append(
                            c.violation(
                                RuleID.startExecutingThrows,
                                "a second start on op \(op), called while it was executing, returned normally",
                                "start on an executing operation throws", [began, s.i, end]))
                    }
                }
            }
            return r
        },
        RuleCheck(
            Rule(
                RuleID.startFinished, .START,
                "Calling the default start of a finished operation fails with an error and runs nothing again.",
                cites: [Citation(.guide, "2.7.2"), Citation(.guide, "2.9.2")], strength: .documentedMust,
                variants: [
                    Variant(
                        .classReference,
                        "Calling the default start of a finished operation returns quietly and runs nothing again "
                            + "(class reference, OS X 10.6 and later; not among the seed documents)."
                    )
                ])
        ) { c in
            var r = CheckResult()
            let quiet = c.profile == .classReference
            for op in c.allOps where !c.kind(op).overridesStart {
                guard let finished = c.facts.finishedAt[op] else { continue }
                for s in c.startCalls(op) where c.facts.settled(finished, before: s.i) {
                    guard let end = s.end else { continue }
                    r.hits += 1
                    if let ran = c.taskBegan(op, after: s.i), ran < end {
                        r.violations.append(
                            c.violation(
                                RuleID.startFinished, "start on finished op \(op) ran its task again",
                                "a finished operation never runs again", [finished, s.i, ran]))
                    } else if quiet && s.threw {
                        r.violations.append(
                            c.violation(
                                RuleID.startFinished, "start on finished op \(op) threw",
                                "it returns quietly (class-reference profile)", [finished, s.i, end]))
                    } else if !quiet && !s.threw {
                        r.violations.append(
                            c.violation(
                                RuleID.startFinished, "start on finished op \(op) returned normally",
                                "it throws (guide profile, 004 2.7.2)", [finished, s.i, end]))
                    }
                }
            }
            return r
        },
        RuleCheck(
            Rule(
                RuleID.startFinishedOwn, .START,
                "A class's own start, called on a finished operation, returns without running it again, as the default "
                    + "start does (class reference, OS X 10.6 and later; not among the seed documents).",
                cites: [Citation(.guide, "2.7.2")], strength: .observedOnly, profiles: [.classReference],
                subject: .subclass)
        ) { c in
            // The guide calls such a start the caller's error and leaves what a class does then
            // open; the context keeps what follows from every other rule (`CheckContext.Restart`).
            var r = CheckResult()
            for restart in c.restarts {
                r.hits += 1
                guard let again = restart.again else { continue }
                r.violations.append(
                    Violation(
                        rule: RuleID.startFinishedOwn,
                        observed: "start on finished op \(restart.op), whose class overrides start, ran it again",
                        expected: "a start of a finished operation runs nothing again (class-reference profile)",
                        witnesses: [restart.finished, restart.call, again]))
            }
            return r
        },
        RuleCheck(Rule(RuleID.startSyncMain, .START,
                "The default start of a non-concurrent operation runs main synchronously on the thread that called "
                    + "start, before start returns.",
                cites: [
                    Citation(.guide, "2.2"), Citation(.guide, "2.5.3"),
                    Citation(.zh, "1 (start before / main begin / start after)")
                ],
                       strength: .documentedMust, needs: [.threadIdentity])) { c in
            var r = CheckResult()
            for op in c.allOps where !c.kind(op).overridesStart {
                for s in c.startCalls(op) where !s.threw {
                    guard let end = s.end, !(c.facts.cancelCalledAt[op].map { $0 < end } ?? false),
                          !c.facts.finishing(op, before: s.i), c.facts.firstStart[op] == s.i else { continue }
                    r.hits += 1
                    let began = c.firstIndex(op, after: s.i, .kind(.mainBegan))
                    let ended = began.flatMap { b in c.firstIndex(op, after: b, .kind(.mainEnded)) }
                    if let b = began, c.event(b).thread != s.thread {
                        r.violations.append(
                            c.violation(
                                RuleID.startSyncMain,
                                "op \(op)'s main ran on thread \(c.event(b).thread), not on the thread that called "
                                    + "start (\(s.thread))",
                                "main runs on the calling thread", [s.i, b]))
                    } else if began == nil || began! > end || ended == nil || ended! > end {
                        r.violations.append(
                            c.violation(
                                RuleID.startSyncMain, "start on op \(op) returned before its main had run to its end",
                                "main runs synchronously inside start", [s.i, began, end]))
                    }
                }
            }
            return r
        },
        RuleCheck(
            Rule(
                RuleID.startKVO, .START,
                "The default start announces isExecuting becoming YES before main and "
                    + "isFinished becoming YES after it.",
                cites: [Citation(.guide, "2.9.2"), Citation(.guide, "2.6.1")], strength: .documentedMust, needs: [.kvo])
        ) { c in
            var r = CheckResult()
            for op in c.allOps where !c.kind(op).overridesStart {
                guard let s = c.startCalls(op).first(where: { !$0.threw }), let end = s.end,
                    let began = c.firstIndex(op, after: s.i, .kind(.mainBegan)), began < end,
                    let ended = c.firstIndex(op, after: began, .kind(.mainEnded))
                else { continue }
                r.hits += 1
                let executing = c.facts.opEvents[op].contains {
                    $0 > s.i && $0 < began && c.event($0).kind.isDid(.isExecuting, .bool(true))
                }
                let finished = c.facts.opEvents[op].contains {
                    $0 > ended && $0 <= end && c.event($0).kind.isDid(.isFinished, .bool(true))
                }
                if !executing || !finished {
                    r.violations.append(
                        c.violation(
                            RuleID.startKVO,
                            "the default start of op \(op) did not announce "
                                + (executing ? "isFinished YES after main" : "isExecuting YES before main"),
                            "did-change isExecuting YES before main and isFinished YES after it",
                            [s.i, began, ended, end]))
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.startConcurrentNoSuper, .START,
                       "A subclass that overrides start never calls [super start].",
                cites: [Citation(.gnustep, "start"), Citation(.guide, "2.5.3 Table 2-2"), Citation(.zh, "2 (start)")],
                       strength: .documentedMust, needs: [.superStart], subject: .subclass)) { c in
            var r = CheckResult()
            for op in c.allOps where c.kind(op).overridesStart {
                for s in c.startCalls(op) {
                    r.hits += 1
                    let stop = s.end ?? c.events.count
                    if let bad = c.facts.opEvents[op].first(where: {
                        $0 > s.i && $0 < stop && c.event($0).kind.isSuperStartCall
                    }) {
                        r.violations.append(
                            c.violation(
                                RuleID.startConcurrentNoSuper, "op \(op)'s start called [super start]",
                                "an overriding start must not call super", [s.i, bad]))
                    }
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.startDefaultIgnoresFlag, .START,
                "The default start runs main synchronously on the thread that called it even for an operation whose "
                    + "isConcurrent (isAsynchronous) says YES: the flag alone creates no thread.",
                       cites: [Citation(.zh, "4")],
                       strength: .documentedMust, needs: [.threadIdentity, .superStart])) { c in
            // A subclass that says it is concurrent and leaves start to the default reaches it
            // through [super start] in the scenario format: in Objective-C and Swift a start that
            // only calls super behaves as no override at all. (That subclass breaks its own
            // duties, START-CONCURRENT-NO-SUPER and START-CONCURRENT-ASYNC, which judge its code;
            // this rule judges what the runtime's default start then does.)
            var r = CheckResult()
            for op in c.allOps where c.kind(op).reportsConcurrent {
                guard let call = c.indices(op, .call(.superStart)).first, let end = c.facts.returned(call),
                      !(c.facts.cancelCalledAt[op].map { $0 < end } ?? false), !c.facts.finishing(op, before: call),
                      !c.indices(op, .kind(.mainBegan)).contains(where: { $0 < call }) else { continue }
                r.hits += 1
                let thread = c.event(call).thread
                let began = c.firstIndex(op, after: call, .kind(.mainBegan))
                let ended = began.flatMap { b in c.firstIndex(op, after: b, .kind(.mainEnded)) }
                if let b = began, c.event(b).thread != thread {
                    r.violations.append(c.violation(RuleID.startDefaultIgnoresFlag,
                            "[super start] on op \(op), which says it is concurrent, ran main on thread "
                                + "\(c.event(b).thread), not on the calling thread \(thread)",
                        "the default start runs main on the calling thread whatever isConcurrent says", [call, b]))
                } else if began == nil || began! > end || ended == nil || ended! > end {
                    r.violations.append(c.violation(RuleID.startDefaultIgnoresFlag,
                            "[super start] on op \(op), which says it is concurrent, returned before "
                                + "its main had run to its end",
                        "the default start runs main synchronously, inside the call", [call, began, end]))
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.startConcurrentAsync, .START,
                "A concurrent operation's start does not run its main on the thread that called start; start returns "
                    + "and the task goes on elsewhere.",
                       cites: [Citation(.guide, "2.2"), Citation(.guide, "Listing 2-6"), Citation(.zh, "2")],
                       strength: .documentedMust, needs: [.threadIdentity], subject: .subclass)) { c in
            var r = CheckResult()
            for op in c.allOps where c.kind(op).reportsConcurrent {
                for s in c.startCalls(op) where !s.threw {
                    guard let began = c.firstIndex(op, after: s.i, .kind(.mainBegan)) else { continue }
                    r.hits += 1
                    if c.event(began).thread == s.thread, began < (s.end ?? c.events.count) {
                        r.violations.append(
                            c.violation(
                                RuleID.startConcurrentAsync,
                                "concurrent op \(op) ran main inside start, on the calling thread",
                                "start sets up another thread and returns", [s.i, began]))
                    }
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.startUnqueuedWaits, .START,
                "An operation never given to a queue is never started by the runtime: its task begins only after the "
                    + "program calls its start, even once it is ready.",
                cites: [Citation(.guide, "2.6.1"), Citation(.guide, "2.5.3 Table 2-2"), Citation(.guide, "2.9.2")],
                       strength: .documentedMust)) { c in
            var r = CheckResult()
            // Operations some add call names, accepted or not, begun or not: a queue may have them.
            let offered = c.queuesOffered()
            for op in c.allOps where offered[op].isEmpty {
                guard let began = c.taskBegins(op).first else { continue }
                r.hits += 1
                // A start the runtime refused (not ready, say) asked for nothing: the task must
                // wait for one it accepts.
                let byProgram = c.startCalls(op).first { $0.by != .queue && !$0.threw }
                if byProgram.map({ $0.i > began }) ?? true {
                    r.violations.append(c.violation(RuleID.startUnqueuedWaits,
                        "op \(op), never given to a queue, began its task without a call to its start",
                        "the task of an operation run by hand begins in the start the program calls", [began]))
                }
            }
            return r
        },
    ]
}
