import Foundation
import OperationSpec
import Testing

/// Rule ids are names the compiler checks (`RuleID`, issue 46): the catalog's ids and the
/// pseudo-rules' are all there, and no other source file spells an id as a string literal.
@Suite("Rule ids as values")
struct RuleIDTests {
    static let pseudoRules = [RuleID.runCrash, RuleID.runHang, RuleID.dataRace, RuleID.memoryError, RuleID.driverProtocol]

    @Test("RuleID names every rule of the catalog and every pseudo-rule, each once")
    func complete() {
        #expect(Set(RuleID.all).count == RuleID.all.count)
        #expect(Set(RuleID.all) == Set(RuleBook.all.map(\.rule.id) + Self.pseudoRules))
    }

    /// Code lines only: comments, multi-line strings (help texts) and raw strings (JSON examples)
    /// may quote an id as the formats show it.
    @Test("no source file outside RuleID.swift spells a rule id as a literal in its code")
    func noLiterals() throws {
        let sources = SpecsDriftTests.root.appendingPathComponent("Sources")
        let ids = RuleID.all.sorted { $0.count > $1.count }.map { "\"\($0)\"" }
        var found: [String] = []
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []
        for file in files.sorted() where file.hasSuffix(".swift") && !file.hasSuffix("/RuleID.swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            var inMultiLine = false
            for (number, line) in text.components(separatedBy: "\n").enumerated() {
                let quotes = line.components(separatedBy: "\"\"\"").count - 1
                defer { if quotes % 2 == 1 { inMultiLine.toggle() } }
                let code = line.trimmingCharacters(in: .whitespaces)
                if inMultiLine || quotes > 0 || code.hasPrefix("//") || line.contains("#\"") { continue }
                if let id = ids.first(where: { line.contains($0) }) { found.append("\(file):\(number + 1): \(id)") }
            }
        }
        #expect(found.isEmpty, "\(found.prefix(10).joined(separator: "\n"))")
        #expect(files.count > 100, "the sources were not found at \(sources.path)")
    }
}
