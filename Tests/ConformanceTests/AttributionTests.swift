@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
import Foundation
import OpconformCLI
import OperationSpec
import ReferenceEngine
import Testing

/// Verdicts name whose duty broke (issue 29): a known divergence of the platform excuses a
/// violation only where its cause shows, never the tested code's own failure of the same rule,
/// and a correct driver built on Foundation gets exit 0 from a plain `run`.
@Suite("Attribution of findings")
struct AttributionTests {
    static let platformFile = SpecsDriftTests.root.appendingPathComponent("Fixtures/expectations/foundation-linux.json").path
    static func platform() throws -> Expectations { try Expectations.load(platformFile) }

    static let userQueue = Attribution.Setting(platform: "foundation-linux", owns: ["queue"])
    static let userSubclass = Attribution.Setting(platform: "foundation-linux", owns: ["subclass"])

    static func scenario(_ kinds: [OperationKind], _ steps: [DriverAction]) -> Scenario {
        Scenario(name: "t", queues: [QueueConfig()], operations: kinds.map { OperationConfig(kind: $0) }, dependencies: [],
                 driver: steps.map { DriverStep($0) })
    }

    static func violation(_ rule: String, _ observed: String, ops: [Int]) -> Violation {
        Violation(rule: rule, observed: observed, expected: "x",
                  witnesses: ops.enumerated().map { TraceEvent(seq: $0.offset, thread: 0, .read(op: $0.element, .isReady, .bool(false))) })
    }

    /// The masking case of the issue: a queue that ignores priority passed the gate because
    /// Foundation's queue breaks PRIORITY-ORDER too (after a removeDependency).
    @Test("PRIORITY-ORDER is the platform's only where a witness's dependency was removed")
    func priorityOrder() throws {
        let known = try Self.platform()
        let plain = Self.scenario([.main([.work(1)]), .main([.work(1)])], [.add(op: 0, queue: 0), .add(op: 1, queue: 0)])
        // Its witnesses are the choice and the start (op 0); the rival, op 1, is named in its sentence.
        let v = Self.violation("PRIORITY-ORDER", "serial queue 0 started op 0 (priority -4) while op 1 (priority 0) was ready too", ops: [0])
        #expect(Attribution.excuse(v, in: plain, known: known, setting: Self.userQueue) == nil, "a queue that ignores priority is the queue's")
        let removed = Self.scenario([.main([.work(1)]), .main([.work(1)])],
                                    [.removeDependency(op: 1, on: 0), .add(op: 1, queue: 0), .add(op: 0, queue: 0)])
        #expect(Attribution.excuse(v, in: removed, known: known, setting: Self.userQueue)?.rule == "PRIORITY-ORDER")
    }

