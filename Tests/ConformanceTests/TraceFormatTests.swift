@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
import Foundation
import OperationSpec
import ReferenceEngine
import Testing

/// Issue 17: trace files as a designed contract (Specs/trace-format.md, Specs/trace.schema.json).
/// A trace file is written in the conventions of scenario format 2, read strictly, read back to
/// the very trace that was written, judged again offline by `check`, and described by a schema
/// that these tests hold to the reader from both sides.
@Suite("Trace files, format 2")
struct TraceFormatTests {
    static let schemaPath = SpecsDriftTests.root.appendingPathComponent("Specs/trace.schema.json").path

    /// The schema, loaded once (loading checks every keyword in it).
    static let loaded: Result<JSONSchemaValidator, any Error> = Result {
        guard let data = FileManager.default.contents(atPath: schemaPath) else { throw InputError("missing \(schemaPath)") }
        return try JSONSchemaValidator(schema: data)
    }

    static func validator() throws -> JSONSchemaValidator { try loaded.get() }

    // MARK: Documents

    /// Three operations (a concurrent subclass, a block operation, an invocation) and two queues:
    /// what the hand-made traces below name.
    static let scenario = Scenario(
        name: "every-event",
        queues: [QueueConfig(maxConcurrent: 1), QueueConfig(name: "named")],
        operations: [
            OperationConfig(kind: .concurrent(ConcurrentProgram(start: [.set(.isExecuting, true)], main: []))),
            OperationConfig(kind: .block([[.work(1)], [.work(1)]])),
            OperationConfig(kind: .invocation([.work(1)])),
        ],
        driver: [DriverStep(.start(0)), DriverStep(.add(op: 1, queue: 0))])

    /// Every call, once.
    static let calls: [Call] = [
        .start(0, by: .driver), .start(1, by: .queue), .start(2, by: .program), .superStart(0), .cancel(1), .addOperation(1, queue: 0),
        .addOperations([1, 2], queue: 1, wait: true), .addDependency(1, on: 0), .removeDependency(1, on: 0), .setCompletionBlock(2),
        .addExecutionBlock(1), .setQueuePriority(2, -8), .setThreadPriority(2, 0.25), .cancelAll(queue: 1), .setSuspended(queue: 0, true),
        .setMaxConcurrent(queue: 1, -1), .waitUntilFinished(0), .waitUntilAllFinished(queue: 0), .result(2), .addBlock(1, queue: 1),
        .releaseQueue(queue: 0), .setUnderlyingQueue(queue: 0, dispatchQueue: 3), .setUnderlyingQueue(queue: 1, dispatchQueue: nil),
    ]

    /// Every event kind that does not end a trace, with every key and every type of value.
    static let middle: [EventKind] = [
        .threadStarted(name: "", queue: nil), .threadStarted(name: "NSOperationQueue 0x1 (QOS: UTILITY) \"q\"\n", queue: 1),
        .stepIssued(0), .stepDone(0), .triggerMissed(1),
        .announced(op: 1, key: "state", affects: [.isFinished]), .announced(op: 2, key: "isisFinished", affects: nil),
    ] + calls.map { EventKind.call($0) } + calls.map { EventKind.returned($0) } + [
        .threw(.addDependency(0, on: 0), .selfDependency, "an operation cannot depend on itself"),
        .threw(.start(0, by: .driver), .other, "*** -[NSOperation start]: \u{7f} \\ \"quoted\""),
        .mainBegan(op: 2, threadPriority: -1), .mainEnded(op: 2), .blockBegan(op: 1, block: 1), .blockEnded(op: 1, block: 1),
        .completionBegan(op: 2, threadPriority: 0.1 + 0.2), .completionEnded(op: 2),
        .willChange(op: 0, .isExecuting, .bool(false)), .didChange(op: 0, .isExecuting, .bool(true)),
        .willChange(op: 1, .dependencies, .ops([])), .didChange(op: 1, .dependencies, .ops([0, 2])),
        .willChange(op: 2, .queuePriority, .int(0)), .didChange(op: 2, .queuePriority, .int(-8)),
        .read(op: 2, .threadPriority, .double(0.5)), .read(op: 2, .threadPriority, .int(1)), .read(op: 2, .threadPriority, .double(.nan)),
        .read(op: 2, .threadPriority, .double(-.infinity)), .read(op: 1, .executionBlocks, .int(2)), .read(op: 2, .completionBlock, .bool(true)),
        .read(op: 0, .isReady, .bool(true)), .read(op: 0, .isConcurrent, .bool(true)), .read(op: 0, .isCancelled, .bool(false)),
        .read(op: 0, .isFinished, .bool(false)),
        .set(op: 0, .isExecuting, true), .set(op: 0, .isFinished, false),
        .operationCount(queue: 0, 3), .operations(queue: 1, ops: [2, -1, 0]), .operations(queue: 0, ops: []), .suspended(queue: 1, true), .currentQueue(op: 1, queue: 1), .currentQueue(op: 2, queue: nil),
        .work(op: 1, units: 3), .signal(token: -4), .awaited(token: 7, satisfied: false), .invocationResult(op: 2),
        .unsupported("an API it lacks"),
        .mainQueue(same: true, suspended: false, current: true), .queueDeallocated(queue: 1, deallocated: false),
        .underlyingQueue(op: 1, dispatchQueue: 2), .underlyingQueue(op: 2, dispatchQueue: nil),
    ]

