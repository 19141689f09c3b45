import Foundation
import OperationSpec

/// The trace of one run on real threads: events get a global sequence number and a small thread
/// number as they are recorded, and go straight to `sink` (the driver streams them), so a run that
/// dies loses nothing it had already seen.
///
/// `@unchecked Sendable` is sound: every stored property is read and written only while holding
/// `condition`, which also lets waiters sleep until the event they wait for is recorded.
/// `clock` takes its own lock inside `condition`, never the other way round: no lock-order cycle.
final class DriverRecorder: @unchecked Sendable {
    private let condition = QuietCondition()
    private var count = 0
    private var threadNumbers: [UInt: Int] = [:]   // pthread id -> thread number; looked up, never iterated
    private var occurred: Set<Trigger> = []        // looked up, never iterated
    private var finished: Set<Int> = []            // operations with finish evidence; looked up only
    private var tokens: Set<Int> = []
    /// Active time (`clock`) of the last event: silences are measured on a clock that stops
    /// while the process is not being run, so a stalled machine is not a stalled implementation.
    private let clock = ActiveClock.shared
    private var lastEventTime: TimeInterval = 0
    /// The driver call in progress, if any: what a stall is blamed on.
    private var pendingCall: String?
    /// Active time when `pendingCall` began.
    private var pendingSince: TimeInterval = 0
    /// Set once the trace has its last event: later events are dropped, so nothing follows
    /// `end` or `hang`.
    private var closed = false
    private var lastThread = 0
    /// Code of the case running now, on any thread: calls not yet returned, `main`s, blocks and
    /// completion blocks not yet ended, threads a `spawn` step started that have not ended.
    /// Counted from every event, after the trace's end too: a session (protocol 3) takes the
    /// next case in this process only when it is 0 (`DriverContext.leftovers`).
    private var running = 0
    /// Operations whose completion block was set, and those whose completion block ended: a
    /// finished operation whose block has not run yet will still run code.
    private var completionsSet: Set<Int> = [], completionsEnded: Set<Int> = []   // looked up only
    private let sink: (TraceEvent) -> Void
    /// Which queue the current thread works for, if any.
    private let queueOfCurrentThread: () -> Int?

    /// False for a plain run (`opconform driver --plain`, measured by the bench): events only
    /// move the triggers, tokens and silence the run itself needs; no trace is made or sent.
    let recording: Bool
    /// The request's timing noise (`TimingNoise`); nil when it asked for none. Only a recording
    /// run makes noise: the draws go by thread number, which a plain run does not keep.
    let noise: TimingNoise?
    /// Each thread's draws, by thread number, made at its first instrumented point.
    private var draws: [Int: TimingNoise.Draws] = [:]   // looked up, never iterated

    init(
        recording: Bool = true, noise: TimingNoise? = nil, sink: @escaping (TraceEvent) -> Void,
        queueOfCurrentThread: @escaping () -> Int?
    ) {
        self.recording = recording
        self.noise = recording ? noise : nil
        self.sink = sink
        self.queueOfCurrentThread = queueOfCurrentThread
        // The clock is the process's, running since its first case: silences and waits of this
        // case count from now.
        lastEventTime = clock.now
        pendingSince = lastEventTime
    }

    /// Records an event. With timing noise, the calling thread makes its noise for this
    /// instrumented point before the event and after it, outside the lock (a thread's first
    /// event has no noise before it: the thread has no number yet). `perturbing: false` is for
    /// a caller that holds a lock of its own: it calls `perturb()` before taking its lock and
    /// again once it has let go.
    func record(_ kind: EventKind, perturbing: Bool = true) {
        guard recording else {
            condition.lock()
            defer { condition.unlock() }
            count(kind)
            note(kind)
            condition.broadcast()
            return
        }
        if perturbing && noise != nil { perturb() }
        let queue = queueOfCurrentThread()
        let name = Thread.current.name ?? ""
        condition.lock()
        count(kind)
        guard !closed else { condition.unlock(); return }
        let thread = currentThread(name: name, queue: queue)
        emit(kind, thread: thread)
        condition.broadcast()
        let action = perturbing && noise != nil ? draw(thread: thread) : .none
        condition.unlock()
        TimingNoise.perform(action)
    }

