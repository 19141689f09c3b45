import ConformanceTesting
import Testing

/// AltQueue against the rules, through its driver executables (each case in a child process).
/// Foundation's known divergences on Linux show under AltQueue too (the operations are
/// Foundation's): they are known issues, not failures.
@Suite("AltQueue conforms, and its planted bug is caught")
struct ConformanceTests {
    @Test("the queue keeps every rule but Foundation's known divergences")
    func conforms() {
        let outcome = expectConformance(driver: "altqueue-driver", count: 40, seed: 1)
        #expect(outcome.conforms && outcome.run?.cases == 40)
    }

    @Test("the off-by-one width is caught: a queue runs one operation more than its width")
    func plantedBugIsCaught() {
        var outcome: DriverConformance?
        withKnownIssue("altqueue-buggy-driver has a bug planted on purpose") {
            outcome = expectConformance(driver: "altqueue-buggy-driver", count: 40, seed: 1)
        }
        let caught = outcome?.unexpected.first { $0.finding.rule == "QUEUE-MAX-CONCURRENT" }
        #expect(caught != nil, "QUEUE-MAX-CONCURRENT should fail; unexpected: \(outcome?.unexpected.map(\.finding.rule) ?? [])")
        #expect(caught?.file != nil && caught?.replay.contains("opconform replay") == true)
    }
}
