@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
@testable import ConformanceReports
import Foundation
import OperationSpec
import Testing

/// Protocol 3 (Specs/driver-protocol.md, "Sessions"): a driver process serves case after case
/// while each leaves nothing behind, and the verdicts are those of a process per case.
@Suite("Driver sessions (protocol 3)")
struct DriverSessionTests {
    static var available: Bool { FoundationIsolationTests.available }

    static func foundation(casesPerDriver: Int = 100) -> ChildProcessImplementation {
        var limits = DriverLimits.standard
        limits.casesPerDriver = casesPerDriver
        return ChildProcessImplementation(name: "foundation", capabilities: FoundationDriver.capabilities,
                                          command: [FoundationIsolationTests.driver, "driver"], limits: limits,
                                          protocolVersion: DriverProtocol.sessionVersion)
    }

    static let clean = Scenario(queues: [QueueConfig(maxConcurrent: 1)],
                                operations: [OperationConfig(kind: .main([.work(1)])), OperationConfig(kind: .main([.work(1)]))],
                                dependencies: [Edge(1, on: 0)],
                                driver: [DriverStep(.addBatch(ops: [0, 1], queue: 0, wait: false)), DriverStep(.waitUntilAllFinished(queue: 0))])
    /// Ends complete (a suspended queue is not a hang), but its queue still holds an operation.
    static let leavesAQueue = Scenario(queues: [QueueConfig(suspended: true)], operations: [OperationConfig(kind: .main([]))],
                                       dependencies: [], driver: [DriverStep(.add(op: 0, queue: 0))])
    /// Hangs: a wait for an operation whose dependency is never added.
    static let stuck = Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .main([])), OperationConfig(kind: .main([]))],
                                dependencies: [Edge(1, on: 0)],
                                driver: [DriverStep(.add(op: 1, queue: 0)), DriverStep(.waitUntilFinished(1))])

    @Test("Foundation: one process serves clean cases one after another; a case that leaves a queue behind ends it",
          .enabled(if: available, "build opconform first (swift build)"))
    func foundationSession() {
        let impl = Self.foundation()
        for _ in 0..<3 {
            let t = impl.run(Self.clean, scheduleSeed: 1)
            #expect(t.ending == .complete && t.events.first?.seq == 0 && t.events.first?.thread == 0, "\(t.events.prefix(2))")
        }
        #expect(impl.pool.started == 1, "three clean cases took \(impl.pool.started) processes")
        #expect(impl.run(Self.leavesAQueue, scheduleSeed: 1).ending == .complete)
        #expect(impl.pool.waiting == 0, "the process whose queue still held an operation was not kept")
        #expect(impl.run(Self.clean, scheduleSeed: 1).ending == .complete)
        #expect(impl.pool.started == 2)
        // A hang ends its process too (the stuck thread cannot be made to return).
        #expect(impl.run(Self.stuck, scheduleSeed: 1).ending == .hang)
        #expect(impl.pool.waiting == 0)
    }

    /// The Python example speaks protocol 3 (issue 45: a process per case cost 110 ms of its
    /// CPU a case, and most of a shrink's time): clean cases share a process, and a case that
    /// leaves a queue holding an operation, or hangs, ends it, as the Foundation driver's do.
    @Test("the Python example serves a session and ends it when a case leaves something behind",
          .enabled(if: OrphanedDriverTests.python3Available, "needs python3 on PATH"))
    func pythonSession() throws {
        let impl = try ChildProcessImplementation.probing(DriverLaunch(executable: OrphanedDriverTests.pythonDriver))
        #expect(impl.protocolVersion == DriverProtocol.sessionVersion)
        for _ in 0..<3 {
            let t = impl.run(Self.clean, scheduleSeed: 1)
            #expect(t.ending == .complete && t.events.first?.seq == 0 && t.events.first?.thread == 0, "\(t.events.prefix(2))")
        }
        #expect(impl.pool.started == 1, "three clean cases took \(impl.pool.started) processes")
        #expect(impl.run(Self.leavesAQueue, scheduleSeed: 1).ending == .complete)
        #expect(impl.pool.waiting == 0, "the process whose queue still held an operation was kept")
        #expect(impl.run(Self.stuck, scheduleSeed: 1).ending == .hang)
        #expect(impl.pool.waiting == 0, "the process of a hang was kept")
        #expect(impl.run(Self.clean, scheduleSeed: 1).ending == .complete)
        // One for the four cases up to the one that left a queue, one for the hang, one now.
        #expect(impl.pool.started == 3, "\(impl.pool.started)")
        impl.endSessions()
    }

    @Test("--cases-per-driver bounds a session, and 1 gives each case a process of its own",
          .enabled(if: available, "build opconform first (swift build)"))
    func casesPerDriver() {
        let three = Self.foundation(casesPerDriver: 3), one = Self.foundation(casesPerDriver: 1)
        for _ in 0..<7 {
            #expect(three.run(Self.clean, scheduleSeed: 1).ending == .complete)
            #expect(one.run(Self.clean, scheduleSeed: 1).ending == .complete)
        }
        #expect(three.pool.started == 3 && one.pool.started == 7, "\(three.pool.started) and \(one.pool.started) processes")
    }

    /// What a user sees: the same endings and the same rules broken on the same seeds.
    @Test("sessions give the verdicts of a process per case on the same seeds", .enabled(if: available, "build opconform first (swift build)"))
    func sameVerdicts() {
        func run(_ casesPerDriver: Int) -> (RunResult, Int) {
            let impl = Self.foundation(casesPerDriver: casesPerDriver)
            var c = RunConfiguration(impl: impl, profile: .classReference, seed: 1, count: 100, shrink: false)
            c.jobs = 8
            // Without the split misuse Foundation gets (it traps on misuse): a split case's
            // late misuse starts an operation once it reports isFinished, and Foundation traps or
            // not depending on whether its own finish got from .finishing to .finished first
            // (Operation.swift 330-338), so that ending is Foundation's race, not the harness's.
            c.generator.splitMisuse = false
            return (Runner(c).run(), impl.pool.started)
        }
        let (session, processes) = run(100), (alone, _) = run(1)
        #expect(session.endings == alone.endings)
        #expect(session.statistics.filter(\.broken).map(\.id) == alone.statistics.filter(\.broken).map(\.id))
        #expect(processes < 60, "100 cases took \(processes) processes in sessions")
    }

    /// A driver of protocol 2 refuses the probe of protocol 3, as it must, and is served as
    /// before: a process per case.
    @Test("a driver of protocol 2 is probed again with 2 and runs a process per case")
    func protocol2Driver() throws {
        let path = ExternalDriverTests.script(#"""
        read -r line
        case "$line" in *'"protocol":3'*) echo '{"error":{"_0":"protocol 3 requested; this driver speaks 2"}}'; exit 2;; esac
        echo '{"hello":{"capabilities":[],"impl":"old","protocol":2}}'
        echo '{"event":{"_0":{"kind":{"threadStarted":{"name":"sh"}},"seq":0,"thread":0}}}'
        echo '{"event":{"_0":{"kind":{"end":{}},"seq":1,"thread":0}}}'
        echo '{"done":{}}'
        """#)
        let impl = try #require(try Implementations.external(command: [path]) as? ChildProcessImplementation)
        #expect(impl.protocolVersion == 2)
        for _ in 0..<3 { #expect(impl.run(Scenario(name: "empty"), scheduleSeed: 1).ending == .complete) }
        #expect(impl.pool.started == 3)
    }

    /// A kit-built driver says which release built it; one of another release is told to rebuild.
    @Test("a driver's hello says the kit's release, and a run of a driver of another release says to rebuild it")
    func driverRelease() throws {
        let foundation = try #require(try Implementations.external(command: [FoundationIsolationTests.driver, "driver"])
            as? ChildProcessImplementation)
        #expect(foundation.driverRelease == HarnessVersion.current)
        let older = try #require(try Implementations.external(command: [ExternalDriverTests.script(#"""
        while read -r line; do
          echo '{"hello":{"capabilities":[],"harness":"0.1.0","impl":"older","protocol":3}}'
          echo '{"event":{"_0":{"kind":{"threadStarted":{"name":"sh"}},"seq":0,"thread":0}}}'
          echo '{"event":{"_0":{"kind":{"end":{}},"seq":1,"thread":0}}}'
          echo '{"done":{"next":true}}'
        done
        """#)]) as? ChildProcessImplementation)
        #expect(older.driverRelease == "0.1.0")
        let empty = GeneratorOptions(size: 1, misuseRate: 0)
        let text = ConsoleReport.text(Runner(RunConfiguration(impl: older, seed: 1, count: 2, generator: empty, shrink: false)).run(), files: [:])
        #expect(text.contains("the driver was built with OperationDriverKit 0.1.0, and this is opconform \(HarnessVersion.current): rebuild"), "\(text)")
        let same = ConsoleReport.text(Runner(RunConfiguration(impl: foundation, seed: 1, count: 1, generator: empty, shrink: false)).run(), files: [:])
        #expect(!same.contains("OperationDriverKit"), "\(same)")
    }

    /// A session driver in a few lines of shell: answers every request, says next; `after` is
    /// written after `done`, and `second` replaces the answer to a process's second request.
    static func sessionDriver(after: String = "", second: String? = nil) -> String {
        ExternalDriverTests.script(#"""
        n=0
        while read -r line; do
          n=$((n+1))
          \#(second.map { "if [ $n -eq 2 ]; then \($0); fi" } ?? ":")
          echo '{"hello":{"capabilities":[],"impl":"sh","protocol":3}}'
          echo '{"event":{"_0":{"kind":{"threadStarted":{"name":"sh"}},"seq":0,"thread":0}}}'
          echo '{"event":{"_0":{"kind":{"end":{}},"seq":1,"thread":0}}}'
          echo '{"done":{"next":true}}'
          \#(after)
        done
        """#)
    }

    /// The stray line races the next request: seen before it (the process is not reused) or
    /// after it, as the first line of the next case (that case is run again in a fresh
    /// process). The late talker always loses the race, so both ways are exercised; either way
    /// every case is complete and each runs in a process of its own.
    @Test("a driver that writes between cases is not given another case, whether its line comes before or after the next request")
    func strayOutput() throws {
        let good = try #require(try Implementations.external(command: [Self.sessionDriver()]) as? ChildProcessImplementation)
        let chatty = try #require(try Implementations.external(command: [Self.sessionDriver(after: "echo 'still here'")]) as? ChildProcessImplementation)
        let late = try #require(try Implementations.external(command: [Self.sessionDriver(after: "sleep 0.3; echo 'still here'")]) as? ChildProcessImplementation)
        #expect(good.protocolVersion == 3 && chatty.protocolVersion == 3 && late.protocolVersion == 3)
        for _ in 0..<4 {
            #expect(good.run(Scenario(name: "empty"), scheduleSeed: 1).ending == .complete)
            #expect(chatty.run(Scenario(name: "empty"), scheduleSeed: 1).ending == .complete)
            #expect(late.run(Scenario(name: "empty"), scheduleSeed: 1).ending == .complete)
        }
        #expect(good.pool.started == 1, "\(good.pool.started)")
        #expect(chatty.pool.started == 4, "\(chatty.pool.started)")
        // Cases 2 to 4 each start in the reused process, read its stray line, and run again.
        #expect(late.pool.started == 4, "\(late.pool.started)")
    }

    @Test("a reused process that dies before its hello costs nothing: the case runs again in a fresh one")
    func deathBetweenCases() throws {
        let impl = try #require(try Implementations.external(command: [Self.sessionDriver(second: "exit 1")]) as? ChildProcessImplementation)
        for _ in 0..<3 { #expect(impl.run(Scenario(name: "empty"), scheduleSeed: 1).ending == .complete) }
        // Process 1 serves case 1 and dies on case 2; process 2 serves case 2 and dies on case 3;
        // process 3 serves case 3.
        #expect(impl.pool.started == 3, "\(impl.pool.started)")
    }
}
