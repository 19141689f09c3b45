import OperationSpec
import Testing

@Suite("The rule catalog")
struct CatalogTests {
    @Test("ids are unique, well-formed and carry their family")
    func ids() {
        let rules = RuleBook.rules
        #expect(Set(rules.map(\.id)).count == rules.count)
        for r in rules {
            #expect(r.id.hasPrefix(r.family.rawValue + "-"), "\(r.id) is not in family \(r.family)")
            #expect(r.id.allSatisfy { $0.isUppercase || $0 == "-" }, "\(r.id) must be FAMILY-NAME in capitals")
        }
    }

    @Test("every rule says one sentence and cites the seed documents")
    func statements() {
        for r in RuleBook.rules {
            #expect(r.statement.hasSuffix("."), "\(r.id)")
            #expect(!r.statement.dropLast().contains(". "), "\(r.id) says more than one sentence")
            #expect(!r.citations.isEmpty, "\(r.id) cites nothing")
            for c in r.citations { #expect(!c.section.isEmpty, "\(r.id) cites \(c.document.rawValue) without a section") }
        }
    }

    @Test("every family has rules, and the catalog is large enough to mean something")
    func families() {
        for f in Family.allCases { #expect(RuleBook.rules.contains { $0.family == f }, "family \(f) is empty") }
        #expect(RuleBook.rules.count >= 45)
    }

    @Test("a rule that needs an observation the trace lacks is not observable, never a pass")
    func notObservable() {
        let scenario = Scenario(operations: [OperationConfig(kind: .main([]))])
        let trace = Trace(impl: "blind", scheduleSeed: 0, capabilities: [], events: [TraceEvent(seq: 0, thread: 0, .end)])
        for v in RuleBook.verdicts(scenario: scenario, trace: trace, profile: .guide) {
            if v.rule.needs.isEmpty || v.verdict == .notApplicable { continue }
            guard case .notObservable(let reason) = v.verdict else { Issue.record("\(v.rule.id) was checked without \(v.rule.needs)"); continue }
            #expect(reason.contains("blind cannot observe"))
        }
    }

    @Test("profile-only rules do not apply elsewhere")
    func profiles() {
        let rule = RuleBook.check(id: "QUEUE-THREAD-NAME")!.rule
        #expect(rule.applies(to: .gnustep))
        #expect(!rule.applies(to: .guide))
        #expect(RuleBook.check(id: "START-FINISHED")!.rule.statement(for: .classReference).contains("quietly"))
    }

    @Test("globs select rules", arguments: [("KVO-*", 11), ("*-THROWS", 4), ("START-FINISHED", 1), ("NOPE-*", 0)])
    func globs(pattern: String, count: Int) {
        #expect(RuleBook.matching(pattern).count == count)
    }

    @Test("queue priorities normalise towards Normal", arguments: [(3, 0), (5, 4), (9, 8), (100, 8), (-1, 0), (-6, -4), (-9, -8), (4, 4), (0, 0)])
    func normalise(raw: Int, expected: Int) {
        #expect(QueuePriority.normalized(raw) == expected)
    }
}
