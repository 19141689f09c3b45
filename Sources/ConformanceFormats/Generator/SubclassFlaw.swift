import OperationSpec

/// A mistake the author of a concurrent subclass can make, one for each duty the documents put
/// on that author (004 2.5.3 "Configuring Operations for Concurrent Execution", 2.5.4
/// "Maintaining KVO Compliance", 2.9.3 "Responding to the Cancel Command"; 001, 002, 000, 003).
/// With `--flaw-rate R`, R % of the generated concurrent subclasses carry one of them, drawn
/// from `--flaws LIST` (all of them by default). `opconform flaws` lists them.
///
/// A flaw is the correct program of Listings 2-5 to 2-7 with one thing changed, and for the
/// two flaws that live in code outside `start` and `main` (a cancel handler, a timeout) a
/// driver step that runs that code. `expectedRules` are the rules written to catch it; a flaw
/// must be caught by one of them on the reference engine within a bounded number of cases
/// (`SubclassFlawTests`). Whether an implementation lets it be seen is measured, not assumed:
/// `unprefixed-keys` is no flaw on swift-corelibs-foundation, which takes `finished` for
/// `isFinished`.
public enum SubclassFlaw: String, Sendable, CaseIterable, Codable, Equatable {
    case stateAfterDispatch = "state-after-dispatch"
    case changeWithoutNotify = "change-without-notify"
    case callsSuperStart = "calls-super-start"
    case noCancelCheck = "no-cancel-check"
    case notConcurrent = "not-concurrent"
    case cancelledNeverFinishes = "cancelled-never-finishes"
    case finishesWhileQueued = "finishes-while-queued"
    case notifyBeforeSet = "notify-before-set"
    case notifyWithoutChange = "notify-without-change"
    case unprefixedKeys = "unprefixed-keys"
    case finishesTwice = "finishes-twice"
    case synchronousStart = "synchronous-start"
    case executingLeftSet = "executing-left-set"
    case unlockedState = "unlocked-state"
    case finishesBeforeWork = "finishes-before-work"
    /// Issue 34: SUBCLASS-START-RUNS-MAIN's flaw, a flaw under the gnustep profile only (004
    /// Table 2-2 makes main optional for a concurrent subclass; 003 start requires it).
    case startSkipsMain = "start-skips-main"

    /// What the subclass does wrong, in one sentence.
    public var summary: String {
        switch self {
        case .stateAfterDispatch:
            return
                "start detaches main before it sets executing (Listing 2-6's order), so main may finish first and "
                    + "executing is set after"
        case .changeWithoutNotify:
            return "completeOperation stores executing and finished without will/did-change notifications"
        case .callsSuperStart: return "start calls [super start]"
        case .noCancelCheck: return "start does not check isCancelled: a cancelled operation runs its task"
        case .notConcurrent:
            return "the subclass does not override isConcurrent, so it reports NO though start returns at once"
        case .cancelledNeverFinishes: return "start returns on a cancelled operation without moving it to finished"
        case .finishesWhileQueued:
            return "its cancel handler finishes the operation at once, though the queue has not started it"
        case .notifyBeforeSet:
            return "completeOperation sends did-change isFinished before it stores finished, so observers read NO"
        case .notifyWithoutChange: return "completeOperation notifies isFinished but never stores finished = YES"
        case .unprefixedKeys: return "the notifications name the keys without `is` (\"executing\", \"finished\")"
        case .finishesTwice: return "main calls completeOperation twice, so isFinished is announced twice"
        case .synchronousStart: return "start calls main itself: the task runs on the thread that called start"
        case .executingLeftSet: return "completeOperation sets finished but leaves executing YES"
        case .unlockedState:
            return
                "main and a timeout on another thread both finish it if finished is NO, reading and "
                    + "writing the flag with no lock"
        case .finishesBeforeWork:
            return
                "main calls completeOperation before its work: the operation reports finished while its task still runs"
        case .startSkipsMain:
            return "start does the task itself and never runs main (a flaw under the gnustep profile only)"
        }
    }

