@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
import Foundation
import OperationSpec
import Testing

/// API surface 2 in the scenario files (Specs/scenario-format.md, "API surface 2"): the
/// `signaled` trigger, the `addBlock`, `readSuspended` and `sleep` actions, the
/// `readCurrentQueue` step, the `executionBlocks` key, a queue's `name`, an operation's
/// `readyAfterSignal`, and `surface2` in a finding's generator options. Each is written the way
/// format 2 writes its kind of thing, read strictly (a misspelling is refused with the name
/// meant, a wrong type with the type wanted), read from format 1 too, and described by the
/// schema; `Fixtures/scenarios/surface2.json` uses all of them.
@Suite("Scenario format 2: API surface 2")
struct Surface2FormatTests {
    static let fixturePath = SpecsDriftTests.root.appendingPathComponent("Fixtures/scenarios/surface2.json").path

    /// The fixture's scenario, built by hand. A named queue started suspended; operation 0's
    /// one block handed to it with addBlock, reading the current queue and then signalling 1;
    /// operation 1, a block operation that is ready only after that signal, counting its own
    /// blocks; operation 2 started by hand on the driving thread, where no scenario queue is
    /// current.
    static let scenario = Scenario(
        name: "surface2",
        queues: [QueueConfig(maxConcurrent: 2, suspended: true, name: "fetch")],
        operations: [
            OperationConfig(kind: .block([[.readCurrentQueue, .work(2), .signal(1)]])),
            OperationConfig(kind: .block([[.work(1)], [.readCurrentQueue, .read(.executionBlocks, .this)]]), readyAfterSignal: 1),
            OperationConfig(kind: .main([.readCurrentQueue, .work(1)])),
        ],
        driver: [
            DriverStep(.addBlock(op: 0, queue: 0)),
            DriverStep(.add(op: 1, queue: 0)),
            DriverStep(.readSuspended(queue: 0)),
            DriverStep(.read(.executionBlocks, op: 1)),
            DriverStep(.resume(queue: 0)),
            DriverStep(after: .signaled(1), .read(.isReady, op: 1)),
            DriverStep(.readSuspended(queue: 0)),
            DriverStep(.sleep(3)),
            DriverStep(.start(2)),
            DriverStep(.waitUntilAllFinished(queue: 0)),
        ])

    /// Every construct's name as `Scenario.surface2Constructs` gives it.
    static let allConstructs = ["queue name", "readyAfterSignal", "signaled trigger", "addBlock", "readSuspended", "sleep",
                                "executionBlocks read", "readCurrentQueue"]

