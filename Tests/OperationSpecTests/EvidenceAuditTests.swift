import OperationSpec
import Testing

/// Issue 18 item 5: a checker must use every piece of evidence a trace holds about a state. A
/// will-change carries the property's value when it was sent (before the change it announces),
/// so it is an observation as much as a read is; an ivar store and a consequence (a completion
/// block beginning, a task beginning inside the default start) show a state too. Each test
/// below is a trace written by hand: a misbehaviour that only the ignored evidence shows (which
/// the checker passed before), or a faithful run the evidence must not turn into an accusation.
@Suite("Checkers use all the evidence (issue 18 item 5)")
struct EvidenceAuditTests {
    // MARK: STATE

    @Test("STATE-EXCLUSIVE: will isExecuting (YES) after did isFinished (YES) is both at once")
    func exclusiveWillAfterFinish() throws {
        var h = Hand()
        h.on(0, .call(.addOperation(0, queue: 0)), .returned(.addOperation(0, queue: 0)))
        h.on(1, .threadStarted(name: "w", queue: 0), .call(.start(0, by: .queue)), will(0, .isExecuting, false), did(0, .isExecuting, true),
             .mainBegan(op: 0, threadPriority: 0.5), .mainEnded(op: 0), will(0, .isFinished, false))
        let finished = h.on(1, did(0, .isFinished, true))
        let executing = h.on(1, will(0, .isExecuting, true))
        h.on(1, did(0, .isExecuting, false), .returned(.start(0, by: .queue)))
        let result = try check("STATE-EXCLUSIVE", Self.queued, h)
        #expect(result.violations.count == 1)
        #expect(result.violations.first?.witnesses == [h.events[finished], h.events[executing]])
    }

    @Test("STATE-EXCLUSIVE: Listing 2-7's order and GNUstep's are not accused", arguments: [true, false])
    func exclusiveFaithfulFinish(listing: Bool) throws {
        var h = Hand()
        h.on(0, .call(.addOperation(0, queue: 0)), .returned(.addOperation(0, queue: 0)))
        h.on(1, .threadStarted(name: "w", queue: 0), .call(.start(0, by: .queue)), will(0, .isExecuting, false), did(0, .isExecuting, true),
             .mainBegan(op: 0, threadPriority: 0.5), .mainEnded(op: 0))
        if listing {
            h.on(1, will(0, .isFinished, false), will(0, .isExecuting, true), did(0, .isExecuting, false), did(0, .isFinished, true))
        } else {
            h.on(1, will(0, .isExecuting, true), will(0, .isFinished, false), did(0, .isFinished, true), did(0, .isExecuting, false))
        }
        h.on(1, .returned(.start(0, by: .queue)))
        h.on(0, .stepIssued(1), .read(op: 0, .isExecuting, .bool(false)))
        let result = try check("STATE-EXCLUSIVE", Self.queued, h)
        #expect(result.violations.isEmpty)
        #expect(result.hits > 0)
    }

    @Test("STATE-EXCLUSIVE: a read of isExecuting YES that began after the completion block began (no KVO)")
    func exclusiveAfterCompletion() throws {
        var h = Hand(Self.noKVO)
        h.on(0, .call(.addOperation(0, queue: 0)), .returned(.addOperation(0, queue: 0)))
        h.on(1, .threadStarted(name: "w", queue: 0), .call(.start(0, by: .queue)), .mainBegan(op: 0, threadPriority: 0.5),
             .mainEnded(op: 0), .returned(.start(0, by: .queue)))
        let completion = h.on(1, .completionBegan(op: 0, threadPriority: 0.5))
        let read = h.on(0, .stepIssued(1), .read(op: 0, .isExecuting, .bool(true)))
        h.on(1, .completionEnded(op: 0))
        let result = try check("STATE-EXCLUSIVE", Self.withCompletion, h)
        #expect(result.violations.map(\.witnesses) == [[h.events[completion], h.events[read]]])
    }