    /// Where the documents put the duty this flaw breaks.
    public var duty: String {
        switch self {
        case .stateAfterDispatch:
            return "004 Listing 2-6 (its own race); 004 2.5.3 Table 2-2 (isExecuting reports the task's state)"
        case .changeWithoutNotify:
            return "004 2.5.3 Table 2-2 (generate the KVO notifications when changing the values); 004 2.5.4"
        case .callsSuperStart: return "004 2.5.3 Table 2-2 (start must not call super at any time); 003 start"
        case .noCancelCheck:
            return "004 2.9.3 and Listing 2-6 (always check for cancellation before launching the task); 000; 001 Start"
        case .notConcurrent: return "004 2.5.3 Table 2-2 (isConcurrent: override and return YES); 000; 002"
        case .cancelledNeverFinishes:
            return "004 Listing 2-6 (must move the operation to the finished state if it is canceled); 004 2.5.3"
        case .finishesWhileQueued:
            return
                "004 2.5.3 Table 2-2 (start is the starting point; isFinished reports that the task has "
                    + "finished); 004 Listing 2-6"
        case .notifyBeforeSet: return "004 Listing 2-7 (the values change between will- and did-change); 004 2.5.4"
        case .notifyWithoutChange:
            return "004 2.5.3 Table 2-2 (notifications for changing the values reported); 004 Listing 2-7"
        case .unprefixedKeys: return "004 2.5.4 (the key paths are isExecuting and isFinished); 004 Listing 2-6, 2-7"
        case .finishesTwice:
            return "004 Listing 2-7 (one completeOperation); 004 2.5.3 (finished once its task has finished)"
        case .synchronousStart: return "004 2.2 and 2.5.3 (start starts the task asynchronously and returns); 002 2"
        case .executingLeftSet: return "004 Listing 2-7 (executing = NO with finished = YES); 003 isExecuting"
        case .unlockedState:
            return
                "004 2.5.3 Table 2-2 (isExecuting and isFinished must be safe to call from other threads "
                    + "simultaneously)"
        case .finishesBeforeWork:
            return
                "003 isFinished (YES once main has finished); 004 2.5.3 Table 2-2 (report when "
                    + "it has finished its task)"
        case .startSkipsMain:
            return
                "003 start (a concurrent subclass's start must execute the -main method); 000 start; 002 2 (main). 004 "
                    + "Table 2-2 makes main optional"
        }
    }

    /// The rules written to catch the flaw: one of them must fail on the reference engine.
    public var expectedRules: [String] {
        switch self {
        case .stateAfterDispatch: return [RuleID.stateExclusive]
        case .changeWithoutNotify: return [RuleID.kvoSetBracketed, RuleID.kvoFinishAlways]
        case .callsSuperStart: return [RuleID.startConcurrentNoSuper]
        case .noCancelCheck: return [RuleID.kvoCancelledStart, RuleID.cancelBeforeStartSkipsMain]
        case .notConcurrent: return [RuleID.subclassConcurrentFlag]
        case .cancelledNeverFinishes:
            return [RuleID.kvoCancelledStart, RuleID.cancelBeforeStartFinishes, RuleID.stateFinishedRegardless]
        case .finishesWhileQueued: return [RuleID.subclassFinishAfterStart]
        case .notifyBeforeSet: return [RuleID.kvoSetBracketed]
        case .notifyWithoutChange: return [RuleID.kvoFinishChanges, RuleID.stateFinishedRegardless]
        case .unprefixedKeys: return [RuleID.kvoSetBracketed, RuleID.kvoFinishAlways]
        case .finishesTwice: return [RuleID.kvoFinishOnce, RuleID.kvoFinishChanges]
        case .synchronousStart: return [RuleID.startConcurrentAsync]
        case .executingLeftSet: return [RuleID.stateExclusive]
        case .unlockedState: return [RuleID.kvoFinishOnce, RuleID.kvoFinishChanges]
        case .finishesBeforeWork: return [RuleID.stateFinishedAfterTask]
        case .startSkipsMain: return [RuleID.subclassStartRunsMain]
        }
    }

    /// The profile under which the flaw is one: `gnustep` for a duty only 003 and the articles
    /// state, `guide` for the rest. `FlawProbe` judges the flaw under it.
    public var profile: Profile { self == .startSkipsMain ? .gnustep : .guide }

    /// What a flawed subclass is drawn from when `--flaws` names none: the 14 flaws of
    /// generator version 2. A flaw added to the catalog since is drawn only when named (or with
    /// `--flaws all`), so that every seed of a flawed run still builds the bytes it built, and a
    /// finding written before still replays its own case.
    package static let drawnByDefault: [SubclassFlaw] = allCases.filter {
        $0 != .finishesBeforeWork && $0 != .startSkipsMain
    }

