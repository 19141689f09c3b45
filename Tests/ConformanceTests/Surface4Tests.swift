@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
import Foundation
import OperationSpec
import ReferenceEngine
import Testing

/// API surface 4 and the Dispatch constructs (issue 44): the last of the peer suite's
/// constructs. `readMainQueue` and `readQueueDeallocated` (every built-in driver), and
/// `setUnderlyingQueue`, `readUnderlyingQueue` and `onDispatchQueue` (only where there is
/// Dispatch: the `dispatchQueues` capability). Each records what it reads; no rule judges it.
@Suite("API surface 4 and the Dispatch constructs: the main queue, a released queue's end, underlyingQueue")
struct Surface4Tests {
    static func peer(_ name: String) throws -> Scenario {
        let url = PeerSuiteTests.folder.appendingPathComponent(name + ".json")
        return try ScenarioFormat.read(try Data(contentsOf: url), source: name)
    }

    static func mainQueueReads(_ t: Trace) -> [EventKind] {
        t.events.map(\.kind).filter { if case .mainQueue = $0 { return true }; return false }
    }

    static func underlyingReads(_ t: Trace) -> [Int?] {
        t.events.compactMap { if case .underlyingQueue(_, let d) = $0.kind { return d }; return nil }
    }

    static func deallocation(_ t: Trace) -> Bool? {
        t.events.lazy.compactMap { if case .queueDeallocated(0, let gone) = $0.kind { return gone }; return nil }.first
    }

    /// What each implementation must record for the peer tests of API surface 4 and Dispatch.
    static func check(_ impl: any Implementation, dispatch: Bool) throws {
        let getter = try peer("test_MainQueueGetter")
        let t6 = impl.run(getter, scheduleSeed: 1)
        #expect(mainQueueReads(t6) == Array(repeating: .mainQueue(same: true, suspended: false, current: true), count: 2),
                "\(impl.name): \(mainQueueReads(t6))")
        #expect(TraceFormat.format(of: t6) == 5)
        let lifecycle = try peer("test_Lifecycle")
        let t28 = impl.run(lifecycle, scheduleSeed: 1)
        #expect(t28.ending == .complete && deallocation(t28) != nil, "\(impl.name): \(t28.ending)")
        guard dispatch else { return }
        // Set: the block reads its own queue as current and dispatch queue 0 under it, also when
        // the queue was resumed from a block on that dispatch queue; reset to nil: none.
        for (name, expected) in [("test_CurrentQueueWithCustomUnderlyingQueue", 0 as Int?), ("test_isSuspended", 0),
                                 ("test_CurrentQueueWithUnderlyingQueueResetToNil", nil)] {
            let t = impl.run(try peer(name), scheduleSeed: 1)
            #expect(t.ending == .complete, "\(impl.name) \(name): \(t.ending)")
            #expect(underlyingReads(t) == [expected], "\(impl.name) \(name): \(underlyingReads(t))")
            #expect(t.events.contains { $0.kind == .currentQueue(op: 0, queue: 0) }, "\(impl.name) \(name)")
        }
    }

    @Test("the reference engine: one main queue, current on the driving thread; a drained released queue is gone; underlyingQueue read back")
    func engine() throws {
        try Self.check(ReferenceImplementation(), dispatch: true)
        let t = ReferenceEngine().run(try Self.peer("test_Lifecycle"), scheduleSeed: 1)
        #expect(Self.deallocation(t) == true)
        // Asked while the released queue still runs its work, the engine says not yet.
        var early = try Self.peer("test_Lifecycle")
        early.driver.insert(DriverStep(.readQueueDeallocated(queue: 0)), at: 3)
        #expect(early.problems().isEmpty, "\(early.problems())")
        let e = ReferenceEngine().run(early, scheduleSeed: 1)
        let reads = e.events.compactMap { if case .queueDeallocated(_, let gone) = $0.kind { return gone }; return nil }
        #expect(reads == [false, true], "\(reads)")
    }

    @Test("Foundation's driver records each construct",
          .enabled(if: FoundationIsolationTests.available, "build opconform first (swift build)"))
    func foundation() throws {
        try Self.check(FoundationIsolationTests.foundation(), dispatch: true)
        #expect(Self.deallocation(FoundationIsolationTests.foundation().run(try Self.peer("test_Lifecycle"), scheduleSeed: 1)) == true)
    }

    @Test("GNUstep's driver records the main queue and a released queue's end, and is not sent a Dispatch construct",
          .enabled(if: GNUstepDriverTests.available, "needs GNUstep"))
    func gnustep() throws {
        let impl = try Implementations.make("gnustep", profile: .gnustep, faults: [])
        try Self.check(impl, dispatch: false)
        let refusal = try #require(impl.refusal(of: try Self.peer("test_isSuspended")))
        #expect(refusal.contains("does not declare the capability dispatchQueues")
                && refusal.contains("setUnderlyingQueue, readUnderlyingQueue, onDispatchQueue"), "\(refusal)")
    }

    @Test("a driver without the capabilities is not sent them, and is told which constructs stand in the way")
    func refusals() throws {
        let blind = BlindToKVO()
        let main = try #require(blind.refusal(of: try Self.peer("test_MainQueueGetter")))
        #expect(main.contains("does not declare the capability apiSurface4") && main.contains("readMainQueue"), "\(main)")
        let reset = try #require(blind.refusal(of: try Self.peer("test_CurrentQueueWithUnderlyingQueueResetToNil")))
        #expect(reset.contains("dispatchQueues") && reset.contains("setUnderlyingQueue, readUnderlyingQueue"), "\(reset)")
        #expect(ReferenceImplementation().refusal(of: try Self.peer("test_isSuspended")) == nil)
    }

    @Test("validity: a deallocation read needs the release before it; an underlying queue is set before any add; dispatch queues 0 to 7")
    func validity() throws {
        var s = try Self.peer("test_Lifecycle")
        s.driver.insert(DriverStep(.readQueueDeallocated(queue: 0)), at: 0)
        #expect(s.problems().contains { $0.contains("asks whether queue 0 was deallocated, but no step before it releases") },
                "\(s.problems())")
        var late = try Self.peer("test_CurrentQueueWithCustomUnderlyingQueue")
        late.driver.append(DriverStep(.setUnderlyingQueue(queue: 0, dispatchQueue: 1)))
        #expect(late.problems().contains { $0.contains("which driver step 1 already added to") }, "\(late.problems())")
        var far = try Self.peer("test_isSuspended")
        far.driver[3].onDispatchQueue = 8
        #expect(far.problems().contains { $0.contains("names dispatch queue 8") }, "\(far.problems())")
        // The reader refuses it as the schema does, with the range.
        let text = String(decoding: ScenarioFormat.encode(far), as: UTF8.self)
        #expect(throws: InputError.self) { _ = try ScenarioFormat.read(Data(text.utf8), source: "far.json") }
        // Shrinking the queue away takes its Dispatch steps with it.
        #expect(DriverAction.setUnderlyingQueue(queue: 0, dispatchQueue: 2).removing(queue: 0) { $0 } == nil)
        #expect(DriverAction.readQueueDeallocated(queue: 1).removing(queue: 0) { $0 - 1 } == .readQueueDeallocated(queue: 0))
    }
}
