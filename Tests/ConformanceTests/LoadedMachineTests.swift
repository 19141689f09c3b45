@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
import ConformanceTesting
import Foundation
import OperationSpec
import Testing

/// A machine so loaded that, in a case's first run, the driver's watchdog did not get the tested
/// class's last word on isFinished within its window (`readSubclassStates`); the patient run that confirms the case
/// still gets it. What a case proves is then proved by its patient run.
struct StarvedWatchdog: Implementation {
    let inner: any Implementation
    let firstRun: Bool
    var name: String { inner.name }
    var capabilities: [Observation] { inner.capabilities }
    var isDeterministic: Bool { false }
    var replayArguments: [String] { inner.replayArguments }
    var launch: DriverLaunch? { inner.launch }
    var subclass: String? { inner.subclass }
    func endSessions() { inner.endSessions() }
    var noise: Int { inner.noise }
    var setting: Attribution.Setting { inner.setting }
    func patient(_ patience: Int) -> any Implementation { StarvedWatchdog(inner: inner.patient(patience), firstRun: false) }

    /// The first run's trace loses the watchdog's last reads (its reads of isFinished, and the
    /// getters' reads of isExecuting, just before the hang, on the thread that wrote it), as if that thread had not been scheduled
    /// before the window closed.
    func run(_ scenario: Scenario, scheduleSeed: UInt64) -> Trace {
        var trace = inner.run(scenario, scheduleSeed: scheduleSeed)
        // A stall (nothing happened for the window) is where the watchdog reads before it ends the
        // trace; a livelock's driving thread keeps reading isFinished itself.
        guard firstRun, trace.ending == .hang, let hang = trace.events.last,
              case .hang(let why) = hang.kind, why.contains("nothing happened") else { return trace }
        var dropped: [Int] = []
        for e in trace.events.dropLast().reversed() where e.thread == hang.thread {
            guard case .read = e.kind else { break }
            dropped.append(e.seq)
        }
        trace.events = trace.events.filter { !dropped.contains($0.seq) }.enumerated()
            .map { TraceEvent(seq: $0.offset, thread: $0.element.thread, $0.element.kind) }
        return trace
    }
}

@Suite("A loaded machine: a case's evidence comes from its patient run when the first run lacks it")
struct LoadedMachineTests {
    @Test("a class whose finish Linux cannot hear, and which declares nothing: its hangs stay unconfirmed, not failed",
          .enabled(if: FoundationIsolationTests.available, "build opconform first (swift build)"))
    func unprovenFromThePatientRun() throws {
        let entry = try #require(StyleCorpus.entry("undeclared-keys"))
        let driver = try DriverExecutable.locate("corpus-driver")
        let known = try KnownDivergences.platform.load()
        // CorpusTests' run of the class: the same 30 cases, one of which waits for an operation
        // the queue never heard finish (step 10, waitUntilFinished(5)).
        var c = try CorpusMeasure.configuration(entry, driver: driver, count: 30, seed: 1, profile: known?.profile ?? .guide,
                                                jobs: 8)
        c.impl = StarvedWatchdog(inner: c.impl, firstRun: true)
        c.known = known
        let result = Runner(c).run()
        let failed = result.findings.map(\.rule).filter { Attribution.unheardFinishRules.contains($0) }
        #expect(failed.isEmpty, "failed: \(failed)")
        // The path was taken: the class's hangs were set aside by the patient runs' evidence.
        #expect(result.unconfirmed.contains { $0.rule == Finding.hangRule }, "\(result.unconfirmed.map(\.rule))")
    }
}
