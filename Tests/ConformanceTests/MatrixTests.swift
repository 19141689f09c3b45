import Conformance
import ConformanceReports
import Foundation
import OperationSpec
import ReferenceEngine
import Testing

/// The matrix: rules down, implementations across, every failing cell tied to its replay line.
@Suite("The conformance matrix")
struct MatrixTests {
    /// A clean column and one with a fault, over the same cases.
    static func report() -> MatrixReport {
        let clean = Runner(RunConfiguration(impl: ReferenceImplementation(), seed: 3, count: 40, shrink: false)).run()
        let faulty = Runner(RunConfiguration(impl: ReferenceImplementation(options: EngineOptions(faults: [.startIgnoresCancel])),
                                             faults: [.startIgnoresCancel], seed: 3, count: 40, shrink: false)).run()
        return MatrixReport(columns: [.init(result: clean, files: [:]), .init(result: faulty, files: [:])])
    }

    @Test("every rule is a row; a failing cell links to a finding with its replay line")
    func markdown() throws {
        let md = Self.report().markdown()
        for rule in RuleBook.all.map(\.rule.id) { #expect(md.contains("\n| \(rule) | "), "row for \(rule)") }
        let failing = try #require(md.split(separator: "\n").first { $0.contains("**fail ") })
        #expect(failing.contains("| pass |") && failing.contains("[F1](#f1)"), "\(failing)")
        #expect(md.contains("<a id=\"f1\"></a>**F1."))
        #expect(md.contains("opconform replay --seed ") && md.contains("--fault start-ignores-cancel"))
        #expect(md.contains("| pass | 77 | 76 |\n| fail | 0 | 1 |"), "40 cases reach all but 3 rules; the fault breaks one")
    }

    @Test("the same runs give the same bytes")
    func deterministic() {
        #expect(Self.report().markdown() == Self.report().markdown())
    }

    @Test("the console lists only the rules that tell the implementations apart")
    func text() {
        let text = Self.report().text()
        #expect(text.contains("rules that differ:"))
        #expect(!text.contains("READY-DEPS-UNFINISHED"), "a rule both pass is not a difference")
    }

    @Test("the same cases in every column: a driver's reach episodes only when every column gets them",
          .enabled(if: FoundationIsolationTests.available, "build opconform first"))
    func sameCasesWithReach() throws {
        let out = NSTemporaryDirectory() + "opconform-matrix-reach-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let binary = FoundationIsolationTests.driver
        let r = HelpExampleTests.shell("\"$0\" matrix --impls reference,exec:\"$0\" --driver-arg driver --count 5 --no-shrink"
                                       + " --out " + out, binary)
        let log = try String(contentsOfFile: out + "/foundation/cases.jsonl", encoding: .utf8)
        let replays = log.split(separator: "\n").filter { $0.contains("\"replay\"") }
        #expect(!replays.isEmpty, "\(r.out)\(r.err)")
        #expect(replays.allSatisfy { !$0.contains("--reach") }, "\(replays)")
        // The driver alone gets them.
        let alone = HelpExampleTests.shell("\"$0\" run --impl exec:\"$0\" --driver-arg driver --count 5 --no-shrink"
                                           + " --out " + out + "/alone", binary)
        #expect(alone.out.contains(" --reach"), "\(alone.out)")
    }
}
