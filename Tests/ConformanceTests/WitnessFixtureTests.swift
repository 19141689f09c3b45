import Conformance
import Foundation
import OperationSpec
import Testing

/// Traces kept from runs (a finding's witness, `Finding.witness`) that once read wrong: each is
/// judged again here, so a checker that reads them wrong again fails the suite.
@Suite("Witness traces kept as fixtures")
struct WitnessFixtureTests {
    static func load(_ name: String) throws -> TraceFile {
        let url = SpecsDriftTests.root.appendingPathComponent("Fixtures/traces/\(name)")
        return try TraceFormat.decode(try Data(contentsOf: url), source: name)
    }

    static func orderViolations(_ file: TraceFile) -> [Violation] {
        RuleBook.verdicts(scenario: file.scenario, trace: file.trace, profile: .guide, rules: RuleBook.matching("PRIORITY-ORDER"))
            .flatMap { v -> [Violation] in if case .checked(let r) = v.verdict { return r.violations }; return [] }
    }

    /// A loaded GNUstep gate (2026-12-06): serial queue 2 took op 4 when op 2's finish was
    /// observed (#225), op 4 and op 3 both at priority 0 then, op 4 first; the driver lowered
    /// op 4 to -4 (#237) before the worker called its start (#246). Judged at the start's
    /// priorities, the choice read as wrong.
    @Test("a start is judged at the highest priority its operation had since the choice, not at the start's")
    func priorityLoweredAfterChoice() throws {
        let file = try Self.load("gnustep-priority-lowered-after-choice.json")
        #expect(Self.orderViolations(file).isEmpty)
        // The same trace with op 3 set to priority 8 in its setup: op 3 outranks op 4 at every
        // moment of the window, and the choice is wrong.
        var events = file.trace.events
        for i in events.indices {
            switch events[i].kind {
            case .call(.setQueuePriority(3, 3)): events[i].kind = .call(.setQueuePriority(3, 8))
            case .returned(.setQueuePriority(3, 3)): events[i].kind = .returned(.setQueuePriority(3, 8))
            default: break
            }
        }
        var trace = file.trace
        trace.events = events
        let violations = Self.orderViolations(TraceFile(scenario: file.scenario, trace: trace))
        #expect(violations.map(\.observed) == ["serial queue 2 started op 4 (priority 0) while op 3 (priority 8) was ready too"])
    }
}
