@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
@testable import OperationDriverKit
import Foundation
import OperationSpec
import Testing

/// The driver's watchdog: what it calls a stuck driver call. A queue that polls a getter keeps
/// the trace growing, so silence alone never ends such a case.
@Suite("The driver's watchdog")
struct DriverWatchdogTests {
    @Test("a call that runs on while events keep coming is stuck once it outlasts the scenario's work")
    func livelock() {
        let recorder = DriverRecorder(sink: { _ in }, queueOfCurrentThread: { nil })
        recorder.pending("driver step 1 (waitUntilAllFinished(queue: 0))")
        let start = Date()
        var verdict: (call: String, why: String)?
        // Events every 5 ms (a polling queue's reads): never 0.5 s of silence.
        while verdict == nil && Date().timeIntervalSince(start) < 5 {
            recorder.record(.read(op: 0, .isFinished, .bool(false)))
            Thread.sleep(forTimeInterval: 0.005)
            verdict = recorder.stalled(quiet: 0.5, longest: 0.3)
        }
        #expect(verdict?.call == "driver step 1 (waitUntilAllFinished(queue: 0))")
        #expect(verdict?.why.hasPrefix("it ran for ") == true && verdict?.why.hasSuffix("longer than this scenario's work can take (0.3 s)") == true,
                "\(String(describing: verdict))")
        // With no call pending there is nothing to blame.
        recorder.pending(nil)
        #expect(recorder.stalled(quiet: 0.5, longest: 0.3) == nil)
    }

    @Test("the longest a call may take grows with the scenario's work, repeats multiplied")
    func totalWork() {
        let s = Scenario(operations: [OperationConfig(kind: .main([.repeat(3, [.work(2), .if(.isCancelled(.this), then: [.work(5)], else: [])])])),
                                      OperationConfig(kind: .block([[.await(1, timeout: 8)], [.signal(1)]]), completion: [.work(1)])])
        #expect(s.totalWork == 3 * (2 + 5) + 8 + 1)
    }
}