    /// Reads `--flaws LIST`: names separated by commas, or `all`. An unknown name is refused
    /// with the list of names.
    package static func parseList(_ text: String) throws(InputError) -> [SubclassFlaw] {
        if text == "all" { return allCases }
        var out: [SubclassFlaw] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false).map({ String($0) }) {
            guard let flaw = SubclassFlaw(rawValue: part) else {
                let names = allCases.map(\.rawValue)
                throw InputError(
                    "--flaws: \"\(part)\" is not a flaw\(KeySuggestion.clause(for: part, among: names)); the flaws "
                        + "are: \(names.joined(separator: ", ")) (or all; `opconform flaws` says what each is)"
                )
            }
            if !out.contains(flaw) { out.append(flaw) }
        }
        return out.sorted { $0.order < $1.order }
    }

    /// Position in the catalog, which orders every list of flaws.
    public var order: Int { Self.allCases.firstIndex(of: self)! }

    // MARK: Programs

    /// The correct program with this flaw in it; the driver-side part, if any, is the
    /// generator's (`driverPart`).
    package func apply(to correct: ConcurrentProgram) -> ConcurrentProgram {
        var p = correct
        let complete = ConcurrentProgram.completeOperation
        switch self {
        case .stateAfterDispatch:
            // [cancel check, will isExecuting], then main detached, then the store and the did.
            // main does no work, as in the guide's sample ("Do the main work" is empty): the race
            // is main finishing before start stores executing, and a task that takes time, or
            // checks for cancellation between units, all but closes it.
            p.start =
                Array(p.start.prefix(2)) + [.spawn(.main, .this), .set(.isExecuting, true), .didChange(.isExecuting)]
            p.main = [.call("completeOperation")]
        case .changeWithoutNotify:
            p.routines = [Routine("completeOperation", [.set(.isExecuting, false), .set(.isFinished, true)])]
        case .callsSuperStart:
            p.start = [.callSuperStart]
        case .noCancelCheck:
            p.start.removeFirst()
        case .notConcurrent:
            p.overridesIsConcurrent = false
        case .cancelledNeverFinishes:
            p.start[0] = .if(.isCancelled(.this), then: [.return], else: [])
        case .finishesWhileQueued:
            break  // the program is correct; its cancel handler is the driver's part
        case .notifyBeforeSet:
            p.routines = [
                Routine(
                    "completeOperation",
                    [
                        .willChange(.isFinished), .willChange(.isExecuting), .set(.isExecuting, false),
                        .didChange(.isExecuting), .didChange(.isFinished), .set(.isFinished, true)
                    ])
            ]
        case .notifyWithoutChange:
            p.routines = [Routine("completeOperation", complete.filter { $0 != .set(.isFinished, true) })]
        case .unprefixedKeys:
            func bare(_ steps: [Step]) -> [Step] {
                steps.map { step in
                    switch step {
                    case .willChange(let k): return .willChangeUnprefixed(k)
                    case .didChange(let k): return .didChangeUnprefixed(k)
                    case .if(let c, let a, let b): return .if(c, then: bare(a), else: bare(b))
                    default: return step
                    }
                }
            }
            p.start = bare(p.start)
            p.routines = p.routines.map { Routine($0.name, bare($0.body)) }
        case .finishesTwice:
            p.main.append(.call("completeOperation"))
        case .synchronousStart:
            p.start = p.start.map { $0 == .spawn(.main, .this) ? .callMain : $0 }
        case .executingLeftSet:
            p.routines = [
                Routine(
                    "completeOperation", [.willChange(.isFinished), .set(.isFinished, true), .didChange(.isFinished)])
            ]
        case .unlockedState:
            // `finishIfNeeded`: check, then finish, with no lock between them.
            p.main = p.main.map { $0 == .call("completeOperation") ? .call("finishIfNeeded") : $0 }
            p.routines.append(
                Routine("finishIfNeeded", [.if(.not(.isFinished(.this)), then: [.call("completeOperation")], else: [])])
            )
        case .finishesBeforeWork:
            p.main = [.call("completeOperation")] + p.main.filter { $0 != .call("completeOperation") }
        case .startSkipsMain:
            // main's body, completion included, runs in start on the calling thread instead.
            p.start = p.start.filter { $0 != .spawn(.main, .this) } + p.main
        }
        return p
    }
}
