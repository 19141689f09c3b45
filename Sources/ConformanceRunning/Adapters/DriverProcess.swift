import ConformanceFormats
import Foundation
import OperationDriverKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A driver process and the threads that read it, serving one case at a time: one case and
/// then its end (protocol 2, `ChildProcess.run`), or case after case while each ends with
/// `done` saying `next` (protocol 3, Specs/driver-protocol.md, "Sessions"; `DriverPool`).
///
/// Its standard output and error are read by a thread each for the whole life of the process,
/// and handed to the case being served; a third thread waits for the process to end. Nothing
/// of a case's limits or clocks carries over to the next: each `serve` has its own.
///
/// `@unchecked Sendable` is sound: `errors` and `writer` are read and written only under
/// `lock`; `cases` only by `serve`, which one thread calls at a time (the pool hands a process
/// to one case at a time); the other stored properties are `let`s of Sendable or locked types.
final class DriverProcess: @unchecked Sendable {
    let child: SpawnedProcess
    private let output: ChildProcess.LineSplitter
    private let lock = NSLock()
    private var errors = ChildProcess.ErrorTail()
    private let reaped = ChildProcess.Reaped()
    private let readers = DispatchGroup()
    /// The thread writing the current request: waited for before standard input is closed.
    private let writing = DispatchGroup()
    /// Cases this process has been given.
    private(set) var cases = 0

    private init(child: SpawnedProcess) {
        self.child = child
        output = ChildProcess.LineSplitter { _ in true }
    }

    /// Starts `command` with the harness's environment, `adding` on top of it, and no backtraces
    /// (a trap is an expected outcome, reported by its message).
    static func start(
        _ command: [String], adding: [String: String] = [:]
    ) throws(SpawnedProcess.StartError) -> DriverProcess {
        var environment = ProcessInfo.processInfo.environment
        // The caller's value wins, after the user's own options for the same variable.
        for (key, value) in adding { environment[key] = environment[key].map { $0 + " " + value } ?? value }
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let process = DriverProcess(child: try SpawnedProcess.start(command, environment: environment))
        process.watch()
        return process
    }

    /// Readers and reaper, each on a thread of its own, not on the global queues: those are
    /// limited, and a reader that waited for a thread while the cases held them was read too
    /// late (a case whose output had not been read yet was reported as a crash, 5 of 40 cases
    /// at `--jobs 16`).
    private func watch() {
        let (child, output, reaped) = (self.child, self.output, self.reaped)
        readers.enter()
        Thread { [readers] in SpawnedProcess.drain(child.output) { output.append($0) }; readers.leave() }.start()
        readers.enter()
        Thread { [self] in
            SpawnedProcess.drain(child.errors) { chunk in lock.withLock { errors }.append(chunk) }; readers.leave()
        }.start()
        Thread {
            // Marked as ended before it is reaped, so that no kill reaches its group after that
            // (`Reaped.stop`); `wait` kills what it left in the group, then reaps it.
            ChildProcess.waitForExit(child.pid)
            reaped.exited()
            reaped.set(child.wait())
        }.start()
    }

    /// Whether the process can be given another case: it is alive and wrote nothing since its
    /// last case ended.
    var isIdleAndClean: Bool { !reaped.hasEnded && !output.wroteStray }

    /// Whether a sanitizer began a report on the process's standard error since its last case
    /// began (`reportedOrEnded(within:)`).
    var holdsSanitizerReport: Bool { lock.withLock { errors }.holdsSanitizerReport }

