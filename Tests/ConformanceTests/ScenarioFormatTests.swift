@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
import Foundation
@testable import OpconformCLI
import OperationSpec
import ReferenceEngine
import Testing

/// Issue 17: scenario format 2, written for people and read strictly. A scenario survives
/// writing and reading unchanged, to the bit of its doubles; the same scenario is the same
/// bytes; format 1 still reads, to the same scenario; a misspelt key, a wrong case or a
/// missing field is refused in one sentence that says where, and what was meant.
@Suite("Scenario format 2")
struct ScenarioFormatTests {
    // MARK: round trips

    /// A scenario with every kind, step, condition, trigger and action, and every field away
    /// from its default (and some at it), built by hand.
    static let everything: Scenario = {
        let program = ConcurrentProgram(overridesIsConcurrent: false, start: [.callSuperStart, .spawn(.main, .this), .spawn(.start, .op(1))],
                                        main: [.call("finish"), .callMain],
                                        routines: [Routine("finish", [.willChange(.isFinished), .set(.isFinished, true), .didChange(.isFinished)]),
                                                   Routine("empty \"quoted\" \\ name/é", []),
                                                   Routine("unprefixed", [.willChangeUnprefixed(.isExecuting), .didChangeUnprefixed(.isExecuting)])])
        let body: [Step] = [
            .work(0), .work(1_000_000), .returnIfCancelled,
            .if(.and(.isCancelled(.this), .not(.isReady(.op(2)))), then: [.return], else: []),
            .if(.isConcurrent(.op(0)), then: [], else: [.work(2)]),
            .if(.isExecuting(.this), then: [], else: []),
            .if(.isFinished(.op(1)), then: [.work(1)], else: [.work(3)]),
            .repeat(0, []), .repeat(10_000, [.work(1), .returnIfCancelled]),
            .start(.this), .start(.op(1)), .cancel(.op(0)), .cancel(.this),
            .read(.isReady, .this), .read(.queuePriority, .op(2)), .read(.completionBlock, .this), .read(.threadPriority, .op(0)),
            .read(.dependencies, .this), .signal(7), .await(7, timeout: 1), .await(-3, timeout: 1_000_000),
            .readCurrentQueue, .read(.executionBlocks, .op(1)), .readUnderlyingQueue,
        ]
        return Scenario(name: "everything\n\t\u{1}", seed: UInt64.max, generatorVersion: 3,
                        queues: [QueueConfig(), QueueConfig(maxConcurrent: 0, suspended: true), QueueConfig(maxConcurrent: 4, name: "fetch \"q\"\n")],
                        operations: [
                            OperationConfig(kind: .main(body), queuePriority: -8, threadPriority: 0.1 + 0.2, completion: []),
                            OperationConfig(kind: .block([[], [.work(1)], body]), queuePriority: 123_456, completion: [.work(1)]),
                            OperationConfig(kind: .concurrent(program), threadPriority: .leastNonzeroMagnitude),
                            OperationConfig(kind: .invocation([.work(2)]), threadPriority: 1, readyAfterSignal: -7),
                            OperationConfig(kind: .subclass([.work(1), .returnIfCancelled])),
                            OperationConfig(kind: .concurrent(ConcurrentProgram(start: [], main: []))),
                        ],
                        dependencies: [Edge(1, on: 0), Edge(3, on: 2)],
                        driver: [
                            DriverStep(.add(op: 0, queue: 0)), DriverStep(.addBatch(ops: [1, 2], queue: 1, wait: false)),
                            DriverStep(.addBatch(ops: [], queue: 2, wait: true)),
                            DriverStep(after: .started(0), .start(3)), DriverStep(after: .mainBegan(1), .perform(op: 2, [.start(.this)])),
                            DriverStep(after: .blockBegan(1, block: 2), .cancel(1)), DriverStep(after: .finished(0), .cancelAll(queue: 0)),
                            DriverStep(.suspend(queue: 1)), DriverStep(.resume(queue: 1)), DriverStep(.setMaxConcurrent(queue: 0, -1)),
                            DriverStep(.setMaxConcurrent(queue: 2, 9)), DriverStep(.addDependency(op: 3, on: 0)),
                            DriverStep(.removeDependency(op: 3, on: 0)), DriverStep(.waitUntilFinished(0)),
                            DriverStep(.waitUntilAllFinished(queue: 0)), DriverStep(.setCompletionBlock(op: 0, [.work(1)])),
                            DriverStep(.addExecutionBlock(op: 1, [])), DriverStep(.setQueuePriority(op: 0, 5)),
                            DriverStep(.setThreadPriority(op: 0, 0.7)), DriverStep(.setThreadPriority(op: 1, -1.5e-7)),
                            DriverStep(.read(.isFinished, op: 1)), DriverStep(.readOperationCount(queue: 2)), DriverStep(.result(3)),
                            DriverStep(.addBlock(op: 1, queue: 2)), DriverStep(after: .signaled(7), .readSuspended(queue: 1)),
                            DriverStep(.sleep(0)), DriverStep(.sleep(1_000_000)), DriverStep(.read(.executionBlocks, op: 1)),
                            DriverStep(.readOperations(queue: 2)), DriverStep(.releaseQueue(queue: 2)),
                            DriverStep(.readQueueDeallocated(queue: 2)), DriverStep(.readMainQueue),
                            DriverStep(after: .finished(1), .setUnderlyingQueue(queue: 0, dispatchQueue: 7), onDispatchQueue: 0),
                            DriverStep(.setUnderlyingQueue(queue: 1, dispatchQueue: nil)),
                        ])
    }()

