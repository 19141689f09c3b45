import Conformance
import Foundation
import OperationSpec
import ReferenceEngine
import Testing

/// The catalog of subclass flaws (issue 18 item 1): every flaw is caught on the reference
/// engine by one of the rules written for it, and `--flaws` is a public contract (read
/// strictly, written into finding files and replay lines).
@Suite("Every subclass flaw is caught")
struct SubclassFlawTests {
    @Test("caught on the reference engine by one of its own rules within the bound, shrunk small, and the minimum breaks it again", arguments: SubclassFlaw.allCases)
    func caught(flaw: SubclassFlaw) throws {
        let outcome = FlawProbe.probe(flaw, impl: ReferenceImplementation())
        #expect(outcome.status == "caught", "\(flaw.rawValue) was not caught in \(FlawProbe.bound) cases")
        let rule = try #require(outcome.rule)
        #expect(flaw.expectedRules.contains(rule), "\(flaw.rawValue) was caught by \(rule), not one of its rules \(flaw.expectedRules)")
        #expect(outcome.cases <= FlawProbe.bound)
        #expect((outcome.operations ?? 99) <= 5, "\(flaw.rawValue) shrank only to \(outcome.operations ?? -1) operations")
        #expect(outcome.reproduced == outcome.attempts)
        let replay = try #require(outcome.replay)
        #expect(replay.contains("--flaws \(flaw.rawValue)") && replay.contains("--flaw-rate 100"), "\(replay)")
    }

    @Test("the correct program breaks none of the rules written for the flaws, under many schedules")
    func correctProgramIsClean() {
        let rules = Set(SubclassFlaw.allCases.flatMap(\.expectedRules))
        let checks = RuleBook.all.filter { rules.contains($0.rule.id) }
        // Misuse included: an operation started twice is the caller's fault, left to the START rules.
        let generator = ScenarioGenerator(options: GeneratorOptions(size: 8, misuseRate: 40))
        var judged = 0
        for seed: UInt64 in 1...300 {
            let scenario = generator.generate(seed: seed)
            guard scenario.operations.contains(where: { $0.kind.overridesStart }) else { continue }
            judged += 1
            let trace = ReferenceEngine().run(scenario, scheduleSeed: seed)
            for check in checks {
                let violations = check.check(CheckContext(scenario: scenario, trace: trace, profile: .guide)).violations
                #expect(violations.isEmpty, "seed \(seed): \(violations.map(\.description))")
            }
        }
        #expect(judged > 20)
    }

    func complete(_ program: ConcurrentProgram) -> [Step] { program.routine(named: "completeOperation") ?? [] }

    @Test("each flaw is written into the subclass it is drawn for, and only it")
    func applied() {
        for flaw in SubclassFlaw.allCases {
            let generator = ScenarioGenerator(options: GeneratorOptions(size: 8, misuseRate: 0, flawRate: 100, flaws: [flaw]))
            var concurrent = 0
            for seed: UInt64 in 1...40 {
                let s = generator.generate(seed: seed)
                #expect(s.problems().isEmpty, "\(flaw.rawValue), seed \(seed): \(s.problems())")
                #expect(s.generatorVersion == 2)  // flaws, no reach episodes: version 2 builds it
                for (i, op) in s.operations.enumerated() {
                    guard case .concurrent(let program) = op.kind else { continue }
                    concurrent += 1
                    let text = "\(program)"
                    switch flaw {
                    case .unprefixedKeys: #expect(text.contains("willChangeUnprefixed") && !text.contains("willChange("))
                    case .callsSuperStart: #expect(program.start == [.callSuperStart])
                    case .notConcurrent: #expect(!program.overridesIsConcurrent)
                    case .synchronousStart: #expect(program.start.contains(.callMain) && !program.start.contains(.spawn(.main, .this)))
                    case .finishesTwice: #expect(program.main.filter { $0 == .call("completeOperation") }.count == 2)
                    case .finishesWhileQueued:
                        // In a queue, and its cancel handler finishes it right after a cancel.
                        #expect(s.driver.contains { $0.action == .perform(op: i, [.call("completeOperation")]) })
                    case .unlockedState:
                        #expect(program.routine(named: "finishIfNeeded") != nil)
                        #expect(s.driver.contains { if case .perform(i, _) = $0.action, $0.after == .mainBegan(i) { return true }; return false })
                    case .stateAfterDispatch:
                        let spawn = program.start.firstIndex(of: .spawn(.main, .this)), store = program.start.firstIndex(of: .set(.isExecuting, true))
                        #expect(spawn != nil && store != nil && spawn! < store!)
                        #expect(program.main == [.call("completeOperation")])
                    case .changeWithoutNotify: #expect(complete(program) == [.set(.isExecuting, false), .set(.isFinished, true)])
                    case .noCancelCheck: #expect(!program.start.contains { if case .if(.isCancelled(.this), _, _) = $0 { return true }; return false })
                    case .cancelledNeverFinishes: #expect(program.start.first == .if(.isCancelled(.this), then: [.return], else: []))
                    case .notifyBeforeSet: #expect(complete(program).last == .set(.isFinished, true) && complete(program).contains(.didChange(.isFinished)))
                    case .notifyWithoutChange:
                        #expect(!complete(program).contains(.set(.isFinished, true)) && complete(program).contains(.didChange(.isFinished)))
                    case .executingLeftSet: #expect(!complete(program).contains { "\($0)".contains("isExecuting") })
                    case .finishesBeforeWork: #expect(program.main.first == .call("completeOperation") && program.main.count > 1)
                    case .startSkipsMain:
                        #expect(!program.start.contains(.spawn(.main, .this)) && !program.start.contains(.callMain))
                        #expect(program.start.contains(.call("completeOperation")))
                    }
                }
            }
            #expect(concurrent > 0, "\(flaw.rawValue) was never drawn")
        }
        // No flaws asked for: the case is version 1's and says so.
        #expect(ScenarioGenerator(options: GeneratorOptions()).generate(seed: 3).generatorVersion == 1)
        #expect(ScenarioGenerator.rebuilds(version: 1, options: GeneratorOptions()))
        #expect(!ScenarioGenerator.rebuilds(version: 1, options: GeneratorOptions(flawRate: 5)))
    }