    /// The noise of an instrumented point: the calling thread's next draw, performed outside
    /// every lock of the driver (`record` calls it before an event; a caller that records with
    /// `perturbing: false` calls it before taking its lock and after letting go). Nothing
    /// without noise, for a thread that has recorded nothing yet, or once the trace is closed.
    func perturb() {
        guard noise != nil else { return }
        let id = UInt(bitPattern: Int(bitPattern: pthread_self()))
        condition.lock()
        let action = !closed ? threadNumbers[id].map(draw) ?? .none : .none
        condition.unlock()
        TimingNoise.perform(action)
    }

    /// The next draw of thread `thread`. Called with `condition` held, and only with noise.
    private func draw(thread: Int) -> TimingNoise.Action {
        guard let noise else { return .none }
        var d = draws[thread] ?? noise.draws(thread: thread)
        let action = d.next()
        draws[thread] = d
        return action
    }

    /// The calling thread's number, announcing it with `threadStarted` the first time.
    /// Called with `condition` held.
    private func currentThread(name: String, queue: Int?) -> Int {
        let id = UInt(bitPattern: Int(bitPattern: pthread_self()))
        if let n = threadNumbers[id] { return n }
        let thread = threadNumbers.count
        threadNumbers[id] = thread
        emit(.threadStarted(name: name, queue: queue), thread: thread)
        return thread
    }

    private func emit(_ kind: EventKind, thread: Int) {
        sink(TraceEvent(seq: count, thread: thread, kind))
        count += 1
        lastThread = thread
        note(kind)
    }

    /// Keeps `running` and the completion blocks up to date. Called with `condition` held.
    private func count(_ kind: EventKind) {
        switch kind {
        case .call, .mainBegan, .blockBegan, .completionBegan: running += 1
        case .mainEnded, .blockEnded: running -= 1
        case .returned(let call):
            running -= 1
            if case .setCompletionBlock(let op) = call { completionsSet.insert(op) }
        case .completionEnded(let op): running -= 1; completionsEnded.insert(op)
        default: break
        }
    }

    /// A thread a `spawn` step starts: counted from before it starts to the end of its body.
    func threadSpawned() { condition.lock(); running += 1; condition.unlock() }
    func spawnedThreadEnded() { condition.lock(); running -= 1; condition.unlock() }

    /// Whether a call, body or spawned thread of the case has not ended yet.
    var codeRunning: Bool {
        condition.lock()
        defer { condition.unlock() }
        return running != 0
    }

    /// Whether an operation with finish evidence in the trace has a completion block set that
    /// has not ended: the implementation still owes that block a run.
    var completionDue: Bool {
        condition.lock()
        defer { condition.unlock() }
        return completionsSet.contains { finished.contains($0) && !completionsEnded.contains($0) }
    }

    /// What of the case may still run code, as the events tell: nil when nothing.
    /// `finished` says whether an operation finished (its completion block is then due).
    /// `finished` is asked without the lock (a getter records an event).
    func stillRunning(finished: (Int) -> Bool) -> String? {
        condition.lock()
        let (open, due) = (running, completionsSet.subtracting(completionsEnded).sorted())
        condition.unlock()
        if open != 0 { return "\(open) calls, bodies or spawned threads of the case have not ended" }
        for op in due where finished(op) { return "operation \(op) finished, and its completion block has not run" }
        return nil
    }

    /// What the run itself needs from an event: its time, and the triggers and tokens it moves.
    /// Called with `condition` held.
    private func note(_ kind: EventKind) {
        lastEventTime = clock.now
        switch kind {
        case .call(.start(let op, _)): occurred.insert(.started(op))
        case .mainBegan(let op, _): occurred.insert(.mainBegan(op))
        case .blockBegan(let op, let b): occurred.insert(.blockBegan(op, block: b))
        case .read(let op, .isFinished, .bool(true)), .didChange(let op, .isFinished, .bool(true)),
            .set(let op, .isFinished, true):
            finished.insert(op); occurred.insert(.finished(op))
        case .signal(let t): tokens.insert(t)
        default: break
        }
    }

