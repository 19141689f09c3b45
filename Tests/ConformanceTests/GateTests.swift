import Conformance
import Foundation
import OpconformCLI
import OperationSpec
import ReferenceEngine
import Testing

@Suite("The CI gate")
struct GateTests {
    static func expectations(_ rules: [String]) -> Expectations {
        Expectations(format: 1, impl: "reference", profile: .guide,
                     expected: rules.map { Expectations.Entry(rule: $0, kind: .bug, reason: "injected fault", finding: "x.json") })
    }

    @Test("passes when every failure is expected, fails on a new one, reports what now passes")
    func verdicts() {
        let result = FaultProbe.run(.priorityNotNormalised)
        let failing = result.statistics.filter(\.broken).map(\.id)
        #expect(failing == ["PRIORITY-NORMALIZE"])
        #expect(GateVerdict(result: result, expectations: Self.expectations(failing)).passes(strict: true))
        let missing = GateVerdict(result: result, expectations: Self.expectations([]))
        #expect(!missing.passes(strict: false) && missing.unexpected == ["PRIORITY-NORMALIZE"])
        let extra = GateVerdict(result: result, expectations: Self.expectations(failing + ["QUEUE-SUSPENDED"]))
        #expect(extra.passes(strict: false) && !extra.passes(strict: true) && extra.nowPassing == ["QUEUE-SUSPENDED"])
        // An entry marked rare that a run does not see is said, and does not fail --strict.
        var rare = Self.expectations(failing + ["QUEUE-SUSPENDED"])
        rare.expected[1].rare = "needs a race of microseconds; seen once in 6,000 cases"
        let unseen = GateVerdict(result: result, expectations: rare)
        #expect(unseen.passes(strict: true) && unseen.nowPassing.isEmpty && unseen.notSeenRare == ["QUEUE-SUSPENDED"])
        // Seen, it is confirmed like any other.
        rare.expected[0].rare = "rare"
        #expect(GateVerdict(result: result, expectations: rare).confirmed == ["PRIORITY-NORMALIZE"])
    }

    @Test("the gate's line counts the known divergences as the summary does (a rule with two causes: two)",
          .enabled(if: FoundationIsolationTests.available, "build opconform first"))
    func countsAddUp() throws {
        let out = NSTemporaryDirectory() + "opconform-gate-counts-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let r = HelpExampleTests.shell("\"$0\" gate --impl foundation --expectations Fixtures/expectations/foundation-linux.json"
                                       + " --count 100 --seed 1 --no-shrink --out " + out, FoundationIsolationTests.driver)
        let lines = r.out.split(separator: "\n").map(String.init)
        let summary = try #require(lines.first { $0.contains(" known divergences of ") }, "\(r.out)")
        let gate = try #require(lines.first { $0.hasPrefix("gate against") }, "\(r.out)")
        let known = Int(summary.split(separator: " ").first { Int($0) != nil }.map(String.init) ?? "") ?? -1
        let rules = gate.components(separatedBy: ": ").dropFirst().first.flatMap { Int($0.split(separator: " ")[0]) } ?? -1
        #expect(known > 0 && rules > 0)
        if known == rules {
            #expect(!gate.contains("known divergences)"), "\(gate)")
        } else {
            #expect(gate.contains("(\(known) known divergences)"), "\(summary) / \(gate)")
        }
    }

    @Test("the command: exit 0 when expected, 1 when not, 2 for a bad file")
    func command() throws {
        let file = temporaryFile(JSONCodec.encodeString(Self.expectations([])))
        #expect(opconform("gate", "--expectations", file, "--count", "30").status == 0)
        let unknown = temporaryFile("{\"format\": 1, \"impl\": \"reference\", \"profile\": \"guide\", \"expected\": [{\"rule\": \"NOPE\", \"kind\": \"bug\", \"reason\": \"\", \"finding\": \"\"}]}")
        let r = opconform("gate", "--expectations", unknown)
        #expect(r.status == 2 && r.err.contains("unknown rule 'NOPE'"))
        #expect(opconform("gate", "--expectations", "/nonexistent.json").status == 2)
        #expect(opconform("gate").status == 2)
    }
}