    @Test("a hang or a crash is the platform's only where it says and holds the platform's cause")
    func deaths() throws {
        let known = try Self.platform()
        let plain = Self.scenario([.main([.work(1)])], [.add(op: 0, queue: 0), .waitUntilAllFinished(queue: 0)])
        let hang = Violation(rule: Finding.hangRule, observed: "hang: driver step 1 (waitUntilAllFinished(queue: 0)) never returned",
                             expected: "x", witnesses: [])
        #expect(Attribution.excuse(hang, in: plain, known: known, setting: Self.userQueue) == nil, "a queue's own hang is its own")
        let removed = Self.scenario([.main([.work(1)]), .main([.work(1)])],
                                    [.removeDependency(op: 1, on: 0), .add(op: 1, queue: 0), .waitUntilAllFinished(queue: 0)])
        #expect(Attribution.excuse(hang, in: removed, known: known, setting: Self.userQueue)?.rule == Finding.hangRule)
        let selfDependent = Self.scenario([.main([.work(1)])], [.addDependency(op: 0, on: 0), .add(op: 0, queue: 0)])
        #expect(Attribution.excuse(hang, in: selfDependent, known: known, setting: Self.userQueue)?.cause?.needs == ["selfDependency"])

        let started = Self.scenario([.main([.work(1)])], [.add(op: 0, queue: 0), .start(0)])
        let byHand = TraceEvent(seq: 3, thread: 0, .call(.start(0, by: .driver)))
        let notReady = "crash (signal 4): Foundation/Operation.swift:343: Fatal error: <MainOperation: 0x…>: receiver is not yet ready to execute"
        func crash(_ observed: String, during open: [TraceEvent]) -> Violation {
            Violation(rule: Finding.crashRule, observed: observed, expected: "x",
                      witnesses: open + [TraceEvent(seq: 9, thread: 1, .crash(signal: 4, message: observed))])
        }
        let foundation = crash(notReady, during: [byHand])
        #expect(Attribution.excuse(foundation, in: started, known: known, setting: Self.userQueue)?.rule == Finding.crashRule)
        let own = crash("crash (signal 4): MyQueue/MyQueue.swift:12: Fatal error: index out of range", during: [byHand])
        #expect(Attribution.excuse(own, in: started, known: known, setting: Self.userQueue) == nil, "the queue's own trap is its own")
        // The same trap of Foundation's start while the user's queue starts the operation (not
        // the driver's hand): the queue started an operation that was not ready (issue 42).
        let byQueue = TraceEvent(seq: 5, thread: 1, .call(.start(0, by: .queue)))
        let wait = TraceEvent(seq: 4, thread: 0, .call(.waitUntilAllFinished(queue: 0)))
        #expect(Attribution.excuse(crash(notReady, during: [wait, byQueue]), in: started, known: known, setting: Self.userQueue) == nil,
                "a queue that starts an unready operation is the queue's, whatever file traps")
        // Any other trap of Foundation's file in a case with a start step is not the start's.
        let enqueued = "crash (signal 4): Foundation/Operation.swift:1195: Fatal error: operations finished, executing or already in a "
            + "queue cannot be enqueued"
        let add = TraceEvent(seq: 2, thread: 0, .call(.addOperation(0, queue: 0)))
        let cancelled = Self.scenario([.subclass([.work(1)])], [.cancel(0), .add(op: 0, queue: 0)])
        #expect(Attribution.excuse(crash(enqueued, during: [add]), in: cancelled, known: known, setting: Self.userSubclass) == nil,
                "an operation the tested code finished before it was added is the tested code's")
        #expect(Attribution.excuse(crash(enqueued, during: [add]), in: started, known: known, setting: Self.userSubclass)?.cause?.needs
                == ["secondStart"], "one the driver started by hand and then added is the platform's way of refusing the misuse")
        let twice = Self.scenario([.main([.work(1)]), .main([.work(1)])], [.add(op: 0, queue: 0), .add(op: 1, queue: 0), .add(op: 0, queue: 0)])
        #expect(Attribution.excuse(crash(enqueued, during: [add]), in: twice, known: known, setting: Self.userQueue)?.cause?.needs == ["secondStart"])
        let addOne = TraceEvent(seq: 2, thread: 0, .call(.addOperation(1, queue: 0)))
        #expect(Attribution.excuse(crash(enqueued, during: [addOne]), in: twice, known: known, setting: Self.userQueue) == nil,
                "the operation added twice must be the one the trap was about")
    }

    /// The death's evidence: the calls open when the implementation died are the crash's
    /// witnesses, and its requirement names them instead of presuming a misuse.
    @Test("a crash names the calls it interrupted")
    func crashWitnesses() {
        let trace = Trace(impl: "foundation", scheduleSeed: 1, capabilities: [], events: [
            TraceEvent(seq: 0, thread: 0, .call(.addOperation(0, queue: 0))),
            TraceEvent(seq: 1, thread: 0, .returned(.addOperation(0, queue: 0))),
            TraceEvent(seq: 2, thread: 0, .call(.start(0, by: .driver))),
            TraceEvent(seq: 3, thread: 1, .call(.start(0, by: .queue))),
            TraceEvent(seq: 4, thread: 1, .crash(signal: 4, message: "Fatal error: receiver is already executing")),
        ])
        let v = ShrinkTarget.death(of: trace)
        #expect(v.map(\.rule) == [Finding.crashRule])
        #expect(v.first?.witnesses.map(\.seq) == [2, 3, 4])
        #expect(v.first?.expected.hasPrefix("no crash during start(op 0) by driver, start(op 0) by queue: the call returns") == true,
                "\(v.first?.expected ?? "")")
        #expect(Attribution.openCallNames(v[0]) == ["start", "queueStart"])
    }

    /// The masking case of the issue: an isReady that turns NO after start in a user's class
    /// was counted as Foundation's READY-EXECUTING-FINISHED (a dependency added late).
    @Test("READY-EXECUTING-FINISHED is the platform's only where a dependency was added to the witness")
    func readyAfterStart() throws {
        let known = try Self.platform()
        let v = Self.violation("READY-EXECUTING-FINISHED", "op 0 reported isReady NO after it had been executing or finished", ops: [0])
        let plain = Self.scenario([.subclass([.work(1)])], [.add(op: 0, queue: 0), .waitUntilAllFinished(queue: 0), .read(.isReady, op: 0)])
        #expect(Attribution.excuse(v, in: plain, known: known, setting: Self.userSubclass) == nil)
        let late = Self.scenario([.subclass([.work(1)]), .main([])],
                                 [.add(op: 0, queue: 0), .waitUntilAllFinished(queue: 0), .addDependency(op: 0, on: 1), .read(.isReady, op: 0)])
        #expect(Attribution.excuse(v, in: late, known: known, setting: Self.userSubclass)?.rule == "READY-EXECUTING-FINISHED")
        // A dependency added to another operation is not this one's cause.
        let elsewhere = Self.scenario([.subclass([.work(1)]), .main([]), .main([])],
                                      [.add(op: 0, queue: 0), .addDependency(op: 2, on: 1), .read(.isReady, op: 0)])
        #expect(Attribution.excuse(v, in: elsewhere, known: known, setting: Self.userSubclass) == nil)
    }

    @Test("BLOCK-CONCURRENT is the platform's for its block operations; a queue-owned rule never is for a user's queue")
    func ownersAndKinds() throws {
        let known = try Self.platform()
        let blocks = Self.scenario([.block([[.work(1)], [.work(1)]])], [.add(op: 0, queue: 0)])
        let v = Self.violation("BLOCK-CONCURRENT", "block 0 of op 0 timed out waiting for a sibling", ops: [0])
        #expect(Attribution.excuse(v, in: blocks, known: known, setting: Self.userQueue)?.rule == "BLOCK-CONCURRENT")
        let queueEntry = Expectations.Entry(rule: "QUEUE-PROGRESS", kind: .bug, reason: "r", finding: "f",
                                            cause: Expectations.Cause(owner: .queue))
        let queueOnly = Expectations(format: 3, impl: "foundation", profile: .classReference, expected: [queueEntry])
        let stuck = Self.violation("QUEUE-PROGRESS", "ready op 0 was never started", ops: [0])
        #expect(Attribution.excuse(stuck, in: blocks, known: queueOnly, setting: Self.userQueue) == nil)
        #expect(Attribution.excuse(stuck, in: blocks, known: queueOnly, setting: Self.userSubclass)?.rule == "QUEUE-PROGRESS")
    }

    @Test("an expectations file's causes are read strictly")
    func causesReadStrictly() throws {
        func message(_ cause: String, format: Int = 3) -> String {
            let file = temporaryFile(#"{"expected": [{"cause": \#(cause), "finding": "f.json", "kind": "bug", "reason": "r", "rule": "RUN-HANG"}], "format": \#(format), "impl": "x", "profile": "guide"}"#)
            do { _ = try JSONCodec.decode(Expectations.self, from: JSONCodec.readFile(at: file), source: file); return "" } catch { return error.message }
        }
        #expect(message(#"{"owner": "operations", "needs": ["removeDependncy"]}"#).contains("expected[0].cause.needs[0] is \"removeDependncy\""))
        #expect(message(#"{"owner": "kernel"}"#).contains("expected[0].cause.owner"))
        #expect(message(#"{"owner": "queue", "sayz": ["x"]}"#).contains("\"sayz\""))
        #expect(message(#"{"owner": "queue"}"#, format: 2).contains("a cause needs format 3"))
        #expect(message(#"{"owner": "operations", "inherited": true, "kinds": ["block"], "needs": ["addedTwice"], "says": ["x"]}"#) == "")
    }

    /// A correct subclass on Foundation's queue: `run` exits 0 and lists the platform's
    /// divergences apart; with `--expectations none` they are its failures again.
    @Test("a correct subclass gets exit 0 from a plain run, the platform's divergences listed apart",
          .enabled(if: FileManager.default.isExecutableFile(atPath: SubclassUnderTestTests.driver), "build sample-subclass-driver first"))
    func correctCodeRunsGreen() throws {
        let out = NSTemporaryDirectory() + "opconform-attribution-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let r = opconform("run", "--impl", "exec:" + SubclassUnderTestTests.driver, "--count", "60", "--no-shrink", "--out", out)
        #expect(r.status == 0, "\(r.out)\(r.err)")
        #expect(r.out.contains("profile class-reference (the profile of foundation's known divergences"), "\(r.out)")
        #expect(r.out.contains("\nknown on foundation-linux (not the tested code's failures):\n"), "\(r.out)")
        #expect(!r.out.contains("\nFAIL "), "\(r.out)")
        let none = opconform("run", "--impl", "exec:" + SubclassUnderTestTests.driver, "--count", "60", "--no-shrink", "--out", out,
                             "--expectations", "none")
        #expect(none.status == 1 && none.out.contains("\nFAIL "), "\(none.out)\(none.err)")
    }

    @Test("a rare entry's measured rate bounds how often a gate lets its rule break")
    func rateBound() {
        // The issue's case: a flake measured at 1 in 300 lets at most 4 of 100 cases pass the
        // gate at the 0.001 level, so a defect that breaks 18 of 100 fails it.
        let flake = Expectations.Rate(cases: 1, of: 300)
        #expect(flake.bound(cases: 100) == 4)
        #expect(flake.bound(cases: 2000) > 6 && flake.bound(cases: 2000) < 30, "\(flake.bound(cases: 2000))")
        #expect(Expectations.Rate(cases: 0, of: 1000).bound(cases: 100) <= 2)
        #expect(Expectations.Rate(cases: 50, of: 100).bound(cases: 100) >= 60)
        #expect(Expectations.Rate(cases: 300, of: 300).bound(cases: 100) == 100)
    }

    @Test("a gate fails when a rare entry's rule breaks far more often than its measured rate")
    func rateExceededFailsTheGate() throws {
        let entry = { (rate: Expectations.Rate) in
            Expectations.Entry(rule: "PRIORITY-NORMALIZE", kind: .bug, reason: "a flake", finding: "f.json", rare: "1 in 300",
                               rate: rate)
        }
        for (rate, passes) in [(Expectations.Rate(cases: 1, of: 300), false), (Expectations.Rate(cases: 90, of: 100), true)] {
            let known = Expectations(format: 3, impl: "reference", profile: .guide, expected: [entry(rate)])
            let impl = ReferenceImplementation(options: EngineOptions(faults: [.priorityNotNormalised]))
            var c = RunConfiguration(impl: impl, faults: [.priorityNotNormalised], count: 100, shrink: false)
            c.known = known
            let result = Runner(c).run()
            let shown = result.known.first?.cases ?? 0
            #expect(shown > 10, "the fault breaks the rule often: \(shown)")
            let verdict = GateVerdict(result: result, expectations: known)
            #expect(verdict.unexpected.isEmpty && verdict.confirmed == ["PRIORITY-NORMALIZE"])
            #expect(verdict.passes(strict: false) == passes, "\(rate): \(shown) of 100, \(verdict.exceeded.map(\.bound))")
            // A plain run applies the same bound (issue 42): its exit status is the gate's.
            #expect(result.failed == !passes, "\(rate): run's verdict")
            #expect(result.exceededRates.isEmpty == passes)
        }
    }

    /// A driver's platform is a name of the harness's list, never a path (issue 42): a hello that
    /// claims `../../somewhere/file` loaded an expectations file from outside and passed.
    @Test("a driver claiming a platform the harness does not know is refused in one sentence, exit 2",
          arguments: ["../../somewhere/file", "foundation-linux2"])
    func unknownPlatformRefused(name: String) {
        let hello = #"{"hello":{"capabilities":["threadIdentity"],"impl":"liar","platform":{"name":"\#(name)","owns":["queue"]},"protocol":2}}"#
        let path = ExternalDriverTests.script("cat > /dev/null\n" + MisbehavingDriverTests.say(hello))
        let r = opconform("run", "--impl", "exec:" + path, "--count", "1", "--no-shrink", "--out", NSTemporaryDirectory() + "plat-\(UUID().uuidString)")
        #expect(r.status == 2, "\(r.out)\(r.err)")
        #expect(r.err.contains("which is not one this harness knows (foundation-darwin, foundation-linux, gnustep)"), "\(r.err)")
    }

    /// One of the GNUstep gate's entries with a cause (2026-11-28): CANCEL-SETS-FLAG after an
    /// operation let into two queues was finished by the refused second start's -_finish. It
    /// excuses the committed finding, and not the same violation in a case that adds each
    /// operation once: GNUstep's own -cancel failing on a running operation would still fail.
    @Test("GNUstep's CANCEL-SETS-FLAG is excused only where an operation was added twice")
    func gnustepCancelAfterDoubleAdd() throws {
        let root = SpecsDriftTests.root
        let known = try Expectations.load(root.appendingPathComponent("Fixtures/expectations/gnustep.json").path)
        let data = try Data(contentsOf: root.appendingPathComponent("Fixtures/expectations/gnustep/CANCEL-SETS-FLAG.json"))
        let finding = try JSONCodec.decode(Finding.self, from: data, source: "the finding")
        #expect(Attribution.ingredients(finding.scenario).contains("addedTwice"))
        let v = Self.violation("CANCEL-SETS-FLAG", "op 0 reported isCancelled NO after cancel returned", ops: [0])
        #expect(Attribution.excuse(v, in: finding.scenario, known: known, setting: .ownEverything)?.rule == "CANCEL-SETS-FLAG")
        let once = Self.scenario([.main([.work(3)])], [.add(op: 0, queue: 0), .cancel(0)])
        #expect(Attribution.excuse(v, in: once, known: known, setting: .ownEverything) == nil)
    }
}

