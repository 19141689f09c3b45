// READY: when an operation reports itself ready (003 isReady, addDependency; 004 2.6.1, 2.9.2, 2.5.4).

extension RuleBook {
    static let readiness: [RuleCheck] = [
        RuleCheck(Rule(RuleID.readyDepsUnfinished, .READY,
                "An operation with an unfinished dependency reports isReady NO, unless it is "
                    + "cancelled, executing or finished.",
                cites: [
                    Citation(.gnustep, "addDependency:, isReady"), Citation(.guide, "2.6.1"), Citation(.guide, "2.9.2")
                ],
                       strength: .documentedMust)) { c in
            var r = CheckResult()
            for op in c.allOps {
                // Its task beginning inside start shows it executing as surely as a report does:
                // a driver that cannot read isExecuting (no KVO) still shows main begin.
                let started = c.startedTask(op)
                // A will-change's value is isReady's when it was sent: a report like a read.
                for report in c.observations(op, .isReady) {
                    let i = report.i
                    if c.facts.cancelCalledAt[op].map({ $0 < i }) == true
                        || c.facts.executingAt[op].map({ $0 < i }) == true
                        || started.map({ $0 < i }) == true || c.facts.finishing(op, before: i) { continue }
                    guard
                        let pending = c.facts.dependencies(of: op, at: i).first(where: {
                            !c.facts.finishing($0, before: i)
                        })
                    else { continue }
                    r.hits += 1
                    if report.value == .bool(true) {
                        r.violations.append(c.violation(RuleID.readyDepsUnfinished,
                            "op \(op) reported isReady YES while its dependency op \(pending) had not finished",
                            "isReady NO until every dependency has finished", [i]))
                    }
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.readyAfterDeps, .READY,
                "Once every dependency of an operation has finished and said so, the operation reports isReady YES.",
                       cites: [Citation(.gnustep, "isReady"), Citation(.guide, "2.6.1")],
                       strength: .documentedMust, needs: [.kvo])) { c in
            var r = CheckResult()
            for op in c.allOps {
                for report in c.reports(op, .isReady) where report.isRead && !c.overrideHolds(op, at: report.i) {
                    let i = report.i
                    let deps = c.facts.dependencies(of: op, at: i)
                    // Every dependency must have delivered its finish, its observers must be done
                    // (the notifying thread moved past the burst), and the read began after that.
                    let known = deps.allSatisfy { d in
                        c.facts.notifiedFinishedAt[d].map {
                            c.facts.burstOver($0, before: i) && c.facts.began(i, after: c.facts.nextOnThread[$0])
                        } ?? false
                    }
                    guard known else { continue }
                    r.hits += 1
                    if report.value == .bool(false) {
                        r.violations.append(
                            c.violation(
                                RuleID.readyAfterDeps,
                                deps.isEmpty
                                    ? "op \(op) reported isReady NO with no dependency in force"
                                    : "op \(op) reported isReady NO after its dependencies "
                                        + "\(deps.map { "op \($0)" }.joined(separator: ", ")) had all finished",
                                "isReady YES once every dependency has finished",
                                [i] + deps.map { c.facts.notifiedFinishedAt[$0] }))
                    }
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.readyCancelled, .READY,
                       "A cancelled operation reports isReady YES even while it has unfinished dependencies.",
                       cites: [Citation(.gnustep, "isReady"), Citation(.guide, "2.9.2 (Listing 2-8 commentary)")],
                       strength: .documentedMust)) { c in
            var r = CheckResult()
            for op in c.allOps {
                guard let cancelCall = c.indices(op, .call(.cancel)).first,
                      let done = c.facts.returned(cancelCall),
                      !c.facts.finishing(op, before: cancelCall) else { continue }
                // A will-change that began after cancel returned carries isReady as it was then.
                for report in c.observations(op, .isReady)
                where c.facts.began(report.i, after: done) && !c.overrideHolds(op, at: report.i) {
                    guard
                        c.facts.dependencies(of: op, at: report.i).contains(where: {
                            !c.facts.finishing($0, before: report.i)
                        })
                    else { continue }
                    r.hits += 1
                    if report.value == .bool(false) {
                        r.violations.append(
                            c.violation(
                                RuleID.readyCancelled,
                                "op \(op) reported isReady NO after cancel returned", "a cancelled operation is ready",
                                [cancelCall, done, report.i]))
                    }
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.readyExecutingFinished, .READY,
                       "An executing or finished operation reports isReady YES.",
                       cites: [Citation(.gnustep, "isReady")], strength: .documentedMust)) { c in
            var r = CheckResult()
            for op in c.allOps {
                // Executing is shown by a report, or by the task beginning inside the default start.
                let marks = [c.facts.executingAt[op], c.facts.finishedAt[op], c.startedTask(op)].compactMap { $0 }
                guard let mark = marks.min() else { continue }
                for report in c.observations(op, .isReady)
                where c.facts.began(report.i, after: mark) && !c.overrideHolds(op, at: report.i) {
                    // isReady follows from the state: a will-change of it sent in the same burst as
                    // the change to executing or finished announces the readiness change that
                    // change causes, and carries the value from before (the reference engine
                    // recomputes isReady right after it stores executing). Sent any later, its NO
                    // is a report like a read's.
                    if report.source == .willChange && c.inBurstOfStateChange(op, report.i) { continue }
                    r.hits += 1
                    if report.value == .bool(false) {
                        r.violations.append(
                            c.violation(
                                RuleID.readyExecutingFinished,
                                "op \(op) reported isReady NO after it had been executing or finished", "isReady YES",
                                [mark, report.i]))
                    }
                }
            }
            return r
        },
        RuleCheck(
            Rule(
                RuleID.readyKVO, .READY,
                "A change of an operation's isReady is announced: a will-change for isReady comes before "
                    + "any report of the new value.",
                cites: [Citation(.guide, "2.5.4"), Citation(.guide, "2.6.1")], strength: .documentedMust, needs: [.kvo])
        ) { c in
            var r = CheckResult()
            for op in c.allOps {
                var last: Value?, lastAt = 0
                var announced = false
                // The will-change the signalling code sends when it lifts an isReady override
                // (readyAfterSignal): by the subclass's design the getter already says the new
                // value when it is sent, so its value is not the one before an announced change.
                let lift = c.overrideLiftNotice(op)
                for (i, k) in c.opEvents(op, .keys(.isReady, nil)) {
                    switch k {
                    case .willChange(_, .isReady, let v):
                        // A will-change carries isReady before the change it announces: a value
                        // other than the last one seen, taken surely after it, shows an earlier
                        // change that no will-change announced (a silent change, then a notified one).
                        if i != lift, let prev = last, prev != v, c.facts.began(i, after: lastAt) {
                            r.hits += 1
                            if !announced {
                                r.violations.append(c.violation(RuleID.readyKVO,
                                        "op \(op)'s isReady went from \(prev) to \(v) with no will-change notification "
                                            + "(the next will-change carried \(v))",
                                    "every change of isReady is notified", [lastAt, i]))
                            }
                        }
                        announced = true
                        last = v
                        lastAt = i
                    case .didChange(_, .isReady, let v), .read(_, .isReady, let v):
                        if let prev = last, prev != v {
                            r.hits += 1
                            if !announced {
                                r.violations.append(c.violation(RuleID.readyKVO,
                                    "op \(op)'s isReady went from \(prev) to \(v) with no will-change notification",
                                    "every change of isReady is notified", [i]))
                            }
                        }
                        last = v
                        lastAt = i
                        if case .didChange = k { announced = false }
                    default: break
                    }
                }
            }
            return r
        },
        RuleCheck(Rule(RuleID.readyOverride, .READY,
                "A queue does not start an operation whose overridden isReady still says NO: an operation with custom "
                    + "readiness runs only once its own isReady allows it.",
                       cites: [Citation(.guide, "2.6.1"), Citation(.guide, "2.9.2"), Citation(.guide, "2.5.4")],
                       strength: .documentedMust, needs: [.apiSurface2])) { c in
            var r = CheckResult()
            for op in c.allOps {
                guard let t = c.scenario.operations[op].readyAfterSignal else { continue }
                let signal = c.facts.indices(.kind(.signal)).first {
                    if case .signal(t) = c.event($0).kind { return true }; return false
                }
                for s in c.startCalls(op) where s.by == .queue {
                    r.hits += 1
                    if signal.map({ $0 > s.i }) ?? true {
                        r.violations.append(c.violation(RuleID.readyOverride,
                                "queue started op \(op) while its isReady override still said NO (token \(t) "
                                    + (signal == nil ? "was never signalled)" : "was signalled only later)"),
                            "started only once isReady says YES", [c.facts.addedAt[op]?.call, s.i, signal]))
                    }
                }
            }
            return r
        },
    ]
}
