import OperationSpec

/// The corpus of asynchronous `Operation` base classes written in the styles found in the wild
/// (issue 29 item 6), with the defects each has by the documents: the labels `opconform flaws
/// --corpus` measures the harness against.
///
/// The classes themselves are in the `corpus-driver` fixture (`Tests/CorpusDriver/`, one file
/// per class), written for this corpus: public code taught the styles, none of it is copied.
/// Each is wired to a `SubclassProbe` the way the sample driver is, and keeps its style's own
/// mechanics (KVO calls, locks, queues, dependent keys); the probe only observes. The driver
/// serves one class, chosen by `--class NAME`, a name of `entries`.
///
/// A label says which rules of the catalog should catch the defect and whether Foundation on
/// Linux can show it at all: it has no KVO notifications to observers, no dependent keys and
/// no Objective-C exceptions, and a data race need not show in a trace.
package enum StyleCorpus {
    /// Whether a defect can show in a trace of Foundation on Linux.
    package enum Visibility: String, Sendable, Codable, Equatable {
        /// The trace can show it: a rule should catch it (recall counts it).
        case visible
        /// Not a defect of the class: the class is right by the documents and on Darwin, but a
        /// limit of Foundation on Linux makes it misbehave there. What the harness reports of it
        /// is the platform's, so a report of its rules is a false alarm (misattributed).
        case platformLimit = "platform-limit"
        /// A defect of the class that no trace of these cases can show (a data race without a
        /// sanitizer, a KVO order no observer sees on Linux, a path the probe never takes).
        case invisible
        /// A weakness only a misuse of the API shows (a second start of a finished operation),
        /// and only a warning shows it (START-FINISHED-OWN, under the class-reference profile
        /// Foundation on Linux follows). Drawn at the misuse rate, so a run finds it by chance:
        /// its reports are true, and neither recall nor the exit status counts it.
        case misuse
    }

    /// One defect of a class, by the documents.
    package struct Defect: Sendable, Codable, Equatable {
        /// Short, unique within its class.
        public var id: String
        public var summary: String
        /// Where the documents put the duty it breaks, as `Specs/rules.md` cites (004 sections,
        /// 003 method docs).
        public var cites: [String]
        /// The rules of the catalog that should catch it (for a platform limit: the rules the
        /// harness blames on the class). Empty when no rule of the catalog states the duty.
        public var rules: [String]
        package var visibility: Visibility
        /// Why it is invisible, or what the platform lacks.
        public var why: String?

        public init(_ id: String, _ summary: String, cites: [String], rules: [String],
                    _ visibility: Visibility = .visible, why: String? = nil) {
            self.id = id
            self.summary = summary
            self.cites = cites
            self.rules = rules
            self.visibility = visibility
            self.why = why
        }
    }

    /// One class of the corpus.
    public struct Entry: Sendable, Codable, Equatable {
        /// What `--class` takes.
        public var name: String
        /// The style, in one line.
        public var style: String
        package var defects: [Defect]
        /// The defects a trace can show: what recall is counted over.
        public var visible: [Defect] { defects.filter { $0.visibility == .visible } }
    }

    /// The entry named `name`, if any.
    public static func entry(_ name: String) -> Entry? { entries.first { $0.name == name } }

    /// What a data race is to a trace.
    static let race = "a data race: not visible without a sanitizer (Specs/not-rules.md, 004 2.5.3)"
    static let threadSafe =
        "004 2.5.3 Table 2-2 (isExecuting, isFinished: safe to call from other threads simultaneously)"
    /// A start that checks isCancelled and nothing else: started again once finished, the
    /// class runs its task again and says it executes (the class reference: the default start of
    /// a finished operation returns without running anything; the guide calls the call the
    /// caller's error, 004 2.7.2, so only the class-reference profile's warning tells it).
    static let runsAgain = Defect("runs-again", "started again once finished, it runs its task again",
                                  cites: ["004 2.7.2", "class reference start (not a seed document)"],
                                  rules: [RuleID.startFinishedOwn], .misuse,
                                  why: "shown only by a second start, a misuse drawn at the misuse rate")

    /// What an operation that never finishes for its queue breaks: its own finish, then the
    /// waits, the queue's slot and its completion block.
    static let neverFinished = [
        RuleID.cancelBeforeStartFinishes, RuleID.stateFinishedRegardless, RuleID.runHang, RuleID.queueWaitAll,
        RuleID.queueWaitOp, RuleID.queueAddWait, RuleID.queueRemovesFinished, RuleID.queueProgress,
        RuleID.queueSuspendRunningContinue, RuleID.completionOnce,
    ]
    /// What an operation that reports finished while its task runs should break (it also stops
    /// reporting executing before its task is done).
    static let finishedEarly = [
        RuleID.stateFinishedAfterTask, RuleID.stateExecutingDuringTask, RuleID.depOrder, RuleID.depAcrossQueues,
        RuleID.completionAfterFinish, RuleID.queueWaitOp, RuleID.queueWaitAll
    ]

    public static let entries: [Entry] = [
        Entry(name: "state-kvo", style: "a state enum whose willSet/didSet send will/did-change pairs for the old and "
                + "new state's key (\"isExecuting\", \"isFinished\"; #keyPath on Darwin), no lock", defects: [
            Defect("unlocked-state", "state is read by the queue's threads and written by the task's with no lock",
                   cites: [threadSafe], rules: [], .invisible, why: race),
            runsAgain,
        ]),
        Entry(name: "dependent-keys", style: "a locked state enum announced only as a change of \"state\", with "
                + "keyPathsForValuesAffectingIsFinished (and ...IsExecuting, ...IsReady) naming it", defects: [
            Defect("no-dependent-keys-on-linux", "the queue is never told the operation finished: Linux's Foundation "
                    + "has no dependent keys, and its queue reacts only to a did-change of isFinished itself",
                   cites: ["004 2.5.4", "004 2.6.1"], rules: neverFinished + [RuleID.depOrder], .platformLimit,
                   why: "correct by 004 2.5.4 and on Darwin (KVO derives isFinished's change from state's); "
                    + "swift-corelibs-foundation has no dependent keys: a platform limit, not the class's defect "
                    + "(excused only because the test subclass declares the keys: probe.declare)"),
            runsAgain,
        ]),
        Entry(name: "undeclared-keys", style: "dependent-keys' class, its test subclass declaring nothing to the probe",
              defects: [
                Defect(
                    "no-dependent-keys-on-linux",
                    "the queue is never told the operation finished (Linux has no dependent "
                        + "keys); nothing declared says `state` affects isFinished, so the "
                        + "harness cannot tell this class "
                        + "from one that announces a wrong key: its hangs are unconfirmed, neither failed nor excused",
                    cites: ["004 2.5.4", "004 2.6.1"], rules: neverFinished + [RuleID.depOrder], .platformLimit,
                    why: "correct on Darwin; unprovable on Linux without the declaration"),
            runsAgain,
        ]),
        Entry(name: "no-kvo", style: "a locked state enum changed with no will- or did-change at all", defects: [
                Defect(
                    "finish-unannounced",
                    "the operation never announces that it finished: no queue learns it, on Darwin "
                        + "as on Linux, and every wait for it hangs",
                    cites: ["004 2.5.3 Table 2-2", "004 2.5.4", "003 start"],
                    rules: [RuleID.subclassFinishAnnounced] + neverFinished + [RuleID.depOrder]),
            runsAgain,
        ]),
        Entry(name: "misspelled-key", style: "locked flags announced through a helper that prefixes \"is\" to a name "
                + "that already has it (isisFinished, isisExecuting)", defects: [
            Defect("finish-misspelled", "the operation announces isisFinished, a key no observer watches: no queue "
                    + "learns it finished, on Darwin as on Linux",
                   cites: ["004 2.5.3 Table 2-2", "004 2.5.4", "003 start"],
                   rules: [RuleID.subclassFinishAnnounced] + neverFinished + [RuleID.depOrder]),
            runsAgain,
        ]),
        Entry(name: "atomic-wrapper", style: "@Atomic property-wrapper flags (a lock inside the wrapper), KVO pairs "
                + "around each set", defects: [
            Defect("check-then-act-finish", "finish tests `finished` and sets it in two locked steps, so two racing "
                    + "finish calls could both announce isFinished",
                   cites: ["004 Listing 2-7", "004 2.5.3"], rules: [RuleID.kvoFinishOnce], .invisible,
                   why: "needs two racing finish calls (the probe finishes once) and KVO to "
                    + "see the second announcement"),
            runsAgain,
        ]),
        Entry(name: "serial-queue", style: "flags guarded by a private serial DispatchQueue: reads with sync, writes "
                + "with async between the will- and did-change (correct: the queued write runs before any later sync "
                + "read, so a reader told of the change sees it)", defects: [runsAgain]),
        Entry(name: "unfair-lock", style: "flags under a pthread mutex (os_unfair_lock on Darwin), "
                + "start never checks isCancelled", defects: [
            Defect("start-ignores-cancel", "start runs the task of an operation cancelled before it started",
                   cites: ["004 2.9.2", "004 2.9.3", "004 Listing 2-6", "000 start", "002 start"],
                   rules: [RuleID.cancelBeforeStartSkipsMain]),
            Defect("cancelled-start-executes", "started after a cancel, it reports isExecuting YES instead of going "
                    + "straight to finished",
                   cites: ["004 Listing 2-6", "001 Start"], rules: [RuleID.kvoCancelledStart], .invisible,
                   why: "KVO-CANCELLED-START needs KVO, which Foundation on Linux does not deliver to observers"),
            runsAgain,
        ]),
        Entry(name: "no-start", style: "only isAsynchronous YES and main, which starts the task and returns: the "
                + "default start runs main synchronously and finishes the operation when main returns", defects: [
            Defect("finished-before-task", "the operation reports finished while its task still runs, so dependents "
                    + "and waits go on before the work is done",
                   cites: ["004 2.5.3 Table 2-2 (start: all concurrent operations must override it)", "004 2.6.1",
                           "004 2.9.4"],
                   rules: finishedEarly),
        ]),
        Entry(name: "cancel-finishes", style: "locked flags and a cancel override that calls finish(), running or not",
              defects: [
            Defect("cancel-finishes-running", "cancelled while its task runs, it reports finished at once: dependents "
                    + "and waits go on while the task still runs",
                   cites: ["004 2.5.2", "003 cancel", "004 2.5.3 Table 2-2"], rules: finishedEarly),
            Defect("cancel-finishes-unstarted", "cancelled in a queue before it starts, it reports finished before "
                    + "its start was called",
                   cites: ["004 2.5.3 Table 2-2", "004 Listing 2-6", "001 Start"],
                   // Foundation then still starts it, and runs its completion block once for the
                   // did-change and again when that start returns; and a queue given the finished
                   // operation traps ("operations finished ... cannot be enqueued", Operation.swift
                   // 1196): a crash the class causes, which no known divergence of Foundation's
                   // excuses (their causes are a start by hand, a late block, a second add).
                   rules: [RuleID.subclassFinishAfterStart, RuleID.completionOnce, RuleID.runCrash]),
            runsAgain,
        ]),
        Entry(name: "ready-state", style: "a locked state enum and isReady overridden as "
                + "`state == .ready && super.isReady`", defects: [
            Defect("not-ready-once-started", "isReady turns NO once the operation starts, and stays NO when finished",
                   // A cancel of a started or finished operation then reads NO too (READY-CANCELLED:
                   // reached since the reach episodes cancel operations as they start and once
                   // finished; seen in one long CI run of 100 cases, op 4).
                   cites: ["003 isReady"], rules: [RuleID.readyExecutingFinished, RuleID.readyCancelled]),
            runsAgain,
        ]),
        Entry(name: "block-handler", style: "a block-based task given a completion handler; finish() is called from "
                + "the handler; start returns at once when cancelled", defects: [
            Defect("cancelled-never-finishes", "started after a cancel, start returns without finishing: the "
                    + "operation never becomes finished and its queue waits for ever",
                   cites: ["004 2.9.3", "004 2.5.3", "003 cancel", "004 Listing 2-6"], rules: neverFinished),
            runsAgain,
        ]),
        Entry(name: "deinit-token", style: "locked flags; the task holds a token whose deinit finishes the operation",
              defects: [
            Defect("finish-on-release", "the operation finishes when the last reference to the token goes, not when "
                    + "the task says it is done: a closure kept elsewhere would leave it unfinished for ever",
                   cites: ["004 2.5.3", "003 isFinished"], rules: [RuleID.stateFinishedRegardless], .invisible,
                   why: "the probe drops its closure when its task ends, so the token goes "
                    + "then: the path is not taken"),
            runsAgain,
        ]),
        Entry(name: "ready-writes", style: "a locked state enum whose isReady getter writes state = .ready whenever "
                + "super.isReady is YES", defects: [
            Defect("ready-read-resets-state", "reading isReady sends a running or finished operation back to ready: "
                    + "isExecuting and isFinished turn NO",
                   cites: ["003 isFinished", "004 2.5.3", "003 isReady"],
                   // A wait for an operation sent back to ready never returns: RUN-HANG too (once the
                   // probe's read lock was made recursive; before, the probe deadlocked first). A
                   // cancel after the finish then takes effect on the operation sent back to ready
                   // (CANCEL-FINISHED-NOOP: reached since the reach episodes cancel finished ones).
                   // The getter's write of .ready and its read back are not one step: the task's
                   // thread may write .executing or .finished in between, and the getter says NO
                   // (READY-EXECUTING-FINISHED: once in 30 cases of a loaded suite, 2026-12-07).
                   rules: [RuleID.cancelFinishedNoop, RuleID.stateFinishedMonotonic, RuleID.stateExecutingDuringTask,
                           RuleID.stateFinishedRegardless, RuleID.subclassFinishAfterStart,
                           RuleID.stateNotExecutingBeforeStart, RuleID.queueWaitAll, RuleID.queueWaitOp,
                           RuleID.queueAddWait, RuleID.runHang, RuleID.readyExecutingFinished]),
            runsAgain,
        ]),
        Entry(name: "unsynchronised", style: "plain stored flags with KVO pairs, written from the task's thread and "
                + "read from the queue's, no lock", defects: [
            Defect("data-race", "the flags are written and read from several threads with no synchronisation",
                   cites: [threadSafe], rules: [], .invisible, why: race),
            runsAgain,
        ]),
        Entry(name: "flag-only", style: "locked isExecuting and isFinished flags, isAsynchronous YES and no start: "
                + "main sets the task off and the task's end stores finished with its KVO pair", defects: [
            Defect("executing-never-set", "nothing stores executing, so the operation reports isExecuting NO for as "
                    + "long as its task runs",
                   cites: ["004 2.5.3 Table 2-2 (report when it is executing its task)", "004 Listing 2-6"],
                   rules: [RuleID.stateExecutingDuringTask]),
            Defect("cancelled-never-finishes", "cancelled before it starts, the default start skips main, which "
                    + "alone stores finished: the operation never reports finished and its queue waits for ever",
                   cites: ["004 2.9.3", "004 2.5.3", "003 cancel"], rules: neverFinished),
        ]),
        Entry(name: "finish-order", style: "locked flags and Listing 2-6's start; the finish announces finished, "
                + "then resets executing, each with its own KVO pair", defects: [
            Defect("finished-before-executing-reset", "between the two stores the operation reports isExecuting and "
                    + "isFinished both YES, and the queue reads the flags inside the first did-change",
                   cites: ["004 Listing 2-7", "003 isFinished"], rules: [RuleID.stateExclusive]),
            runsAgain,
        ]),
        Entry(name: "finish-twice", style: "locked flags, a careful start, and an unguarded finish that the task's "
                + "completion handler calls and a leftover cleanup path calls again", defects: [
            Defect("finishes-twice", "every operation announces isFinished twice",
                   cites: ["004 Listing 2-7", "004 2.5.3"], rules: [RuleID.kvoFinishOnce], .invisible,
                   why: "KVO-FINISH-ONCE needs the notifications, and Foundation on Linux delivers none to observers; "
                    + "its queue ignores the second move to finished (Operation.swift, observeValue returns once "
                    + "the state is finished), so nothing differs. The flaw finishes-twice shows it where KVO is seen"),
            runsAgain,
        ]),
        Entry(name: "careful-lock", style: "a state enum under NSLock; start checks isCancelled; finish announces "
                + "isFinished and isExecuting in Listing 2-7's order", defects: []),
        Entry(name: "careful-mutex", style: "flags in a Synchronization Mutex; start checks "
                + "isCancelled; finish is idempotent", defects: [runsAgain]),
        Entry(name: "cancel-unfinishes", style: "a locked state enum with a cancelled state of its own, which cancel() "
                + "sets on any operation not executing", defects: [
            Defect("cancel-unfinishes", "cancelling a finished operation sends it back to not finished",
                   cites: ["003 cancel", "003 isFinished"],
                   // Knock-ons: a wait that returned once the operation finished is then judged
                   // against a NO; a second cancel then finds it unfinished and cancels it.
                   // A wait for an operation a cancel sent back is never answered when nothing
                   // finishes it again: a hang (seen in 6 and 7 of 30 cases of loaded runs).
                   rules: [RuleID.stateFinishedMonotonic, RuleID.cancelFinishedNoop, RuleID.queueWaitAll,
                           RuleID.queueWaitOp, RuleID.queueAddWait, RuleID.runHang]),
            runsAgain,
        ]),
        Entry(name: "cancel-flag", style: "careful-lock's class with a cancelled flag of its own, which cancel() "
                + "sets whatever the state", defects: [
            Defect("cancel-after-finish-cancels", "a finished operation cancelled later reports isCancelled YES",
                   cites: ["003 cancel"], rules: [RuleID.cancelFinishedNoop]),
        ]),
        Entry(name: "main-first", style: "careful-lock's class whose start sets the task off on a global queue "
                + "and says it executes 2 ms later", defects: [
            Defect("task-before-executing", "the task runs while the operation still reports isExecuting NO",
                   cites: ["004 2.5.3 Table 2-2", "003 isExecuting"], rules: [RuleID.stateExecutingDuringTask]),
        ]),
        Entry(name: "two-step-finish", style: "locked flags; the finish sets isExecuting NO with one KVO pair, then "
                + "isFinished YES with another (swift-corelibs-foundation's own test operation)", defects: [runsAgain]),
    ]
}