    /// Serves one request: writes `input`, hands each line of standard output to `consume`
    /// until it returns false, under `limits` (see `ChildProcess.run`). `closingInput`: close
    /// standard input after the request (protocol 2, and the last case of a session). `next`,
    /// asked once reading stopped: whether the case ended with `done` saying `next`; the
    /// process is then left running for the next case (`Outcome.reusable`). Otherwise the
    /// process is stopped (its group killed) and reaped before this returns.
    ///
    /// `settle`: seconds a process that is to take another case is watched after this one
    /// ended, under a sanitizer: a late callback of this case's operations (a timer that holds
    /// one unretained) that reaches freed memory then stops the process with its report, and
    /// the report is this case's, not the next one's (a case that shows it again on replay).
    func serve(_ input: String, limits: DriverLimits, closingInput: Bool, settle: TimeInterval = 0,
               consume: @escaping @Sendable (Substring) -> Bool, next: () -> Bool) -> ChildProcess.Outcome {
        let fresh = cases == 0
        cases += 1
        // A case's last words are what it wrote to standard error. A new process may write
        // before it reads its first request (a library that fails to load), and its reader may
        // already have kept that: its tail is the case's. A process that served a case gets a
        // fresh tail, so the earlier case's words are not quoted as this one's; but a sanitizer
        // report begun since is kept, and is this case's last words if it ends the process. A
        // late callback of the earlier case (a timer holding an operation unretained) reaches
        // freed memory between cases, and AddressSanitizer is still printing, or has stopped
        // the process, when this case begins: dropped, its report left only its last line,
        // "==pid==ABORTING" (issue 30, Examples/async-operation's TimeoutAsyncOperation).
        let tail = lock.withLock { () -> ChildProcess.ErrorTail in
            if !fresh && !errors.holdsSanitizerReport { errors = ChildProcess.ErrorTail() }
            return errors
        }
        let reaped = self.reaped
        guard output.reset(consume: consume, wake: { reaped.poke() }) else {
            // Not for a process that wrote between cases (`isIdleAndClean` is checked first).
            return end(killed: nil, lastError: tail.lastWords)
        }
        let request = Data(input.utf8)
        writing.enter()
        Thread { [child, writing] in
            if closingInput { child.send(request) } else { child.deliver(request) }
            writing.leave()
        }.start()

        var killed: String?
        var clock = ChildProcess.ActiveClock(pid: child.pid)
        // A process that already served a case is running: it answers from the request on, and
        // its silence counts from there. A new one is given the startup allowance first.
        var quietSince = 0.0, heardAt: Double? = fresh ? nil : 0, lastBytes = 0
        var stoppedReading = false, overLimit: String?
        while !reaped.wait(seconds: 0.05) {
            clock.tick()
            if let threads = ProcessThreads.count(child.pid), threads > limits.maxThreads {
                overLimit = "the driver ran \(threads) threads at once, more than a case may (\(limits.maxThreads)): "
                    + "the scenario asks more of the machine than a case may hold"
                break
            }
            let (bytes, stop, overflow) = output.progress
            if stop { stoppedReading = true; break }
            if bytes != lastBytes {
                lastBytes = bytes; quietSince = clock.active; if heardAt == nil { heardAt = clock.active }
            }
            killed = overflow ?? Self.limitPassed(clock, heardAt: heardAt, quietSince: quietSince, limits: limits)
            if killed != nil { break }
        }
        if stoppedReading && !closingInput && next() && !reaped.hasEnded {
            if !reportedOrEnded(within: settle) {
                let (lines, bytes, _, _, _) = output.summary
                return ChildProcess.Outcome(status: 0, signal: nil, killed: nil, lastError: nil, stoppedByReader: true,
                                            unfinishedLine: nil, lines: lines, bytes: bytes, reusable: true)
            }
            // A report began: the sanitizer ends the process once it has printed it (a
            // symbolised report can take seconds); stopped before, its report would be cut.
            _ = reaped.wait(seconds: 10)
        }
        var outcome = end(killed: killed, lastError: nil)
        if let overLimit { outcome.overLimit = overLimit }
        return outcome
    }

    /// Which of a case's limits its process has passed, as the sentence that says why it was
    /// killed; nil while it is within them all.
    private static func limitPassed(
        _ clock: ChildProcess.ActiveClock, heardAt: Double?, quietSince: Double, limits: DriverLimits
    ) -> String? {
        if let heard = heardAt {
            if clock.active - max(quietSince, heard) > limits.timeout {
                return "no progress within \(DriverLimits.number(limits.timeout)) s"
            }
        } else if clock.active > ChildProcess.startupAllowance {
            return "no output within \(Int(ChildProcess.startupAllowance)) s of starting"
        }
        // A child that talks for ever (a livelock that keeps logging) is stopped too, from
        // its first line on, or from the end of the startup allowance at the latest.
        if clock.active - (heardAt ?? ChildProcess.startupAllowance) > limits.caseDeadline {
            return "the case ran past its deadline of \(DriverLimits.number(limits.caseDeadline)) s "
                + Confirmation.runawayWords + " (--case-deadline)"
        }
        // Stopped time does not count against the limits, but it is not free either: a
        // driver left stopped (a debugger that went away) is given up on after the deadline.
        if clock.stopped > limits.caseDeadline {
            return "the driver was stopped by a signal (SIGSTOP, a debugger) for more than "
                + "\(DriverLimits.number(limits.caseDeadline)) s in all (--case-deadline)"
        }
        return nil
    }

