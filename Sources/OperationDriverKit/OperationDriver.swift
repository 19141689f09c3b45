import Foundation
import OperationSpec

/// A driver (`Specs/driver-protocol.md`) for a queue: reads one request, runs its scenario on
/// queues made by `queue` with Foundation's `Operation`, and streams the trace to standard
/// output. A package tests its own queue with an executable target of one line:
///
/// ```swift
/// // Sources/my-queue-driver/main.swift
/// import Conformance
/// import MyQueue
///
/// OperationDriver(name: "myqueue", queue: { MyQueue() }).main()
/// ```
///
/// after `extension MyQueue: QueueUnderTest {}`; then `opconform run --impl
/// exec:.build/debug/my-queue-driver`, or `expectConformance(driver: "my-queue-driver")` from a
/// Swift Testing test (`ConformanceTesting`). `opconform driver` is this with `OperationQueue`
/// (`FoundationDriver`). The harness starts the driver in a child process for every case,
/// because Foundation traps (SIGILL) on misuse and a queue can deadlock: either costs one case.
public struct OperationDriver {
    /// What the driver observes, whatever the queue: which thread each event happened on (the
    /// recorder's own record of the calling thread, not the queue's word: see
    /// `QueueUnderTest.ownsCurrentThread`), whether a concurrent subclass called `super.start`
    /// (the driver's subclasses log it), and every move to finished (they log their ivars and
    /// did-change calls). Not KVO, thrown errors or thread priorities: Foundation on Linux has
    /// none of them, and the operations are Foundation's under any queue.
    public static let capabilities: [Observation] = [.threadIdentity, .superStart, .finishing]

    /// The implementation's name: its `hello` says it, and a request that names another
    /// implementation is refused.
    public let name: String
    private let makeQueue: () -> any QueueUnderTest
    private let makeSubclass: ((SubclassProbe) -> Operation)?
    /// The name of the subclass under test, said in the hello.
    private let subclassName: String?
    /// Whether the hello declares `apiSurface2` (Specs/api-surface.md). The driver performs
    /// those constructs for any queue (a queue of yours answers `readCurrentQueue` through
    /// `ownsCurrentThread`, and `addOperation(_:)` with a block has a default), but declares
    /// them only when asked: a declared capability changes the cases the harness generates for
    /// a seed, and a package's pinned seeds (Examples/) would no longer name the cases they
    /// were chosen for. `FoundationDriver` declares them.
    let surface2: Bool

    /// `queue` makes one queue; it is called once for each of a scenario's queues, on the
    /// driving thread, before any operation runs.
    public init(name: String, queue: @escaping () -> any QueueUnderTest) {
        self.init(name: name, queue: queue, apiSurface2: false)
    }

    /// The same, declaring `apiSurface2` when `apiSurface2` is true: the harness then also
    /// generates `addOperation(_:)` with a block (`addOperationWithBlock:`), `isSuspended`
    /// reads, `OperationQueue.current` reads (answered by your queue's `ownsCurrentThread`),
    /// queue names, `executionBlocks` reads and operations that override `isReady`, and judges
    /// them with their rules (QUEUE-ADD-BLOCK-RUNS, QUEUE-WAIT-ALL-BLOCKS, QUEUE-SUSPENDED-READ,
    /// READY-OVERRIDE, ...). Opting in changes which case a seed makes: a seed pinned before
    /// names another case after.
    public init(name: String, queue: @escaping () -> any QueueUnderTest, apiSurface2: Bool) {
        self.name = name
        self.makeQueue = queue
        self.makeSubclass = nil
        self.subclassName = nil
        self.surface2 = apiSurface2
    }

    /// A driver for your own asynchronous `Operation` subclass: every asynchronous operation of
    /// the generated scenarios is made by `subclass`, an instance of your class that forwards to
    /// its `SubclassProbe`, and runs on `queue`'s queues (Foundation's by default). The hello
    /// names the class, and the harness then generates `subclass` operations.
    public init<S: Operation>(name: String, queue: @escaping () -> any QueueUnderTest = { OperationQueue() },
                              subclass: @escaping (SubclassProbe) -> S) {
        self.name = name
        self.makeQueue = queue
        self.makeSubclass = { subclass($0) }
        self.subclassName = String(describing: S.self)
        self.surface2 = false
    }

    /// The platform this Foundation is: its known divergences are listed under this name
    /// (`Fixtures/expectations/foundation-linux.json`).
    public static var platformName: String {
        #if os(Linux)
        return "foundation-linux"
        #else
        return "foundation-darwin"
        #endif
    }

    /// What the hello says this driver builds on: Foundation, with the tested code's queue (one
    /// `queue` makes that is not exactly `OperationQueue`) or subclass. Nil when the driver
    /// tests nothing but Foundation (`opconform driver`): then Foundation is the code under
    /// test, and its divergences are its own failures.
    /// `sample`: one queue `queue` made, for its type (a hello makes one, for both this and
    /// `observations`).
    func platform(sample: any QueueUnderTest) -> DriverProtocol.Platform? {
        var owns: [String] = []
        if type(of: sample) != OperationQueue.self { owns.append("queue") }
        if makeSubclass != nil { owns.append("subclass") }
        return owns.isEmpty ? nil : DriverProtocol.Platform(name: Self.platformName, owns: owns)
    }

