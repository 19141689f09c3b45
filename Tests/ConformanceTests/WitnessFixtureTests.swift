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

    /// Issue 44's GNUstep priority race, by hand (2026-12-06, 20 of 20 runs): serial queue 0
    /// holds op 0 (priority 4), op 1 (-8) and op 2 (8, depending on op 0). Op 0 begins to finish
    /// (#66, #67), op 2 is announced ready inside that finish (#70), and the worker starts op 1
    /// (#74). GNUstep's queue chooses inside the finish's notification, and which of its
    /// observers runs first nobody promises: at the first sign of the finish op 2 was not ready,
    /// so the documents' "priority orders ready operations" (004 2.6.2) cannot be shown broken.
    @Test("GNUstep: an operation made ready during its dependency's finish may lose to a waiting one; not proof of a breach")
    func readyDuringFinish() throws {
        let file = try Self.load("gnustep-priority-ready-during-finish.json")
        let events = file.trace.events
        func index(_ match: (EventKind) -> Bool) -> Int? { events.firstIndex { match($0.kind) } }
        let finishing = try #require(index { if case .willChange(0, .isFinished, _) = $0 { return true }; return false })
        let ready = try #require(index { if case .didChange(2, .isReady, .bool(true)) = $0 { return true }; return false })
        let lowStart = try #require(index { if case .call(.start(1, by: .queue)) = $0 { return true }; return false })
        let highStart = try #require(index { if case .call(.start(2, by: .queue)) = $0 { return true }; return false })
        #expect(finishing < ready && ready < lowStart && lowStart < highStart)
        // Judged at the start (#74) instead of the choice, op 2 (8) outranks op 1 (-8) and was
        // announced ready: the check must not read it so (priorityLoweredAfterChoice holds the
        // other side, a wrong choice that is seen).
        #expect(Self.orderViolations(file).isEmpty)
    }
    static func suspensionViolations(_ file: TraceFile) -> [Violation] {
        RuleBook.verdicts(scenario: file.scenario, trace: file.trace, profile: .gnustep, rules: RuleBook.matching("QUEUE-SUSPENDED"))
            .flatMap { v -> [Violation] in if case .checked(let r) = v.verdict { return r.violations }; return [] }
    }

    /// Two GNUstep gates of 2,000 cases (2026-12-07, seeds 4 and 6): op 2 waits in queue 1 on
    /// its dependencies, is cancelled (#93-#101, its isReady notice YES at #98), queue 1 is
    /// suspended (#107) and its worker starts op 2 (#136). A cancelled operation is ready
    /// whatever its dependencies, and GNUstep's queue chose it at that notice, before the
    /// suspension: not a start the suspension forbade.
    @Test("QUEUE-SUSPENDED: an operation cancelled, so ready, before the suspension may start after it")
    func cancelledBeforeSuspension() throws {
        let file = try Self.load("gnustep-suspended-after-cancel-made-ready.json")
        #expect(Self.suspensionViolations(file).isEmpty)
        // The same trace with the suspension moved before the cancel: queue 1 was suspended
        // when op 2 became ready, and its start is a breach.
        var events = file.trace.events
        let suspend = try #require(events.firstIndex { $0.kind == .call(.setSuspended(queue: 1, true)) })
        #expect(events[suspend + 1].kind == .returned(.setSuspended(queue: 1, true)))
        let pair = Array(events[suspend...suspend + 1])
        events.removeSubrange(suspend...suspend + 1)
        let cancel = try #require(events.firstIndex { $0.kind == .call(.cancel(2)) })
        events.insert(contentsOf: pair, at: cancel)
        for i in events.indices { events[i].seq = i }
        var trace = file.trace
        trace.events = events
        let violations = Self.suspensionViolations(TraceFile(scenario: file.scenario, trace: trace))
        #expect(violations.map(\.observed) == ["suspended queue 1 started op 2"])
    }
    /// A GNUstep gate of 2,000 cases (2026-12-07, seed 7): op 1's isReady override waits for
    /// token 1; the driver signals it (#130) and sends the will-change for isReady (#131, the
    /// getter already YES, by the subclass's design); GNUstep's queue starts op 1 inside the
    /// notice and hangs there, so the did-change that names the lift never came. The lift's
    /// will-change is not a silent change.
    @Test("READY-KVO: the lift's will-change counts as the lift even when its did-change never came")
    func liftWithoutItsDidChange() throws {
        let file = try Self.load("gnustep-ready-lift-hangs-in-notice.json")
        func violations(_ trace: Trace) -> [Violation] {
            RuleBook.verdicts(scenario: file.scenario, trace: trace, profile: .gnustep, rules: RuleBook.matching("READY-KVO"))
                .flatMap { v -> [Violation] in if case .checked(let r) = v.verdict { return r.violations }; return [] }
        }
        #expect(violations(file.trace).isEmpty)
        // Without the signal, the same will-change carrying YES after a read of NO shows a
        // change nobody announced.
        var trace = file.trace
        trace.events.removeAll { $0.kind == .signal(token: 1) }
        for i in trace.events.indices { trace.events[i].seq = i }
        #expect(violations(trace).map(\.observed) == ["op 1's isReady went from NO to YES with no will-change notification (the next will-change carried YES)"])
    }
    /// A GNUstep gate of 2,000 cases (2026-12-07, seed 14, case 1852): op 0, a block operation,
    /// finishes by GNUstep's own default start; the driver heard the will-changes for
    /// isExecuting and isFinished (#165, #166) and no did-change for either, though isFinished
    /// read YES at once (#167). The entries for GNUstep's own finish excuse that, and only on
    /// GNUstep's operations: a queue's or a subclass's of the tested code's own stays a failure.
    @Test("GNUstep's lost finish notices are excused on its own operations, not on the tested code's")
    func defaultFinishNoticesLost() throws {
        let file = try Self.load("gnustep-default-finish-notices-lost.json")
        let path = SpecsDriftTests.root.appendingPathComponent("Fixtures/expectations/gnustep.json").path
        let known = try Expectations.load(path)
        let violations = RuleBook.verdicts(scenario: file.scenario, trace: file.trace, profile: .gnustep,
                                           rules: RuleBook.matching("KVO-BALANCED") + RuleBook.matching("KVO-FINISH-ALWAYS"))
            .flatMap { v -> [Violation] in if case .checked(let r) = v.verdict { return r.violations }; return [] }
        #expect(Set(violations.map(\.rule)) == ["KVO-BALANCED", "KVO-FINISH-ALWAYS"])
        let gnustep = Attribution.Setting(platform: "gnustep", owns: [])
        for v in violations {
            let entry = Attribution.excuse(v, in: file.scenario, known: known, setting: gnustep)
            #expect(entry?.finding.hasSuffix("-default-finish.json") == true, "\(v.description)")
        }
        // The same operation as a subclass of the tested code's own: not GNUstep's to excuse.
        var mine = file.scenario
        mine.operations[0].kind = .subclass([.work(2)])
        for v in violations {
            #expect(Attribution.excuse(v, in: mine, known: known, setting: Attribution.Setting(platform: "gnustep", owns: ["subclass"])) == nil,
                    "\(v.description)")
        }
    }
    /// A GNUstep gate of 2,000 cases (2026-12-07, seed 30, case 852): op 1 waits on op 0 in
    /// queue 0; the driver lifts op 1's isReady override (#53, #54: the notice says NO, op 0 still
    /// runs), suspends queue 0 (#60), and once op 0 finishes the queue's worker starts op 1 (#87).
    /// GNUstep's queue takes any isReady notice as "ready" (the READY-OVERRIDE entry) and handed
    /// op 1 to its worker at #54; the worker started it after the suspension. The operation was
    /// not ready when it was chosen, so the choice before the suspension is not the documents'
    /// "scheduled"; the start is GNUstep's breach of QUEUE-SUSPENDED, and stays a failure.
    @Test("QUEUE-SUSPENDED: a start chosen at a notice that said NO is not excused by the choice's time")
    func chosenAtANoticeOfNotReady() throws {
        let file = try Self.load("gnustep-suspended-after-premature-choice.json")
        #expect(Self.suspensionViolations(file).map(\.observed) == ["suspended queue 0 started op 1"])
    }
}