    @Test("STATE-EXCLUSIVE: a read logged after the completion block began but taken before it is not accused")
    func exclusiveReadTakenBeforeCompletion() throws {
        var h = Hand(Self.noKVO)
        h.on(0, .call(.addOperation(0, queue: 0)), .returned(.addOperation(0, queue: 0)))
        h.on(1, .threadStarted(name: "w", queue: 0), .call(.start(0, by: .queue)), .mainBegan(op: 0, threadPriority: 0.5),
             .mainEnded(op: 0), .returned(.start(0, by: .queue)), .completionBegan(op: 0, threadPriority: 0.5))
        // The driving thread logged nothing since before the completion began: its read may
        // have been taken while main ran.
        h.on(0, .read(op: 0, .isExecuting, .bool(true)))
        h.on(1, .completionEnded(op: 0))
        #expect(try check("STATE-EXCLUSIVE", Self.withCompletion, h).violations.isEmpty)
    }

    @Test("STATE-FINISHED-MONOTONIC: will isFinished (NO) after did isFinished (YES) is a going back")
    func finishedGoesBackInWill() throws {
        var h = Hand()
        h.on(0, .call(.addOperation(0, queue: 0)), .returned(.addOperation(0, queue: 0)))
        h.on(1, .threadStarted(name: "w", queue: 0), .call(.start(0, by: .queue)), will(0, .isExecuting, false), did(0, .isExecuting, true),
             .mainBegan(op: 0, threadPriority: 0.5), .mainEnded(op: 0), will(0, .isExecuting, true), will(0, .isFinished, false),
             did(0, .isFinished, true), did(0, .isExecuting, false))
        let yes = h.events.count - 2
        let no = h.on(1, will(0, .isFinished, false))
        h.on(1, did(0, .isFinished, true), .returned(.start(0, by: .queue)))
        let result = try check("STATE-FINISHED-MONOTONIC", Self.queued, h)
        #expect(result.violations.map(\.witnesses) == [[h.events[yes], h.events[no]]])
    }

    @Test("STATE-FINISHED-MONOTONIC: will isFinished (NO) before the YES is the normal finish")
    func finishedWillBeforeYes() throws {
        var h = Hand()
        h.on(0, .call(.addOperation(0, queue: 0)), .returned(.addOperation(0, queue: 0)))
        h.on(1, .threadStarted(name: "w", queue: 0), .call(.start(0, by: .queue)), will(0, .isExecuting, false), did(0, .isExecuting, true),
             .mainBegan(op: 0, threadPriority: 0.5), .mainEnded(op: 0), will(0, .isFinished, false), will(0, .isExecuting, true),
             did(0, .isExecuting, false), did(0, .isFinished, true), .returned(.start(0, by: .queue)))
        h.on(0, .stepIssued(1), .read(op: 0, .isFinished, .bool(true)))
        let result = try check("STATE-FINISHED-MONOTONIC", Self.queued, h)
        #expect(result.violations.isEmpty)
        #expect(result.hits > 0)
    }

    @Test("STATE-CANCELLED-MONOTONIC: will isCancelled (NO) after it said YES")
    func cancelledGoesBackInWill() throws {
        var h = Hand()
        h.on(0, .call(.cancel(0)), will(0, .isCancelled, false))
        let yes = h.on(0, did(0, .isCancelled, true))
        h.on(0, .returned(.cancel(0)), .stepIssued(1), .call(.cancel(0)))
        let no = h.on(0, will(0, .isCancelled, false))
        h.on(0, did(0, .isCancelled, true), .returned(.cancel(0)))
        let result = try check("STATE-CANCELLED-MONOTONIC", Self.queued, h)
        #expect(result.violations.map(\.witnesses) == [[h.events[yes], h.events[no]]])
    }

    @Test("STATE-CANCELLED-MONOTONIC: the cancel's own will-change (NO) and a quiet second cancel are not accused")
    func cancelledFaithful() throws {
        var h = Hand()
        h.on(0, .call(.cancel(0)), will(0, .isCancelled, false), did(0, .isCancelled, true), .returned(.cancel(0)),
             .stepIssued(1), .call(.cancel(0)), .returned(.cancel(0)), .read(op: 0, .isCancelled, .bool(true)))
        let result = try check("STATE-CANCELLED-MONOTONIC", Self.queued, h)
        #expect(result.violations.isEmpty)
        #expect(result.hits > 0)
    }