    /// `ScenarioDecoder.read`'s checks aside: the decoder's result, for scenarios `problems()`
    /// would refuse (the hand-built one names routines and operations freely).
    static func read(_ data: Data, source: String = "test.json") throws(InputError) -> Scenario {
        try ScenarioFormat.read(data, source: source)
    }

    @Test("the hand-built scenario holds every case of every enumeration, and comes back equal")
    func everythingRoundTrips() throws {
        let data = ScenarioFormat.encode(Self.everything)
        #expect(try Self.read(data) == Self.everything)
        #expect(ScenarioFormat.encode(try Self.read(data)) == data)
        // Every case name of the format is a key somewhere in it.
        let keys = Self.keys(JSONValue(try #require(JSONDiagnosis(data).root)))
        let all = ScenarioDecoder.kindCases.names + ScenarioDecoder.stepCases.names + ScenarioDecoder.conditionCases.names
            + ScenarioDecoder.triggerCases.names + ScenarioDecoder.actionCases.names
        #expect(all.filter { !keys.contains($0) } == [])
        // Doubles to the bit.
        let back = try Self.read(data)
        #expect(back.operations[0].threadPriority?.bitPattern == (0.1 + 0.2).bitPattern)
        #expect(back.operations[2].threadPriority == .leastNonzeroMagnitude)
    }

    static func keys(_ v: JSONValue) -> [String] {
        switch v {
        case .object(let members): return members.flatMap { [$0.key] + keys($0.value) }
        case .array(let items): return items.flatMap(keys)
        default: return []
        }
    }

    /// The generator's scenarios across sizes, misuse and flaw rates, with and without the
    /// implementation's own subclass.
    static var generated: [Scenario] {
        var out: [Scenario] = []
        for size in [1, 3, 8, 20, 64] {
            for (misuse, flaw) in [(0, 0), (10, 0), (40, 30), (100, 100)] {
                for subclass in [false, true] {
                    let generator = ScenarioGenerator(options: GeneratorOptions(size: size, misuseRate: misuse, flawRate: flaw, subclass: subclass))
                    for seed: UInt64 in 1...6 { out.append(generator.generate(seed: seed &* 7919 &+ UInt64(size))) }
                }
            }
        }
        return out
    }

    @Test("generated scenarios and the documents' samples: encode, decode, equal; encoded twice, the same bytes")
    func generatedRoundTrip() throws {
        let all = Self.generated + DocumentSamples.all.map(\.scenario)
        var count = 0
        for s in all {
            let data = ScenarioFormat.encode(s)
            #expect(ScenarioFormat.encode(s) == data)
            let back = try ScenarioFormat.decode(data, source: "generated \(s.seed).json")
            #expect(back == s, "seed \(s.seed)")
            #expect(ScenarioFormat.encode(back) == data)
            count += 1
        }
        print("scenario format 2: \(count) scenarios round-tripped")
        #expect(count == 5 * 4 * 2 * 6 + DocumentSamples.all.count)
    }

    /// Every exponent a thread priority can have (0.0...1.0, 004 2.6.3), subnormals included.
    @Test("thread priorities of every size come back to the bit")
    func doubles() throws {
        var rng = Xoshiro256(seed: 17)
        var count = 0
        while count < 2000 {
            // Sign bit and top exponent bit cleared: [0, 2), half of it a valid priority.
            let x = Double(bitPattern: rng.next() & 0x3FFF_FFFF_FFFF_FFFF)
            guard (0...1).contains(x) else { continue }
            count += 1
            let s = Scenario(operations: [OperationConfig(kind: .main([]), threadPriority: x)], driver: [DriverStep(.setThreadPriority(op: 0, x))])
            let back = try ScenarioFormat.decode(ScenarioFormat.encode(s), source: "d.json")
            #expect(back.operations[0].threadPriority?.bitPattern == x.bitPattern)
            #expect(back.driver[0].action == .setThreadPriority(op: 0, x))
        }
    }

    @Test("the style: sorted keys, two spaces, \"key\": value, [] and {}, a newline at the end; defaults left out")
    func style() {
        let s = Scenario(name: "x", queues: [QueueConfig()], operations: [OperationConfig(kind: .main([.returnIfCancelled, .work(2)]), completion: [])],
                         driver: [DriverStep(.add(op: 0, queue: 0))])
        let text = String(decoding: ScenarioFormat.encode(s), as: UTF8.self)
        #expect(text == """
        {
          "driver": [
            {
              "action": {
                "add": {
                  "op": 0,
                  "queue": 0
                }
              }
            }
          ],
          "format": 2,
          "name": "x",
          "operations": [
            {
              "completion": [],
              "kind": {
                "main": [
                  {
                    "returnIfCancelled": {}
                  },
                  {
                    "work": 2
                  }
                ]
              }
            }
          ],
          "queues": [
            {}
          ]
        }

        """)
        #expect(String(decoding: ScenarioFormat.encode(Scenario()), as: UTF8.self) == "{\n  \"format\": 2\n}\n")
    }

    // MARK: format 1

    @Test("a format-1 file reads to the same scenario as its format-2 conversion")
    func formatOneReads() throws {
        for s in Array(Self.generated.prefix(40)) + DocumentSamples.all.map(\.scenario) {
            let old = try ScenarioFormat.decode(JSONCodec.encode(s), source: "old.json")
            let new = try ScenarioFormat.decode(ScenarioFormat.encode(old), source: "new.json")
            #expect(old == s && new == s)
        }
        #expect(ScenarioFormat.declaredFormat(JSONCodec.encode(Scenario())) == 1)
        #expect(ScenarioFormat.declaredFormat(ScenarioFormat.encode(Scenario())) == 2)
    }

    @Test("replay runs a format-1 scenario and a format-1 finding as it runs their format-2 and 3 conversions")
    func replayFormatOne() throws {
        let sample = try #require(DocumentSamples.all.first { $0.scenario.name == "guide-listings-2-5-to-2-7" }).scenario
        let old = opconform("replay", temporaryFile(JSONCodec.encodeString(sample)), "--schedule-seed", "8")
        let new = opconform("replay", temporaryFile(String(decoding: ScenarioFormat.encode(sample), as: UTF8.self)), "--schedule-seed", "8")
        #expect(old.status == 1 && old.out.contains("STATE-EXCLUSIVE"), "\(old.err)")
        #expect(old.out == new.out && old.status == new.status)

        let finding = try #require(FaultProbe.firstFinding(.oneTooMany))
        let oldFinding = opconform("replay", temporaryFile(try Self.formatOneFinding(finding)))
        let newFinding = opconform("replay", temporaryFile(String(decoding: finding.fileData, as: UTF8.self)))
        #expect(oldFinding.status == 1 && oldFinding.out.contains("\(finding.rule) broke again"), "\(oldFinding.err)")
        #expect(oldFinding.out == newFinding.out)
    }

    /// A finding as the builds before format 3 wrote it: the synthesized scenario, format 1,
    /// its seeds numbers.
    static func formatOneFinding(_ finding: Finding) throws -> String {
        struct Legacy: Encodable {
            var finding: Finding
            func encode(to encoder: Encoder) throws { try finding.encode(to: encoder, scenarioAs: .synthesized) }
        }
        let text = JSONCodec.encodeString(Legacy(finding: finding))
        #expect(text.contains("\"format\" : \(Finding.formatVersion),\n") && text.contains("\"_0\""))
        return numericSeeds(text.replacingOccurrences(of: "\"format\" : \(Finding.formatVersion),\n", with: "\"format\" : 1,\n"))
    }

    /// The text with the seeds of a finding's own fields as numbers, as formats 1 to 3 wrote them.
    static func numericSeeds(_ text: String) -> String {
        text.replacing(/"(runSeed|scheduleSeed|caseSeed)"( ?: ?)"([0-9]+)"/) { "\"\($0.1)\"\($0.2)\($0.3)" }
    }

    @Test("findings: format 3 comes back equal from either writer; formats 1 and 2 still read")
    func findings() throws {
        var finding = try #require(FaultProbe.firstFinding(.suspensionIgnored))
        // A measurement, not part of the file.
        finding.shrinkMilliseconds = 0
        #expect(finding.format == 4)
        #expect(try FindingFile.decode(finding.fileData, source: "f.json") == finding)
        #expect(try JSONCodec.decode(Finding.self, from: JSONCodec.encode(finding), source: "f.json") == finding)
        let text = String(decoding: finding.fileData, as: UTF8.self)
        #expect(text.contains("\"format\": 4,") && text.contains("\"format\": 2") && !text.contains("\"_0\""))
        // Seeds are strings from format 4 on (issue 45); a format-3 file, with numbers, is still read.
        #expect(text.contains("\"runSeed\": \"") && text.contains("\"scheduleSeed\": \"") && text.contains("\"caseSeed\": \""))
        let three = Self.numericSeeds(text.replacingOccurrences(of: "\"format\": 4,", with: "\"format\": 3,"))
        #expect(try FindingFile.decode(Data(three.utf8), source: "three.json").identity == finding.identity)
        let numberInFour = Self.refusal { _ = try FindingFile.decode(Data(Self.numericSeeds(text).utf8), source: "f.json") }
        #expect(numberInFour.contains("f.json: ") && numberInFour.contains("Seed is ")
                && numberInFour.contains("but must be a seed written as a string of decimal digits"), "\(numberInFour)")
        let old = try FindingFile.decode(Data(try Self.formatOneFinding(finding).utf8), source: "old.json")
        #expect(old.format == 1 && old.scenario == finding.scenario)
        finding.driver = DriverLaunch(executable: "/bin/d", arguments: ["a"])
        let withDriver = try Self.formatOneFinding(finding).replacingOccurrences(of: "\"format\" : 1,\n  \"harness\"", with: "\"format\" : 2,\n  \"harness\"")
        #expect(try FindingFile.decode(Data(withDriver.utf8), source: "old2.json").driver == finding.driver)
        #expect(Self.refusal { _ = try FindingFile.decode(Data(try Self.formatOneFinding(finding).utf8), source: "old1.json") }
            .contains("a finding that names a driver is format 2 or 3, not 1"))
    }

    // MARK: strict reading

    /// The sentence `body` is refused with; one line, naming its source.
    static func refusal(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> String {
        do {
            try body()
            Issue.record("it was not refused", sourceLocation: sourceLocation)
            return ""
        } catch let error as InputError {
            #expect(!error.message.contains("\n") && !error.message.isEmpty, "\(error.message)", sourceLocation: sourceLocation)
            return error.message
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
            return ""
        }
    }

    static func message(_ text: String, source: String = "s.json", sourceLocation: SourceLocation = #_sourceLocation) -> String {
        let m = refusal(sourceLocation: sourceLocation) { _ = try ScenarioFormat.decode(Data(text.utf8), source: source) }
        #expect(m.hasPrefix(source + ": "), "\(m)", sourceLocation: sourceLocation)
        return m
    }

    @Test("a misspelt key is refused with its path, its line and column, and the key meant")
    func misspeltKeys() {
        let priority = Self.message("""
        {"format": 2, "queues": [{}],
         "operations": [{"kind": {"main": []}},
                        {"kind": {"main": []}, "queuePriorty": 4}]}
        """)
        #expect(priority.contains("s.json: operations[1] has an unknown key \"queuePriorty\" at line 3, column 40; did you mean \"queuePriority\"?"), "\(priority)")
        #expect(priority.contains("(the keys of an operation are: completion, kind, queuePriority, readyAfterSignal, threadPriority)"), "\(priority)")
        let after = Self.message("""
        {"format": 2, "queues": [{}], "operations": [{"kind": {"main": []}}],
         "driver": [{"action": {"add": {"op": 0, "queue": 0}}}, {"afer": {"started": 0}, "action": {"cancel": 0}}]}
        """)
        #expect(after.contains("driver[1] has an unknown key \"afer\" at line 2, column 58; did you mean \"after\"? (the keys of a driver step are: action, after, onDispatchQueue)"), "\(after)")
        // Deep inside: a step's field.
        let times = Self.message(#"{"format": 2, "operations": [{"kind": {"main": [{"repeat": {"times": 2, "bdy": []}}]}}]}"#)
        #expect(times.contains("operations[0].kind.main[0].repeat has an unknown key \"bdy\" at line 1, column 73; did you mean \"body\"?"), "\(times)")
        // A key nothing is near: the keys, no guess.
        let far = Self.message(#"{"format": 2, "zzzzzzzz": 1}"#)
        #expect(far.contains("the top level has an unknown key \"zzzzzzzz\"") && !far.contains("did you mean") && far.contains("the keys of a scenario are: dependencies, driver,"), "\(far)")
    }

    @Test("format 1 is as strict: a misspelt key is refused with the nearest one")
    func misspeltKeysInFormatOne() throws {
        var text = JSONCodec.encodeString(Scenario(operations: [OperationConfig(kind: .main([]))], driver: [DriverStep(.start(0))]))
        text = text.replacingOccurrences(of: "\"kind\" :", with: "\"queuePriorty\" : 3, \"kind\" :")
        let m = Self.message(text)
        #expect(m.contains("operations[0] has an unknown key \"queuePriorty\" at line") && m.contains("did you mean \"queuePriority\"?"), "\(m)")
        #expect(m.contains("(the keys there are: completion, kind, queuePriority, readyAfterSignal, threadPriority)"), "\(m)")
        let after = Self.message(JSONCodec.encodeString(Scenario(operations: [OperationConfig(kind: .main([]))], driver: [DriverStep(.start(0))]))
            .replacingOccurrences(of: "\"action\" :", with: "\"afer\" : {\"started\" : {\"_0\" : 0}}, \"action\" :"))
        #expect(after.contains("driver[0] has an unknown key \"afer\"") && after.contains("did you mean \"after\"?"), "\(after)")
        // A key inside a case's fields, which the synthesized decoder passed over too.
        let inner = Self.message(JSONCodec.encodeString(Scenario(operations: [OperationConfig(kind: .main([.work(1)]))]))
            .replacingOccurrences(of: "\"_0\" : 1", with: "\"_0\" : 1, \"_1\" : 2"))
        #expect(inner.contains("operations[0].kind.main._0[0].work has an unknown key \"_1\""), "\(inner)")
    }

    @Test("a wrong case name lists the valid ones, with the nearest")
    func wrongCases() {
        let kind = Self.message(#"{"format": 2, "operations": [{"kind": {"mian": []}}]}"#)
        #expect(kind.contains("operations[0].kind has the key \"mian\" at line 1, column 40, which is not a kind; did you mean \"main\"? (the kinds are: block, concurrent, invocation, main, subclass)"), "\(kind)")
        let step = Self.message(#"{"format": 2, "operations": [{"kind": {"main": [{"wrk": 1}]}}]}"#)
        #expect(step.contains("operations[0].kind.main[0] has the key \"wrk\"") && step.contains("did you mean \"work\"?") && step.contains("the steps are: await, call,"), "\(step)")
        let action = Self.message(#"{"format": 2, "queues": [{}], "driver": [{"action": {"suspnd": 0}}]}"#)
        #expect(action.contains("driver[0].action has the key \"suspnd\"") && action.contains("did you mean \"suspend\"?") && action.contains("the actions are: add, addBatch,"), "\(action)")
        let key = Self.message(#"{"format": 2, "operations": [{"kind": {"main": [{"willChange": "isFinshed"}]}}]}"#)
        #expect(key.contains("operations[0].kind.main[0].willChange is the string \"isFinshed\"") && key.contains("which is not a state key; did you mean \"isFinished\"?"), "\(key)")
        let two = Self.message(#"{"format": 2, "operations": [{"kind": {"main": [], "block": []}}]}"#)
        #expect(two.contains("operations[0].kind is an object with the keys \"main\", \"block\"") && two.contains("but must be a kind: an object with one key"), "\(two)")
        let ref = Self.message(#"{"format": 2, "operations": [{"kind": {"main": [{"start": "this"}]}}]}"#)
        #expect(ref.contains("operations[0].kind.main[0].start is the string \"this\"") && ref.contains("but must be \"self\" or an operation's number"), "\(ref)")
    }

    @Test("a missing required field is named; a missing format says format 2 is current and how to write it")
    func missingFields() {
        let kind = Self.message(#"{"format": 2, "operations": [{"queuePriority": 4}]}"#)
        #expect(kind.contains("the object operations[0] at line 1, column 30 has no key \"kind\", which is required"), "\(kind)")
        let op = Self.message(#"{"format": 2, "queues": [{}], "driver": [{"action": {"add": {"queue": 0}}}]}"#)
        #expect(op.contains("the object driver[0].action.add at line 1, column 61 has no key \"op\", which is required"), "\(op)")
        let format = Self.message(#"{"operations": []}"#)
        #expect(format.contains("the top-level object at line 1, column 1 has no key \"format\": format 2 is current, so a scenario begins {\"format\": 2, ...}"), "\(format)")
        let three = Self.message("{\"format\": 3}")
        #expect(three.contains("format is 3 at line 1, column 12, but this build reads scenario formats 1 and 2"), "\(three)")
    }

    @Test("values out of range, of the wrong type, or twice, name the place; a scenario that cannot run is refused too")
    func values() {
        let work = Self.message(#"{"format": 2, "operations": [{"kind": {"main": [{"work": 1000001}]}}]}"#)
        #expect(work.contains("operations[0].kind.main[0].work is 1000001 at line 1, column 58, but must be a whole number from 0 to 1000000"), "\(work)")
        let text = Self.message(#"{"format": 2, "seed": "7"}"#)
        #expect(text.contains("seed is the string \"7\" at line 1, column 23, but must be a whole number from 0 to 18446744073709551615"), "\(text)")
        let twice = Self.message(#"{"format": 2, "name": "a", "name": "b"}"#)
        #expect(twice.contains("the top level has the key \"name\" twice, at line 1, column 15 and at line 1, column 28"), "\(twice)")
        let huge = Self.message(#"{"format": 2, "operations": [{"kind": {"main": []}, "threadPriority": 1e400}]}"#)
        #expect(huge.contains("operations[0].threadPriority is 1e400 at line"), "\(huge)")
        let and = Self.message(#"{"format": 2, "operations": [{"kind": {"main": [{"if": {"condition": {"and": [{"isReady": "self"}]}}}]}}]}"#)
        #expect(and.contains("operations[0].kind.main[0].if.condition.and is a list of 1 item") && and.contains("exactly two conditions"), "\(and)")
        let missing = Self.message(#"{"format": 2, "driver": [{"action": {"cancel": 3}}]}"#)
        #expect(missing.contains("s.json: driver step 0 names operation 3, but the scenario has 0"), "\(missing)")
    }

    @Test("an expectations file refuses a misspelt key, with the nearest")
    func expectationsKeys() throws {
        let path = temporaryFile(#"{"expected": [{"finding": "f.json", "kind": "bug", "reason": "r", "rule": "BLOCK-CONCURRENT", "rear": "1 in 500"}], "format": 1, "impl": "x", "profile": "guide"}"#)
        let m = Self.refusal { _ = try Expectations.load(path) }
        #expect(m.contains("expected[0] has an unknown key \"rear\" at line 1, column 95; did you mean \"rare\"?"), "\(m)")
        #expect(try Expectations.load(temporaryFile(#"{"expected": [], "format": 2, "impl": "x", "profile": "guide", "driver": {"path": "./d"}}"#)).driver?.path == "./d")
    }

    @Test("a finding refuses a misspelt key in its fields and in its scenario")
    func findingKeys() throws {
        let finding = try #require(FaultProbe.firstFinding(.oneTooMany))
        let text = String(decoding: finding.fileData, as: UTF8.self)
        let fields = Self.refusal { _ = try FindingFile.decode(Data(text.replacingOccurrences(of: "\"shrinkSteps\":", with: "\"shrinkStps\":").utf8), source: "f.json") }
        #expect(fields.contains("f.json: the top level has an unknown key \"shrinkStps\" at line") && fields.contains("did you mean \"shrinkSteps\"? (the keys of a finding are: attempts, caseIndex,"), "\(fields)")
        let options = Self.refusal { _ = try FindingFile.decode(Data(text.replacingOccurrences(of: "\"size\":", with: "\"sise\": 8, \"size\":").utf8), source: "f.json") }
        #expect(options.contains("f.json: identity.options has an unknown key \"sise\"") && options.contains("did you mean \"size\"?"), "\(options)")
        let inScenario = Self.refusal {
            _ = try FindingFile.decode(Data(text.replacingOccurrences(of: "\"kind\":", with: "\"knd\": 1, \"kind\":").utf8), source: "f.json")
        }
        #expect(inScenario.contains("f.json: scenario.operations[0] has an unknown key \"knd\"") && inScenario.contains("did you mean \"kind\"?"), "\(inScenario)")
        let extra = Self.refusal { _ = try FindingFile.decode(Data(text.replacingOccurrences(of: "\"rule\":", with: "\"rulez\": 1, \"rule\":").utf8), source: "f.json") }
        #expect(extra.contains("f.json: the top level has an unknown key \"rulez\"") && extra.contains("did you mean \"rule\"?"), "\(extra)")
        let five = Self.refusal { _ = try FindingFile.decode(Data(text.replacingOccurrences(of: "\"format\": 4,", with: "\"format\": 5,").utf8), source: "f.json") }
        #expect(five.contains("format is 5 at line") && five.contains("this build reads finding formats 1 to 4"), "\(five)")
    }

    // MARK: convert

    @Test("convert --check lists the files not in the newest format; convert rewrites them; a bad file changes nothing")
    func convert() throws {
        let folder = NSTemporaryDirectory() + "opconform-convert-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sample = DocumentSamples.all[1].scenario
        let finding = try #require(FaultProbe.firstFinding(.oneTooMany))
        let oldScenario = folder + "/old.json", newScenario = folder + "/new.json", oldFinding = folder + "/finding.json", bad = folder + "/bad.json"
        try JSONCodec.encode(sample).write(to: URL(fileURLWithPath: oldScenario))
        try ScenarioFormat.encode(sample).write(to: URL(fileURLWithPath: newScenario))
        try Data(try Self.formatOneFinding(finding).utf8).write(to: URL(fileURLWithPath: oldFinding))
        try Data(#"{"format": 2, "operations": [{"kidn": {"main": []}}]}"#.utf8).write(to: URL(fileURLWithPath: bad))

        func convert(_ args: String...) -> (status: Int32, out: String, err: String) {
            let console = CapturedConsole()
            let status: Int32
            do { status = try ConvertCommand.run(Arguments(args, command: "convert"), console) } catch let error as InputError {
                console.err(error.message + "\n")
                status = 2
            } catch { status = 3 }
            return (status, console.stdout, console.stderr)
        }
        let check = convert("--check", oldScenario, newScenario, oldFinding)
        #expect(check.status == 1)
        #expect(check.out == "\(oldScenario): scenario format 1, not 2 (opconform convert rewrites it)\n\(oldFinding): finding format 1, not 4 (opconform convert rewrites it)\n2 of 3 files are not in the newest format\n")
        // A bad file among them: refused, naming the key; nothing is written.
        let refused = convert(oldScenario, bad)
        #expect(refused.status == 2 && refused.err.contains("\(bad): operations[0] has an unknown key \"kidn\"") && refused.err.contains("did you mean \"kind\"?"), "\(refused.err)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: oldScenario)) == JSONCodec.encode(sample))
        let converted = convert(oldScenario, newScenario, oldFinding)
        #expect(converted.status == 0 && converted.out.hasSuffix("converted 2 of 3 files; the others were in the newest format already\n"), "\(converted.out)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: oldScenario)) == ScenarioFormat.encode(sample))
        #expect(try Data(contentsOf: URL(fileURLWithPath: oldFinding)) == finding.fileData)
        #expect(convert("--check", oldScenario, newScenario, oldFinding) == (0, "all 3 files are in the newest format\n", ""))
        #expect(convert("--check").status == 2)
        let expectations = temporaryFile(#"{"expected": [], "format": 1, "impl": "x", "profile": "guide"}"#)
        #expect(convert(expectations).err.contains("is an expectations file"))
    }

    @Test("every fixture that holds a scenario or a finding is in the newest format")
    func fixturesAreNewest() throws {
        let root = SpecsDriftTests.root.appendingPathComponent("Fixtures")
        let files = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".json") }.sorted()
        var checked = 0
        for file in files {
            let path = root.appendingPathComponent(file).path
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            if JSONCodec.looksLikeExpectations(data) { continue }
            // A trace file (a witness kept as a fixture) reads as one and is written back the same.
            if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], object["events"] != nil {
                let trace = try TraceFormat.decode(data, source: file)
                #expect(TraceFormat.encode(trace) == data, "\(file)")
                continue
            }
            if JSONCodec.looksLikeFinding(data) {
                let finding = try FindingFile.decode(data, source: file)
                #expect(finding.format == Finding.newestFormat && data == finding.fileData, "\(file)")
            } else {
                let scenario = try ScenarioFormat.decode(data, source: file)
                #expect(ScenarioFormat.declaredFormat(data) == ScenarioFormat.newest && ScenarioFormat.encode(scenario) == data, "\(file)")
            }
            checked += 1
        }
        #expect(checked >= 60, "\(checked) fixtures")
    }

    @Test("Fixtures/samples holds each document sample in format 2, byte for byte", arguments: DocumentSamples.all.map(\.scenario.name))
    func sampleFixtures(name: String) throws {
        let sample = try #require(DocumentSamples.all.first { $0.scenario.name == name })
        let path = SpecsDriftTests.root.appendingPathComponent("Fixtures/samples/\(name).json").path
        #expect(FileManager.default.contents(atPath: path) == ScenarioFormat.encode(sample.scenario))
        #expect(try JSONCodec.loadScenario(at: path) == sample.scenario)
    }
}
