import ConformanceFormats
import Foundation
import OperationDriverKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a driver with one request on standard input and hands each line of its standard output
/// to a reader as the line arrives, under the harness's limits. Nothing of the output is kept
/// here: the reader decodes a line and keeps what it means, so a driver that writes a gigabyte
/// costs the harness the events it is allowed (`DriverLimits.maxEvents`), not the gigabyte.
enum ChildProcess {
    struct Outcome {
        var status: Int32
        var signal: Int32?
        /// Why the harness killed the child for taking too long or writing too much ("no
        /// progress within 5 s"), if it did; or why it stopped reading a child that wrote too
        /// much and then ended by itself before the harness could kill it (a line over 1 MB).
        var killed: String?
        /// The child's last words on standard error: its last line containing `Fatal error`, or
        /// else its last line.
        var lastError: String?
        /// Whether the reader stopped reading (it had the trace's last event, or the driver
        /// broke the protocol) and the child was stopped then.
        var stoppedByReader: Bool
        /// What the child wrote after its last newline when it ended (a line cut off).
        var unfinishedLine: String?
        var lines: Int
        var bytes: Int
        /// The case ended with `done` saying `next` (protocol 3), the process is alive and
        /// said nothing more: it waits for its next request (`DriverProcess`). Its status and
        /// signal then mean nothing.
        var reusable = false

        /// Why the case is the machine's, not the implementation's nor the driver's: it could
        /// not start a driver, or a driver it killed never ended (`DriverProcess.end`). The case
        /// ends cut (`EventKind.cut`), with no verdict.
        var machine: String?
        /// Why the case was cut short for asking more of the machine than a case may (a driver
        /// past `DriverLimits.maxThreads`): it ends cut, unjudged, and no run that holds it passes.
        var overLimit: String?

        /// A driver that could not be started (status -1, the reason as its last words); the
        /// machine's failure when it was out of processes or memory.
        static func cannotStart(_ command: [String], _ error: SpawnedProcess.StartError) -> Outcome {
            var outcome = Outcome(
                status: -1, signal: nil, killed: nil, lastError: "cannot start \(command[0]): \(error.message)",
                stoppedByReader: false, unfinishedLine: nil, lines: 0, bytes: 0)
            if error.transient { outcome.machine = "the machine could not start a driver: " + error.message }
            return outcome
        }
    }

    /// How long a child may take to say anything at all. Starting a process from a cold disk
    /// while a test suite starts dozens of others can take seconds on a CI machine; that is not
    /// the implementation hanging, so it does not count against `timeout`.
    static let startupAllowance: TimeInterval = 60

    /// Runs `command` with `input` on standard input, calling `consume` with each line of its
    /// standard output (without the newline) on a reader thread, in order, until it returns
    /// false; the child is then stopped at once (its process group killed), since the reader
    /// has what it needs. The child is also killed (`killed`) when:
    /// - it has written nothing for `limits.timeout` seconds once it has started talking, or
    ///   nothing within `startupAllowance`;
    /// - it is still writing `limits.caseDeadline` seconds after its first line;
    /// - it writes more than `DriverLimits.maxBytes`, or a line longer than `DriverLimits.maxLine`.
    ///
    /// The timeouts measure the child's *active* time: wall time less the spans in which the
    /// child was stopped (SIGSTOP, a debugger: its state in `/proc`) and less the harness's own
    /// stalls (a tick of the 50 ms watch loop that took over half a second counts half a
    /// second). A busy machine that stops a driver for seconds stretches its case; it does not
    /// turn it into a hang. The drivers' own windows measure active time the same way.
    static func run(
        _ command: [String], input: String, limits: DriverLimits, consume: @escaping @Sendable (Substring) -> Bool
    ) -> Outcome {
        let process: DriverProcess
        do { process = try DriverProcess.start(command) } catch {
            return .cannotStart(command, error)
        }
        return process.serve(input, limits: limits, closingInput: true, consume: consume, next: { false })
    }

    /// The child's active time (see `run`), advanced by the watch loop's ticks.
    struct ActiveClock {
        let pid: pid_t
        private(set) var active = 0.0
        /// Time the child spent stopped: bounded too (`run`), or a driver stopped and never
        /// resumed would be waited for for ever.
        private(set) var stopped = 0.0
        private var last = ContinuousClock.now
        init(pid: pid_t) { self.pid = pid }

        mutating func tick() {
            let now = ContinuousClock.now
            let elapsed = (now - last).seconds
            last = now
            guard !Self.isStopped(pid) else { stopped += elapsed; return }
            active += min(elapsed, 0.5)
        }

