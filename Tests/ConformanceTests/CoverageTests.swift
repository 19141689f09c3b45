@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
@testable import ConformanceReports
import Foundation
import OperationSpec
import Testing

/// Every normative statement of the documents is accounted for (issue 34): its words are the
/// document's, the rules it names exist, Specs/coverage.md is the data, and the duties no rule
/// states yet are exactly the ones listed here, so closing one (or opening one) changes this file.
@Suite("Coverage of the documents' normative statements")
struct CoverageTests {
    /// The testable duties no rule states yet (issue 34's list, as the reading found them).
    static let openGaps: [String] = []

    static func collapsed(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
    }

    @Test("each statement's words are in its seed document, from its line, and its id is unique",
          .enabled(if: SpecsDriftTests.seedsAvailable, "the documents are not beside this clone (../shared/seeds; Specs/documents.md)"))
    func wordsAreTheDocuments() throws {
        let seeds = SpecsDriftTests.seeds
        var texts: [Document: (whole: String, lines: [String])] = [:]
        for document in Document.allCases {
            let text = try String(contentsOf: seeds.appendingPathComponent(document.file), encoding: .utf8)
            texts[document] = (Self.collapsed(text), text.components(separatedBy: "\n"))
        }
        var ids: [String] = []
        for s in NormativeStatement.all {
            let text = try #require(texts[s.document])
            let words = Self.collapsed(s.words)
            #expect(text.whole.contains(words), "\(s.id): its words are not in \(s.document.file)")
            if s.line >= 1 && s.line <= text.lines.count {
                let from = Self.collapsed(text.lines[(s.line - 1)...].prefix(12).joined(separator: "\n"))
                #expect(from.contains(String(words.prefix(30))), "\(s.id): its words do not start at line \(s.line)")
            } else {
                Issue.record("\(s.id): line \(s.line) is not a line of \(s.document.file)")
            }
            #expect(!ids.contains(s.id), "\(s.id) is given twice")
            ids.append(s.id)
        }
    }

    @Test("every rule a statement names is a rule of the catalog, and every gap is a listed one")
    func rulesExist() {
        var gaps: Set<String> = []
        for s in NormativeStatement.all {
            switch s.coverage {
            case .rules(let rules, let inferred, _):
                #expect(!(rules + inferred).isEmpty, "\(s.id): names no rule")
                for rule in rules + inferred { #expect(RuleBook.check(id: rule) != nil, "\(s.id): \(rule) is not a rule") }
            case .notRule(let why): #expect(!why.isEmpty, "\(s.id): no reason")
            case .gap(let rule, _):
                #expect(RuleBook.check(id: rule) == nil, "\(s.id): \(rule) exists now: say so in the statement")
                gaps.insert(rule)
            }
        }
        #expect(gaps.sorted() == Self.openGaps, "the open gaps changed: update CoverageTests.openGaps and the note")
    }

    @Test("Specs/coverage.md is the data")
    func pageIsCurrent() throws {
        let page = try String(contentsOf: SpecsDriftTests.root.appendingPathComponent("Specs/coverage.md"), encoding: .utf8)
        #expect(page == CoverageReport.markdown(), "run: opconform rules --coverage --markdown > Specs/coverage.md")
    }
}
