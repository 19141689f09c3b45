import ConformanceFormats
import Foundation
import OperationDriverKit
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`, in a process group of its own, with its three
/// standard streams on pipes.
///
/// Why not Foundation's `Process`: on Linux its `run()` is not safe to call from two threads at
/// once (a run of 1,000 Foundation cases with `--jobs 2` died with SIGSEGV in `memmove` inside
/// `Process.run()`, swift-corelibs-foundation 6.3.1; SwiftPM tracked the same class of problem as
/// SR-3625), and a lock of ours cannot cover the `Process` calls of other code in the same
/// process: a user's test process running `expectConformance` beside tests of its own died the
/// same way while shrinking. `posix_spawn` is safe from any thread, and its pipes are made
/// close-on-exec, so a child started on one thread never inherits another child's pipe ends
/// (which would keep that pipe open after its child died).
///
/// The child gets its own process group, so `kill()` also stops what a driver started itself
/// (an interpreter's helpers, a shell's children), and the default disposition of SIGPIPE;
/// what it starts in a session of its own is found by the mark in its environment.
/// Every stored property is a `let` (numbers, and a `Mutex`), so the class is `Sendable` as it
/// is; each pipe end is used by one thread at a time (the writer of a request, or one reader
/// each).
final class SpawnedProcess: Sendable {
    let pid: pid_t
    /// The parent's ends: write to `input`, read `output` and `errors`.
    let input: Int32, output: Int32, errors: Int32
    /// The mark in the child's environment (`ProcessMark`): what it starts outside its
    /// process group is found by it and ended with it.
    let mark: String

    enum Ending: Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    struct StartError: Error {
        let message: String
        /// The machine, not the command, refused: out of processes or memory (EAGAIN, ENOMEM,
        /// ENFILE) for all of `spawnDeadline`. The case is the machine's, never a verdict.
        var transient = false
    }

    /// How long a start that the machine refuses for want of processes or memory is retried,
    /// with backoff, before it is given up as the machine's failure (issue 43: another job held
    /// tens of thousands of threads, and fork failed machine-wide for minutes).
    static let spawnDeadline: TimeInterval = 60

    /// Errors of a start that say the machine is out of something, not that the command is bad.
    static let transientErrors: [Int32] = [EAGAIN, ENOMEM, ENFILE]

    private init(pid: pid_t, input: Int32, output: Int32, errors: Int32, mark: String) {
        self.pid = pid
        self.mark = mark
        self.input = input
        self.output = output
        self.errors = errors
    }

    /// Writing a request to a child that already died raises SIGPIPE in the writer, whose
    /// default action ends the whole process (the harness, or a user's test process): ignored
    /// once for the process, so the write fails with EPIPE instead and the child's death is
    /// reported as its case's outcome. Children get the default back (`POSIX_SPAWN_SETSIGDEF`).
    private static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// Held from making a child's pipes to spawning it (see `start`).
    private static let creating = NSLock()

    /// Starts `command` (an absolute executable path, then its arguments) with `environment`.
    /// A start the machine refuses for want of processes or memory is tried again with backoff
    /// (10 ms, doubling to 1 s) for `spawnDeadline`, then given up as `transient`.
    static func start(_ command: [String], environment: [String: String]) throws(StartError) -> SpawnedProcess {
        let deadline = Date().addingTimeInterval(spawnDeadline)
        var pause: TimeInterval = 0.01
        while true {
            do {
                return try startOnce(command, environment: environment)
            } catch where error.transient {
                if LiveChildren.isStopping {
                    throw StartError(message: "the run is stopping: \(error.message)", transient: true)
                }
                if Date().addingTimeInterval(pause) >= deadline {
                    throw StartError(
                        message: "the machine refused to start it for \(Int(spawnDeadline)) s: \(error.message)",
                        transient: true)
                }
                Thread.sleep(forTimeInterval: pause)
                pause = min(pause * 2, 1)
            }
        }
    }

    private static func startOnce(
        _ command: [String], environment: [String: String]
    ) throws(StartError) -> SpawnedProcess {
        _ = ignoreBrokenPipes
        guard let path = command.first else { throw StartError(message: "no command") }
        // `pipe2(O_CLOEXEC)` is not visible to Swift here, so the flag is set right after
        // `pipe`; the lock keeps our other spawns out of that window, so no child of ours
        // inherits these ends.
        creating.lock()
        defer { creating.unlock() }
        let pipes = try makePipes()
        let (stdinPipe, stdoutPipe, stderrPipe) = (pipes[0], pipes[1], pipes[2])

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on the copies: the child keeps 0, 1 and 2.
        posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, stderrPipe[1], 2)
        // And nothing else: a descriptor another thread has open without close-on-exec (a file
        // being written, such as a driver script a test has just made) would otherwise live as
        // long as this child, and exec of that file would fail with ETXTBSY meanwhile.
        _ = closeAbove2?(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        // Sorted, so a child's environment does not depend on a dictionary's order.
        let mark = ProcessMark.next()
        var environment = environment
        environment[ProcessMark.key] = mark
        let words = command.map { strdup($0) } + [nil]
        let env = environment.keys.sorted().map { strdup("\($0)=\(environment[$0]!)") } + [nil]
        defer {
            for w in words { free(w) }
            for e in env { free(e) }
        }
        var pid = pid_t()
        var status = posix_spawn(&pid, path, &actions, &attributes, words, env)
        // ETXTBSY: the executable is still open for writing somewhere, typically because another
        // thread was writing it (a driver script just made) when some process forked and
        // inherited that descriptor; it goes away when that child execs. Retried briefly.
        var tries = 0
        while status == ETXTBSY && tries < 50 {
            usleep(20_000)
            tries += 1
            status = posix_spawn(&pid, path, &actions, &attributes, words, env)
        }
        close(stdinPipe[0])
        close(stdoutPipe[1])
        close(stderrPipe[1])
        guard status == 0 else {
            close(stdinPipe[1]); close(stdoutPipe[0]); close(stderrPipe[0])
            throw StartError(message: String(cString: strerror(status)), transient: transientErrors.contains(status))
        }
        LiveChildren.add(pid)
        return SpawnedProcess(pid: pid, input: stdinPipe[1], output: stdoutPipe[0], errors: stderrPipe[0], mark: mark)
    }

    /// Three pipes, both ends close-on-exec, for the child's standard input, output and error;
    /// none left open when one cannot be made. Called while `creating` is held.
    private static func makePipes() throws(StartError) -> [[Int32]] {
        var pipes: [[Int32]] = []
        for _ in 0..<3 {
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else {
                for p in pipes { close(p[0]); close(p[1]) }
                let code = errno
                throw StartError(
                    message: "cannot make a pipe: \(String(cString: strerror(code)))",
                    transient: transientErrors.contains(code))
            }
            _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
            pipes.append(fds)
        }
        return pipes
    }

    /// Writes `data` to the child's standard input and closes it. A child that exited first
    /// makes the write fail (EPIPE), which is not an error here: its ending tells.
    func send(_ data: Data) {
        deliver(data)
        closeInput()
    }

    /// Whether `input` was closed: closed once only, since a descriptor number closed twice may
    /// by then be another thread's file.
    private let inputClosed = Mutex(false)

    /// Closes the child's standard input (once; later calls do nothing).
    func closeInput() {
        let first = inputClosed.withLock { closed in
            defer { closed = true }
            return !closed
        }
        if first { close(input) }
    }

    /// Writes `data` to the child's standard input, leaving it open (a session's next request
    /// follows). A child that exited first makes the write fail (EPIPE): its ending tells.
    func deliver(_ data: Data) {
        guard !inputClosed.withLock({ $0 }) else { return }
        data.withUnsafeBytes { raw in
            guard var p = raw.baseAddress else { return }
            var left = raw.count
            while left > 0 {
                let n = write(input, p, left)
                if n < 0 { if errno == EINTR { continue }; break }
                p += n
                left -= n
            }
        }
    }

    /// Reads `fd` to its end, handing each chunk over as it comes; closes it.
    static func drain(_ fd: Int32, _ chunk: (Data) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; break }
            if n == 0 { break }
            chunk(Data(buffer[0..<n]))
        }
        close(fd)
    }

    /// Runs `command` to its end with no input, and returns how it ended and what it wrote on
    /// standard output and error together (a build's messages). No deadline: for tools of ours.
    static func run(_ command: [String], environment: [String: String]) throws(StartError) -> (Ending, String) {
        let child = try start(command, environment: environment)
        child.send(Data())
        let errors = Collected()
        let done = DispatchGroup()
        done.enter()
        Thread { drain(child.errors) { errors.append($0) }; done.leave() }.start()
        let output = Collected()
        drain(child.output) { output.append($0) }
        done.wait()
        return (child.wait(), String(decoding: output.data + errors.data, as: UTF8.self))
    }

    /// Bytes a reader thread hands over. `@unchecked Sendable` is sound: `bytes` is read and
    /// written only under `lock`.
    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var bytes = Data()
        /// The most bytes kept; what comes after is read and dropped.
        let limit: Int
        init(limit: Int = .max) { self.limit = limit }
        func append(_ d: Data) {
            lock.withLock { if bytes.count < limit { bytes.append(d.prefix(limit - bytes.count)) } }
        }
        var data: Data { lock.withLock { bytes } }
    }

    /// Runs `command` with no input for at most `seconds`, keeping at most `maxBytes` of what it
    /// writes on standard output and error together; nil when it did not end in time (it is then
    /// killed with its group). For probes of programs that are not ours (`Sanitizer`): a driver
    /// that never answers, or floods, must not hold or fill the harness (issue 43).
    static func run(_ command: [String], environment: [String: String], seconds: TimeInterval,
                    maxBytes: Int) throws(StartError) -> (Ending, String)? {
        let child = try start(command, environment: environment)
        child.send(Data())
        let collected = Collected(limit: maxBytes)
        let done = DispatchGroup()
        for pipe in [child.output, child.errors] {
            done.enter()
            Thread { drain(pipe) { collected.append($0) }; done.leave() }.start()
        }
        let deadline = Date().addingTimeInterval(seconds)
        var ending = child.poll()
        while ending == nil && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
            ending = child.poll()
        }
        guard let ending else {
            child.stop()
            _ = child.wait()
            _ = done.wait(timeout: .now() + 5)
            return nil
        }
        _ = done.wait(timeout: .now() + 5)
        return (ending, String(decoding: collected.data, as: UTF8.self))
    }

    /// The child's ending if it has ended (reaping it), else nil.
    func poll() -> Ending? {
        // Looked at without reaping first, so that the reaping goes through `wait()`.
        var info = siginfo_t()
        guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT | WNOHANG) == 0 else { return nil }
        #if canImport(Glibc)
        let ended = info._sifields._sigchld.si_pid == pid
        #else
        let ended = info.si_pid == pid
        #endif
        return ended ? wait() : nil
    }

    /// Waits for the child to end, kills what it left running in its process group (a
    /// driver that forked a helper and died, or exited while the helper held its pipes), and
    /// reaps it. The group is killed before the reaping: until then the child's pid, which is
    /// the group's id, cannot be given to another process.
    func wait() -> Ending {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        killGroup(pid)
        ProcessMark.end(mark)
        LiveChildren.remove(pid)
        return wait(blocking: true)!
    }

    private func wait(blocking: Bool) -> Ending? {
        var status: Int32 = 0
        while true {
            let r = waitpid(pid, &status, blocking ? 0 : WNOHANG)
            if r == 0 { return nil }
            if r < 0 { if errno == EINTR { continue }; return .exited(-1) }
            break
        }
        // The wait status's layout (POSIX's macros are not visible to Swift): the low 7 bits are
        // the terminating signal, 0 when the child exited, whose status is the next byte.
        let signal = status & 0x7F
        return signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
    }

    /// Kills the child's whole process group, and what it started outside it.
    func stop() {
        killGroup(pid)
        ProcessMark.end(mark)
    }
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), looked up at run time
/// because Swift does not see its declaration; nil where the C library lacks it.
private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
private let closeAbove2: AddCloseFrom? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
        return nil
    }
    return unsafeBitCast(symbol, to: AddCloseFrom.self)
}()

/// `kill` of a process group, outside the class whose method would shadow the C function.
private func killGroup(_ pid: pid_t) { _ = kill(-pid, SIGKILL) }