        /// Whether `pid` is stopped by a signal or traced (state `T` or `t` in `/proc/PID/stat`).
        /// Where there is no `/proc`, never.
        static func isStopped(_ pid: pid_t) -> Bool {
            let fd = open("/proc/\(pid)/stat", O_RDONLY)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 512)
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { return false }
            // "pid (comm) S ...": the state follows the last ')' (a command may hold parentheses).
            guard let close = buffer[0..<n].lastIndex(of: UInt8(ascii: ")")), close + 2 < n else { return false }
            let state = buffer[close + 2]
            return state == UInt8(ascii: "T") || state == UInt8(ascii: "t")
        }
    }

    /// Splits standard output into lines for the reader, on the stdout reader thread. Lines are
    /// handed over as they complete. Reading stops for good at a line longer than
    /// `DriverLimits.maxLine` (which is never kept whole) and at `DriverLimits.maxBytes`: no line
    /// that ends past that byte is handed over, however soon the watch loop kills the child.
    /// In a session (protocol 3) one splitter serves the process's cases one after another:
    /// `reset` gives it the next case's reader, and counts start again.
    ///
    /// `@unchecked Sendable` is sound: every stored `var` is read and written only under `lock`
    /// (`append` runs on the stdout reader thread; `progress`, `summary` and `reset` on the
    /// case's, and a reader may outlive the wait for it when a grandchild that left the group
    /// holds the pipe). `consume` is called without the lock, only from the appending thread.
    final class LineSplitter: @unchecked Sendable {
        private let lock = NSLock()
        private var consume: @Sendable (Substring) -> Bool
        /// Called, without the lock, when reading stops (the reader has its case, or too much
        /// was written): wakes the case's watch loop at once instead of at its next tick.
        private var wake: @Sendable () -> Void = {}
        private var pending: [UInt8] = []
        private var bytes = 0, lines = 0
        private var stopped = false
        /// Why reading stopped for too much output (a line over 1 MB, over 512 MB in all).
        private var overflow: String?
        /// Bytes arrived after the reader stopped: in a session, output between cases.
        private var stray = false
        init(consume: @escaping @Sendable (Substring) -> Bool) { self.consume = consume }

        /// The next case's reader (a session). False when the process wrote something since the
        /// last case stopped reading (it cannot be trusted with another case).
        func reset(consume: @escaping @Sendable (Substring) -> Bool, wake: @escaping @Sendable () -> Void) -> Bool {
            lock.withLock {
                guard !stray && pending.isEmpty && overflow == nil else { return false }
                self.consume = consume
                self.wake = wake
                bytes = 0; lines = 0; stopped = false
                return true
            }
        }

        func append(_ chunk: Data) {
            lock.lock()
            var woken: (@Sendable () -> Void)?
            defer { lock.unlock(); woken?() }
            let before = bytes
            bytes += chunk.count
            guard !stopped && overflow == nil else { if !chunk.isEmpty { stray = true }; return }
            var end = chunk.endIndex
            if bytes > DriverLimits.maxBytes {
                end = chunk.startIndex + max(0, DriverLimits.maxBytes - before)
                overflow = "the driver ran away: it wrote more than \(DriverLimits.maxBytes >> 20) MB"
            }
            var start = chunk.startIndex
            while let newline = chunk[start..<end].firstIndex(of: 0x0A) {
                let line: String
                if pending.isEmpty {
                    line = String(decoding: chunk[start..<newline], as: UTF8.self)
                } else {
                    pending.append(contentsOf: chunk[start..<newline])
                    line = String(decoding: pending, as: UTF8.self)
                    pending.removeAll(keepingCapacity: true)
                }
                start = chunk.index(after: newline)
                if line.isEmpty { continue }
                let consume = self.consume
                lock.unlock()
                let more = consume(line[...])
                lock.lock()
                lines += 1
                if !more {
                    stopped = true
                    pending = []
                    if start < chunk.endIndex { stray = true }
                    woken = wake
                    return
                }
            }
            if overflow != nil { pending = []; woken = wake; return }
            pending.append(contentsOf: chunk[start..<end])
            if pending.count > DriverLimits.maxLine {
                pending = []
                overflow = "the driver wrote a line of more than \(DriverLimits.maxLine >> 20) MB"
                woken = wake
            }
        }

        /// Bytes so far, whether the reader asked to stop, why reading stopped for too much output.
        var progress: (Int, Bool, String?) { lock.withLock { (bytes, stopped, overflow) } }
        /// Lines handed over, bytes, the unfinished last line, whether the reader stopped, why
        /// reading stopped for too much output.
        var summary: (Int, Int, String?, Bool, String?) {
            lock.withLock {
                let tail =
                    pending.isEmpty || stopped || overflow != nil
                    ? nil : String(decoding: pending.prefix(4096), as: UTF8.self)
                return (lines, bytes, tail, stopped, overflow)
            }
        }
        /// Whether the process wrote anything after its reader stopped.
        var wroteStray: Bool { lock.withLock { stray } }
    }

    /// What the harness keeps of a child's standard error: its last 64 KB, its last line that
    /// contains `Fatal error` (a Swift trap's message, quoted as the crash's last words;
    /// Specs/driver-protocol.md, "Transport"), however much follows it, and a sanitizer's
    /// report, which then is the last words.
    ///
    /// `@unchecked Sendable` is sound: every stored property is read and written under `lock`.
    final class ErrorTail: @unchecked Sendable {
        private let lock = NSLock()
        private var tail: [UInt8] = []
        /// Where the line being written begins in `tail`: the lines before it have been looked at.
        private var lineStart = 0
        private var fatal: String?
        /// A sanitizer's report, gathered line by line (`Sanitizer.ReportReader`): the last
        /// words of a driver a sanitizer stopped.
        private var report = Sanitizer.ReportReader()
        private static let keep = 65_536
        private static let marker = Array("Fatal error".utf8)

        func append(_ chunk: Data) {
            lock.lock(); defer { lock.unlock() }
            tail.append(contentsOf: chunk)
            // Only the lines this chunk completed are looked at: each byte once.
            while let newline = tail[lineStart...].firstIndex(of: 0x0A) {
                if Self.isFatal(tail[lineStart..<newline]) {
                    fatal = String(decoding: tail[lineStart..<newline].prefix(4096), as: UTF8.self)
                    // A trap after a whole report (a driver the sanitizer did not stop): the trap
                    // is the last words.
                    if report.complete { report = Sanitizer.ReportReader() }
                }
                report.take(String(decoding: tail[lineStart..<newline].prefix(4096), as: UTF8.self))
                lineStart = newline + 1
            }
            if tail.count > 2 * Self.keep {
                let drop = tail.count - Self.keep
                tail.removeFirst(drop)
                lineStart = max(0, lineStart - drop)
            }
        }

        /// Whether `line` contains `Fatal error`.
        static func isFatal(_ line: ArraySlice<UInt8>) -> Bool {
            guard line.count >= marker.count else { return false }
            return (line.startIndex...(line.endIndex - marker.count)).contains {
                line[$0..<($0 + marker.count)].elementsEqual(marker)
            }
        }

        /// Whether a sanitizer's report has begun in what was kept.
        var holdsSanitizerReport: Bool { lock.withLock { report.text != nil } }

        var lastWords: String? {
            lock.lock(); defer { lock.unlock() }
            if let text = report.text { return text }
            // A line cut off by the death is the last line too.
            if Self.isFatal(tail[lineStart...]) {
                return String(decoding: tail[lineStart...].prefix(4096), as: UTF8.self)
            }
            if let fatal { return fatal }
            let text = String(decoding: tail, as: UTF8.self)
            return text.split(separator: "\n").last.map { String($0.prefix(4096)) }
        }
    }

    /// Waits until `pid`, a child of this process, has ended, without reaping it: until it is
    /// reaped its pid, which is also its process group's id, is not given to another process.
    static func waitForExit(_ pid: pid_t) {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
    }

    /// How the child ended, handed from the thread that reaps it. `@unchecked Sendable` is
    /// sound: `value` and `ended` are written once each and read only under `condition`.
    final class Reaped: @unchecked Sendable {
        private let condition = NSCondition()
        private var value: SpawnedProcess.Ending?
        /// The child has ended and is about to be reaped (by `SpawnedProcess.wait`).
        private var ended = false
        /// Something the watch loop must look at now (reading stopped): ends its current wait.
        private var poked = false
        func poke() { condition.lock(); poked = true; condition.broadcast(); condition.unlock() }
        /// Whether the child has ended (it may not be reaped yet).
        var hasEnded: Bool { condition.lock(); defer { condition.unlock() }; return ended || value != nil }
        func set(_ ending: SpawnedProcess.Ending) {
            condition.lock(); value = ending; condition.broadcast(); condition.unlock()
        }
        func exited() { condition.lock(); ended = true; condition.unlock() }
        /// Kills the child's process group, unless the child has ended. The check and the kill
        /// are one step under the lock that `exited` takes before the reaper reaps: a kill sent
        /// after the reaping would go to whatever process group has that number by then (pids
        /// come round: pid_max is 32,768 on many machines, and every driver leads a group).
        /// The group of a child that has ended is killed by the reaper (`SpawnedProcess.wait`).
        func stop(_ child: SpawnedProcess) {
            condition.lock(); defer { condition.unlock() }; if !ended { child.stop() }
        }
        /// Whether the child has ended, waiting at most `seconds` for it, or until a poke. Every
        /// wait is bounded (issue 43); `reaped(within:)` is the one that ignores pokes.
        func wait(seconds: Double) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            let deadline = Date().addingTimeInterval(seconds)
            while value == nil && !poked { if !condition.wait(until: deadline) { break } }
            poked = false
            return value != nil
        }
        /// Whether the child has been reaped within `seconds`; pokes do not end this wait.
        func reaped(within seconds: Double) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            let deadline = Date().addingTimeInterval(seconds)
            while value == nil { if !condition.wait(until: deadline) { break } }
            return value != nil
        }
        var ending: SpawnedProcess.Ending { condition.lock(); defer { condition.unlock() }; return value! }
    }
}