    /// Every way a trace ends.
    static let endings: [EventKind] = [.end, .hang("waitUntilFinished of op 0"), .crash(signal: 11, message: "SIGSEGV"), .cut("step budget"), .breach("a line that is not a message")]

    static func file(_ kinds: [EventKind], impl: String = "hand-made") -> TraceFile {
        let events = kinds.enumerated().map { TraceEvent(seq: $0, thread: $0 % 3, $1) }
        return TraceFile(scenario: scenario, trace: Trace(impl: impl, scheduleSeed: .max, capabilities: Observation.allCases, events: events))
    }

    /// The hand-made traces: every middle kind then each ending, and one with no ending at all
    /// (a trace cut off, which reads as truncated).
    static var handMade: [TraceFile] { endings.map { file(middle + [$0]) } + [file(middle)] }

    /// Traces of generated cases on the reference engine: misuse (threw events), flaws, API
    /// surface 2, injected faults.
    static func generated(count: Int = 40) -> [TraceFile] {
        (1...count).map { k in
            let identity = CaseIdentity(caseSeed: UInt64(k) &* 0x9E37_79B9, options: GeneratorOptions(size: 8, misuseRate: 40, flawRate: 30, surface2: k % 2 == 0))
            let scenario = identity.scenario()
            let faults = k % 3 == 0 ? [Fault.allCases[k % Fault.allCases.count]] : []
            let trace = ReferenceEngine(options: EngineOptions(faults: faults)).run(scenario, scheduleSeed: identity.scheduleSeed)
            return TraceFile(scenario: scenario, trace: trace)
        }
    }

    // MARK: Writing and reading