    /// What this driver observes: `capabilities`, less `superStart` for a subclass of yours (its
    /// `start` may call `super.start()` unseen: only the driver's own subclasses log that call),
    /// plus `apiSurface2` when it declares it (`surface2`), and `apiSurface3` and `apiSurface4`
    /// always: the kit performs their constructs for any queue (a `cancelAll` step calls the
    /// queue's own `cancelAllOperations`; the main queue read is Foundation's), and no generated
    /// case depends on them, so no pinned seed moves. `dispatchQueues` only on an
    /// `OperationQueue`, the one queue the kit knows an `underlyingQueue` of.
    func observations(sample: any QueueUnderTest) -> [Observation] {
        (makeSubclass == nil ? Self.capabilities : Self.capabilities.filter { $0 != .superStart })
            + (surface2 ? [.apiSurface2] : [])
            + [.apiSurface3, .apiSurface4] + (sample is OperationQueue ? [.dispatchQueues] : [])
            + (makeSubclass != nil && Announcements.active ? [.announcements] : [])
    }

    /// Serves the requests on standard input and exits with the protocol's status (0, or 2
    /// for a request it cannot run). A request of protocol 3 that leaves nothing behind is
    /// followed by the next one in this process (Specs/driver-protocol.md, "Sessions"); the end
    /// of standard input then ends the process. `--plain` (the bench's) runs without recording.
    public func main() -> Never {
        let plain = CommandLine.arguments.dropFirst().contains("--plain")
        // The harness, for the watchdog; taken first, because a harness that dies before this
        // line goes unnoticed (the driver would take its new parent for the harness).
        let watch = CaseWatch(parent: getppid())
        let write: @Sendable (String) -> Void = { text in FileHandle.standardOutput.write(Data(text.utf8)) }
        guard var line = readLine(strippingNewline: true) else {
            write(ProtocolLines.line(DriverProtocol.Message.error("no request on standard input")))
            exit(2)
        }
        while true {
            let (status, next) = serve(requestLine: line, plain: plain, watch: watch, write: write)
            guard status == 0, next else { exit(status) }
            guard let request = readLine(strippingNewline: true) else { exit(0) }
            line = request
        }
    }

    /// Runs one request; `write` receives each protocol line. Returns the exit status.
    /// When a driver call stalls, the watchdog ends the trace and exits the process (the stuck
    /// thread cannot be made to return): call it only in a driver process of its own, never in
    /// a test process or a harness.
    /// `plain`: run the same scenario without recording (no events but the last; the bench's
    /// measure of what the implementation costs without the harness).
    public func serve(requestLine: String, plain: Bool = false, write: @escaping @Sendable (String) -> Void) -> Int32 {
        serve(requestLine: requestLine, plain: plain, watch: CaseWatch(parent: getppid()), write: write).status
    }

    /// Runs one request under `watch` (the process's one watchdog); returns the exit status,
    /// and whether this process takes the next request (protocol 3, and the case left nothing
    /// behind: `DriverContext.leftovers`).
    func serve(
        requestLine: String, plain: Bool, watch: CaseWatch, write: @escaping @Sendable (String) -> Void
    ) -> (status: Int32, next: Bool) {
        let request: DriverProtocol.Request
        switch ProtocolLines.request(requestLine) {
        case .success(let read): request = read
        case .failure(let problem):
            write(ProtocolLines.line(DriverProtocol.Message.error(problem.message)))
            return (2, false)
        }
        guard DriverProtocol.versions.contains(request.protocol) else {
            write(
                ProtocolLines.line(
                    DriverProtocol.Message.error(
                        "protocol \(request.protocol) requested; this driver speaks "
                            + DriverProtocol.versions.map(String.init).joined(separator: " and "))))
            return (2, false)
        }
        // No impl: the probe of a driver known only by its command; it learns the name from hello.
        if let impl = request.impl, impl != name {
            write(ProtocolLines.line(DriverProtocol.Message.error("this driver runs \(name), not '\(impl)'")))
            return (2, false)
        }
        if let problem = request.scenario.problems().first {
            write(ProtocolLines.line(DriverProtocol.Message.error(problem)))
            return (2, false)
        }
        if makeSubclass == nil, let op = request.scenario.operations.firstIndex(where: { $0.kind.isSubclass }) {
            write(
                ProtocolLines.line(
                    DriverProtocol.Message.error(
                        "operation \(op) is an instance of the implementation's own subclass, and \(name) has none "
                            + "(OperationDriver(name:subclass:) makes a driver that has)"
                    )))
            return (2, false)
        }
        let level = request.noise ?? 0
        guard TimingNoise.levels.contains(level) else {
            write(
                ProtocolLines.line(
                    DriverProtocol.Message.error(
                        "the request's noise is \(level); the levels are 0 to \(TimingNoise.levels.upperBound)")))
            return (2, false)
        }
        let session = request.protocol == DriverProtocol.sessionVersion
        // A case run with timing noise says so: `timingNoise` is informational (no rule needs
        // it), and it marks the trace as one recorded under noise.
        let sample = makeQueue()
        let declared = observations(sample: sample) + (level > 0 && !plain ? [.timingNoise] : [])
        write(
            ProtocolLines.line(
                DriverProtocol.Message.hello(
                    protocol: request.protocol, impl: name, capabilities: declared, subclass: subclassName,
                    platform: platform(sample: sample), harness: HarnessVersion.current)))
        let context = DriverContext(
            scenario: request.scenario, unit: Double(request.unitMicroseconds) / 1_000_000, recording: !plain,
            noise: TimingNoise(level: level, scheduleSeed: request.scheduleSeed),
            queue: makeQueue, subclass: makeSubclass
        ) { event in
            write(EventLineWriter.line(event))
        }
        context.patience = max(1, min(request.patience ?? 1, DriverProtocol.patienceLevels.upperBound))
        watch.begin(context, write: write)
        let last = context.drive()
        guard context.recorder.close(with: last, onCallingThread: true) else {
            // The watchdog ended the trace first and is on its way out of the process.
            while true { Thread.sleep(forTimeInterval: 1) }
        }
        // Protocol 3: the next case in this process only when this one is over in every way.
        let next = session && last == .end && context.leftovers() == nil
        watch.end(keeping: context)
        write(ProtocolLines.line(DriverProtocol.Message.done(next: next ? true : nil)))
        return (0, next)
    }