    @Test("STATE-NOT-EXECUTING-BEFORE-START: a will-change carrying isExecuting YES before any start")
    func executingBeforeStartInWill() throws {
        var h = Hand()
        h.on(0, .call(.addOperation(0, queue: 0)))
        let early = h.on(0, will(0, .isExecuting, true))
        h.on(0, did(0, .isExecuting, false), .returned(.addOperation(0, queue: 0)))
        let result = try check("STATE-NOT-EXECUTING-BEFORE-START", Self.suspended, h)
        #expect(result.violations.map(\.witnesses) == [[h.events[early]]])
    }

    @Test("STATE-NOT-EXECUTING-BEFORE-START: the start's own will-change (NO) is not accused")
    func executingWillInsideStart() throws {
        var h = Hand()
        h.on(0, .read(op: 0, .isExecuting, .bool(false)), .call(.start(0, by: .driver)), will(0, .isExecuting, false), did(0, .isExecuting, true),
             .mainBegan(op: 0, threadPriority: 0.5), .mainEnded(op: 0), will(0, .isFinished, false), will(0, .isExecuting, true),
             did(0, .isExecuting, false), did(0, .isFinished, true), .returned(.start(0, by: .driver)))
        let result = try check("STATE-NOT-EXECUTING-BEFORE-START", Self.queued, h)
        #expect(result.violations.isEmpty)
        #expect(result.hits > 0)
    }

    @Test("STATE-NOT-CONCURRENT-DEFAULT and SUBCLASS-CONCURRENT-FLAG: a will-change's isConcurrent counts", arguments: [true, false])
    func concurrentFlagInWill(wrong: Bool) throws {
        // The default class: a will-change carrying YES is a report of YES.
        var plain = Hand()
        plain.on(0, will(0, .isConcurrent, wrong), did(0, .isConcurrent, false))
        #expect(try check("STATE-NOT-CONCURRENT-DEFAULT", Self.queued, plain).violations.count == (wrong ? 1 : 0))
        // An asynchronous subclass (its start returns before its task ends): NO is the wrong answer.
        var sub = Hand()
        sub.on(0, .call(.start(0, by: .driver)), will(0, .isExecuting, false), .set(op: 0, .isExecuting, true), did(0, .isExecuting, true),
               .returned(.start(0, by: .driver)), will(0, .isConcurrent, !wrong), did(0, .isConcurrent, true))
        sub.on(1, .threadStarted(name: "main", queue: nil), .mainBegan(op: 0, threadPriority: 0.5), .work(op: 0, units: 1),
               will(0, .isFinished, false), will(0, .isExecuting, true), .set(op: 0, .isExecuting, false), .set(op: 0, .isFinished, true),
               did(0, .isExecuting, false), did(0, .isFinished, true), .mainEnded(op: 0))
        #expect(try check("SUBCLASS-CONCURRENT-FLAG", Self.asynchronous, sub).violations.count == (wrong ? 1 : 0))
    }

    // MARK: READY

    @Test("READY-DEPS-UNFINISHED: a late will-change carrying isReady YES while a dependency is unfinished")
    func readyWithUnfinishedDependencyInWill() throws {
        var h = Hand()
        h.on(0, .call(.addDependency(1, on: 0)), will(1, .dependencies, .ops([])), did(1, .dependencies, .ops([0])), .returned(.addDependency(1, on: 0)),
             .stepIssued(1))
        let ready = h.on(0, will(1, .isReady, true))
        h.on(0, did(1, .isReady, false))
        let result = try check("READY-DEPS-UNFINISHED", Self.two, h)
        #expect(result.violations.map(\.witnesses) == [[h.events[ready]]])
    }

    @Test("READY-DEPS-UNFINISHED: GNUstep's will isReady (YES) inside addDependency is not accused")
    func readyWillInsideAddDependency() throws {
        var h = Hand()
        h.on(0, .call(.addDependency(1, on: 0)), will(1, .dependencies, .ops([])), will(1, .isReady, true), did(1, .isReady, false),
             did(1, .dependencies, .ops([0])), .returned(.addDependency(1, on: 0)), .stepIssued(1), .read(op: 1, .isReady, .bool(false)))
        let result = try check("READY-DEPS-UNFINISHED", Self.two, h)
        #expect(result.violations.isEmpty)
        #expect(result.hits > 0)
    }

