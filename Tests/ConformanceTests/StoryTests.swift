@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
@testable import ConformanceReports
import Foundation
import OperationSpec
import ReferenceEngine
import Testing

/// One bug, one story (issue 45): findings the same case showed first, or shrunk to the same
/// case, are told under the rule that case breaks first, in every report.
@Suite("Findings told as stories")
struct StoryTests {
    /// A subclass whose start returns on a cancelled operation without finishing it: one bug,
    /// and the case that shows it also shows the never-finished state, the missing finish
    /// notice and the wait that never returns.
    static func cancelledNeverFinishes() -> RunResult {
        let configuration = RunConfiguration(impl: ReferenceImplementation(), seed: 1, count: 60,
                                             generator: GeneratorOptions(size: 8, misuseRate: 10, flawRate: 100,
                                                                         flaws: [.cancelledNeverFinishes]))
        return Runner(configuration).run()
    }

    @Test("one bug's findings are one story: the rule its case breaks first leads, a hang and a warning follow")
    func oneBugOneStory() throws {
        let result = Self.cancelledNeverFinishes()
        let story = try #require(result.stories.first { $0.findings.count > 1 }, "\(result.findings.map(\.rule))")
        #expect(story.root.rule == "CANCEL-BEFORE-START-FINISHES", "\(story.findings.map(\.rule))")
        let knockOns = story.knockOns.map(\.rule)
        #expect(knockOns.contains("RUN-HANG") && knockOns.contains("STATE-FINISHED-REGARDLESS"), "\(knockOns)")
        // Failures lead, the run's own failure comes after the rules', a warning last.
        let hang = try #require(knockOns.firstIndex(of: "RUN-HANG"))
        #expect(story.knockOns[..<hang].allSatisfy { $0.severity == .failure && Finding.pseudoEnding($0.rule) == nil })
        #expect(story.knockOns[(hang + 1)...].allSatisfy { $0.severity == .warning })
        // Every finding is told once.
        #expect(result.stories.flatMap(\.findings).count == result.findings.count)

        let console = ConsoleReport.text(result, files: [:])
        #expect(console.contains("\(story.findings.count) findings tell \(result.stories.count) "))
        #expect(console.contains("\nFAIL CANCEL-BEFORE-START-FINISHES: "))
        #expect(console.contains("the same case then breaks (knock-ons of CANCEL-BEFORE-START-FINISHES, most likely"))
        // A knock-on is told under its root, not as a block of its own.
        #expect(!console.contains("\nFAIL RUN-HANG: ") && console.contains("\n    FAIL RUN-HANG: "))

        let json = RunJSONReport(result, files: [:])
        #expect(json.findings.first?.rule == "CANCEL-BEFORE-START-FINISHES" && json.findings.first?.knockOnOf == nil)
        for rule in knockOns {
            #expect(json.findings.first { $0.rule == rule }?.knockOnOf == "CANCEL-BEFORE-START-FINISHES", "\(rule)")
        }
        let junit = JUnitReport.xml(result, files: [:])
        #expect(junit.contains("knock-on of CANCEL-BEFORE-START-FINISHES, most likely"))
        #expect(junit.contains("the same case then breaks: " + knockOns.joined(separator: ", ")))
    }

    @Test("findings of different cases with different minima stand alone")
    func separateBugsStandAlone() throws {
        // A queue that runs one operation too many, and a cancelled operation that is not ready:
        // two faults, two bugs, found in different cases.
        let faults: [Fault] = [.oneTooMany, .cancelledNotReady]
        let engine = ReferenceImplementation(options: EngineOptions(faults: faults))
        let configuration = RunConfiguration(impl: engine, faults: faults, seed: 1, count: 100)
        let result = Runner(configuration).run()
        let rules = Set(result.findings.map(\.rule))
        #expect(rules.contains("QUEUE-MAX-CONCURRENT") && rules.contains("READY-CANCELLED"), "\(rules)")
        let width = try #require(result.stories.first { $0.findings.contains { $0.rule == "QUEUE-MAX-CONCURRENT" } })
        let ready = try #require(result.stories.first { $0.findings.contains { $0.rule == "READY-CANCELLED" } })
        #expect(width.root != ready.root)
        for story in result.stories {
            for k in story.knockOns {
                #expect(Story.sameCase(story.root, k), "\(story.root.rule) and \(k.rule) are told as one story")
            }
        }
    }

    @Test("the root is the rule whose breach the witness shows complete first")
    func rootByEvidence() throws {
        let result = Self.cancelledNeverFinishes()
        let story = try #require(result.stories.first { $0.findings.count > 1 })
        let points = Story.evidentPoints(story.findings, profile: result.configuration.profile)
        let root = try #require(points[story.root.rule])
        for k in story.knockOns where k.severity == .failure && Finding.pseudoEnding(k.rule) == nil {
            #expect(root <= (points[k.rule] ?? .max),
                    "\(k.rule) was complete at \(points[k.rule] ?? -1), the root at \(root)")
        }
    }
    @Test("a finding shrunk from another's minimum joins its story, though another case showed it first")
    func shrunkFromAnothersMinimum() throws {
        let result = Self.cancelledNeverFinishes()
        // The run's own evidence: a knock-on's shrink started from a sibling's minimum, which
        // broke its rule when replayed.
        let story = try #require(result.stories.first { $0.findings.count > 1 })
        let started = story.findings.map { ($0.rule, $0.startedFrom != nil) }
        #expect(story.knockOns.contains { k in story.findings.contains { Story.follows($0, k) } },
                "no knock-on was shrunk from a sibling's minimum: \(started)")
        // Two findings of different first cases and minima: apart, unless one was shrunk from
        // the other's minimum.
        let root = story.root
        var other = try #require(story.knockOns.first { Finding.pseudoEnding($0.rule) == nil })
        other.caseIndex = root.caseIndex + 1000
        other.identity.caseSeed = root.identity.caseSeed &+ 1
        other.scenario.driver.removeLast()
        other.startedFrom = nil
        #expect(Story.tell([root, other], profile: .guide).count == 2)
        other.startedFrom = Shrinker.Hint(minimumOf: root)
        let joined = Story.tell([root, other], profile: .guide)
        #expect(joined.count == 1 && joined.first?.knockOns.map(\.rule) == [other.rule])
    }
}