    @Test("A trace file reads back to the trace written, and is written again to the same bytes: every event kind, call, key and value type, and 40 generated traces")
    func roundTrip() throws {
        var events = 0
        for original in Self.handMade + Self.generated() {
            let data = TraceFormat.encode(original)
            let read = try TraceFormat.decode(data, source: "round-trip.json")
            // NaN is not equal to itself: compare such events by their text.
            #expect(read.scenario == original.scenario)
            #expect(read.trace.events.map(\.description) == original.trace.events.map(\.description))
            #expect(read.trace.impl == original.trace.impl && read.trace.scheduleSeed == original.trace.scheduleSeed
                    && read.trace.capabilities == original.trace.capabilities)
            #expect(TraceFormat.encode(read) == data)
            events += read.trace.events.count
        }
        #expect(events > 2_000, "\(events) events")
    }

    @Test("Each event is one line, the keys are sorted, and the writer's case names are exactly the reader's")
    func layoutAndVocabulary() throws {
        let text = String(decoding: TraceFormat.encode(Self.file(Self.middle + [.end])), as: UTF8.self)
        let eventLines = text.split(separator: "\n").filter { $0.hasPrefix("    {\"kind\": ") }
        #expect(eventLines.count == Self.middle.count + 1)
        #expect(eventLines.first == #"    {"kind": {"threadStarted": {"name": ""}}, "seq": 0, "thread": 0},"#)
        #expect(text.contains(#"{"kind": {"read": {"key": "threadPriority", "op": 2, "value": "nan"}}"#))
        #expect(text.contains(#"{"kind": {"end": {}}, "seq": \#(Self.middle.count), "thread": \#(Self.middle.count % 3)}"#))
        // The names the writer used over every kind and call are the names the reader knows.
        var kinds: [String] = [], calls: [String] = []
        for k in Self.middle + Self.endings {
            guard case .object(let members) = TraceEncoder.kind(k), let name = members.first?.key else { continue }
            kinds.append(name)
        }
        for c in Self.calls { if case .object(let members) = TraceEncoder.call(c), let name = members.first?.key { calls.append(name) } }
        #expect(Set(kinds).sorted() == TraceDecoder.kindCases.names.sorted())
        #expect(Set(calls).sorted() == TraceDecoder.callCases.names.sorted())
    }

    @Test("A trace is written in the oldest format that holds it, and a file that claims an older one is refused")
    func oldestFormatThatHoldsIt() throws {
        var file = Self.file([.end])
        file.trace.capabilities = [.kvo, .finishing]
        #expect(TraceFormat.format(of: file.trace) == 2)
        file.trace.capabilities = [.kvo, .announcements]
        #expect(TraceFormat.format(of: file.trace) == 3)
        let three = String(decoding: TraceFormat.encode(file), as: UTF8.self)
        #expect(three.contains(#""format": 3"#))
        do {
            _ = try TraceFormat.decode(Data(three.replacing(#""format": 3"#, with: #""format": 2"#).utf8), source: "old.json")
            Issue.record("a format-2 file with the announcements capability was accepted")
        } catch {
            #expect(error.message.contains("which trace format 3 added: write \"format\": 3"), "\(error.message)")
        }
        file.trace.capabilities = [.kvo, .announcements, .apiSurface3]
        #expect(TraceFormat.format(of: file.trace) == 4)
        // The reference engine performs API surface 3 but leaves it out of its traces, which keep format 2.
        #expect(!ReferenceEngine.capabilities.contains(.apiSurface3))
        #expect(ReferenceImplementation().capabilities.contains(.apiSurface3))
        // API surface 4 and the Dispatch constructs: format 5, the same way.
        file.trace.capabilities = [.kvo, .apiSurface4]
        #expect(TraceFormat.format(of: file.trace) == 5)
        file.trace.capabilities = [.kvo]
        file.trace.events = [TraceEvent(seq: 0, thread: 0, .underlyingQueue(op: 0, dispatchQueue: nil)), TraceEvent(seq: 1, thread: 0, .end)]
        #expect(TraceFormat.format(of: file.trace) == 5)
        #expect(!ReferenceEngine.capabilities.contains(.apiSurface4) && !ReferenceEngine.capabilities.contains(.dispatchQueues))
        #expect(ReferenceImplementation().capabilities.contains(.dispatchQueues))
    }

    @Test("Reading is strict: each mistake is refused in one sentence with its place and the valid choices", arguments: [
        (#""isFinished", "op": 0, "value": false"#, #""isFinishd", "op": 0, "value": false"#, #"did you mean "isFinished"?"#),
        (#""read": {"key""#, #""raed": {"key""#, #"did you mean "read"?"#),
        (#""seq": 3,"#, #""seq": 3, "time": 1,"#, "the keys of an event are: kind, seq, thread"),
        (#""key": "isFinished", "op": 0, "value": false"#, #""key": "isFinished", "op": 0, "value": 0"#, "must be true or false: the value of isFinished"),
        (#""format": 5"#, #""format": 6"#, "this build reads trace formats 2 to 5"),
        (#""format": 5"#, #""format": 4"#, "which trace format 5 added: write \"format\": 5"),
        (#""format": 5"#, #""format": 2"#, "which trace format 5 added: write \"format\": 5"),
        (#""misuse": "selfDependency""#, #""misuse": "selfDependancy""#, #"did you mean "selfDependency"?"#),
        (#""by": "driver""#, #""by": "main""#, "which is not a caller"),
        (#""isFinished", "op": 0, "value": false"#, #""isFinished", "op": 9, "value": false"#, "names operation 9, but the scenario has 3"),
        (#""seq": 3,"#, #""seq": 4,"#, "seq counts from 0 without gaps: it must be 3"),
        (#""kind": {"end": {}}"#, #""kind": {"end": {"why": 1}}"#, "must be {}: end has no fields"),
    ])
    func strict(original: String, replacement: String, words: String) throws {
        let text = String(decoding: TraceFormat.encode(Self.file(Self.middle + [.end])), as: UTF8.self)
        #expect(text.contains(original), "the anchor \(original) is not in the document")
        let mutant = text.replacing(original, with: replacement, maxReplacements: 1)
        do {
            _ = try TraceFormat.decode(Data(mutant.utf8), source: "bad.json")
            Issue.record("\(replacement) was accepted")
        } catch {
            #expect(error.message.hasPrefix("bad.json: ") && error.message.contains(words) && !error.message.contains("\n"), "\(error.message)")
        }
    }

    @Test("An event after the trace's last event is refused, and so is a capability listed twice")
    func orderAndDuplicates() throws {
        for bad in [Self.file([.end, .stepIssued(0)]), Self.file([.hang("x"), .end])] {
            #expect(throws: InputError.self) { try TraceFormat.decode(TraceFormat.encode(bad), source: "late.json") }
        }
        var twice = Self.file([.end])
        twice.trace.capabilities = [.kvo, .kvo]
        #expect(throws: InputError.self) { try TraceFormat.decode(TraceFormat.encode(twice), source: "twice.json") }
    }

    // MARK: Older documents and reports

    /// What `replay --json` printed before format 2: Swift's synthesized coding.
    struct LegacyDocument: Encodable {
        var scenario: Scenario
        var trace: Trace
        var violations: [Violation]
    }

    @Test("The format-1 replay JSON (synthesized coding) reads to the same trace file, strictly, and a replay report gives up its trace")
    func olderDocumentsAndReports() throws {
        for original in Self.generated(count: 12) + [Self.file(Self.middle.filter { !"\($0)".contains("nan") && !"\($0)".contains("inf") } + [.end])] {
            let violations = RuleBook.verdicts(scenario: original.scenario, trace: original.trace, profile: .guide, rules: RuleBook.all)
                .flatMap { v -> [Violation] in if case .checked(let r) = v.verdict { return r.violations }; return [] }
            let legacy = JSONCodec.encode(LegacyDocument(scenario: original.scenario, trace: original.trace, violations: violations))
            #expect(TraceFormat.declaredFormat(legacy) == 1 && TraceFormat.looksLikeTrace(legacy))
            #expect(try TraceFormat.decode(legacy, source: "old.json") == original)
            let report = ReplayReport.encode(original, profile: .guide, violations: violations)
            #expect(try TraceFormat.decode(report, source: "report.json") == original)
            let schema = try Self.validator()
            #expect(schema.validate(json: TraceFormat.encode(original)) == nil)
        }
        // The old form is read by Swift's synthesized decoding, which takes any whole number: a
        // negative queue or block is refused after it, before a checker could index by it.
        for bad in [EventKind.threadStarted(name: "w", queue: -1), .blockBegan(op: 1, block: -1), .mainBegan(op: -2, threadPriority: 0)] {
            let old = JSONCodec.encode(LegacyDocument(scenario: Self.scenario, trace: Self.file([bad, .end]).trace, violations: []))
            #expect(throws: InputError.self) { try TraceFormat.decode(old, source: "negative.json") }
        }
        // A key the old form has no place for is refused too (it was once passed over).
        let legacy = String(decoding: JSONCodec.encode(LegacyDocument(scenario: Self.scenario, trace: Self.file([.end]).trace, violations: [])), as: UTF8.self)
        let extra = legacy.replacing("\"scheduleSeed\"", with: "\"schedule\":1,\"scheduleSeed\"", maxReplacements: 1)
        #expect(extra != legacy)
        do {
            _ = try TraceFormat.decode(Data(extra.utf8), source: "old.json")
            Issue.record("an unknown key in the old form was accepted")
        } catch {
            #expect(error.message.contains("\"schedule\"") && error.message.contains("trace"), "\(error.message)")
        }
    }

    @Test("A stored trace is judged exactly as the run it came from: the same violations, the same witnesses")
    func judgedAgain() throws {
        var violated = 0
        for original in Self.generated(count: 30) {
            let read = try TraceFormat.decode(TraceFormat.encode(original), source: "judged.json")
            let before = RuleBook.verdicts(scenario: original.scenario, trace: original.trace, profile: .guide, rules: RuleBook.all)
            let after = RuleBook.verdicts(scenario: read.scenario, trace: read.trace, profile: .guide, rules: RuleBook.all)
            #expect(before.map { "\($0.verdict)" } == after.map { "\($0.verdict)" })
            violated += before.filter { if case .checked(let r) = $0.verdict { return !r.violations.isEmpty }; return false }.count
        }
        // Faults were injected into a third of the cases: the comparison covered broken rules too.
        #expect(violated > 0)
    }

    // MARK: The schema

    @Test("The schema file is canonical, closed, explained, and embeds the scenario schema unchanged")
    func schemaFile() throws {
        let data = try #require(FileManager.default.contents(atPath: Self.schemaPath))
        let object = try JSONSerialization.jsonObject(with: data)
        var canonical = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        canonical.append(0x0A)
        #expect(data == canonical, "rewrite Specs/trace.schema.json in canonical form")
        let v = try Self.validator()
        let scenarioSchema = try ScenarioSchemaTests.validator()
        // The scenario's definitions are the scenario schema's, each unchanged, and the
        // scenario itself is its top level: editing one schema without the other fails here.
        for (name, d) in scenarioSchema.defs { #expect(v.defs[name] == d, "$defs/\(name) differs from Specs/scenario.schema.json") }
        guard case .object(var top) = scenarioSchema.root else { Issue.record("the scenario schema is not an object"); return }
        top["$schema"] = nil; top["$defs"] = nil; top["title"] = nil
        #expect(v.defs["Scenario"] == .object(top), "$defs/Scenario differs from the scenario schema's top level")
        // The enumerations are the reader's.
        func cases(_ name: String) -> [String] {
            guard case .object(let d)? = v.defs[name], case .array(let alternatives)? = d["oneOf"] else { return [] }
            return alternatives.compactMap { if case .object(let a) = $0, case .array(let r)? = a["required"], case .string(let s)? = r.first { return s }; return nil }.sorted()
        }
        #expect(cases("EventKind") == TraceDecoder.kindCases.names.sorted())
        #expect(cases("Call") == TraceDecoder.callCases.names.sorted())
        var open: [String] = []
        func walk(_ s: JSONTree, _ pointer: String) {
            guard case .object(let o) = s else { return }
            if o["type"] == .string("object") && o["additionalProperties"] != .bool(false) { open.append(pointer) }
            for (k, child) in o {
                switch child {
                case .object: walk(child, pointer + "/" + k)
                case .array(let list): for (i, c) in list.enumerated() { walk(c, "\(pointer)/\(k)/\(i)") }
                default: break
                }
            }
        }
        walk(v.root, "#")
        #expect(open.isEmpty, "\(open.prefix(5))")
    }

    /// What the reader refuses of a document, as a schema could say it: its shape, not that an
    /// operation number names an operation the scenario has, nor that `seq` counts without gaps.
    static func readerRefuses(_ data: Data) -> String? {
        do {
            let file = try TraceFormat.read(data, source: "mutant")
            return file.scenario.problems().first(where: ScenarioSchemaTests.isShapeProblem)
        } catch {
            return error.message
        }
    }

    @Test("The schema and the reader agree on every trace written and on every systematic mutant of one with every event kind")
    func schemaAgreesWithReader() throws {
        let v = try Self.validator()
        for original in Self.handMade + Self.generated(count: 20) {
            let data = TraceFormat.encode(original)
            #expect(v.validate(json: data) == nil, "\(v.validate(json: data).map(\.description) ?? "")")
        }
        let document = try JSONTree(parsing: TraceFormat.encode(Self.file(Self.middle + [.end])))
        var disagreements: [String] = []
        var mutants = 0, refused = 0
        for kind in ScenarioMutation.Kind.allCases {
            for (mutant, what) in ScenarioMutation.everyMutant(of: document, kind) {
                let text = Data(mutant.text.utf8)
                let schemaFailure = v.validate(json: text)
                let readerFailure = Self.readerRefuses(text)
                mutants += 1
                if schemaFailure != nil && readerFailure != nil { refused += 1 }
                if (schemaFailure == nil) != (readerFailure == nil) {
                    disagreements.append("\(kind) \(what): schema \(schemaFailure.map(\.description) ?? "accepts"); reader \(readerFailure ?? "accepts")")
                }
            }
        }
        #expect(mutants >= 1000 && refused >= mutants / 2, "\(mutants) mutants, \(refused) refused by both")
        #expect(disagreements.isEmpty, "\(disagreements.count) disagreements, first: \(disagreements.prefix(6).joined(separator: " | "))")
    }
}

/// The commands around trace files: `replay --trace` writes one, `check` judges it to the same
/// verdict and exit status as the replay, `--json` prints the replay report, and `convert`
/// rewrites the format-1 replay JSON.
@Suite("Trace files on the command line")
struct TraceFileCommandTests {
    @Test("replay --trace writes the trace check judges: the same violation, witnesses and exit status; a faithful one passes")
    func replayThenCheck() throws {
        let sample = SpecsDriftTests.root.appendingPathComponent("Fixtures/samples/guide-listings-2-5-to-2-7.json").path
        let path = NSTemporaryDirectory() + "opconform-trace-\(UUID().uuidString).json"
        let replayed = opconform("replay", sample, "--schedule-seed", "8", "--trace", path)
        let checked = opconform("check", path)
        #expect(replayed.status == 1 && checked.status == 1, "\(replayed.status) \(checked.status) \(checked.err)")
        // The violation and its witnesses as replay printed them.
        let verdict = { (out: String) in out.split(separator: "\n").drop { !$0.hasPrefix("STATE-EXCLUSIVE") }.prefix(3).joined(separator: "\n") }
        #expect(!verdict(replayed.out).isEmpty && verdict(replayed.out) == verdict(checked.out), "\(checked.out.suffix(400))")
        // The report: a trace file inside, witnesses by seq, strength and severity given.
        let json = opconform("check", path, "--json")
        let report = try JSONTree(parsing: Data(json.out.utf8))
        guard case .object(let top) = report, case .array(let violations)? = top["violations"], case .object(let v)? = violations.first else {
            Issue.record("no violations in \(json.out.prefix(200))"); return
        }
        #expect(top["format"] == .integer(2) && v["rule"] == .string("STATE-EXCLUSIVE") && v["severity"] == .string("failure")
                && v["strength"] == .string("documented must") && v["witnesses"] == .array([.integer(10), .integer(11)]))
        // Under a profile that does not judge the rule, the same trace passes: the profile is check's to choose.
        #expect(opconform("check", path, "--rules", "KVO-*").status == 0)
        // A faithful run's trace passes.
        let faithful = NSTemporaryDirectory() + "opconform-trace-\(UUID().uuidString).json"
        #expect(opconform("replay", "--seed", "7", "--trace", faithful).status == 0)
        #expect(opconform("check", faithful).status == 0)
    }

    @Test("check refuses what is not a trace in one sentence, and convert rewrites the old replay JSON as a trace file")
    func refusalsAndConversion() throws {
        let sample = SpecsDriftTests.root.appendingPathComponent("Fixtures/samples/guide-listing-2-3.json").path
        let notTrace = opconform("check", sample)
        #expect(notTrace.status == 2 && notTrace.err.contains("is not a trace file"), "\(notTrace.err)")
        #expect(opconform("check").err.contains("check needs a trace file"))
        let file = TraceFormatTests.generated(count: 1)[0]
        let old = JSONCodec.encode(TraceFormatTests.LegacyDocument(scenario: file.scenario, trace: file.trace, violations: []))
        let path = temporaryFile(String(decoding: old, as: UTF8.self))
        #expect(opconform("convert", "--check", path).status == 1)
        let converted = opconform("convert", path)
        #expect(converted.status == 0 && converted.out.contains("trace format 1 -> 2"), "\(converted.out)")
        let data = try #require(FileManager.default.contents(atPath: path))
        #expect(data == TraceFormat.encode(file))
        #expect(opconform("convert", "--check", path).status == 0)
    }
}