    @Test("READY-DEPS-UNFINISHED: an operation whose main began is executing, even unread (no KVO)")
    func readyOfStartedOperationWithLateDependency() throws {
        var h = Hand(Self.noKVO)
        h.on(0, .call(.addOperation(1, queue: 0)), .returned(.addOperation(1, queue: 0)))
        h.on(1, .threadStarted(name: "w", queue: 0), .call(.start(1, by: .queue)), .mainBegan(op: 1, threadPriority: 0.5), .work(op: 1, units: 3))
        // A dependency added to a running operation; isReady YES is right for it (003 isReady).
        h.on(0, .stepIssued(1), .call(.addDependency(1, on: 0)), .returned(.addDependency(1, on: 0)), .stepIssued(2),
             .read(op: 1, .isReady, .bool(true)))
        h.on(1, .mainEnded(op: 1), .returned(.start(1, by: .queue)))
        #expect(try check("READY-DEPS-UNFINISHED", Self.two, h).violations.isEmpty)
    }

    @Test("READY-CANCELLED: a will-change carrying isReady NO sent after cancel returned")
    func readyLateAfterCancel() throws {
        var h = Hand()
        h.on(0, .call(.addDependency(1, on: 0)), .returned(.addDependency(1, on: 0)), .call(.cancel(1)), will(1, .isCancelled, false),
             did(1, .isCancelled, true), .returned(.cancel(1)), .stepIssued(1))
        let late = h.on(1, .threadStarted(name: "kvo", queue: nil), will(1, .isReady, false))
        h.on(1, did(1, .isReady, true))
        let result = try check("READY-CANCELLED", Self.two, h)
        #expect(result.violations.count == 1)
        #expect(result.violations.first?.witnesses.last == h.events[late])
    }

    @Test("READY-CANCELLED: the will-change (NO) inside cancel is not accused")
    func readyWillInsideCancel() throws {
        var h = Hand()
        h.on(0, .call(.addDependency(1, on: 0)), .returned(.addDependency(1, on: 0)), .call(.cancel(1)), will(1, .isCancelled, false),
             will(1, .isReady, false), did(1, .isReady, true), did(1, .isCancelled, true), .returned(.cancel(1)), .stepIssued(1),
             .read(op: 1, .isReady, .bool(true)))
        let result = try check("READY-CANCELLED", Self.two, h)
        #expect(result.violations.isEmpty)
        #expect(result.hits > 0)
    }

    @Test("READY-EXECUTING-FINISHED: a will-change carrying isReady NO while executing")
    func readyNoWhileExecutingInWill() throws {
        var h = Hand()
        h.on(0, .call(.addOperation(0, queue: 0)), .returned(.addOperation(0, queue: 0)))
        h.on(1, .threadStarted(name: "w", queue: 0), .call(.start(0, by: .queue)), will(0, .isExecuting, false))
        let executing = h.on(1, did(0, .isExecuting, true))
        let no = h.on(1, .mainBegan(op: 0, threadPriority: 0.5), will(0, .isReady, false))
        h.on(1, did(0, .isReady, true), .mainEnded(op: 0))
        let result = try check("READY-EXECUTING-FINISHED", Self.queued, h)
        #expect(result.violations.map(\.witnesses) == [[h.events[executing], h.events[no]]])
    }

    @Test("READY-EXECUTING-FINISHED: a read of isReady NO that began after main began (no KVO)")
    func readyNoAfterMainBegan() throws {
        var h = Hand(Self.noKVO)
        h.on(0, .call(.addOperation(0, queue: 0)), .returned(.addOperation(0, queue: 0)))
        let began = h.on(1, .threadStarted(name: "w", queue: 0), .call(.start(0, by: .queue)), .mainBegan(op: 0, threadPriority: 0.5))
        let no = h.on(0, .stepIssued(1), .read(op: 0, .isReady, .bool(false)))
        h.on(1, .mainEnded(op: 0), .returned(.start(0, by: .queue)))
        let result = try check("READY-EXECUTING-FINISHED", Self.queued, h)
        #expect(result.violations.map(\.witnesses) == [[h.events[began], h.events[no]]])
    }

