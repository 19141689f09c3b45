@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
import Foundation
import OperationSpec
import ReferenceEngine
import Testing

/// Issue 17: `Specs/scenario.schema.json` describes a format-2 scenario file to editors and to
/// tools in other languages. A schema nobody checks drifts from the reader; these tests hold it
/// to the reader (`ScenarioFormat.decode`) from both sides: what the writer makes is valid, and
/// a mutant of it is refused by the schema exactly when the reader refuses it.
@Suite("The scenario schema")
struct ScenarioSchemaTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let schemaPath = root.appendingPathComponent("Specs/scenario.schema.json").path

    /// The schema, loaded once for every test (loading checks all of it).
    static let loaded: Result<JSONSchemaValidator, any Error> = Result {
        guard let data = FileManager.default.contents(atPath: schemaPath) else { throw InputError("missing \(schemaPath)") }
        return try JSONSchemaValidator(schema: data)
    }

    static func validator() throws -> JSONSchemaValidator { try loaded.get() }

    static func tree(_ data: Data) throws -> JSONTree { try JSONTree(parsing: data) }

    // MARK: The schema file

    @Test("The schema file is JSON in draft 2020-12 and uses only keywords the validator implements")
    func schemaLoads() throws {
        let v = try Self.validator()
        let wanted: Set<String> = ["Queue", "Operation", "Kind", "Step", "Condition", "OpRef", "StateKey", "ObservedKey", "DriverStep", "Trigger", "Action",
                                   "Routine", "Edge"]
        #expect(wanted.isSubset(of: Set(v.defs.keys)), "missing $defs: \(wanted.subtracting(v.defs.keys).sorted())")
        guard case .object(let top) = v.root else { Issue.record("the schema is not an object"); return }
        #expect(top["$schema"] == .string(JSONSchemaValidator.draft))
        #expect(top["required"] == .array([.string("format")]))
        guard case .object(let props)? = top["properties"] else { Issue.record("no top-level properties"); return }
        #expect(props["format"].map { if case .object(let f) = $0 { return f["const"] == .integer(2) }; return false } == true, "format must be const 2")
    }

    @Test("The schema file is written with sorted keys and two-space indentation, as JSONCodec writes")
    func schemaIsCanonical() throws {
        let data = try #require(FileManager.default.contents(atPath: Self.schemaPath))
        let object = try JSONSerialization.jsonObject(with: data)
        var canonical = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        canonical.append(0x0A)
        #expect(data == canonical, "rewrite the file in canonical form (sorted keys, two-space indentation, trailing newline)")
    }

    /// Every object in a scenario is closed (an unknown key is an error, as the reader says),
    /// and everything a person may write is explained where it is defined.
    @Test("Every object in the schema is closed, and every definition and field says what it means in one line")
    func schemaClosedAndExplained() throws {
        let v = try Self.validator()
        var objects = 0, explained = 0
        var problems: [String] = []
        func walk(_ s: JSONTree, _ pointer: String, mustExplain: Bool) {
            guard case .object(let o) = s else { return }
            if o["type"] == .string("object") {
                objects += 1
                if o["additionalProperties"] != .bool(false) { problems.append("\(pointer) is an object schema without additionalProperties false") }
            }
            if mustExplain {
                if case .string(let d)? = o["description"], !d.isEmpty, !d.contains("\n") { explained += 1 } else { problems.append("\(pointer) has no one-line description") }
            }
            if case .object(let props)? = o["properties"] {
                for (k, p) in props { walk(p, "\(pointer)/properties/\(k)", mustExplain: true) }
            }
            for key in ["items", "additionalProperties"] { if let child = o[key] { walk(child, "\(pointer)/\(key)", mustExplain: false) } }
            for key in ["oneOf", "anyOf", "prefixItems"] {
                if case .array(let list)? = o[key] { for (i, child) in list.enumerated() { walk(child, "\(pointer)/\(key)/\(i)", mustExplain: false) } }
            }
        }
        walk(v.root, "#", mustExplain: true)
        for (name, d) in v.defs { walk(d, "#/$defs/\(name)", mustExplain: true) }
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        #expect(objects >= 40 && explained >= 100, "\(objects) object schemas, \(explained) descriptions")
    }

    // MARK: The validator

    /// Draft 2020-12 keywords this validator does not implement: a schema using any of them
    /// would be held to less than it says.
    static let unimplemented = ["allOf", "not", "if", "then", "else", "pattern", "patternProperties", "propertyNames", "format",
                                "maxLength", "multipleOf", "exclusiveMinimum", "exclusiveMaximum", "uniqueItems",
                                "contains", "dependentRequired", "dependentSchemas", "unevaluatedProperties", "unevaluatedItems",
                                "$id", "$anchor", "$dynamicRef", "examples", "deprecated", "definitions", "x-anything"]

    @Test("The validator refuses a schema keyword it does not implement, wherever it stands", arguments: unimplemented)
    func refusesUnknownKeyword(keyword: String) throws {
        let data = try #require(FileManager.default.contents(atPath: Self.schemaPath))
        let schema = try Self.tree(data)
        // At the top, in a definition, and deep in a case of a one-key enumeration.
        let places: [[ScenarioMutation.PathStep]] = [[], [.key("$defs"), .key("Queue")],
                                                     [.key("$defs"), .key("Step"), .key("oneOf"), .index(0), .key("properties"), .key("work")]]
        for place in places {
            var changed = schema
            ScenarioMutation.modify(&changed, at: place[...]) { node in
                if case .object(var o) = node { o[keyword] = .integer(1); node = .object(o) }
            }
            do {
                _ = try JSONSchemaValidator(schema: changed)
                Issue.record("\(keyword) at \(place) was accepted")
            } catch {
                #expect(error.pointer.hasSuffix("/" + keyword) && error.message.contains("not implemented"), "\(error)")
            }
        }
        // The unchanged schema loads: the refusal above is the keyword's doing.
        _ = try JSONSchemaValidator(schema: schema)
    }

    @Test("The validator refuses another draft, a reference outside $defs, and a default its own schema refuses")
    func refusesMalformedSchemas() throws {
        let bad: [(String, String)] = [
            (#"{"$schema": "http://json-schema.org/draft-07/schema#"}"#, "/$schema"),
            (##"{"$ref": "#/definitions/A", "definitions": {}}"##, "/$ref"),
            (#"{"$ref": "other.json#/$defs/A"}"#, "/$ref"),
            (##"{"$ref": "#/$defs/Missing", "$defs": {}}"##, "/$ref"),
            (#"{"properties": {"a": {"$defs": {}}}}"#, "/$defs"),
            (#"{"type": "integer", "default": 1.5}"#, "/default"),
            (#"{"type": "whole"}"#, "/type"),
            (#"{"required": ["a", "a"]}"#, "/required"),
            (#"{"minItems": -1}"#, "/minItems"),
            (#"{"oneOf": []}"#, "/oneOf"),
            (#"{"properties": {"a": 3}}"#, "#/properties/a"),
        ]
        for (text, pointer) in bad {
            do {
                _ = try JSONSchemaValidator(schema: Data(text.utf8))
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.pointer.hasSuffix(pointer), "\(text): \(error)")
            }
        }
    }

    /// A validator that accepted everything would pass every other test here; each keyword is
    /// shown to refuse what the draft says it refuses, on text parsed as the documents are.
    @Test("Each keyword the validator implements accepts and refuses what draft 2020-12 says")
    func keywordsBehave() throws {
        // (schema, document, the failing JSON path or nil when valid)
        let cases: [(String, String, String?)] = [
            (#"{"type": "integer"}"#, "3", nil), (#"{"type": "integer"}"#, "3.0", nil), (#"{"type": "integer"}"#, "3.5", "$"),
            (#"{"type": "integer"}"#, #""3""#, "$"), (#"{"type": "integer"}"#, "true", "$"), (#"{"type": "number"}"#, "0.25", nil),
            (#"{"type": "number"}"#, "false", "$"), (#"{"type": "boolean"}"#, "true", nil), (#"{"type": "boolean"}"#, "1", "$"),
            (#"{"type": "boolean"}"#, "0", "$"), (#"{"type": "null"}"#, "null", nil), (#"{"type": "string"}"#, "null", "$"),
            (#"{"type": "array"}"#, "{}", "$"), (#"{"type": "object"}"#, "[]", "$"), (#"{"type": ["string", "null"]}"#, "null", nil),
            (#"{"properties": {"a": {"type": "string"}}}"#, #"{"a": 1}"#, "$.a"),
            (#"{"required": ["a"]}"#, #"{"b": 1}"#, "$"), (#"{"required": ["a"]}"#, #"{"a": null}"#, nil),
            (#"{"properties": {"a": true}, "additionalProperties": false}"#, #"{"a": 1}"#, nil),
            (#"{"properties": {"a": true}, "additionalProperties": false}"#, #"{"a": 1, "b": 2}"#, "$"),
            (#"{"additionalProperties": {"type": "integer"}}"#, #"{"x y": "s"}"#, #"$["x y"]"#),
            (#"{"oneOf": [{"type": "integer"}, {"minimum": 5}]}"#, "3", nil),
            (#"{"oneOf": [{"type": "integer"}, {"minimum": 5}]}"#, "7", "$"),
            (#"{"oneOf": [{"type": "integer"}, {"minimum": 5}]}"#, "2.5", "$"),
            (#"{"anyOf": [{"type": "integer"}, {"minimum": 5}]}"#, "7", nil),
            (#"{"anyOf": [{"type": "integer"}, {"minimum": 5}]}"#, "2.5", "$"),
            (#"{"items": {"type": "integer"}}"#, "[1, 2, \"x\"]", "$[2]"),
            (#"{"prefixItems": [{"type": "string"}], "items": {"type": "integer"}}"#, #"["a", 1, 2]"#, nil),
            (#"{"prefixItems": [{"type": "string"}], "items": {"type": "integer"}}"#, "[1, 1]", "$[0]"),
            (#"{"prefixItems": [{"type": "string"}], "items": {"type": "integer"}}"#, #"["a", "b"]"#, "$[1]"),
            (#"{"minItems": 2}"#, "[1]", "$"), (#"{"maxItems": 1}"#, "[1, 2]", "$"), (#"{"minItems": 2, "maxItems": 2}"#, "[1, 2]", nil),
            // minLength counts code points, as the draft says (RFC 8259's characters): "é" is one,
            // "e" and a combining accent two, though Swift counts both as one Character.
            (#"{"minLength": 1}"#, #""""#, "$"), (#"{"minLength": 1}"#, #""a""#, nil), (#"{"minLength": 2}"#, #""é""#, "$"),
            (#"{"minLength": 2}"#, #""e\u0301""#, nil), (#"{"minLength": 1}"#, "3", nil),
            (#"{"minProperties": 1}"#, "{}", "$"), (#"{"maxProperties": 1}"#, #"{"a": 1, "b": 2}"#, "$"),
            (#"{"enum": ["a", 2]}"#, "2.0", nil), (#"{"enum": ["a", 2]}"#, #""b""#, "$"),
            (#"{"const": {"a": [1]}}"#, #"{"a": [1.0]}"#, nil), (#"{"const": {"a": [1]}}"#, #"{"a": [1], "b": 0}"#, "$"),
            (#"{"const": 1}"#, "true", "$"),
            (#"{"minimum": 0, "maximum": 18446744073709551615}"#, "18446744073709551615", nil),
            (#"{"minimum": 0, "maximum": 18446744073709551615}"#, "18446744073709551616", "$"),
            (#"{"minimum": -9223372036854775808}"#, "-9223372036854775809", "$"),
            (#"{"maximum": 9223372036854775807}"#, "9223372036854775808", "$"),
            (#"{"minimum": 0, "maximum": 1}"#, "1.0000001", "$"), (#"{"minimum": 0, "maximum": 1}"#, "1e0", nil),
            (##"{"$defs": {"P": {"type": "integer"}}, "properties": {"p": {"$ref": "#/$defs/P"}}}"##, #"{"p": [3]}"#, "$.p"),
            (#"false"#, "{}", "$"), (#"true"#, "{}", nil),
        ]
        for (schema, document, path) in cases {
            let v = try JSONSchemaValidator(schema: Data(schema.utf8))
            let failure = v.validate(json: Data(document.utf8))
            #expect(failure?.path == path, "\(schema) on \(document): \(failure.map(\.description) ?? "valid")")
        }
    }

    @Test("The validator names the first error's place in the document and the nearest allowed key or value")
    func failuresSayWhereAndWhat() throws {
        let v = try Self.validator()
        let cases: [(String, String, String)] = [
            (#"{"format": 2, "operations": [{"kind": {"main": [{"work": 1}, {"wokr": 1}]}}]}"#, "$.operations[0].kind.main[1]", #"did you mean "work"?"#),
            (#"{"format": 2, "queues": [{"maxConcurent": 1}]}"#, "$.queues[0]", #"did you mean "maxConcurrent"?"#),
            (#"{"format": 2, "driver": [{"action": {"read": {"key": "isFinised", "op": 0}}}]}"#, "$.driver[0].action.read.key", #"did you mean "isFinished"?"#),
            (#"{"format": 2, "driver": [{"action": {"add": {"op": -1, "queue": 0}}}]}"#, "$.driver[0].action.add.op", "at least 0"),
            (#"{"format": 2, "operations": [{"kind": {"main": [{"repeat": {"times": 10001, "body": []}}]}}]}"#, "$.operations[0].kind.main[0].repeat.times", "at most 10000"),
            (#"{"format": 1}"#, "$.format", "must be 2"),
        ]
        for (document, path, words) in cases {
            let failure = try #require(v.validate(json: Data(document.utf8)), "\(document) was valid")
            #expect(failure.path == path && failure.message.contains(words), "\(failure)")
        }
    }

    // MARK: What the writer makes

    @Test("Every scenario the generator makes (sizes 1 to 64, misuse and flaw rates 0, 30 and 100) is valid against the schema, and the reader takes it")
    func generatedScenariosAreValid() throws {
        let v = try Self.validator()
        let sizes = [1, 2, 3, 5, 8, 13, 24, 40, 64], rates = [0, 30, 100]
        var validated = 0, largest = 0
        var coverage = Set<String>()
        for i in 0..<270 {
            let options = GeneratorOptions(size: sizes[i % sizes.count], misuseRate: rates[(i / 9) % 3], flawRate: rates[(i / 27) % 3], subclass: i % 10 == 9,
                                           surface2: i % 5 == 2)
            let scenario = ScenarioGenerator(options: options).generate(seed: UInt64(i) &* 7_919 &+ 1)
            let data = ScenarioFormat.encode(scenario)
            largest = max(largest, scenario.operations.count)
            if let failure = v.validate(try Self.tree(data), coverage: &coverage) {
                Issue.record("seed \(scenario.seed), \(options): \(failure)")
                continue
            }
            #expect(throws: Never.self, "seed \(scenario.seed), \(options)") { _ = try ScenarioFormat.decode(data, source: "generated") }
            validated += 1
        }
        #expect(validated == 270)
        #expect(largest > 32, "the sizes reached \(largest) operations")
        // The generator's scenarios use most of the schema; the hand-built one below, all of it.
        #expect(coverage.count * 2 > Set(v.coverable.keys).count, "\(coverage.count) of \(v.coverable.count)")
    }

    @Test("A scenario with every step, condition, action, trigger and kind is valid and uses every definition and every branch of the schema")
    func everyCaseIsCovered() throws {
        let v = try Self.validator()
        let scenario = Self.everyCase
        #expect(scenario.problems().isEmpty, "\(scenario.problems())")
        let data = ScenarioFormat.encode(scenario)
        var coverage = Set<String>()
        if let failure = v.validate(try Self.tree(data), coverage: &coverage) { Issue.record("\(failure)") }
        let unused = Set(v.coverable.keys).subtracting(coverage).map { v.coverable[$0]! }.sorted()
        #expect(unused.isEmpty, "never used: \(unused)")
        #expect(try ScenarioFormat.decode(data, source: "every case") == scenario)

        // The schema's case names are the model's: the names found in the scenario (each case's
        // name given by an exhaustive switch, so a new case does not compile without one) equal
        // the branches of each enumeration in the schema.
        let found = ModelNames.of(scenario)
        for (definition, names) in found {
            let branches = Set(v.coverable.compactMap { pointer, label in pointer.hasPrefix("#/$defs/\(definition)/oneOf/") ? String(label.dropFirst(definition.count + 1)) : nil })
            #expect(branches == names, "\(definition): only in the schema \(branches.subtracting(names).sorted()), only in the model \(names.subtracting(branches).sorted())")
        }
        #expect(Set(found.keys) == ["Step", "Condition", "Kind", "Action", "Trigger"])
    }

    // MARK: Agreement with the reader

    /// The reader's verdict on shape. `ScenarioFormat.decode` is `read` (keys, types, case names,
    /// the ranges of work, repeat, await and widths) then `Scenario.problems()`, and refuses at
    /// the first problem of either. Some of the problems a schema expresses too (a list that may
    /// not be empty, the two ivars `set` may store, an index below 0) and count here; the rest
    /// need the whole scenario (an index beyond the operations there are, a routine the subclass
    /// does not define, a result asked of an operation that is no invocation), which no schema
    /// can state: they are left out. (`read` is internal, hence `@testable`.)
    static func readerRefuses(_ data: Data) -> String? {
        do {
            let scenario = try ScenarioFormat.read(data, source: "mutant")
            return scenario.problems().first(where: isShapeProblem)
        } catch {
            return error.message
        }
    }

    static func isShapeProblem(_ sentence: String) -> Bool {
        let ranges = ["works ", "repeats ", "awaits with timeout", "has maxConcurrent", "sets maxConcurrent", "thread priority",
                      "is a block operation with no block", "adds an empty batch", "ivars can be set", "the scenario's format is",
                      "sleeps ", "notifies executionBlocks", "is empty; leave name out"]
        if ranges.contains(where: sentence.contains) { return true }
        // "names operation -1" and "names block -1" are shape; "names operation 9" of 3 is not.
        if let m = sentence.firstMatch(of: #/names (?:operation|queue|block) (-?[0-9]+)/#), let n = Int(m.1) { return n < 0 }
        return false
    }

    /// What a JSON Schema cannot say, and one thing it says that the reader does not: each
    /// difference is shown here, so that none is discovered by a user.
    @Test("The schema and the reader differ only where a schema cannot follow the reader")
    func knownDifferencesHold() throws {
        let v = try Self.validator()
        let cases: [(document: String, schemaTakes: Bool, readerTakes: Bool)] = [
            // JSON Schema compares numbers by value: 1.0 is a whole number; the reader wants "1".
            (#"{"format": 2, "operations": [{"kind": {"main": [{"work": 1.0}]}}]}"#, true, false),
            (#"{"format": 2, "operations": [{"kind": {"main": [{"work": 1e1}]}}]}"#, true, false),
            (#"{"format": 2.0}"#, true, false),
            // A schema sees the parsed object, where the second "name" has replaced the first.
            (#"{"format": 2, "name": "a", "name": "b"}"#, true, false),
            // A thread priority outside 0.0–1.0 (004 2.6.3): both refuse it.
            (#"{"format": 2, "operations": [{"kind": {"main": []}, "threadPriority": 1.5}]}"#, false, false),
            (#"{"format": 2, "operations": [{"kind": {"main": []}}], "driver": [{"action": {"setThreadPriority": {"op": 0, "priority": -0.5}}}]}"#, false, false),
            // The reader's checks that need the whole scenario, which a schema cannot state.
            (#"{"format": 2, "driver": [{"action": {"start": 3}}]}"#, true, false),
            (#"{"format": 2, "operations": [{"kind": {"main": [{"call": "completeOperation"}]}}]}"#, true, false),
            // API surface 2. A queue name may not be empty: both refuse it. Over 64 characters
            // (Swift's, grapheme clusters; the draft's maxLength counts code points) or with a
            // control character (a pattern, which this validator does not implement): the reader only.
            (#"{"format": 2, "queues": [{"name": ""}]}"#, false, false),
            (#"{"format": 2, "queues": [{"name": "fetch"}]}"#, true, true),
            ("{\"format\": 2, \"queues\": [{\"name\": \"\(String(repeating: "q", count: 65))\"}]}", true, false),
            (#"{"format": 2, "queues": [{"name": "a\u0007b"}]}"#, true, false),
            // executionBlocks is announced by nobody (both refuse), and read of block operations only (the kind is elsewhere).
            (#"{"format": 2, "operations": [{"kind": {"main": [{"didChange": "executionBlocks"}]}}]}"#, false, false),
            (#"{"format": 2, "operations": [{"kind": {"main": [{"read": {"key": "executionBlocks", "op": "self"}}]}}]}"#, true, false),
            (#"{"format": 2, "operations": [{"kind": {"block": [[{"read": {"key": "executionBlocks", "op": "self"}}]]}}]}"#, true, true),
            // addBlock's operation must be a lone one-block block operation; readyAfterSignal is no subclass's.
            (#"{"format": 2, "queues": [{}], "operations": [{"kind": {"main": []}}], "driver": [{"action": {"addBlock": {"op": 0, "queue": 0}}}]}"#, true, false),
            (#"{"format": 2, "queues": [{}], "operations": [{"kind": {"block": [[]]}}], "driver": [{"action": {"addBlock": {"op": 0, "queue": 0}}}, {"action": {"cancel": 0}}]}"#, true, false),
            (#"{"format": 2, "operations": [{"kind": {"subclass": []}, "readyAfterSignal": 1}]}"#, true, false),
            (#"{"format": 2, "driver": [{"action": {"sleep": 1000001}}]}"#, false, false),
        ]
        for c in cases {
            let data = Data(c.document.utf8)
            let schemaFailure = v.validate(json: data)
            #expect((schemaFailure == nil) == c.schemaTakes, "\(c.document): schema \(schemaFailure.map(\.description) ?? "takes it")")
            let readerTakes: Bool
            do { _ = try ScenarioFormat.decode(data, source: "case"); readerTakes = true } catch { readerTakes = false }
            #expect(readerTakes == c.readerTakes, "\(c.document): the reader \(readerTakes ? "takes" : "refuses") it")
        }
    }

    @Test("The schema refuses a mutant of a valid scenario exactly when the reader refuses it")
    func schemaAgreesWithReader() throws {
        let v = try Self.validator()
        var documents: [JSONTree] = [try Self.tree(ScenarioFormat.encode(Self.everyCase))]
        for seed: UInt64 in 1...12 {
            let options = GeneratorOptions(size: 1 + Int(seed % 6), misuseRate: 30, flawRate: 30, subclass: seed % 4 == 0, surface2: seed % 3 == 0)
            documents.append(try Self.tree(ScenarioFormat.encode(ScenarioGenerator(options: options).generate(seed: seed))))
        }
        var rng = Xoshiro256(seed: 17)
        var ran: [ScenarioMutation.Kind: Int] = [:], refused: [ScenarioMutation.Kind: Int] = [:]
        var disagreements: [String] = []
        for round in 0..<100 {
            for kind in ScenarioMutation.Kind.allCases {
                let document = documents[round % documents.count]
                guard let (mutant, what) = ScenarioMutation.mutate(document, kind, &rng) else { continue }
                let text = Data(mutant.text.utf8)
                let schemaFailure = v.validate(json: text)
                let readerFailure = Self.readerRefuses(text)
                ran[kind, default: 0] += 1
                if schemaFailure != nil && readerFailure != nil { refused[kind, default: 0] += 1 }
                if (schemaFailure == nil) != (readerFailure == nil) {
                    disagreements.append("\(kind) \(what): schema \(schemaFailure.map(\.description) ?? "accepts"); reader \(readerFailure ?? "accepts")")
                }
            }
        }
        // Then every place of the hand-built scenario (one of each place, indices aside) with
        // every change of each kind: random mutants may miss a rare field, such as addBatch's wait.
        var systematic = 0
        for kind in ScenarioMutation.Kind.allCases {
            for (mutant, what) in ScenarioMutation.everyMutant(of: documents[0], kind) {
                let text = Data(mutant.text.utf8)
                let schemaFailure = v.validate(json: text)
                let readerFailure = Self.readerRefuses(text)
                systematic += 1
                if (schemaFailure == nil) != (readerFailure == nil) {
                    disagreements.append("\(kind) \(what): schema \(schemaFailure.map(\.description) ?? "accepts"); reader \(readerFailure ?? "accepts")")
                }
            }
        }
        #expect(systematic >= 1500, "\(systematic) systematic mutants")
        #expect(disagreements.isEmpty, "\(disagreements.count) disagreements, first: \(disagreements.prefix(8).joined(separator: " | "))")
        for kind in ScenarioMutation.Kind.allCases {
            #expect(ran[kind, default: 0] >= 80, "\(kind) ran \(ran[kind, default: 0]) times")
            // Most mutants break the document; some (a key removed that has a default, a case
            // renamed to another that fits) do not, and both sides must then accept them.
            #expect(refused[kind, default: 0] >= 30, "\(kind): \(refused[kind, default: 0]) of \(ran[kind, default: 0]) refused by both")
        }
    }

    // MARK: Fixtures

    /// Each fixture that holds a scenario: a sample is one, a finding (regressions, and the
    /// expectations' minimised findings) holds one in its `scenario` field.
    static func fixtureScenarios() throws -> [(file: String, scenario: JSONTree)] {
        var out: [(file: String, scenario: JSONTree)] = []
        let fm = FileManager.default
        func add(_ path: String, field: String?) throws {
            let data = try #require(fm.contents(atPath: path))
            let document = try tree(data)
            if let field {
                guard case .object(let o) = document, let s = o[field] else { return }
                out.append((path, s))
            } else {
                out.append((path, document))
            }
        }
        let fixtures = root.appendingPathComponent("Fixtures")
        for folder in ["samples", "scenarios"] {
            for name in try fm.contentsOfDirectory(atPath: fixtures.appendingPathComponent(folder).path).sorted() where name.hasSuffix(".json") {
                try add(fixtures.appendingPathComponent("\(folder)/\(name)").path, field: nil)
            }
        }
        for name in try fm.contentsOfDirectory(atPath: fixtures.appendingPathComponent("regressions").path).sorted() where name.hasSuffix(".json") {
            try add(fixtures.appendingPathComponent("regressions/\(name)").path, field: "scenario")
        }
        let expectations = fixtures.appendingPathComponent("expectations")
        for folder in try fm.contentsOfDirectory(atPath: expectations.path).sorted() {
            var isFolder: ObjCBool = false
            let folderPath = expectations.appendingPathComponent(folder).path
            guard fm.fileExists(atPath: folderPath, isDirectory: &isFolder), isFolder.boolValue else { continue }
            for name in try fm.contentsOfDirectory(atPath: folderPath).sorted() where name.hasSuffix(".json") {
                try add(folderPath + "/" + name, field: "scenario")
            }
        }
        return out
    }

    @Test("Every fixture that holds a format-2 scenario is valid against the schema")
    func fixturesAreValid() throws {
        let v = try Self.validator()
        let all = try Self.fixtureScenarios()
        var validated = 0
        var older: [String] = []
        for (file, scenario) in all {
            guard case .object(let o) = scenario, o["format"] == .integer(2) else {
                older.append((file as NSString).lastPathComponent)
                continue
            }
            if let failure = v.validate(scenario) { Issue.record("\(file): \(failure)") }
            #expect(Self.readerRefuses(Data(scenario.text.utf8)) == nil, "\(file)")
            validated += 1
        }
        #expect(all.count >= 60, "found \(all.count) fixtures with a scenario")
        // Issue 17 converted every fixture; format 1 is still read, but no fixture should need it.
        #expect(validated >= 1 && older.isEmpty, "\(validated) fixtures hold a format-2 scenario; still in format 1: \(older)")
    }

    // MARK: A scenario with every case

    /// Every kind, step, condition, operation reference, trigger and driver action, in a
    /// scenario that `problems()` accepts (so the reader's checks pass too).
    static let everyCase: Scenario = {
        let program = ConcurrentProgram(
            overridesIsConcurrent: false,
            start: [.if(.and(.isReady(.this), .not(.isCancelled(.this))),
                        then: [.willChange(.isExecuting), .set(.isExecuting, true), .didChange(.isExecuting), .spawn(.main, .this)],
                        else: [.callSuperStart])],
            main: [.repeat(2, [.returnIfCancelled, .work(1)]), .if(.isExecuting(.op(1)), then: [.return], else: []), .call("completeOperation")],
            routines: [Routine("completeOperation", ConcurrentProgram.completeOperation),
                       Routine("bare", [.willChangeUnprefixed(.isFinished), .set(.isFinished, true), .didChangeUnprefixed(.isFinished)])])
        return Scenario(
            name: "every case", seed: 42, generatorVersion: 1,
            queues: [QueueConfig(), QueueConfig(maxConcurrent: 2, suspended: true, name: "fetch")],
            operations: [
                OperationConfig(kind: .concurrent(program), queuePriority: 4, threadPriority: 0.75, completion: [.work(1)]),
                OperationConfig(kind: .main([.signal(1), .read(.isReady, .this), .if(.isFinished(.op(0)), then: [], else: [.cancel(.op(2))]),
                                             .readCurrentQueue]),
                                queuePriority: -3),
                OperationConfig(kind: .block([[.await(1, timeout: 10), .work(0)], [.if(.isConcurrent(.this), then: [.callMain], else: [.start(.op(3))])],
                                              [.read(.executionBlocks, .this)]])),
                OperationConfig(kind: .invocation([.work(2), .read(.queuePriority, .op(0)), .cancelAll(0)]), completion: [],
                                readyAfterSignal: 2),
                OperationConfig(kind: .subclass([.work(1), .spawn(.start, .op(3))])),
                // Added with addBlock: the queue makes its operation, so nothing else names it.
                OperationConfig(kind: .block([[.readCurrentQueue, .readUnderlyingQueue, .work(1), .signal(2)]])),
            ],
            dependencies: [Edge(2, on: 1)],
            driver: [
                DriverStep(.setUnderlyingQueue(queue: 0, dispatchQueue: 1), onDispatchQueue: 0),
                DriverStep(.setUnderlyingQueue(queue: 1, dispatchQueue: nil)),
                DriverStep(.readMainQueue),
                DriverStep(.setQueuePriority(op: 1, -3)),
                DriverStep(.setThreadPriority(op: 1, 0.25)),
                DriverStep(.setCompletionBlock(op: 1, [.work(1)])),
                DriverStep(.addExecutionBlock(op: 2, [.work(1)])),
                DriverStep(.addDependency(op: 3, on: 1)),
                DriverStep(.removeDependency(op: 3, on: 1)),
                DriverStep(.setMaxConcurrent(queue: 0, 1)),
                DriverStep(.read(.dependencies, op: 3)),
                DriverStep(.perform(op: 0, [.if(.isReady(.this), then: [.start(.this)], else: [])])),
                DriverStep(.add(op: 1, queue: 0)),
                DriverStep(.addBatch(ops: [2, 3], queue: 1, wait: false)),
                DriverStep(.resume(queue: 1)),
                DriverStep(after: .started(1), .cancel(1)),
                DriverStep(after: .mainBegan(1), .read(.isExecuting, op: 1)),
                DriverStep(after: .blockBegan(2, block: 1), .suspend(queue: 0)),
                DriverStep(.resume(queue: 0)),
                DriverStep(after: .finished(3), .result(3)),
                DriverStep(.start(4)),
                DriverStep(.waitUntilFinished(4)),
                DriverStep(.cancelAll(queue: 1)),
                DriverStep(.waitUntilAllFinished(queue: 0)),
                DriverStep(.waitUntilAllFinished(queue: 1)),
                DriverStep(.readOperationCount(queue: 0)),
                DriverStep(.read(.executionBlocks, op: 2)),
                DriverStep(.addBlock(op: 5, queue: 0)),
                DriverStep(after: .blockBegan(5, block: 0), .readSuspended(queue: 1)),
                DriverStep(after: .signaled(2), .sleep(3)),
                DriverStep(.waitUntilAllFinished(queue: 0)),
                DriverStep(.readOperations(queue: 1)),
                DriverStep(.releaseQueue(queue: 1)),
                DriverStep(.readQueueDeallocated(queue: 1)),
            ])
    }()
}

/// The case names of the model's enumerations, each from an exhaustive switch: the names the
/// format writes, by the design of format 2.
enum ModelNames {
    static func of(_ s: Scenario) -> [String: Set<String>] {
        var out: [String: Set<String>] = [:]
        func condition(_ c: Condition) {
            let name: String
            switch c {
            case .isCancelled: name = "isCancelled"
            case .isReady: name = "isReady"
            case .isConcurrent: name = "isConcurrent"
            case .isExecuting: name = "isExecuting"
            case .isFinished: name = "isFinished"
            case .not(let inner): name = "not"; condition(inner)
            case .and(let a, let b): name = "and"; condition(a); condition(b)
            }
            out["Condition", default: []].insert(name)
        }
        func steps(_ list: [Step]) {
            for step in list {
                let name: String
                switch step {
                case .work: name = "work"
                case .returnIfCancelled: name = "returnIfCancelled"
                case .if(let c, let a, let b): name = "if"; condition(c); steps(a); steps(b)
                case .repeat(_, let body): name = "repeat"; steps(body)
                case .return: name = "return"
                case .willChange: name = "willChange"
                case .didChange: name = "didChange"
                case .willChangeUnprefixed: name = "willChangeUnprefixed"
                case .didChangeUnprefixed: name = "didChangeUnprefixed"
                case .set: name = "set"
                case .call: name = "call"
                case .callMain: name = "callMain"
                case .callSuperStart: name = "callSuperStart"
                case .spawn: name = "spawn"
                case .start: name = "start"
                case .cancel: name = "cancel"
                case .read: name = "read"
                case .signal: name = "signal"
                case .await: name = "await"
                case .readCurrentQueue: name = "readCurrentQueue"
                case .cancelAll: name = "cancelAll"
                case .readUnderlyingQueue: name = "readUnderlyingQueue"
                }
                out["Step", default: []].insert(name)
            }
        }
        for o in s.operations {
            let name: String
            switch o.kind {
            case .main: name = "main"
            case .block: name = "block"
            case .concurrent: name = "concurrent"
            case .invocation: name = "invocation"
            case .subclass: name = "subclass"
            }
            out["Kind", default: []].insert(name)
        }
        s.stepLists.forEach(steps)
        for d in s.driver {
            if let t = d.after {
                let name: String
                switch t {
                case .started: name = "started"
                case .mainBegan: name = "mainBegan"
                case .blockBegan: name = "blockBegan"
                case .finished: name = "finished"
                case .signaled: name = "signaled"
                }
                out["Trigger", default: []].insert(name)
            }
            let name: String
            switch d.action {
            case .add: name = "add"
            case .addBatch: name = "addBatch"
            case .start: name = "start"
            case .perform: name = "perform"
            case .cancel: name = "cancel"
            case .cancelAll: name = "cancelAll"
            case .suspend: name = "suspend"
            case .resume: name = "resume"
            case .setMaxConcurrent: name = "setMaxConcurrent"
            case .addDependency: name = "addDependency"
            case .removeDependency: name = "removeDependency"
            case .waitUntilFinished: name = "waitUntilFinished"
            case .waitUntilAllFinished: name = "waitUntilAllFinished"
            case .setCompletionBlock: name = "setCompletionBlock"
            case .addExecutionBlock: name = "addExecutionBlock"
            case .setQueuePriority: name = "setQueuePriority"
            case .setThreadPriority: name = "setThreadPriority"
            case .read: name = "read"
            case .readOperationCount: name = "readOperationCount"
            case .result: name = "result"
            case .addBlock: name = "addBlock"
            case .readSuspended: name = "readSuspended"
            case .sleep: name = "sleep"
            case .releaseQueue: name = "releaseQueue"
            case .readOperations: name = "readOperations"
            case .readMainQueue: name = "readMainQueue"
            case .readQueueDeallocated: name = "readQueueDeallocated"
            case .setUnderlyingQueue: name = "setUnderlyingQueue"
            }
            out["Action", default: []].insert(name)
        }
        return out
    }
}

/// Seeded small edits of a valid scenario document, each of the kind a person makes: a key
/// misspelt, a key added, a value of the wrong type, a key left out, a case name that is wrong,
/// a number out of range.
enum ScenarioMutation {
    enum Kind: String, CaseIterable, Sendable { case misspeltKey, unknownKey, wrongType, removedKey, wrongCaseName, outOfRange }
    enum PathStep: Hashable, CustomStringConvertible {
        case key(String), index(Int)
        var description: String {
            switch self {
            case .key(let k): return JSONSchemaValidator.pathSegment(k)
            case .index(let i): return "[\(i)]"
            }
        }
    }

    /// The case names of every enumeration of format 2 and the string values it knows: what a
    /// wrong case name is drawn from, with near misses of them.
    static let names = ["work", "returnIfCancelled", "if", "repeat", "return", "willChange", "didChange", "set", "call", "callMain",
                        "callSuperStart", "spawn", "start", "cancel", "read", "signal", "await", "isCancelled", "isReady", "isConcurrent",
                        "isExecuting", "isFinished", "not", "and", "main", "block", "invocation", "subclass", "concurrent", "started",
                        "mainBegan", "blockBegan", "finished", "add", "addBatch", "perform", "cancelAll", "suspend", "resume",
                        "setMaxConcurrent", "addDependency", "removeDependency", "waitUntilFinished", "waitUntilAllFinished",
                        "setCompletionBlock", "addExecutionBlock", "setQueuePriority", "setThreadPriority", "readOperationCount",
                        "result", "dependencies", "queuePriority", "completionBlock", "threadPriority", "self", "this",
                        "IsFinished", "isfinished", "finish", "Work", "completeOperation", "op", "_0",
                        // API surface 2, and near misses of it.
                        "readCurrentQueue", "signaled", "addBlock", "readSuspended", "sleep", "executionBlocks", "signalled", "isSuspended"]
    static let knownStrings: Set<String> = ["isCancelled", "isReady", "isConcurrent", "isExecuting", "isFinished", "dependencies",
                                            "queuePriority", "completionBlock", "threadPriority", "main", "start", "self", "executionBlocks"]
    static let unknownKeys = ["comment", "notes", "x-extra", "Format", "priority", "kinds", "timeout_ms", "id"]

    static func sites(_ v: JSONTree, _ path: [PathStep], into out: inout [(path: [PathStep], value: JSONTree)]) {
        out.append((path, v))
        switch v {
        case .object(let o): for k in o.keys.sorted() { sites(o[k]!, path + [.key(k)], into: &out) }
        case .array(let a): for (i, e) in a.enumerated() { sites(e, path + [.index(i)], into: &out) }
        default: break
        }
    }

    static func modify(_ v: inout JSONTree, at path: ArraySlice<PathStep>, _ change: (inout JSONTree) -> Void) {
        guard let first = path.first else { change(&v); return }
        switch (first, v) {
        case (.key(let k), .object(var o)):
            guard o[k] != nil else { return }
            modify(&o[k]!, at: path.dropFirst(), change)
            v = .object(o)
        case (.index(let i), .array(var a)):
            guard a.indices.contains(i) else { return }
            modify(&a[i], at: path.dropFirst(), change)
            v = .array(a)
        default: return
        }
    }

    static func misspell(_ word: String, _ rng: inout Xoshiro256) -> String {
        var s = Array(word.unicodeScalars)
        guard !s.isEmpty else { return "x" }
        let i = rng.below(s.count)
        switch rng.below(5) {
        case 0 where s.count >= 2:
            let j = min(i, s.count - 2)
            s.swapAt(j, j + 1)
        case 1 where s.count >= 2: s.remove(at: i)
        case 2: s.insert(s[i], at: i)
        case 3: s[i] = Unicode.Scalar(UInt8(ascii: "a") + UInt8(rng.below(26)))
        default:
            let c = Character(s[i])
            s[i] = (c.isUppercase ? c.lowercased() : c.uppercased()).unicodeScalars.first!
        }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: s)
        return String(out)
    }

    /// `path` with every index left out: places that differ only in which element they are in
    /// are the same place of the schema.
    static func place(_ path: [PathStep]) -> String {
        path.map { if case .key(let k) = $0 { return "." + k }; return "[]" }.joined()
    }

    /// Every mutant of the kind, once at each place of `document` (the first site of each
    /// `place`): each key removed, misspelt or joined by an unknown one, each value replaced by
    /// every other type, each case renamed to several others, each number set to every boundary.
    static func everyMutant(of document: JSONTree, _ kind: Kind) -> [(JSONTree, String)] {
        var all: [(path: [PathStep], value: JSONTree)] = []
        sites(document, [], into: &all)
        var seen = Set<String>()
        let distinct = all.filter { seen.insert(place($0.path)).inserted }
        var rng = Xoshiro256(seed: 2)
        var out: [(JSONTree, String)] = []
        func change(_ path: [PathStep], _ what: String, _ edit: (inout JSONTree) -> Void) {
            var mutant = document
            modify(&mutant, at: path[...], edit)
            out.append((mutant, what))
        }
        for site in distinct {
            let shown = "$" + site.path.map(\.description).joined()
            switch (kind, site.value) {
            case (.removedKey, .object(let o)):
                for key in o.keys.sorted() { change(site.path, "removed \(shown).\(key)") { if case .object(var x) = $0 { x[key] = nil; $0 = .object(x) } } }
            case (.misspeltKey, .object(let o)):
                for key in o.keys.sorted() {
                    var misspelt = misspell(key, &rng)
                    while misspelt == key || o[misspelt] != nil { misspelt = misspell(key, &rng) }
                    change(site.path, "renamed \(shown).\(key) to \(misspelt)") { if case .object(var x) = $0 { x[misspelt] = x[key]; x[key] = nil; $0 = .object(x) } }
                }
            case (.unknownKey, .object(let o)):
                let key = unknownKeys.first { o[$0] == nil }!
                change(site.path, "added \(shown).\(key)") { if case .object(var x) = $0 { x[key] = .integer(0); $0 = .object(x) } }
            case (.wrongType, _) where !site.path.isEmpty:
                // Three of the other types at each place (all six made the test twice as long).
                let others = [JSONTree.integer(7), .real(1.5), .string("x"), .bool(false), .null, .array([.integer(1)]), .object(["x": .integer(1)])]
                    .filter { $0.text != site.value.text && !(Self.isNumber($0) && Self.isNumber(site.value)) }
                let first = rng.below(others.count)
                for k in 0..<min(3, others.count) {
                    let value = others[(first + k) % others.count]
                    change(site.path, "replaced \(shown) by \(value.text)") { $0 = value }
                }
            case (.wrongCaseName, .object(let o)) where o.count == 1 && names.contains(o.keys.first!):
                let key = o.keys.first!
                for _ in 0..<4 {
                    let name = names[rng.below(names.count)]
                    if name == key { continue }
                    change(site.path, "renamed the case \(shown).\(key) to \(name)") { if case .object(var x) = $0 { x[name] = x[key]; x[key] = nil; $0 = .object(x) } }
                }
            case (.wrongCaseName, .string(let s)) where knownStrings.contains(s):
                for _ in 0..<4 {
                    let name = names[rng.below(names.count)]
                    if name != s { change(site.path, "replaced the name at \(shown) by \(name)") { $0 = .string(name) } }
                }
            case (.outOfRange, .integer), (.outOfRange, .real):
                for value in boundaries where !value.sameJSON(as: site.value) { change(site.path, "set \(shown) to \(value.text)") { $0 = value } }
            default: break
            }
        }
        return out
    }

    static func isNumber(_ v: JSONTree) -> Bool {
        if case .integer = v { return true }
        if case .real = v { return true }
        return false
    }

    /// The edges of every range format 2 has, and a step beyond each.
    static let boundaries: [JSONTree] = [Int128(-1), -2, 0, 1, 10_000, 10_001, 1_000_000, 1_000_001, Int128(Int64.max), Int128(Int64.max) + 1,
                                          Int128(UInt64.max), Int128(UInt64.max) + 1, Int128(Int64.min), Int128(Int64.min) - 1].map(JSONTree.integer)
        + [JSONTree.real(-0.5), .real(0.5), .real(1.5)]

    /// A mutant of `document` of the given kind and what was changed, or nil when the document
    /// has no place for that kind of change.
    static func mutate(_ document: JSONTree, _ kind: Kind, _ rng: inout Xoshiro256) -> (JSONTree, String)? {
        var all: [(path: [PathStep], value: JSONTree)] = []
        sites(document, [], into: &all)
        func pick<T>(_ list: [T]) -> T? { list.isEmpty ? nil : list[rng.below(list.count)] }
        func shown(_ path: [PathStep]) -> String { "$" + path.map(\.description).joined() }
        var mutant = document
        switch kind {
        case .misspeltKey, .removedKey:
            let objects = all.compactMap { site -> ([PathStep], [String: JSONTree])? in
                if case .object(let o) = site.value, !o.isEmpty { return (site.path, o) }
                return nil
            }
            guard let (path, object) = pick(objects) else { return nil }
            let key = object.keys.sorted()[rng.below(object.count)]
            if kind == .removedKey {
                modify(&mutant, at: path[...]) { if case .object(var o) = $0 { o[key] = nil; $0 = .object(o) } }
                return (mutant, "removed \(shown(path + [.key(key)]))")
            }
            var misspelt = misspell(key, &rng)
            for _ in 0..<8 where misspelt == key || object[misspelt] != nil { misspelt = misspell(key, &rng) }
            guard misspelt != key, object[misspelt] == nil else { return nil }
            modify(&mutant, at: path[...]) { if case .object(var o) = $0 { o[misspelt] = o[key]; o[key] = nil; $0 = .object(o) } }
            return (mutant, "renamed \(shown(path + [.key(key)])) to \(JSONTree.quoted(misspelt))")
        case .unknownKey:
            let objects = all.compactMap { site -> ([PathStep], [String: JSONTree])? in
                if case .object(let o) = site.value { return (site.path, o) }
                return nil
            }
            guard let (path, object) = pick(objects), let key = pick(unknownKeys.filter { object[$0] == nil }) else { return nil }
            let value = pick([JSONTree.integer(0), .string("x"), .bool(true), .object([:]), .array([])])!
            modify(&mutant, at: path[...]) { if case .object(var o) = $0 { o[key] = value; $0 = .object(o) } }
            return (mutant, "added \(shown(path + [.key(key)])) = \(value.text)")
        case .wrongType:
            guard let site = pick(Array(all.dropFirst())) else { return nil }
            let replacements: [JSONTree] = [.integer(7), .real(1.5), .string("x"), .bool(false), .null, .array([.integer(1)]), .object(["x": .integer(1)])]
            func family(_ v: JSONTree) -> Int {
                switch v {
                case .integer: return 0
                case .real(let d): return d == d.rounded() ? 0 : 1
                case .string: return 2
                case .bool: return 3
                case .null: return 4
                case .array: return 5
                case .object: return 6
                }
            }
            // A real number's field takes a whole number too: 7 is no wrong type there.
            let excluded: Set<Int> = family(site.value) == 1 ? [0, 1] : [family(site.value)]
            guard let value = pick(replacements.filter { !excluded.contains(family($0)) }) else { return nil }
            modify(&mutant, at: site.path[...]) { $0 = value }
            return (mutant, "replaced \(shown(site.path)) (\(site.value.text.prefix(40))) by \(value.text)")
        case .wrongCaseName:
            var places: [(path: [PathStep], key: String?)] = []
            for site in all {
                if case .object(let o) = site.value, o.count == 1, let k = o.keys.first, names.contains(k) { places.append((site.path, k)) }
                if case .string(let s) = site.value, knownStrings.contains(s) { places.append((site.path, nil)) }
            }
            guard let place = pick(places), let name = pick(names) else { return nil }
            if let key = place.key {
                guard name != key else { return nil }
                modify(&mutant, at: place.path[...]) { if case .object(var o) = $0 { o[name] = o[key]; o[key] = nil; $0 = .object(o) } }
                return (mutant, "renamed the case \(shown(place.path + [.key(key)])) to \(JSONTree.quoted(name))")
            }
            modify(&mutant, at: place.path[...]) { $0 = .string(name) }
            return (mutant, "replaced the name at \(shown(place.path)) by \(JSONTree.quoted(name))")
        case .outOfRange:
            let numbers = all.filter { if case .integer = $0.value { return true }; if case .real = $0.value { return true }; return false }
            guard let site = pick(numbers) else { return nil }
            let whole: [Int128] = [-1, -2, 0, 10_001, 1_000_001, Int128(Int64.max), Int128(Int64.max) + 1, Int128(UInt64.max), Int128(UInt64.max) + 1,
                                   Int128(Int64.min), Int128(Int64.min) - 1]
            let value: JSONTree
            if case .real(let d) = site.value, d != d.rounded() {
                value = pick([JSONTree.real(-0.5), .real(1.5), .integer(-1), .integer(2), .real(1e300)])!
            } else {
                value = .integer(pick(whole)!)
            }
            guard !value.sameJSON(as: site.value) else { return nil }
            modify(&mutant, at: site.path[...]) { $0 = value }
            return (mutant, "set \(shown(site.path)) from \(site.value.text) to \(value.text)")
        }
    }
}
