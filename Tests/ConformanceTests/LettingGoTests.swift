@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
import Foundation
import OperationSpec
import Testing

/// Drivers let go of each operation after the last step that needs it (issue 30, item 2), so a
/// queue that goes on using an operation it has let go of touches freed memory, as it would in
/// a program that adds an operation and forgets it.
@Suite("Letting go of operations")
struct LettingGoTests {
    static func scenario(_ operations: [OperationConfig], _ steps: [DriverAction],
                         dependencies: [Edge] = []) -> Scenario {
        Scenario(name: "t", queues: [QueueConfig(), QueueConfig()], operations: operations,
                 dependencies: dependencies, driver: steps.map { DriverStep($0) })
    }

    @Test("an operation is held until the last step that names it, and to the end when code names it")
    func lastUses() {
        let plain = OperationConfig(kind: .main([.work(1)]))
        let cancelsOne = OperationConfig(kind: .main([.cancel(.op(3))]))
        let waitsForSignal = OperationConfig(kind: .main([.work(1)]), readyAfterSignal: 1)
        let s = Self.scenario([plain, plain, cancelsOne, plain, waitsForSignal, plain],
                              [.add(op: 0, queue: 0), .add(op: 1, queue: 0), .cancel(1), .add(op: 2, queue: 1),
                               .waitUntilAllFinished(queue: 0), .read(.isFinished, op: 0)])
        let uses = s.lastDriverUses()
        #expect(uses[0] == 5, "read by the last step")
        #expect(uses[1] == 2, "the wait for its queue does not hold it: the queue does")
        #expect(uses[2] == 3)
        #expect(uses[3] == nil, "op 2's code cancels it, at a time no step fixes")
        #expect(uses[4] == nil, "a signal in some operation's code announces its isReady")
        #expect(uses[5] == -1, "nothing the driver touches: let go after the setup")
    }

    @Test("an operation that depends on another is held to the end of the case")
    func dependentsAreHeld() {
        let plain = OperationConfig(kind: .main([.work(1)]))
        let s = Self.scenario([plain, plain, plain], [.start(0), .addDependency(op: 2, on: 0), .start(1)],
                              dependencies: [Edge(1, on: 0)])
        let uses = s.lastDriverUses()
        #expect(uses[0] == 1, "a dependency is held by its dependents, not by the driver")
        #expect(uses[1] == nil && uses[2] == nil, "Foundation's dependency keeps its dependents unretained")
    }

    /// Foundation's use-after-free (issue 30): an asynchronous operation that finishes while still
    /// queued is let go of by the queue, which keeps it in its priority list and touches it at
    /// the next schedule. The driver held every operation to the end, so this was never seen.
    @Test("an operation that finishes while queued, then let go of, crashes Foundation's queue at its next schedule")
    func finishWhileQueuedCrashes() throws {
        let path = SpecsDriftTests.root.appendingPathComponent("Fixtures/scenarios/finish-while-queued.json").path
        let scenario = try ScenarioFormat.decode(Data(contentsOf: URL(fileURLWithPath: path)), source: path)
        let trace = FoundationIsolationTests.foundation().run(scenario, scheduleSeed: 1)
        guard case .crash(let signal, let message)? = trace.events.last?.kind else {
            Issue.record("the case did not crash: it ended \(String(describing: trace.events.last?.kind))")
            return
        }
        #expect(signal == 11, "\(message)")
    }
}