    @Test("READY-EXECUTING-FINISHED: a read taken before main began, or a main run without start, is not accused")
    func readyNoTakenBeforeMain() throws {
        var h = Hand(Self.noKVO)
        h.on(0, .call(.addOperation(0, queue: 0)), .returned(.addOperation(0, queue: 0)))
        h.on(1, .threadStarted(name: "w", queue: 0), .call(.start(0, by: .queue)), .mainBegan(op: 0, threadPriority: 0.5))
        // Nothing on the driving thread since before main began: the read may be older.
        h.on(0, .read(op: 0, .isReady, .bool(false)))
        h.on(1, .mainEnded(op: 0), .returned(.start(0, by: .queue)))
        #expect(try check("READY-EXECUTING-FINISHED", Self.queued, h).violations.isEmpty)
        // Another operation's code ran op 0's main directly: no start, so nothing says it executes.
        var spawned = Hand(Self.noKVO)
        spawned.on(1, .threadStarted(name: "spawned", queue: nil), .mainBegan(op: 0, threadPriority: 0.5))
        spawned.on(0, .stepIssued(1), .read(op: 0, .isReady, .bool(false)))
        spawned.on(1, .mainEnded(op: 0))
        #expect(try check("READY-EXECUTING-FINISHED", Self.queued, spawned).violations.isEmpty)
    }

    @Test("READY-KVO: a will-change whose value shows an earlier change nobody announced")
    func readySilentChangeShownByWill() throws {
        var h = Hand()
        let seen = h.on(0, .read(op: 0, .isReady, .bool(true)))
        // The dependency makes op 0 not ready without a notification ...
        h.on(0, .call(.addDependency(0, on: 1)), .returned(.addDependency(0, on: 1)), .stepIssued(1))
        h.on(1, .threadStarted(name: "w", queue: 0), will(1, .isFinished, false), did(1, .isFinished, true))
        // ... and its finish announces the change back, whose will-change carries NO.
        let announced = h.on(1, will(0, .isReady, false))
        h.on(1, did(0, .isReady, true))
        let result = try check("READY-KVO", Self.two, h)
        #expect(result.violations.map(\.witnesses) == [[h.events[seen], h.events[announced]]])
    }

    @Test("READY-KVO: announced changes, and the will-change that lifts an isReady override, are not accused")
    func readyAnnouncedAndOverride() throws {
        var h = Hand()
        h.on(0, .read(op: 0, .isReady, .bool(true)), .call(.addDependency(0, on: 1)), will(0, .isReady, true), did(0, .isReady, false),
             .returned(.addDependency(0, on: 1)), .stepIssued(1))
        h.on(1, .threadStarted(name: "w", queue: 0), will(1, .isFinished, false), did(1, .isFinished, true), will(0, .isReady, false), did(0, .isReady, true))
        let announced = try check("READY-KVO", Self.two, h)
        #expect(announced.violations.isEmpty)
        #expect(announced.hits > 0)
        // The override's getter reads the token: when the signalling code sends its will-change
        // the value is already the new one (004 asks the subclass to notify; Scenario.readyAfterSignal).
        var o = Hand()
        o.on(0, .read(op: 0, .isReady, .bool(false)), .stepIssued(1))
        o.on(1, .threadStarted(name: "signaller", queue: nil), .signal(token: 7), will(0, .isReady, true), did(0, .isReady, true))
        o.on(0, .stepIssued(2), .read(op: 0, .isReady, .bool(true)))
        #expect(try check("READY-KVO", Self.override, o).violations.isEmpty)
    }

    // MARK: CANCEL

    @Test("CANCEL-SETS-FLAG: a will-change carrying isCancelled NO sent after cancel returned")
    func cancelFlagSetLate() throws {
        var h = Hand()
        let call = h.on(0, .call(.cancel(0)))
        let done = h.on(0, .returned(.cancel(0)))
        h.on(0, .stepIssued(1))
        let late = h.on(1, .threadStarted(name: "kvo", queue: nil), will(0, .isCancelled, false))
        h.on(1, did(0, .isCancelled, true))
        let result = try check("CANCEL-SETS-FLAG", Self.queued, h)
        #expect(result.violations.map(\.witnesses) == [[h.events[call], h.events[done], h.events[late]]])
    }

    @Test("CANCEL-SETS-FLAG: the will-change (NO) inside cancel is not accused")
    func cancelFlagWillInside() throws {
        var h = Hand()
        h.on(0, .call(.cancel(0)), will(0, .isCancelled, false), did(0, .isCancelled, true), .returned(.cancel(0)), .stepIssued(1),
             .read(op: 0, .isCancelled, .bool(true)))
        let result = try check("CANCEL-SETS-FLAG", Self.queued, h)
        #expect(result.violations.isEmpty)
        #expect(result.hits > 0)
    }