    /// The process's watchdog, watching one case at a time: a driver call that has not returned
    /// while nothing happened for the context's stall window is stuck (a deadlock, or a wait
    /// for something that never comes), and so is one still running after all the scenario's
    /// work could have been done four times over (a livelock that keeps logging: the silence
    /// window never comes). It ends the trace with a `hang` naming the call and exits, in a
    /// fraction of a second instead of the harness's 5 s of silence. The driving thread is
    /// stuck and cannot end the process itself; `_exit` skips exit handlers that could wait
    /// for it.
    ///
    /// It also watches the harness (`parent`, the parent process when the driver started): when
    /// `getppid()` says another, the harness died (`kill -9`, a crash) and this process was
    /// re-parented to init or a subreaper. No one is left to read the trace, so the driver
    /// leaves at once with `_exit`, without a word. The end of standard input cannot say so in
    /// protocol 2: the harness closes it as soon as the request is written. Nor can Linux's
    /// `PR_SET_PDEATHSIG`: it fires when the parent *thread* that spawned the driver ends,
    /// and the harness spawns each case from a worker thread that may end before the case does.
    /// Checked on every tick (20 ms; a system call that costs well under a microsecond).
    ///
    /// One thread for the process, however many cases it serves (protocol 3).
    /// `@unchecked Sendable` is sound: `current`, `write`, `previous` and `started` are read and
    /// written only under `lock`; `parent` is a `let`.
    final class CaseWatch: @unchecked Sendable {
        private let lock = NSLock()
        private let parent: pid_t
        private var current: DriverContext?
        private var write: (@Sendable (String) -> Void)?
        /// The case before: kept alive until the next one ends, so that a late callback of its
        /// operations (which hold their context `unowned`) finds it, and records nothing.
        private var previous: DriverContext?
        private var started = false

        init(parent: pid_t) { self.parent = parent }

        /// Watches `context` from now on.
        func begin(_ context: DriverContext, write: @escaping @Sendable (String) -> Void) {
            lock.withLock {
                current = context
                self.write = write
                if !started { started = true; startThread() }
            }
        }

        /// The case is over (its trace is closed): stop watching it.
        func end(keeping context: DriverContext) {
            lock.withLock {
                current = nil
                previous = context
            }
        }

        private func startThread() {
            let thread = Thread { [self] in
                while true {
                    Thread.sleep(forTimeInterval: 0.02)
                    if getppid() != parent { _exit(OperationDriver.orphanedStatus) }
                    guard let (context, write) = lock.withLock({ current.map { ($0, write) } }), let write else {
                        continue
                    }
                    guard
                        let (call, why) = context.recorder.stalled(
                            quiet: context.stallQuiet, longest: context.callDeadline)
                    else { continue }
                    // The tested subclass's own word on whether it finished, for the verdict; a patient
                    // run (a case run again to confirm it) waits for it as much longer as its windows.
                    context.readSubclassStates(within: 0.2 * Double(context.patience))
                    if context.recorder.close(with: .hang("\(call) never returned; \(why)"), onCallingThread: false) {
                        write(ProtocolLines.line(DriverProtocol.Message.done(next: nil)))
                        _exit(0)
                    }
                    // The driving thread ended the trace first and is on its way out; `stalled` says
                    // nil from now on, and the loop keeps watching the parent until the process ends.
                }
            }
            thread.name = "opconform watchdog"
            thread.start()
        }
    }

    /// The exit status of a driver whose harness died: no one reads it (the driver's new parent
    /// only reaps it); distinct from the protocol's 0 and 2 for anyone tracing processes.
    static let orphanedStatus: Int32 = 3
}