    @Test("Fixtures/scenarios/surface2.json uses every construct, runs (no problem), reads to the hand-built scenario, is written back to its own bytes and is valid against the schema")
    func fixture() throws {
        let data = try #require(FileManager.default.contents(atPath: Self.fixturePath))
        let read = try ScenarioFormat.decode(data, source: "surface2.json")
        #expect(read == Self.scenario)
        #expect(read.problems() == [])
        #expect(ScenarioFormat.encode(read) == data)
        #expect(Set(read.surface2Constructs) == Set(Self.allConstructs) && read.surface2Constructs.count == Self.allConstructs.count,
                "\(read.surface2Constructs)")
        let schema = try ScenarioSchemaTests.validator()
        #expect(schema.validate(json: data) == nil, "\(schema.validate(json: data).map(\.description) ?? "")")
        // Its format-1 form (Swift's synthesized coding) is read to the same scenario.
        #expect(try ScenarioFormat.decode(JSONCodec.encode(Self.scenario), source: "surface2-format1.json") == Self.scenario)
    }

    // MARK: each construct

    /// One construct in a scenario of its own: how format 2 writes it and how format 1 does,
    /// both without white space.
    struct Construct: Sendable, CustomTestStringConvertible {
        var name: String
        var scenario: Scenario
        var format2: String
        var format1: String
        var testDescription: String { name }
    }

    static let constructs: [Construct] = [
        Construct(name: "signaled trigger",
                  scenario: Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .main([.signal(3)]))],
                                     driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(after: .signaled(3), .readOperationCount(queue: 0))]),
                  format2: #"{"action":{"readOperationCount":0},"after":{"signaled":3}}"#,
                  format1: #""after":{"signaled":{"_0":3}}"#),
        Construct(name: "addBlock",
                  scenario: Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .block([[.work(1)]]))],
                                     driver: [DriverStep(.addBlock(op: 0, queue: 0))]),
                  format2: #"{"action":{"addBlock":{"op":0,"queue":0}}}"#,
                  format1: #"{"addBlock":{"op":0,"queue":0}}"#),
        Construct(name: "readSuspended",
                  scenario: Scenario(queues: [QueueConfig(suspended: true)], driver: [DriverStep(.readSuspended(queue: 0))]),
                  format2: #"{"action":{"readSuspended":0}}"#,
                  format1: #"{"readSuspended":{"queue":0}}"#),
        Construct(name: "sleep",
                  scenario: Scenario(driver: [DriverStep(.sleep(5))]),
                  format2: #"{"action":{"sleep":5}}"#,
                  format1: #"{"sleep":{"_0":5}}"#),
        Construct(name: "readCurrentQueue",
                  scenario: Scenario(operations: [OperationConfig(kind: .main([.readCurrentQueue, .work(1)]))], driver: [DriverStep(.start(0))]),
                  format2: #""main":[{"readCurrentQueue":{}},{"work":1}]"#,
                  format1: #"{"readCurrentQueue":{}}"#),
        Construct(name: "executionBlocks in a driver read",
                  scenario: Scenario(operations: [OperationConfig(kind: .block([[], [.work(1)]]))], driver: [DriverStep(.read(.executionBlocks, op: 0))]),
                  format2: #"{"action":{"read":{"key":"executionBlocks","op":0}}}"#,
                  format1: #"{"read":{"_0":"executionBlocks","op":0}}"#),
        Construct(name: "executionBlocks in a step's read",
                  scenario: Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .block([[.read(.executionBlocks, .this)]]))],
                                     driver: [DriverStep(.add(op: 0, queue: 0))]),
                  format2: #"{"read":{"key":"executionBlocks","op":"self"}}"#,
                  format1: #"{"read":{"_0":"executionBlocks","_1":{"this":{}}}}"#),
        Construct(name: "queue name",
                  scenario: Scenario(queues: [QueueConfig(name: "fetch")]),
                  format2: #""queues":[{"name":"fetch"}]"#,
                  format1: #""queues":[{"maxConcurrent":-1,"name":"fetch","suspended":false}]"#),
        Construct(name: "readyAfterSignal",
                  scenario: Scenario(operations: [OperationConfig(kind: .main([]), readyAfterSignal: 3)]),
                  format2: #""operations":[{"kind":{"main":[]},"readyAfterSignal":3}]"#,
                  format1: #""readyAfterSignal":3"#),
    ]

    /// The text without white space (none of these constructs holds a string with any).
    static func compact(_ data: Data) -> String { String(decoding: data, as: UTF8.self).filter { !$0.isWhitespace } }

    @Test("Each construct is written as format 2 writes its kind of thing, reads back equal, is written back to the same bytes, reads from format 1 and is valid against the schema",
          arguments: constructs)
    func roundTrip(construct: Construct) throws {
        #expect(construct.scenario.problems() == [], "\(construct.scenario.problems())")
        let data = ScenarioFormat.encode(construct.scenario)
        #expect(Self.compact(data).contains(construct.format2), "\(Self.compact(data))")
        let back = try ScenarioFormat.decode(data, source: "\(construct.name).json")
        #expect(back == construct.scenario)
        #expect(ScenarioFormat.encode(back) == data)
        // Format 1, Swift's synthesized coding (what a driver's request carries), read as strictly.
        let old = JSONCodec.encode(construct.scenario)
        #expect(Self.compact(old).contains(construct.format1), "\(Self.compact(old))")
        #expect(try ScenarioFormat.decode(old, source: "\(construct.name)-1.json") == construct.scenario)
        let schema = try ScenarioSchemaTests.validator()
        #expect(schema.validate(json: data) == nil, "\(schema.validate(json: data).map(\.description) ?? "")")
        // What the construct adds is API surface 2, and nothing else in these scenarios is.
        #expect(construct.scenario.surface2Constructs.count == 1, "\(construct.scenario.surface2Constructs)")
    }

    @Test("Fields at their default are left out: a queue without a name, an operation without readyAfterSignal")
    func defaultsLeftOut() throws {
        let s = Scenario(queues: [QueueConfig(maxConcurrent: 1)], operations: [OperationConfig(kind: .main([]))])
        let text = Self.compact(ScenarioFormat.encode(s))
        #expect(text.contains(#""queues":[{"maxConcurrent":1}]"#) && text.contains(#""operations":[{"kind":{"main":[]}}]"#), "\(text)")
        // A name is written as it is, quotes and all, and read back to the same characters.
        let quoted = Scenario(queues: [QueueConfig(name: "a \"b\" é/\\")])
        let data = ScenarioFormat.encode(quoted)
        #expect(try ScenarioFormat.decode(data, source: "q.json") == quoted)
        #expect(String(decoding: data, as: UTF8.self).contains(#""name": "a \"b\" é/\\""#))
    }

    // MARK: strict reading

    /// The 1-based line and column at which `needle` begins in `text` (its first occurrence, or
    /// its last), as the reader counts them (in characters, lines split at "\n").
    static func position(of needle: String, in text: String, last: Bool = false) -> String {
        guard let range = text.range(of: needle, options: last ? .backwards : []) else { return "(\(needle) is not in the text)" }
        let before = text[..<range.lowerBound]
        let line = before.filter { $0 == "\n" }.count + 1
        let column = before.split(separator: "\n", omittingEmptySubsequences: false).last.map { $0.count + 1 } ?? 1
        return "line \(line), column \(column)"
    }

    @Test("A misspelt key or case of API surface 2 is refused with its path and position, the name meant, and every name allowed there")
    func misspellings() {
        // (document, the misspelling, the path, the sentence's middle, the name meant, the list of names allowed)
        let cases: [(String, String, String, String, String, String)] = [
            (#"{"format": 2, "operations": [{"kind": {"main": []}, "readyAfterSignl": 3}]}"#, #""readyAfterSignl""#,
             "operations[0]", #"has an unknown key "readyAfterSignl" at"#, "readyAfterSignal",
             "(the keys of an operation are: completion, kind, queuePriority, readyAfterSignal, threadPriority)"),
            (#"{"format": 2, "driver": [{"action": {"sleeep": 2}}]}"#, #""sleeep""#,
             "driver[0].action", #"has the key "sleeep" at"#, "sleep",
             "(the actions are: add, addBatch, addBlock, addDependency, addExecutionBlock, cancel, cancelAll, perform, read, readMainQueue, readOperationCount, readOperations, readQueueDeallocated, readSuspended, releaseQueue, removeDependency, result, resume, setCompletionBlock, setMaxConcurrent, setQueuePriority, setThreadPriority, setUnderlyingQueue, sleep, start, suspend, waitUntilAllFinished, waitUntilFinished)"),
            (#"{"format": 2, "driver": [{"after": {"signalled": 1}, "action": {"sleep": 1}}]}"#, #""signalled""#,
             "driver[0].after", #"has the key "signalled" at"#, "signaled",
             "(the triggers are: blockBegan, finished, mainBegan, signaled, started)"),
            (#"{"format": 2, "queues": [{"nmae": "fetch"}]}"#, #""nmae""#,
             "queues[0]", #"has an unknown key "nmae" at"#, "name", "(the keys of a queue are: maxConcurrent, name, suspended)"),
            (#"{"format": 2, "operations": [{"kind": {"main": [{"readCurrentQueu": {}}]}}]}"#, #""readCurrentQueu""#,
             "operations[0].kind.main[0]", #"has the key "readCurrentQueu" at"#, "readCurrentQueue",
             "(the steps are: await, call, callMain, callSuperStart, cancel, cancelAll, didChange, didChangeUnprefixed, if, read, readCurrentQueue, readUnderlyingQueue, repeat, return, returnIfCancelled, set, signal, spawn, start, willChange, willChangeUnprefixed, work)"),
            (#"{"format": 2, "queues": [{}], "driver": [{"action": {"addBlok": {"op": 0, "queue": 0}}}]}"#, #""addBlok""#,
             "driver[0].action", #"has the key "addBlok" at"#, "addBlock", "readSuspended, releaseQueue, removeDependency"),
            (#"{"format": 2, "queues": [{}], "driver": [{"action": {"readSuspnded": 0}}]}"#, #""readSuspnded""#,
             "driver[0].action", #"has the key "readSuspnded" at"#, "readSuspended", "readOperationCount, readOperations, readQueueDeallocated, readSuspended,"),
            (#"{"format": 2, "operations": [{"kind": {"block": [[]]}}], "driver": [{"action": {"read": {"key": "executionBlock", "op": 0}}}]}"#,
             #""executionBlock""#, "driver[0].action.read.key", #"is the string "executionBlock" at"#, "executionBlocks",
             "(it must be one of: isCancelled, isConcurrent, isExecuting, isFinished, isReady, dependencies, queuePriority, completionBlock, threadPriority, executionBlocks)"),
        ]
        for (document, needle, path, middle, meant, allowed) in cases {
            let m = ScenarioFormatTests.message(document)
            let sentence = "s.json: \(path) \(middle) \(Self.position(of: needle, in: document))"
            #expect(m.hasPrefix(sentence), "\(m)\nwanted: \(sentence)")
            #expect(m.contains("; did you mean \"\(meant)\"?"), "\(m)")
            #expect(m.contains(allowed), "\(m)")
        }
    }

    @Test("The schema refuses the same misspellings, naming the same place and the name meant")
    func schemaMisspellings() throws {
        let v = try ScenarioSchemaTests.validator()
        let cases: [(String, String, String)] = [
            (#"{"format": 2, "operations": [{"kind": {"main": []}, "readyAfterSignl": 3}]}"#, "$.operations[0]", "readyAfterSignal"),
            (#"{"format": 2, "driver": [{"action": {"sleeep": 2}}]}"#, "$.driver[0].action", "sleep"),
            (#"{"format": 2, "driver": [{"after": {"signalled": 1}, "action": {"sleep": 1}}]}"#, "$.driver[0].after", "signaled"),
            (#"{"format": 2, "queues": [{"nmae": "fetch"}]}"#, "$.queues[0]", "name"),
            (#"{"format": 2, "driver": [{"action": {"read": {"key": "executionBlock", "op": 0}}}]}"#, "$.driver[0].action.read.key", "executionBlocks"),
        ]
        for (document, path, meant) in cases {
            let failure = try #require(v.validate(json: Data(document.utf8)), "\(document) was valid")
            #expect(failure.path == path && failure.message.contains("did you mean \"\(meant)\"?"), "\(failure)")
        }
    }

    @Test("Format 1 is as strict about the new fields: a misspelling is refused with the nearest key")
    func misspellingsInFormatOne() throws {
        let text = JSONCodec.encodeString(Scenario(queues: [QueueConfig(name: "fetch")], operations: [OperationConfig(kind: .main([]), readyAfterSignal: 2)]))
        let op = ScenarioFormatTests.message(text.replacingOccurrences(of: "\"readyAfterSignal\"", with: "\"readyAfterSignl\""))
        #expect(op.contains("operations[0] has an unknown key \"readyAfterSignl\" at line") && op.contains("did you mean \"readyAfterSignal\"?"), "\(op)")
        let queue = ScenarioFormatTests.message(text.replacingOccurrences(of: "\"name\" : \"fetch\"", with: "\"nam\" : \"fetch\""))
        #expect(queue.contains("queues[0] has an unknown key \"nam\" at line") && queue.contains("did you mean \"name\"?")
                && queue.contains("(the keys there are: maxConcurrent, name, suspended)"), "\(queue)")
        // Both are optional in format 1 too: nil, they are left out, and the file reads.
        let bare = Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .main([]))])
        let compact = Self.compact(JSONCodec.encode(bare))
        #expect(compact.contains(#""queues":[{"maxConcurrent":-1,"suspended":false}]"#) && !compact.contains("readyAfterSignal"), "\(compact)")
        #expect(try ScenarioFormat.decode(JSONCodec.encode(bare), source: "bare.json") == bare)
    }

    @Test("A value of the wrong type names its path, its position, what it is and the type wanted")
    func wrongTypes() {
        // (document, the value as written, its path, what the reader says it is, what it must be)
        let cases: [(String, String, String, String, String)] = [
            (#"{"format": 2, "driver": [{"action": {"sleep": "5"}}]}"#, #""5""#, "driver[0].action.sleep", #"the string "5""#,
             "a whole number from 0 to 1000000"),
            (#"{"format": 2, "driver": [{"action": {"sleep": 1000001}}]}"#, "1000001", "driver[0].action.sleep", "1000001",
             "a whole number from 0 to 1000000"),
            (#"{"format": 2, "queues": [{"name": 3}]}"#, "3", "queues[0].name", "3", "a string in double quotes"),
            (#"{"format": 2, "operations": [{"kind": {"main": []}, "readyAfterSignal": "3"}]}"#, #""3""#, "operations[0].readyAfterSignal",
             #"the string "3""#, "a whole number from -9223372036854775808 to 9223372036854775807"),
            (#"{"format": 2, "driver": [{"after": {"signaled": true}, "action": {"sleep": 1}}]}"#, "true", "driver[0].after.signaled", "true",
             "a whole number"),
            (#"{"format": 2, "queues": [{}], "driver": [{"action": {"readSuspended": "0"}}]}"#, #""0""#, "driver[0].action.readSuspended",
             #"the string "0""#, "a whole number"),
            (#"{"format": 2, "operations": [{"kind": {"main": [{"readCurrentQueue": 1}]}}]}"#, "1", "operations[0].kind.main[0].readCurrentQueue", "1",
             #"{}: readCurrentQueue has no fields ({"readCurrentQueue": {}})"#),
            (#"{"format": 2, "queues": [{}], "driver": [{"action": {"addBlock": 4}}]}"#, "4", "driver[0].action.addBlock", "4",
             #"an object, an addBlock such as {"op": 0, "queue": 0}"#),
        ]
        for (document, needle, path, what, wanted) in cases {
            let m = ScenarioFormatTests.message(document)
            // The value's position: its last occurrence in these documents is the one meant.
            let at = Self.position(of: needle, in: document, last: true)
            let sentence = "s.json: \(path) is \(what) at \(at), but must be \(wanted)"
            #expect(m.hasPrefix(sentence), "\(m)\nwanted: \(sentence)")
        }
        // A missing field of addBlock is named, with the fields it has.
        let op = ScenarioFormatTests.message(#"{"format": 2, "queues": [{}], "driver": [{"action": {"addBlock": {"op": 0}}}]}"#)
        #expect(op.contains("the object driver[0].action.addBlock at line 1, column 66 has no key \"queue\", which is required (the keys of an addBlock are: op, queue)"), "\(op)")
    }

    @Test("What reads but cannot run is refused by the scenario's checks: executionBlocks announced, an empty queue name")
    func validation() {
        let notified = ScenarioFormatTests.message(#"{"format": 2, "operations": [{"kind": {"block": [[{"didChange": "executionBlocks"}]]}}]}"#)
        #expect(notified.contains("notifies executionBlocks, which is read only"), "\(notified)")
        let empty = ScenarioFormatTests.message(#"{"format": 2, "queues": [{"name": ""}]}"#)
        #expect(empty.contains("queue 0's name \"\" is empty"), "\(empty)")
        let shared = ScenarioFormatTests.message(#"{"format": 2, "queues": [{}], "operations": [{"kind": {"block": [[]]}}], "driver": [{"action": {"addBlock": {"op": 0, "queue": 0}}}, {"action": {"cancel": 0}}]}"#)
        #expect(shared.contains("names operation 0, which is added with addBlock"), "\(shared)")
    }

    // MARK: findings

    /// A finding of the fixture's scenario, made by a run with these generator options.
    static func finding(_ options: GeneratorOptions) -> Finding {
        Finding(rule: "QUEUE-SUSPENDED", message: "operation 1 started while queue 0 was suspended", impl: "reference", driver: nil, profile: .guide,
                faults: [], runSeed: 1, caseIndex: 4, identity: CaseIdentity(caseSeed: 99, options: options), originalHash: "0123456789abcdef",
                originalOperations: 3, scenario: scenario, scheduleSeed: 2, reproduced: 1, attempts: 1, shrinkSteps: 0, shrinkExhausted: false,
                interrupted: nil)
    }

    @Test("surface2 in a finding's generator options is written only when true, read back, refused when misspelt")
    func findingOptions() throws {
        let on = Self.finding(GeneratorOptions(size: 6, surface2: true))
        let text = String(decoding: on.fileData, as: UTF8.self)
        #expect(text.contains("\"surface2\": true"), "\(text)")
        #expect(try FindingFile.decode(on.fileData, source: "f.json") == on)
        let off = Self.finding(GeneratorOptions(size: 6))
        let offText = String(decoding: off.fileData, as: UTF8.self)
        #expect(!offText.contains("\"surface2\":"))
        #expect(try FindingFile.decode(off.fileData, source: "f.json") == off)
        // Written by hand as false, it still reads, as false.
        let explicit = offText.replacingOccurrences(of: "\"size\": 6", with: "\"size\": 6,\n      \"surface2\": false")
        #expect(explicit != offText)
        #expect(try FindingFile.decode(Data(explicit.utf8), source: "f.json").identity.options == GeneratorOptions(size: 6))
        let misspelt = ScenarioFormatTests.refusal { _ = try FindingFile.decode(Data(text.replacingOccurrences(of: "\"surface2\":", with: "\"surfac2\":").utf8), source: "f.json") }
        #expect(misspelt.contains("f.json: identity.options has an unknown key \"surfac2\"") && misspelt.contains("did you mean \"surface2\"?"), "\(misspelt)")
        let wrong = ScenarioFormatTests.refusal { _ = try FindingFile.decode(Data(text.replacingOccurrences(of: "\"surface2\": true", with: "\"surface2\": 1").utf8), source: "f.json") }
        #expect(wrong.contains("f.json: ") && wrong.contains("surface2"), "\(wrong)")
        // A finding of format 1 (the synthesized scenario) with the new constructs reads to the same.
        let old = try FindingFile.decode(Data(try ScenarioFormatTests.formatOneFinding(on).utf8), source: "old.json")
        #expect(old.format == 1 && old.scenario == Self.scenario && old.identity.options.surface2)
    }

    // MARK: generated

    @Test("Scenarios generated with surface2 use every construct, round-trip in both formats and are valid against the schema")
    func generated() throws {
        let v = try ScenarioSchemaTests.validator()
        var used = Set<String>()
        for size in [2, 6, 16] {
            for subclass in [false, true] {
                let generator = ScenarioGenerator(options: GeneratorOptions(size: size, misuseRate: 20, flawRate: 20, subclass: subclass, surface2: true))
                for seed: UInt64 in 1...8 {
                    let s = generator.generate(seed: seed &* 104_729 &+ UInt64(size))
                    let data = ScenarioFormat.encode(s)
                    let back = try ScenarioFormat.decode(data, source: "generated \(s.seed).json")
                    #expect(back == s && ScenarioFormat.encode(back) == data, "seed \(s.seed)")
                    #expect(v.validate(json: data) == nil, "seed \(s.seed): \(v.validate(json: data).map(\.description) ?? "")")
                    #expect(try ScenarioFormat.decode(JSONCodec.encode(s), source: "generated-1.json") == s)
                    used.formUnion(s.surface2Constructs)
                }
            }
        }
        print("surface 2 in generated scenarios: \(used.sorted())")
        // The generator draws every construct for a driver that declares apiSurface2.
        #expect(used == Set(Self.allConstructs), "never drawn: \(Set(Self.allConstructs).subtracting(used).sorted())")
    }
}

extension Surface2FormatTests {
    /// The whole scenarios the page shows (its ```json blocks that are objects with a
    /// `format`), each as it stands there.
    static func pageExamples() throws -> [String] {
        let path = SpecsDriftTests.root.appendingPathComponent("Specs/scenario-format.md").path
        let page = try #require(FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) })
        var out: [String] = []
        for piece in page.components(separatedBy: "```json\n").dropFirst() {
            guard let end = piece.range(of: "\n```") else { continue }
            let block = String(piece[..<end.lowerBound])
            if block.hasPrefix("{") && block.contains("\"format\": 2") { out.append(block) }
        }
        return out
    }

    @Test("The page's whole scenarios, API surface 2's among them, read, run (no problem) and are valid against the schema")
    func pageExamplesRead() throws {
        let examples = try Self.pageExamples()
        let v = try ScenarioSchemaTests.validator()
        var used = Set<String>()
        for (k, text) in examples.enumerated() {
            let s = try ScenarioFormat.decode(Data(text.utf8), source: "scenario-format.md example \(k)")
            #expect(v.validate(json: Data(text.utf8)) == nil, "example \(k): \(v.validate(json: Data(text.utf8)).map(\.description) ?? "")")
            used.formUnion(s.surface2Constructs)
        }
        #expect(examples.count >= 3, "\(examples.count) examples")
        #expect(used.isSuperset(of: ["addBlock", "readyAfterSignal", "signaled trigger", "readSuspended", "sleep", "queue name", "readCurrentQueue"]), "\(used.sorted())")
    }
}