    @Test("CANCEL-ALL: the operation's own will-change (NO) after cancelAllOperations returned (no KVO)")
    func cancelAllLate() throws {
        var h = Hand(Self.noKVO)
        h.on(0, .call(.addOperation(0, queue: 0)), .returned(.addOperation(0, queue: 0)), .call(.cancelAll(queue: 0)))
        let done = h.on(0, .returned(.cancelAll(queue: 0)))
        h.on(0, .stepIssued(1))
        let late = h.on(1, .threadStarted(name: "code", queue: nil), will(0, .isCancelled, false))
        h.on(1, did(0, .isCancelled, true))
        let result = try check("CANCEL-ALL", Self.suspended, h)
        #expect(result.violations.count == 1)
        #expect(result.violations.first?.witnesses.contains(h.events[done]) == true)
        #expect(result.violations.first?.witnesses.last == h.events[late])
    }

    @Test("CANCEL-ALL: notifications inside the call are not accused")
    func cancelAllInside() throws {
        var h = Hand()
        h.on(0, .call(.addOperation(0, queue: 0)), .returned(.addOperation(0, queue: 0)), .call(.cancelAll(queue: 0)),
             will(0, .isCancelled, false), did(0, .isCancelled, true), .returned(.cancelAll(queue: 0)), .stepIssued(1),
             .read(op: 0, .isCancelled, .bool(true)))
        let result = try check("CANCEL-ALL", Self.suspended, h)
        #expect(result.violations.isEmpty)
        #expect(result.hits > 0)
    }

    @Test("CANCEL-FINISHED-NOOP: a will-change carrying isCancelled YES after cancel on a finished operation")
    func cancelAfterFinishShownByWill() throws {
        var h = Hand()
        h.on(0, .call(.addOperation(0, queue: 0)), .returned(.addOperation(0, queue: 0)))
        h.on(1, .threadStarted(name: "w", queue: 0), .call(.start(0, by: .queue)), will(0, .isExecuting, false), did(0, .isExecuting, true),
             .mainBegan(op: 0, threadPriority: 0.5), .mainEnded(op: 0), will(0, .isFinished, false), will(0, .isExecuting, true),
             did(0, .isExecuting, false), did(0, .isFinished, true), .returned(.start(0, by: .queue)))
        h.on(0, .stepIssued(1), .call(.cancel(0)), .returned(.cancel(0)), .stepIssued(2))
        let flipped = h.on(0, will(0, .isCancelled, true))
        let result = try check("CANCEL-FINISHED-NOOP", Self.queued, h)
        #expect(result.violations.count == 1)
        #expect(result.violations.first?.witnesses.last == h.events[flipped])
        // Faithful: the flag stays NO.
        var quiet = Hand()
        quiet.events = Array(h.events.prefix(flipped))
        quiet.on(0, .read(op: 0, .isCancelled, .bool(false)))
        let kept = try check("CANCEL-FINISHED-NOOP", Self.queued, quiet)
        #expect(kept.violations.isEmpty)
        #expect(kept.hits > 0)
    }

    // MARK: KVO, START

    @Test("KVO-CANCELLED-START: a will-change carrying isExecuting YES after a cancelled subclass was started")
    func cancelledStartExecutingInWill() throws {
        var h = Hand()
        h.on(0, .call(.cancel(0)), will(0, .isCancelled, false), did(0, .isCancelled, true), .returned(.cancel(0)), .call(.start(0, by: .driver)))
        let executing = h.on(0, will(0, .isExecuting, true))
        h.on(0, did(0, .isExecuting, false), will(0, .isFinished, false), .set(op: 0, .isFinished, true), did(0, .isFinished, true),
             .returned(.start(0, by: .driver)))
        let result = try check("KVO-CANCELLED-START", Self.asynchronous, h)
        #expect(result.violations.count == 1)
        #expect(result.violations.first?.witnesses.last == h.events[executing])
    }