    /// Whether, within `seconds`, a sanitizer began a report on standard error or the process
    /// ended: the case is then over only once the process is (`end`), its report its last words.
    private func reportedOrEnded(within seconds: TimeInterval) -> Bool {
        guard seconds > 0 else { return false }
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if holdsSanitizerReport || reaped.hasEnded { return true }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return holdsSanitizerReport || reaped.hasEnded
    }

    /// Stops the process (unless it has ended), waits for it and its readers, and says how the
    /// case ended.
    private func end(killed: String?, lastError: String?) -> ChildProcess.Outcome {
        var killed = killed
        reaped.stop(child)
        // Bounded: a reaper thread the machine could not start (pthread_create fails when it is
        // out of threads, and Foundation's Thread says nothing) never reports, and a run once
        // waited here for ever on drivers that had exited (issue 43). Past the deadline the case
        // is the machine's; the child, killed, is reaped by its reaper if it ever runs, or by
        // no one until the harness exits (a zombie, not a hang).
        guard reaped.reaped(within: Self.reapDeadline) else {
            let (lines, bytes, unfinished, stopped, _) = output.summary
            var outcome = ChildProcess.Outcome(
                status: -1, signal: nil, killed: killed, lastError: lastError, stoppedByReader: stopped,
                unfinishedLine: unfinished, lines: lines, bytes: bytes)
            outcome.machine =
                "a driver killed \(Int(Self.reapDeadline)) s ago was never seen to end (out of threads or processes?)"
            return outcome
        }
        let ending = reaped.ending
        // The child has ended and its group is gone (`SpawnedProcess.wait` kills what it left
        // behind), so the pipes reach their end; the wait is a backstop for a grandchild that
        // left the group holding them.
        _ = readers.wait(timeout: .now() + 5)
        let (lines, bytes, unfinished, stopped, overflow) = output.summary
        // A child that wrote a line over the limit (or too much) and ended before a tick of the
        // loop saw it: reading stopped there all the same, so the case ends the same way as when
        // the child was still running, not by what its ending says about an unread trace.
        if killed == nil && !stopped, let overflow { killed = overflow }
        let words = lastError ?? lock.withLock { errors }.lastWords
        switch ending {
        case .exited(let status):
            return ChildProcess.Outcome(
                status: status, signal: nil, killed: killed, lastError: words, stoppedByReader: stopped,
                unfinishedLine: unfinished, lines: lines, bytes: bytes)
        case .signalled(let signal):
            return ChildProcess.Outcome(
                status: signal, signal: killed == nil && !stopped ? signal : nil, killed: killed, lastError: words,
                stoppedByReader: stopped, unfinishedLine: unfinished, lines: lines, bytes: bytes)
        }
    }

    /// Ends a process that waits for its next request: closes its standard input, which tells a
    /// driver of protocol 3 to exit, and gives it `grace` seconds to do so before its group is
    /// killed; then reaps it. On a thread of its own: nobody waits for a retiring driver, unless
    /// `done` is given (a run that counts its drivers' CPU, which is counted once reaped).
    func retire(grace: TimeInterval = 2, done: DispatchGroup? = nil) {
        let (child, reaped, writing) = (self.child, self.reaped, self.writing)
        done?.enter()
        Thread {
            defer { done?.leave() }
            // Bounded: a writer blocked on a driver that stopped reading ends when it is killed.
            _ = writing.wait(timeout: .now() + grace)
            child.closeInput()
            let deadline = Date().addingTimeInterval(grace)
            while !reaped.hasEnded && Date() < deadline { _ = reaped.wait(seconds: deadline.timeIntervalSinceNow) }
            if !reaped.hasEnded { reaped.stop(child) }
            _ = reaped.reaped(within: DriverProcess.reapDeadline)
        }.start()
    }

    /// How long a killed driver may take to be seen ended before its case is given up as the
    /// machine's (`end`). A killed process ends at once; only a machine that cannot run the
    /// reaper's thread takes longer.
    static let reapDeadline: TimeInterval = 30
}
