@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
import Foundation
import OperationSpec
import ReferenceEngine
import Testing

/// The peer suite (corelibs' `TestOperationQueue`, issue 44 item 4) as scenarios:
/// `Fixtures/peer-suite/` holds the expressible part of each test that `Specs/peer-suite.md` calls
/// fully or partly expressible, and every one runs to its end on each implementation with no
/// failure the shipped known divergences do not excuse.
@Suite("The peer suite's scenarios")
struct PeerSuiteTests {
    static let folder = SpecsDriftTests.root.appendingPathComponent("Fixtures/peer-suite")

    /// Each fixture: its file name, the peer test it stands for, and its scenario.
    static func fixtures() throws -> [(file: String, test: String, scenario: Scenario)] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        return try names.map { name in
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            let test = String(name.dropLast(".json".count).split(separator: "_variant_").first!)
            return (name, test, try ScenarioFormat.read(data, source: name))
        }
    }

    /// The rows of Specs/peer-suite.md: each test's name and verdict.
    static func mapping() throws -> [(test: String, verdict: String)] {
        let text = try String(contentsOf: SpecsDriftTests.root.appendingPathComponent("Specs/peer-suite.md"), encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count > 6, Int(cells[1]) != nil else { return nil }
            return (cells[2], cells[cells.count - 2])
        }
    }

    @Test("every test the map calls fully or partly expressible has its scenario, valid and named for it; the counts add up")
    func mapAndFixtures() throws {
        let rows = try Self.mapping()
        #expect(rows.count == 31, "\(rows.count) rows")
        let fixtures = try Self.fixtures()
        for row in rows {
            let has = fixtures.contains { $0.test == row.test }
            if row.verdict.contains("not") { #expect(!has, "\(row.test) is not expressible but has a scenario") } else {
                #expect(has, "\(row.test) (\(row.verdict)) has no scenario in Fixtures/peer-suite/")
            }
        }
        for f in fixtures {
            #expect(rows.contains { $0.test == f.test }, "\(f.file) names no test of the map")
            #expect(f.scenario.problems().isEmpty, "\(f.file): \(f.scenario.problems())")
            #expect(f.scenario.name == "peer \(f.file.dropLast(".json".count))", "\(f.file) is named \(f.scenario.name)")
        }
        let fully = rows.filter { $0.verdict == "**fully**" }.count, partly = rows.filter { $0.verdict.hasPrefix("**partly") }.count
        #expect((fully, partly, rows.count - fully - partly) == (31, 0, 0), "\(fully) fully, \(partly) partly")
        let text = try String(contentsOf: SpecsDriftTests.root.appendingPathComponent("Specs/peer-suite.md"), encoding: .utf8)
        #expect(text.contains("**Fully \(fully), partly \(partly), not \(rows.count - fully - partly)**"))
    }

    /// The failures of `trace` (warnings aside) that `known` does not excuse.
    static func unexcused(_ s: Scenario, _ t: Trace, profile: Profile, known: Expectations?) -> [String] {
        RuleBook.violations(scenario: s, trace: t, profile: profile)
            .filter { Finding.severity(of: $0.rule) == .failure }
            .filter { Attribution.excuse($0, in: s, known: known, setting: .ownEverything) == nil }
            .map { "\($0.rule): \($0.observed)" }
    }

    @Test("on the reference engine each runs to its end and keeps every rule that fails")
    func engine() throws {
        for f in try Self.fixtures() {
            let t = ReferenceEngine().run(f.scenario, scheduleSeed: 1)
            #expect(t.ending == .complete, "\(f.file): \(t.ending)")
            #expect(Self.unexcused(f.scenario, t, profile: .guide, known: nil).isEmpty, "\(f.file)")
        }
    }

    @Test("on Foundation each runs to its end; what fails is a known divergence",
          .enabled(if: FoundationIsolationTests.available, "build opconform first (swift build)"))
    func foundation() throws {
        let known = try Expectations.load(SpecsDriftTests.root.appendingPathComponent("Fixtures/expectations/foundation-linux.json").path)
        let impl = FoundationIsolationTests.foundation()
        for f in try Self.fixtures() {
            let t = impl.run(f.scenario, scheduleSeed: 1)
            #expect(t.ending == .complete, "\(f.file): \(t.ending)")
            #expect(Self.unexcused(f.scenario, t, profile: .guide, known: known).isEmpty, "\(f.file)")
        }
    }

    @Test("on GNUstep each runs to its end; what fails is a known divergence", .enabled(if: GNUstepDriverTests.available, "needs GNUstep"))
    func gnustep() throws {
        let known = try Expectations.load(SpecsDriftTests.root.appendingPathComponent("Fixtures/expectations/gnustep.json").path)
        let impl = try Implementations.make("gnustep", profile: .gnustep, faults: [])
        var refused: [String] = []
        for f in try Self.fixtures() {
            // GNUstep Base has no Dispatch queues: the three tests of underlyingQueue are refused
            // before they are sent, naming the constructs, and every other test runs.
            if let why = impl.refusal(of: f.scenario) {
                #expect(!f.scenario.dispatchConstructs.isEmpty && why.contains("dispatchQueues"), "\(f.file): \(why)")
                refused.append(f.test)
                continue
            }
            let t = impl.run(f.scenario, scheduleSeed: 1)
            #expect(t.ending == .complete, "\(f.file): \(t.ending)")
            #expect(Self.unexcused(f.scenario, t, profile: .gnustep, known: known).isEmpty, "\(f.file)")
        }
        #expect(refused == ["test_CurrentQueueWithCustomUnderlyingQueue", "test_CurrentQueueWithUnderlyingQueueResetToNil",
                            "test_isSuspended"], "\(refused)")
    }
}