    @Test("KVO-CANCELLED-START: Listing 2-6's cancelled path is not accused")
    func cancelledStartFaithful() throws {
        var h = Hand()
        h.on(0, .call(.cancel(0)), will(0, .isCancelled, false), did(0, .isCancelled, true), .returned(.cancel(0)), .call(.start(0, by: .driver)),
             .read(op: 0, .isCancelled, .bool(true)), will(0, .isFinished, false), .set(op: 0, .isFinished, true), did(0, .isFinished, true),
             .returned(.start(0, by: .driver)))
        let result = try check("KVO-CANCELLED-START", Self.asynchronous, h)
        #expect(result.violations.isEmpty)
        #expect(result.hits > 0)
    }

    @Test("START-EXECUTING-THROWS: a second start after did isExecuting (YES), before main began", arguments: [false, true])
    func secondStartBeforeMain(refused: Bool) throws {
        var h = Hand()
        h.on(0, .call(.start(0, by: .driver)), will(0, .isExecuting, false))
        let executing = h.on(0, did(0, .isExecuting, true))
        let second = h.on(1, .threadStarted(name: "code", queue: nil), .call(.start(0, by: .program)))
        let end = h.on(1, refused ? .threw(.start(0, by: .program), .alreadyExecuting, "already executing") : .returned(.start(0, by: .program)))
        h.on(0, .mainBegan(op: 0, threadPriority: 0.5), .mainEnded(op: 0), will(0, .isFinished, false), will(0, .isExecuting, true),
             did(0, .isExecuting, false), did(0, .isFinished, true), .returned(.start(0, by: .driver)))
        let result = try check("START-EXECUTING-THROWS", Self.queued, h)
        #expect(result.hits == 1)
        #expect(result.violations.map(\.witnesses) == (refused ? [] : [[h.events[executing], h.events[second], h.events[end]]]))
    }

    @Test("START-FINISHED and the facts: a will-change carrying isFinished YES shows the operation finished")
    func finishedShownByWill() throws {
        var h = Hand()
        h.on(0, .call(.addOperation(0, queue: 0)), .returned(.addOperation(0, queue: 0)))
        h.on(1, .threadStarted(name: "w", queue: 0), .call(.start(0, by: .queue)), will(0, .isExecuting, false), did(0, .isExecuting, true),
             .mainBegan(op: 0, threadPriority: 0.5), .mainEnded(op: 0))
        // The finish was stored before its will-change was sent, so the will-change carries YES.
        let stored = h.on(1, will(0, .isFinished, true))
        h.on(1, will(0, .isExecuting, true))
        let start = h.on(0, .stepIssued(1), .call(.start(0, by: .driver)))
        let end = h.on(0, .returned(.start(0, by: .driver)))
        h.on(1, did(0, .isExecuting, false), did(0, .isFinished, true), .returned(.start(0, by: .queue)))
        let trace = h.trace
        #expect(TraceFacts(scenario: Self.queued, trace: trace).finishedAt[0] == stored)
        let result = try check("START-FINISHED", Self.queued, h)
        #expect(result.violations.map(\.witnesses) == [[h.events[stored], h.events[start], h.events[end]]])
        // Faithful: a will-change carrying NO is the finish announced, not evidence of it.
        var faithful = h
        faithful.events[stored].kind = will(0, .isFinished, false)
        #expect(TraceFacts(scenario: Self.queued, trace: faithful.trace).finishedAt[0] == faithful.events.firstIndex { $0.kind == did(0, .isFinished, true) })
        #expect(try check("START-FINISHED", Self.queued, faithful).violations.isEmpty)
    }

    // MARK: DEP, QUEUE

    @Test("DEP-DUPLICATE: a later will-change shows the duplicate listed twice")
    func duplicateShownByWill() throws {
        var h = Hand()
        h.on(0, .call(.addDependency(0, on: 1)), will(0, .dependencies, .ops([])), did(0, .dependencies, .ops([1])), .returned(.addDependency(0, on: 1)))
        let call = h.on(0, .stepIssued(1), .call(.addDependency(0, on: 1)))
        let end = h.on(0, .returned(.addDependency(0, on: 1)))
        let twice = h.on(0, .stepIssued(2), .call(.removeDependency(0, on: 1)), will(0, .dependencies, .ops([1, 1])))
        h.on(0, did(0, .dependencies, .ops([])), .returned(.removeDependency(0, on: 1)))
        let result = try check("DEP-DUPLICATE", Self.two, h)
        #expect(result.violations.map(\.witnesses) == [[h.events[call], h.events[end], h.events[twice]]])
        // Faithful: the duplicate was ignored, and the will-change lists it once.
        var once = h
        once.events[twice].kind = will(0, .dependencies, .ops([1]))
        #expect(try check("DEP-DUPLICATE", Self.two, once).violations.isEmpty)
    }

