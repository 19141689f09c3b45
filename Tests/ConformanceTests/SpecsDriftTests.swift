import Conformance
import ConformanceReports
import Foundation
import OperationSpec
import Testing

/// The normative text in Specs/ and the fixtures must say exactly what the code does.
@Suite("Specs and fixtures match the code")
struct SpecsDriftTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The five documents' texts, beside the clone (Specs/documents.md): not in the repository.
    static let seeds = root.deletingLastPathComponent().appendingPathComponent("shared/seeds")
    static var seedsAvailable: Bool { FileManager.default.fileExists(atPath: seeds.path) }

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test("Specs/rules.md is the catalog, one to one")
    func rulesMarkdown() throws {
        let text = try Self.read("Specs/rules.md")
        #expect(text == RuleCatalogReport.markdown(), "regenerate with: swift run opconform rules --markdown > Specs/rules.md")
        // And independently of the renderer: every id has its heading, and no other heading exists.
        let headings = text.split(separator: "\n").filter { $0.hasPrefix("### ") }.map { String($0.dropFirst(4)) }
        #expect(headings == RuleBook.rules.map(\.id))
    }

    @Test("Fixtures/samples holds each document sample's scenario, byte for byte", arguments: DocumentSamples.all.map(\.scenario.name))
    func sampleFixtures(name: String) throws {
        let sample = try #require(DocumentSamples.all.first { $0.scenario.name == name })
        let path = Self.root.appendingPathComponent("Fixtures/samples/\(name).json").path
        let data = try #require(FileManager.default.contents(atPath: path), "missing \(path); write with: swift run opconform samples --write Fixtures/samples")
        #expect(data == ScenarioFormat.encode(sample.scenario))
        #expect(try JSONCodec.loadScenario(at: path) == sample.scenario)
    }

    @Test("every citation names a section that the cited document's text can be found by",
          .enabled(if: Self.seedsAvailable, "the documents are not beside this clone (../shared/seeds; Specs/documents.md)"))
    func citationsPointAtDocuments() throws {
        let seeds = Self.seeds
        for doc in Document.allCases {
            #expect(FileManager.default.fileExists(atPath: seeds.appendingPathComponent(doc.file).path), "\(doc.file) is not in shared/seeds")
        }
        let guide = try String(contentsOf: seeds.appendingPathComponent(Document.guide.file), encoding: .utf8)
        for rule in RuleBook.rules {
            for c in rule.citations where c.document == .guide {
                let section = c.section.split(separator: " ").first.map(String.init) ?? c.section
                let found = section.hasPrefix("2.") ? guide.contains("#" + section) || guide.contains("##" + section) || guide.contains(" " + section)
                                                     : guide.contains(c.section)
                #expect(found, "\(rule.id) cites 004 \(c.section), which the guide does not contain")
            }
        }
    }
}