    @Test("--flaws reads names or all, in catalog order, and refuses an unknown name with the one meant and the list")
    func parsing() throws {
        #expect(try SubclassFlaw.parseList("all") == SubclassFlaw.allCases)
        #expect(try SubclassFlaw.parseList("unlocked-state,calls-super-start,unlocked-state") == [.callsSuperStart, .unlockedState])
        do {
            _ = try SubclassFlaw.parseList("finishes-twice,unlocked-stat")
            Issue.record("an unknown flaw was accepted")
        } catch {
            #expect(error.message.contains("\"unlocked-stat\" is not a flaw; did you mean \"unlocked-state\"?"), "\(error.message)")
            #expect(error.message.contains("state-after-dispatch, change-without-notify"))
        }
    }

    @Test("a case's flaws are part of its options: written only when set, read back, refused out of catalog order")
    func options() throws {
        let plain = JSONCodec.encodeString(GeneratorOptions(flawRate: 30))
        #expect(!plain.contains("flaws"))
        let some = GeneratorOptions(flawRate: 30, flaws: [.stateAfterDispatch, .unlockedState])
        let back = try JSONDecoder().decode(GeneratorOptions.self, from: JSONCodec.encode(some))
        #expect(back == some)
        let shuffled = #"{"flawRate": 30, "flaws": ["unlocked-state", "state-after-dispatch"], "misuseRate": 10, "size": 8}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(GeneratorOptions.self, from: Data(shuffled.utf8)) }
        let unknown = #"{"flawRate": 30, "flaws": ["finishes-twise"], "misuseRate": 10, "size": 8}"#
        do {
            _ = try JSONDecoder().decode(GeneratorOptions.self, from: Data(unknown.utf8))
            Issue.record("an unknown flaw was read")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.debugDescription.contains("did you mean \"finishes-twice\"?"), "\(context.debugDescription)")
        }
        let line = Finding.replayLine(identity: CaseIdentity(caseSeed: 7, options: some), implArguments: ["--impl", "reference"], profile: .guide, faults: [])
        #expect(line.hasSuffix("--flaw-rate 30 --flaws state-after-dispatch,unlocked-state"), "\(line)")
    }

    @Test("opconform flaws lists the catalog; --probe on the reference engine catches all of them")
    func command() throws {
        let list = opconform("flaws", "--json")
        #expect(list.status == 0)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(list.out.utf8)) as? [[String: Any]])
        #expect(entries.compactMap { $0["name"] as? String } == SubclassFlaw.allCases.map(\.rawValue))
        let probe = opconform("flaws", "--probe", "--impl", "reference", "--flaws", "finishes-twice,executing-left-set")
        #expect(probe.status == 0, "\(probe.err)")
        #expect(probe.out.contains("finishes-twice") && probe.out.contains("KVO-FINISH-ONCE") && probe.out.contains("2 caught, 0 not caught"), "\(probe.out)")
        let bad = opconform("run", "--flaw-rate", "10", "--flaws", "nope")
        #expect(bad.status == 2 && bad.err.contains("\"nope\" is not a flaw"), "\(bad.err)")
        let rateless = opconform("run", "--flaws", "finishes-twice")
        #expect(rateless.status == 2 && rateless.err.contains("it needs --flaw-rate R above 0"), "\(rateless.err)")
        let misplaced = opconform("flaws", "--impl", "reference")
        #expect(misplaced.status == 2 && misplaced.err.contains("--impl applies to --probe only"), "\(misplaced.err)")
    }
}