/// Every entry of every shipped expectations file, held to its cause (issue 42): a violation of
/// its rule that lacks one part of the cause (the tested code owns the queue, a user's subclass
/// is the witness, the case lacks what the cause needs, the crash says something else or
/// interrupted no such call) is never excused. An entry whose cause has no part a violation can
/// lack excuses its rule platform-wide: those are listed, and only thread priorities may be.
@Suite("Shipped expectations cannot mask another cause")
struct MaskingAuditTests {
    static let files = ["foundation-linux", "gnustep"]
    /// Entries that excuse their rule on the whole platform: Linux cannot set a thread's
    /// priority (SCHED_OTHER), whoever asks.
    static let platformWide: Set<String> = ["COMPLETION-THREAD-PRIORITY", "THREAD-PRIORITY-MAIN"]

    @Test("every entry has a cause, and a violation lacking any part of it is not excused", arguments: files)
    func audit(file: String) throws {
        let path = SpecsDriftTests.root.appendingPathComponent("Fixtures/expectations/\(file).json").path
        let known = try Expectations.load(path)
        var guarded = 0, probes = 0
        var wide: [String] = []
        for entry in known.expected {
            let cause = try #require(entry.cause, "\(file): \(entry.rule) has no cause")
            let only = Expectations(format: known.format, impl: known.impl, profile: known.profile, expected: [entry])
            let platform = Attribution.Setting(platform: file, owns: [])
            let kind: OperationKind = cause.kinds?.first == "block" ? .block([[.work(1)]])
                : cause.kinds?.first == "concurrent" ? .concurrent(.correct(work: [.work(1)]))
                : cause.kinds?.first == "invocation" ? .invocation([.work(1)]) : .main([.work(1)])
            // A case with none of the driver actions a cause may need: one add and a wait.
            let bare = AttributionTests.scenario([kind, kind], [.add(op: 0, queue: 0), .waitUntilAllFinished(queue: 0)])
            let words = "op 0 did something the rule forbids"
            var tried = 0
            func refuse(_ v: Violation, _ s: Scenario, _ setting: Attribution.Setting, _ why: String) {
                tried += 1
                #expect(Attribution.excuse(v, in: s, known: only, setting: setting) == nil, "\(file) \(entry.rule): \(why)")
            }
            let plain = AttributionTests.violation(entry.rule, words, ops: [0])
            if cause.owner == .queue {
                refuse(plain, bare, Attribution.Setting(platform: file, owns: ["queue"]), "a queue of the tested code's own")
            }
            if cause.owner == .operations && !cause.inherited {
                let mine = AttributionTests.scenario([.subclass([.work(1)]), kind], [.add(op: 0, queue: 0), .waitUntilAllFinished(queue: 0)])
                refuse(plain, mine, Attribution.Setting(platform: file, owns: ["subclass"]), "a witness of the tested code's own subclass")
            }
            if let needs = cause.needs, !needs.allSatisfy(Attribution.ingredients(bare).contains) {
                refuse(plain, bare, platform, "a case without \(needs)")
            }
            if cause.says != nil {
                refuse(AttributionTests.violation(entry.rule, "crash (signal 4): MyCode.swift:12: Fatal error: mine", ops: [0]), bare, platform,
                       "a death that says something else")
            }
            if cause.during != nil {
                refuse(plain, bare, platform, "a crash that interrupted no call the cause names")
            }
            if let kinds = cause.kinds, !kinds.contains("main") {
                let other = AttributionTests.scenario([.main([.work(1)])], [.add(op: 0, queue: 0)])
                refuse(plain, other, platform, "a witness of another kind")
            }
            probes += tried
            if tried > 0 { guarded += 1 } else { wide.append(entry.rule) }
        }
        #expect(Set(wide).isSubset(of: Self.platformWide), "\(file): entries that excuse their rule platform-wide: \(wide)")
        print("masking audit \(file): \(known.expected.count) entries, \(guarded) guarded by \(probes) probes, platform-wide: \(wide)")
    }

    /// GNUstep's QUEUE-WAIT-OP entry is a wait that never returns; a wait that returns early is
    /// another defect and stays the tested code's.
    @Test("GNUstep's wait entry excuses a wait that never returns, not one that returns early")
    func gnustepWait() throws {
        let known = try Expectations.load(SpecsDriftTests.root.appendingPathComponent("Fixtures/expectations/gnustep.json").path)
        let s = AttributionTests.scenario([.main([.work(1)])], [.add(op: 0, queue: 0), .waitUntilFinished(0)])
        let setting = Attribution.Setting(platform: "gnustep", owns: [])
        let never = AttributionTests.violation("QUEUE-WAIT-OP", "waitUntilFinished(op 0) never returned, though every operation it "
                                                + "waited for had finished", ops: [0])
        #expect(Attribution.excuse(never, in: s, known: known, setting: setting)?.rule == "QUEUE-WAIT-OP")
        let early = AttributionTests.violation("QUEUE-WAIT-OP", "waitUntilFinished(op 0) returned while op 0 had not finished", ops: [0])
        #expect(Attribution.excuse(early, in: s, known: known, setting: setting) == nil)
    }
}