    /// Waits until the trigger happened (true), or until it can no longer be expected (false):
    /// its operation finished without it, nothing was recorded for `quiet` seconds, or `timeout`
    /// ran out. A `signaled` trigger has happened once its token was signalled.
    func wait(for trigger: Trigger, timeout: TimeInterval, quiet: TimeInterval) -> Bool {
        let deadline = clock.now + timeout
        condition.lock()
        defer { condition.unlock() }
        func happened() -> Bool {
            if case .signaled(let t) = trigger { return tokens.contains(t) }
            return occurred.contains(trigger)
        }
        while !happened() && !(trigger.op.map(finished.contains) ?? false) {
            let now = clock.now
            if now >= deadline || now - lastEventTime >= quiet { break }
            _ = condition.wait(until: Date().addingTimeInterval(min(deadline - now, lastEventTime + quiet - now)))
        }
        return happened()
    }

    /// Whether token `t` has been signalled: what an operation's `isReady` override asks
    /// (`OperationConfig.readyAfterSignal`), from whatever thread calls the getter. Takes
    /// `condition` briefly; callers hold at most their operation's read lock, which nothing
    /// takes while holding `condition` (lock order: read lock, then `condition`).
    func isSignalled(_ t: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return tokens.contains(t)
    }

    /// The driving thread idles for `seconds` of active time (a `sleep` action): a machine that
    /// stops running the process meanwhile does not shorten the idle span the scenario asked
    /// for, so the implementation gets the time to act that it would have had.
    func idle(for seconds: TimeInterval) {
        let end = clock.now + seconds
        while true {
            let left = end - clock.now
            if left <= 0 { return }
            Thread.sleep(forTimeInterval: left)
        }
    }

    /// How long nothing has been recorded.
    var silence: TimeInterval {
        condition.lock()
        defer { condition.unlock() }
        return clock.now - lastEventTime
    }

    /// Active seconds on the process's clock (see `ActiveClock`): differences of it are durations.
    var activeTime: TimeInterval { clock.now }

    /// Marks a driver call as in progress (`nil`: none is).
    func pending(_ call: String?) {
        condition.lock()
        pendingCall = call
        pendingSince = clock.now
        condition.unlock()
    }

    /// The driver call that is stuck, and why: in progress while nothing was recorded for
    /// `quiet` seconds (a correct run records something at least that often), or in progress
    /// for longer than `longest` seconds however much was recorded meanwhile (a livelock: a
    /// queue that polls a getter keeps the trace growing and never lets the call return).
    func stalled(quiet: TimeInterval, longest: TimeInterval) -> (call: String, why: String)? {
        condition.lock()
        defer { condition.unlock() }
        guard !closed, let call = pendingCall else { return nil }
        let now = clock.now
        if now - lastEventTime >= quiet { return (call, "nothing happened for \(String(format: "%.2f", quiet)) s") }
        if now - pendingSince >= longest {
            return (
                call,
                "it ran for \(String(format: "%.1f", now - pendingSince)) s while events kept coming, longer than this "
                    + "scenario's work can take (\(String(format: "%.1f", longest)) s)"
            )
        }
        return nil
    }

    /// Ends the trace: records `last` and drops everything after it. `onCallingThread`: on the
    /// caller's thread, as any event; otherwise (a watchdog speaking for a stuck thread) on the
    /// thread of the last event. Returns false when the trace was already closed: then the
    /// caller must not end it again.
    func close(with last: EventKind, onCallingThread: Bool) -> Bool {
        let name = Thread.current.name ?? ""
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return false }
        emit(last, thread: onCallingThread ? currentThread(name: name, queue: nil) : lastThread)
        closed = true
        condition.broadcast()
        return true
    }

    /// Rendezvous: waits for token `t` at most `timeout` active seconds (a sibling that was not
    /// run because the machine was busy has not failed to run concurrently).
    func await(token t: Int, timeout: TimeInterval) -> Bool {
        let deadline = clock.now + timeout
        condition.lock()
        defer { condition.unlock() }
        while !tokens.contains(t) {
            let now = clock.now
            if now >= deadline { break }
            _ = condition.wait(until: Date().addingTimeInterval(deadline - now))
        }
        return tokens.contains(t)
    }

    /// Waits until nothing was recorded for `quiet` seconds, at most `timeout`; true if it got quiet.
    func settle(quiet: TimeInterval, timeout: TimeInterval) -> Bool {
        let deadline = clock.now + timeout
        condition.lock()
        defer { condition.unlock() }
        while true {
            let now = clock.now
            if now - lastEventTime >= quiet { break }
            if now > deadline { return false }
            _ = condition.wait(until: Date().addingTimeInterval(min(deadline - now, lastEventTime + quiet - now)))
        }
        return true
    }
}