    @Test("QUEUE-WAIT-OP: a subclass's will-change (isFinished NO) after the wait returned (no KVO)", arguments: [false, true])
    func waitReturnedEarly(early: Bool) throws {
        var h = Hand(Self.noKVO)
        h.on(0, .call(.start(0, by: .driver)), will(0, .isExecuting, false), .set(op: 0, .isExecuting, true), did(0, .isExecuting, true),
             .returned(.start(0, by: .driver)), .stepIssued(1), .call(.waitUntilFinished(0)))
        let finish: [EventKind] = [will(0, .isFinished, false), will(0, .isExecuting, true), .set(op: 0, .isExecuting, false),
                                   .set(op: 0, .isFinished, true), did(0, .isExecuting, false), did(0, .isFinished, true), .mainEnded(op: 0)]
        h.on(1, .threadStarted(name: "main", queue: nil), .mainBegan(op: 0, threadPriority: 0.5))
        if !early { for k in finish { h.on(1, k) } }
        let returned = h.on(0, .returned(.waitUntilFinished(0)))
        h.on(0, .stepIssued(2))
        let late = h.on(1, .work(op: 0, units: 1)) + 1
        if early { for k in finish { h.on(1, k) } }
        let result = try check("QUEUE-WAIT-OP", Self.asynchronous, h)
        #expect(result.hits == 1)
        #expect(result.violations.map(\.witnesses) == (early ? [[h.events[returned], h.events[late]]] : []))
    }

    // MARK: helpers

    /// One operation with the default start, in a queue.
    static let queued = Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .main([.work(1)]))])
    static let suspended = Scenario(queues: [QueueConfig(suspended: true)], operations: [OperationConfig(kind: .main([.work(1)]))])
    static let withCompletion = Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .main([.work(1)]), completion: [.work(1)])])
    /// Two operations with the default start.
    static let two = Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .main([.work(1)])), OperationConfig(kind: .main([.work(1)]))])
    /// An asynchronous subclass (Listings 2-5 to 2-7).
    static let asynchronous = Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .concurrent(.correct(work: [.work(1)])))])
    /// An operation whose isReady override waits for token 7.
    static let override = Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .main([.work(1)]), readyAfterSignal: 7)])
    /// A driver that sees no KVO (Foundation on Linux): only a subclass's own code posts notifications.
    static let noKVO = Observation.allCases.filter { $0 != .kvo }

    func check(_ id: String, _ scenario: Scenario, _ hand: Hand, profile: Profile = .guide) throws -> CheckResult {
        let rule = try #require(RuleBook.check(id: id))
        return rule.check(CheckContext(scenario: scenario, trace: hand.trace, profile: profile))
    }
}

/// A trace written by hand: events in order, each on its thread (0 drives), ending normally.
struct Hand {
    var capabilities: [Observation]
    var events: [TraceEvent] = []

    init(_ capabilities: [Observation] = Observation.allCases) { self.capabilities = capabilities }

    /// Appends events on `thread`; returns the index of the last one.
    @discardableResult
    mutating func on(_ thread: Int, _ kinds: EventKind...) -> Int {
        for k in kinds { events.append(TraceEvent(seq: events.count, thread: thread, k)) }
        return events.count - 1
    }

    var trace: Trace {
        var all = events
        all.append(TraceEvent(seq: all.count, thread: 0, .end))
        for i in all.indices { all[i].seq = i }
        return Trace(impl: "hand", scheduleSeed: 1, capabilities: capabilities, events: all)
    }
}

private func will(_ op: Int, _ key: StateKey, _ value: Bool) -> EventKind { .willChange(op: op, key, .bool(value)) }
private func will(_ op: Int, _ key: StateKey, _ value: Value) -> EventKind { .willChange(op: op, key, value) }
private func did(_ op: Int, _ key: StateKey, _ value: Bool) -> EventKind { .didChange(op: op, key, .bool(value)) }
private func did(_ op: Int, _ key: StateKey, _ value: Value) -> EventKind { .didChange(op: op, key, value) }
