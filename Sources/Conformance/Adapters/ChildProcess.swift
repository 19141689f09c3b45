import Foundation
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
        /// progress within 5 s"), if it did.
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
    static func run(_ command: [String], input: String, limits: DriverLimits, consume: @escaping @Sendable (Substring) -> Bool) -> Outcome {
        // No backtraces in a driver: a trap is an expected outcome, reported by its message.
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let child: SpawnedProcess
        do { child = try SpawnedProcess.start(command, environment: environment) } catch {
            return Outcome(status: -1, signal: nil, killed: nil, lastError: "cannot start \(command[0]): \(error.message)",
                           stoppedByReader: false, unfinishedLine: nil, lines: 0, bytes: 0)
        }
        let output = LineSplitter(consume: consume)
        let errors = ErrorTail()
        // Readers, writer and reaper each on a thread of their own, not on the global queues:
        // those also run the cases, and their threads are limited. With `--jobs 16` the readers
        // waited for a thread while the cases held them, the wait for them below timed out, and
        // a case whose output had not been read yet was reported as a crash (5 of 40 cases). A
        // child that never reads its input must not block the deadlines either.
        let readers = DispatchGroup()
        readers.enter()
        Thread { SpawnedProcess.drain(child.output) { output.append($0) }; readers.leave() }.start()
        readers.enter()
        Thread { SpawnedProcess.drain(child.errors) { errors.append($0) }; readers.leave() }.start()
        let request = Data(input.utf8)
        Thread { child.send(request) }.start()
        let reaped = Reaped()
        Thread { reaped.set(child.wait()) }.start()

        var killed: String?
        var clock = ActiveClock(pid: child.pid)
        var quietSince = 0.0, heardAt: Double?, lastBytes = 0
        while !reaped.wait(seconds: 0.05) {
            clock.tick()
            let (bytes, stop, overlong) = output.progress
            if stop { child.stop(); break }
            if bytes != lastBytes { lastBytes = bytes; quietSince = clock.active; if heardAt == nil { heardAt = clock.active } }
            if overlong {
                killed = "the driver wrote a line of more than \(DriverLimits.maxLine >> 20) MB"
            } else if bytes > DriverLimits.maxBytes {
                killed = "the driver ran away: it wrote more than \(DriverLimits.maxBytes >> 20) MB"
            } else if heardAt != nil {
                if clock.active - quietSince > limits.timeout { killed = "no progress within \(DriverLimits.number(limits.timeout)) s" }
            } else if clock.active > startupAllowance {
                killed = "no output within \(Int(startupAllowance)) s of starting"
            }
            // A child that talks for ever (a livelock that keeps logging) is stopped too, from
            // its first line on, or from the end of the startup allowance at the latest.
            if killed == nil && clock.active - (heardAt ?? startupAllowance) > limits.caseDeadline {
                killed = "the case ran past its deadline of \(DriverLimits.number(limits.caseDeadline)) s while the driver was still writing (--case-deadline)"
            }
            if killed != nil { child.stop(); break }
        }
        let ending = reaped.wait(seconds: .infinity) ? reaped.ending : .exited(-1)
        // The child has ended and its group is gone (`SpawnedProcess.wait` kills what it left
        // behind), so the pipes reach their end; the wait is a backstop for a grandchild that
        // left the group holding them.
        _ = readers.wait(timeout: .now() + 5)
        let (lines, bytes, unfinished, stopped) = output.summary
        let lastError = errors.lastWords
        switch ending {
        case .exited(let status):
            return Outcome(status: status, signal: nil, killed: killed, lastError: lastError, stoppedByReader: stopped,
                           unfinishedLine: unfinished, lines: lines, bytes: bytes)
        case .signalled(let signal):
            return Outcome(status: signal, signal: killed == nil && !stopped ? signal : nil, killed: killed, lastError: lastError,
                           stoppedByReader: stopped, unfinishedLine: unfinished, lines: lines, bytes: bytes)
        }
    }

    /// The child's active time (see `run`), advanced by the watch loop's ticks.
    struct ActiveClock {
        let pid: pid_t
        private(set) var active = 0.0
        private var last = ContinuousClock.now
        init(pid: pid_t) { self.pid = pid }

        mutating func tick() {
            let now = ContinuousClock.now
            let elapsed = (now - last).seconds
            last = now
            guard !Self.isStopped(pid) else { return }
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
    /// handed over as they complete; a line longer than `DriverLimits.maxLine` is not kept.
    ///
    /// `@unchecked Sendable` is sound: every stored property is read and written only under
    /// `lock`, except `consume`, a `let` called only from the one thread that appends.
    final class LineSplitter: @unchecked Sendable {
        private let lock = NSLock()
        private let consume: @Sendable (Substring) -> Bool
        private var pending: [UInt8] = []
        private var bytes = 0, lines = 0
        private var stopped = false, overlong = false
        init(consume: @escaping @Sendable (Substring) -> Bool) { self.consume = consume }

        func append(_ chunk: Data) {
            lock.lock()
            bytes += chunk.count
            let reading = !stopped && !overlong
            lock.unlock()
            guard reading else { return }
            var start = chunk.startIndex
            while let newline = chunk[start...].firstIndex(of: 0x0A) {
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
                let more = consume(line[...])
                lock.lock()
                lines += 1
                if !more { stopped = true }
                lock.unlock()
                if !more { return }
            }
            pending.append(contentsOf: chunk[start...])
            if pending.count > DriverLimits.maxLine {
                pending = []
                lock.lock(); overlong = true; lock.unlock()
            }
        }

        /// Bytes so far, whether the reader asked to stop, whether a line was too long.
        var progress: (Int, Bool, Bool) { lock.lock(); defer { lock.unlock() }; return (bytes, stopped, overlong) }
        /// Lines handed over, bytes, the unfinished last line, whether the reader stopped.
        var summary: (Int, Int, String?, Bool) {
            lock.lock(); defer { lock.unlock() }
            let tail = pending.isEmpty || stopped || overlong ? nil : String(decoding: pending.prefix(4096), as: UTF8.self)
            return (lines, bytes, tail, stopped)
        }
    }

    /// What the harness keeps of a child's standard error: its last 64 KB, and its first line
    /// that contains `Fatal error` (a Swift trap's message, quoted as the crash's last words).
    ///
    /// `@unchecked Sendable` is sound: every stored property is read and written under `lock`.
    final class ErrorTail: @unchecked Sendable {
        private let lock = NSLock()
        private var tail: [UInt8] = []
        private var fatal: String?
        private static let keep = 65_536

        func append(_ chunk: Data) {
            lock.lock(); defer { lock.unlock() }
            tail.append(contentsOf: chunk)
            if fatal == nil, let found = Self.fatalLine(in: tail) { fatal = found }
            if tail.count > 2 * Self.keep { tail.removeFirst(tail.count - Self.keep) }
        }

        static func fatalLine(in bytes: [UInt8]) -> String? {
            let text = String(decoding: bytes, as: UTF8.self)
            guard let range = text.range(of: "Fatal error") else { return nil }
            let start = text[..<range.lowerBound].lastIndex(of: "\n").map { text.index(after: $0) } ?? text.startIndex
            guard let end = text[range.upperBound...].firstIndex(of: "\n") else { return nil }   // the line is not whole yet
            return String(text[start..<end].prefix(4096))
        }

        var lastWords: String? {
            lock.lock(); defer { lock.unlock() }
            if let fatal { return fatal }
            let text = String(decoding: tail, as: UTF8.self)
            return text.split(separator: "\n").last.map { String($0.prefix(4096)) }
        }
    }

    /// How the child ended, handed from the thread that reaps it. `@unchecked Sendable` is
    /// sound: `value` is written once and read only under `condition`.
    final class Reaped: @unchecked Sendable {
        private let condition = NSCondition()
        private var value: SpawnedProcess.Ending?
        func set(_ ending: SpawnedProcess.Ending) { condition.lock(); value = ending; condition.broadcast(); condition.unlock() }
        /// Whether the child has ended, waiting at most `seconds` for it.
        func wait(seconds: Double) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            // No `wait(until: .distantFuture)`: on Linux it traps (the date overflows a timespec).
            if seconds.isInfinite {
                while value == nil { condition.wait() }
                return true
            }
            let deadline = Date().addingTimeInterval(seconds)
            while value == nil { if !condition.wait(until: deadline) { break } }
            return value != nil
        }
        var ending: SpawnedProcess.Ending { condition.lock(); defer { condition.unlock() }; return value! }
    }
}
