import OperationSpec
import ReferenceEngine
import Testing

/// Every rule is shown to be non-vacuous: the reference engine reaches it and keeps it on a real
/// scenario, and a hand-broken trace of that scenario is caught.
@Suite("Every rule has a passing scenario and a caught bad trace")
struct RuleExampleTests {
    static let ids = RuleBook.rules.map(\.id)

    @Test("the examples cover the catalog exactly")
    func coverage() {
        let missing = Self.ids.filter { RuleExamples.table[$0] == nil }
        let extra = RuleExamples.table.keys.sorted().filter { !Self.ids.contains($0) }
        #expect(missing.isEmpty, "rules without an example: \(missing)")
        #expect(extra.isEmpty, "examples for unknown rules: \(extra)")
    }

    @Test("the engine reaches and keeps the rule", arguments: ids)
    func engineSatisfies(id: String) throws {
        let example = try #require(RuleExamples.table[id])
        let check = try #require(RuleBook.check(id: id))
        let engine = ReferenceEngine(options: EngineOptions(profile: example.profile))
        var hits = 0
        for seed: UInt64 in 1...25 {
            let trace = engine.run(example.scenario, scheduleSeed: seed)
            let result = check.check(CheckContext(scenario: example.scenario, trace: trace, profile: example.profile))
            #expect(result.violations.isEmpty, "schedule seed \(seed): \(result.violations.map(\.description))")
            hits += result.hits
        }
        #expect(hits > 0, "\(id) was never reached by \(example.scenario.name)")
    }

    @Test("a hand-broken trace is caught", arguments: ids)
    func badTraceCaught(id: String) throws {
        let example = try #require(RuleExamples.table[id])
        let check = try #require(RuleBook.check(id: id))
        let trace = ReferenceEngine(options: EngineOptions(profile: example.profile)).run(example.scenario, scheduleSeed: 1)
        var editor = TraceEditor(trace)
        example.breakIt(&editor)
        #expect(editor.missing.isEmpty, "the edit's anchors were not in the trace: \(editor.missing)")
        let bad = editor.result
        #expect(bad != trace, "the edit changed nothing")
        let result = check.check(CheckContext(scenario: example.scenario, trace: bad, profile: example.profile))
        #expect(!result.violations.isEmpty, "\(id) did not catch the edited trace")
        #expect(result.violations.allSatisfy { $0.rule == id })
        #expect(result.violations.allSatisfy { !$0.witnesses.isEmpty }, "a violation must carry its witnesses")
    }
}
