import Conformance
import Foundation
import OpconformCLI
import OperationSpec
import Testing

/// `opconform sweep FILE`: the samples' sweep for any scenario file, with verdicts that respect
/// a rule's strength (issue 17).
@Suite("sweep")
struct SweepCommandTests {
    static func file(_ scenario: Scenario) -> String { temporaryFile(String(decoding: JSONCodec.encode(scenario), as: UTF8.self)) }

    @Test("a careful subclass in the nested order warns under every schedule and exits 0; --strict exits 1")
    func nestedWarns() {
        let path = Self.file(SeverityTests.nestedScenario())
        let r = opconform("sweep", path, "--schedules", "30")
        #expect(r.status == 0, "\(r.out)\(r.err)")
        #expect(r.out.contains("WARN KVO-COMPLETION-ORDER [documented example]: broken under 30 of 30 schedules; first at schedule seed 1"), "\(r.out)")
        #expect(r.out.contains("will isExecuting, will isFinished, did isFinished, did isExecuting"))
        #expect(r.out.contains("replay: opconform replay \(path) --schedule-seed 1 --impl reference"), "\(r.out)")
        #expect(r.out.contains("no failure; 1 rule warns"))
        let strict = opconform("sweep", path, "--schedules", "30", "--strict")
        #expect(strict.status == 1 && strict.out.contains("FAIL (--strict) KVO-COMPLETION-ORDER"), "\(strict.out)")
    }

    @Test("a subclass that never notifies its finish fails: the queue waits for ever")
    func silentFinishFails() {
        var program = ConcurrentProgram.correct(work: [.work(1)])
        program.routines = program.routines.map { $0.name == "completeOperation" ? Routine($0.name, [.set(.isExecuting, false), .set(.isFinished, true)]) : $0 }
        let scenario = Scenario(name: "silent", queues: [QueueConfig()], operations: [OperationConfig(kind: .concurrent(program))],
                                driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.waitUntilAllFinished(queue: 0))])
        let r = opconform("sweep", Self.file(scenario), "--schedules", "5")
        #expect(r.status == 1, "\(r.out)")
        #expect(r.out.contains("FAIL "), "\(r.out)")
    }

    /// Foundation's driver, started by path as a user's would be (inside the test process,
    /// `--impl foundation` would start the test bundle).
    @Test("on Foundation, rules it cannot observe are counted as not observable, never as passing",
          .enabled(if: FileManager.default.isExecutableFile(atPath: FoundationIsolationTests.driver), "build opconform first (swift build)"))
    func foundationNotObservable() {
        let r = opconform("sweep", Self.file(SeverityTests.nestedScenario()), "--impl", "exec:" + FoundationIsolationTests.driver,
                          "--driver-arg", "driver", "--schedules", "3")
        #expect(r.status == 0, "\(r.out)\(r.err)")
        #expect(r.out.contains("on foundation") && !r.out.contains("KVO-COMPLETION-ORDER"), "\(r.out)")
        let line = r.out.split(separator: "\n").first { $0.contains(" rules: ") } ?? ""
        #expect(line.contains(" not observable") && !line.hasSuffix(" 0 not observable"), "\(line)")
    }

    @Test("bad usage is one sentence and exit status 2; samples refuses a file and points to sweep")
    func usage() {
        let none = opconform("sweep")
        #expect(none.status == 2 && none.err.contains("sweep needs a scenario file"), "\(none.err)")
        let two = opconform("sweep", "a.json", "b.json")
        #expect(two.status == 2 && two.err.contains("sweep takes one scenario file, but was given 2"), "\(two.err)")
        let missing = opconform("sweep", "/nonexistent/x.json")
        #expect(missing.status == 2 && missing.err.contains("/nonexistent/x.json cannot be read"), "\(missing.err)")
        let samples = opconform("samples", "mine.json")
        #expect(samples.status == 2 && samples.err.contains("takes no file, but was given 'mine.json'; for a scenario file of your own: opconform sweep mine.json"), "\(samples.err)")
        #expect(opconform("help", "sweep").out.contains("--schedules N"))
    }
}
