import Foundation

/// A JSON value as the schema validator sees it. Numbers keep their exact value: a whole number
/// is an `Int128`, so a seed of 18446744073709551615 or an index of 9223372036854775808 compares
/// exactly with a schema's bound (a `Double` would round both to 2^64 and 2^63).
enum JSONTree: Sendable, Equatable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int128)
    case real(Double)
    case string(String)
    case array([JSONTree])
    case object([String: JSONTree])

    /// Parses JSON text with `JSONSerialization`, the reader the validator is specified against.
    init(parsing data: Data) throws {
        let any = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        guard let value = JSONTree(foundation: any) else {
            throw CocoaError(.propertyListReadCorrupt, userInfo: [NSDebugDescriptionErrorKey: "JSONSerialization returned a \(type(of: any))"])
        }
        self = value
    }

    /// The value `JSONSerialization` returned (nil for anything it does not return: an
    /// `NSDictionary` built by hand, say). On Linux a number is an `NSNumber` whose `objCType`
    /// tells a boolean ("c") from an integer ("q", "Q", "i", ...) from a double ("d"); integers
    /// beyond 64 bits arrive as `NSDecimalNumber`, read back from their digits. Testing `as? Bool`
    /// would not do: an `NSNumber` holding 1 answers to it.
    init?(foundation any: Any) {
        // The dynamic type first, then a cast that cannot miss: trying `as?` casts in turn cost
        // a millisecond for a 9 kB scenario (each failed cast of a value searches for a bridge).
        let type = Swift.type(of: any)
        if type == String.self {
            self = .string(any as! String)
        } else if type == [String: Any].self {
            var out: [String: JSONTree] = [:]
            for (k, element) in any as! [String: Any] {
                guard let v = JSONTree(foundation: element) else { return nil }
                out[k] = v
            }
            self = .object(out)
        } else if type == [Any].self {
            var out: [JSONTree] = []
            for element in any as! [Any] {
                guard let v = JSONTree(foundation: element) else { return nil }
                out.append(v)
            }
            self = .array(out)
        } else if type is NSDecimalNumber.Type {
            let digits = (any as! NSDecimalNumber).stringValue
            if let n = Int128(digits) { self = .integer(n) } else if let d = Double(digits) { self = .real(d) } else { return nil }
        } else if type is NSNumber.Type {
            let number = any as! NSNumber
            switch String(cString: number.objCType) {
            case "c", "B": self = .bool(number.boolValue)
            case "d", "f": self = .real(number.doubleValue)
            case "Q", "L", "I", "S", "C": self = .integer(Int128(number.uint64Value))
            default: self = .integer(Int128(number.int64Value))
            }
        } else if type is NSNull.Type {
            self = .null
        } else {
            return nil
        }
    }

    /// Compact JSON text with sorted keys: what the mutation tests hand to the decoder.
    var text: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .integer(let n): return String(n)
        case .real(let d): return d.description
        case .string(let s): return Self.quoted(s)
        case .array(let list): return "[" + list.map(\.text).joined(separator: ",") + "]"
        case .object(let o): return "{" + o.keys.sorted().map { Self.quoted($0) + ":" + o[$0]!.text }.joined(separator: ",") + "}"
        }
    }

    var description: String { text }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 { out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }

    /// What a message says the value is: "the string \"x\"", "an object with the keys a, b".
    var shown: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .integer, .real: return "the number \(text)"
        case .string: return "the string \(text.count > 62 ? String(text.prefix(60)) + "…\"" : text)"
        case .array(let list): return "a list of \(list.count)"
        case .object(let o): return o.isEmpty ? "an empty object" : "an object with the key\(o.count == 1 ? "" : "s") " + o.keys.sorted().joined(separator: ", ")
        }
    }

    /// JSON equality, as `const` and `enum` use it: 2 and 2.0 are the same number.
    func sameJSON(as other: JSONTree) -> Bool {
        switch (self, other) {
        case (.integer, _), (.real, _):
            guard let a = Self.numeric(self), let b = Self.numeric(other) else { return false }
            return Self.compare(a, b) == 0
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.sameJSON(as: $1) }
        case (.object(let a), .object(let b)):
            return a.count == b.count && a.allSatisfy { k, v in b[k].map { v.sameJSON(as: $0) } ?? false }
        default: return self == other
        }
    }

    enum Number { case integer(Int128), real(Double) }

    static func numeric(_ v: JSONTree) -> Number? {
        switch v {
        case .integer(let n): return .integer(n)
        case .real(let d): return .real(d)
        default: return nil
        }
    }

    /// -1, 0 or 1. Exact when both are whole numbers (a double with no fraction that fits
    /// `Int128` counts as one); otherwise compared as doubles.
    static func compare(_ a: Number, _ b: Number) -> Int {
        func exact(_ n: Number) -> Int128? {
            switch n {
            case .integer(let i): return i
            case .real(let d): return d.isFinite && d == d.rounded() ? Int128(exactly: d) : nil
            }
        }
        func double(_ n: Number) -> Double {
            switch n {
            case .integer(let i): return Double(i)
            case .real(let d): return d
            }
        }
        if let x = exact(a), let y = exact(b) { return x < y ? -1 : (x == y ? 0 : 1) }
        let x = double(a), y = double(b)
        return x < y ? -1 : (x == y ? 0 : 1)
    }

    /// Whether the value is a whole number, as JSON Schema's "integer" means it (1.0 is one).
    var isInteger: Bool {
        switch self {
        case .integer: return true
        case .real(let d): return d.isFinite && d == d.rounded()
        default: return false
        }
    }
}

/// A validator for the part of JSON Schema draft 2020-12 that `Specs/scenario.schema.json`
/// uses, written for the tests that hold that schema equal to the scenario decoder. It refuses,
/// when it loads a schema, every keyword it does not implement: a schema can never lean on a
/// keyword that would silently be ignored here and so be tested by nothing.
///
/// Validation stops at the first error and names the place in the document as a JSON path
/// (`$.operations[0].kind.main[2].work`), the place in the schema as a JSON pointer, and what
/// is wrong in one sentence. On success it can report which `$defs` and which `oneOf` / `anyOf`
/// branches took part, so a test can show that every part of the schema was exercised.
struct JSONSchemaValidator: Sendable {
    static let draft = "https://json-schema.org/draft/2020-12/schema"

    /// Keywords that decide validity, each implemented in `check(_:against:...)`.
    static let assertions: Set<String> = [
        "type", "properties", "required", "additionalProperties", "oneOf", "anyOf", "items", "prefixItems",
        "minItems", "maxItems", "enum", "const", "minimum", "maximum", "$ref", "minProperties", "maxProperties", "minLength",
    ]
    /// Keywords that decide nothing. Each is still checked on load: `$schema` must name draft
    /// 2020-12, `$defs` is where every `$ref` points, the texts are strings, and a `default` must
    /// itself be valid against the schema it sits in (a default the reader cannot read teaches
    /// the wrong thing).
    static let annotations: Set<String> = ["$schema", "$defs", "title", "description", "$comment", "default"]
    static let implemented = assertions.union(annotations)
    static let typeNames: Set<String> = ["null", "boolean", "object", "array", "number", "string", "integer"]

    /// Why a schema cannot be used: a keyword this validator does not implement, or a keyword
    /// whose value is not of the form the draft requires.
    struct SchemaError: Error, Equatable, CustomStringConvertible {
        var pointer: String
        var message: String
        var description: String { "schema \(pointer): \(message)" }
    }

    /// The first reason a document is not valid.
    struct Failure: Equatable, CustomStringConvertible {
        /// Where in the document, as a JSON path: `$` is the whole document.
        var path: String
        /// The schema location whose keyword failed, as a JSON pointer fragment (`#/$defs/Step`).
        var schemaPointer: String
        var message: String
        var description: String { "\(path): \(message) (\(schemaPointer))" }
    }

    let root: JSONTree
    let defs: [String: JSONTree]
    /// The schema compiled for checking: each keyword read once, at load, instead of looked up
    /// in a dictionary at every value of every document.
    private let compiled: Node
    private let compiledDefs: [String: Node]
    /// Every schema location a successful validation can report as used: each `$defs` entry
    /// and each branch of each `oneOf` / `anyOf`, with a readable label (`Step.work`).
    let coverable: [String: String]

    init(schema data: Data) throws(SchemaError) {
        let value: JSONTree
        do { value = try JSONTree(parsing: data) } catch { throw SchemaError(pointer: "#", message: "is not JSON: \(error)") }
        try self.init(schema: value)
    }

    init(schema: JSONTree) throws(SchemaError) {
        root = schema
        if case .object(let o) = schema, case .object(let d)? = o["$defs"] { defs = d } else { defs = [:] }
        var coverable: [String: String] = [:]
        try Self.checkSchema(schema, at: "#", isRoot: true, defs: defs, coverable: &coverable, label: "")
        self.coverable = coverable
        compiled = Node(schema, pointer: "#")
        var nodes: [String: Node] = [:]
        for (name, d) in defs { nodes[name] = Node(d, pointer: "#/$defs/" + Self.escape(name)) }
        compiledDefs = nodes
        // Defaults last: checking one needs the whole schema, `$ref`s included.
        try checkDefaults(schema, at: "#")
    }

    // MARK: Loading

    private static func checkSchema(_ schema: JSONTree, at pointer: String, isRoot: Bool, defs: [String: JSONTree],
                                    coverable: inout [String: String], label: String) throws(SchemaError) {
        if case .bool = schema { return }
        guard case .object(let o) = schema else { throw SchemaError(pointer: pointer, message: "a schema must be an object or true or false, not \(schema.shown)") }
        func fail(_ keyword: String, _ message: String) -> SchemaError { SchemaError(pointer: pointer + "/" + keyword, message: message) }
        func nonNegativeInteger(_ k: String, _ v: JSONTree) throws(SchemaError) {
            guard case .integer(let n) = v, n >= 0 else { throw fail(k, "must be a whole number of 0 or more, not \(v.shown)") }
        }
        func schemaList(_ k: String, _ v: JSONTree) throws(SchemaError) -> [JSONTree] {
            guard case .array(let list) = v, !list.isEmpty else { throw fail(k, "must be a non-empty list of schemas, not \(v.shown)") }
            return list
        }
        for key in o.keys.sorted() {
            let value = o[key]!
            guard implemented.contains(key) else {
                throw fail(key, "the keyword \"\(key)\" is not implemented by this validator, so a document could not be held to it; implemented: \(implemented.sorted().joined(separator: ", "))")
            }
            switch key {
            case "$schema":
                guard isRoot else { throw fail(key, "may appear at the top level only") }
                guard value == .string(draft) else { throw fail(key, "must be \"\(draft)\": this validator implements draft 2020-12 only, not \(value.shown)") }
            case "$defs":
                guard isRoot else { throw fail(key, "may appear at the top level only, where every $ref points") }
                guard case .object(let d) = value else { throw fail(key, "must be an object of schemas, not \(value.shown)") }
                for name in d.keys.sorted() {
                    let at = "#/$defs/" + name
                    coverable[at] = name
                    try checkSchema(d[name]!, at: at, isRoot: false, defs: defs, coverable: &coverable, label: name)
                }
            case "title", "description", "$comment":
                guard case .string = value else { throw fail(key, "must be a string, not \(value.shown)") }
            case "default", "const":
                break
            case "type":
                let names: [JSONTree]
                if case .array(let list) = value { names = list } else { names = [value] }
                var seen = Set<String>()
                guard !names.isEmpty else { throw fail(key, "must name at least one type") }
                for n in names {
                    guard case .string(let s) = n, typeNames.contains(s), seen.insert(s).inserted else {
                        throw fail(key, "must be one of \(typeNames.sorted().joined(separator: ", ")) or a list of distinct ones, not \(n.shown)")
                    }
                }
            case "properties":
                guard case .object(let props) = value else { throw fail(key, "must be an object of schemas, not \(value.shown)") }
                for name in props.keys.sorted() {
                    try checkSchema(props[name]!, at: pointer + "/properties/" + escape(name), isRoot: false, defs: defs, coverable: &coverable, label: label + "." + name)
                }
            case "required":
                guard case .array(let list) = value else { throw fail(key, "must be a list of strings, not \(value.shown)") }
                var seen = Set<String>()
                for n in list {
                    guard case .string(let s) = n, seen.insert(s).inserted else { throw fail(key, "must be a list of distinct strings, not one holding \(n.shown)") }
                }
            case "additionalProperties", "items":
                try checkSchema(value, at: pointer + "/" + key, isRoot: false, defs: defs, coverable: &coverable, label: label)
            case "prefixItems":
                for (i, s) in try schemaList(key, value).enumerated() {
                    try checkSchema(s, at: "\(pointer)/\(key)/\(i)", isRoot: false, defs: defs, coverable: &coverable, label: "\(label)[\(i)]")
                }
            case "oneOf", "anyOf":
                for (i, s) in try schemaList(key, value).enumerated() {
                    let at = "\(pointer)/\(key)/\(i)"
                    let branch = label + "." + branchLabel(s, index: i)
                    coverable[at] = branch
                    try checkSchema(s, at: at, isRoot: false, defs: defs, coverable: &coverable, label: branch)
                }
            case "minItems", "maxItems", "minProperties", "maxProperties", "minLength":
                try nonNegativeInteger(key, value)
            case "enum":
                guard case .array(let list) = value, !list.isEmpty else { throw fail(key, "must be a non-empty list, not \(value.shown)") }
            case "minimum", "maximum":
                guard JSONTree.numeric(value) != nil else { throw fail(key, "must be a number, not \(value.shown)") }
            case "$ref":
                guard case .string(let ref) = value, ref.hasPrefix("#/$defs/") else {
                    throw fail(key, "must be \"#/$defs/NAME\": this validator resolves references into the top-level $defs only, not \(value.shown)")
                }
                guard defs[String(ref.dropFirst("#/$defs/".count))] != nil else { throw fail(key, "points to \(ref), which $defs does not define") }
            default:
                preconditionFailure("keyword \(key) is listed as implemented but has no check")
            }
        }
    }

    /// A oneOf branch's name for reports: the one key it requires (a case name), its constant,
    /// or its type.
    static func branchLabel(_ s: JSONTree, index: Int) -> String {
        guard case .object(let o) = s else { return String(index) }
        if case .array(let r)? = o["required"], r.count == 1, case .string(let k) = r[0] { return k }
        if let c = o["const"] { return c.text }
        if case .string(let ref)? = o["$ref"] { return String(ref.split(separator: "/").last ?? "") }
        if case .string(let t)? = o["type"] { return t }
        return String(index)
    }

    static func escape(_ key: String) -> String {
        key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    private func checkDefaults(_ schema: JSONTree, at pointer: String) throws(SchemaError) {
        guard case .object(let o) = schema else { return }
        if let d = o["default"] {
            var ignored = Set<String>()
            if let failure = check(d, against: Node(schema, pointer: pointer), path: .start("$"), quiet: false, coverage: &ignored) {
                throw SchemaError(pointer: pointer + "/default", message: "the default \(d.text) is not valid here: \(failure)")
            }
        }
        for (key, value) in o.sorted(by: { $0.key < $1.key }) {
            switch key {
            case "properties", "$defs":
                guard case .object(let children) = value else { continue }
                for (name, child) in children.sorted(by: { $0.key < $1.key }) { try checkDefaults(child, at: "\(pointer)/\(key)/\(Self.escape(name))") }
            case "oneOf", "anyOf", "prefixItems":
                guard case .array(let list) = value else { continue }
                for (i, child) in list.enumerated() { try checkDefaults(child, at: "\(pointer)/\(key)/\(i)") }
            case "items", "additionalProperties":
                try checkDefaults(value, at: "\(pointer)/\(key)")
            default: break
            }
        }
    }

    // MARK: Validating

    /// The first reason `instance` is not valid against the schema, or nil when it is.
    func validate(_ instance: JSONTree) -> Failure? {
        var ignored = Set<String>()
        return validate(instance, coverage: &ignored)
    }

    /// As `validate(_:)`; on success `coverage` gains the pointers (keys of `coverable`) of the
    /// `$defs` and `oneOf` / `anyOf` branches that took part.
    func validate(_ instance: JSONTree, coverage: inout Set<String>) -> Failure? {
        var used = Set<String>()
        let failure = check(instance, against: compiled, path: .start("$"), quiet: false, coverage: &used)
        if failure == nil { coverage.formUnion(used) }
        return failure
    }

    /// JSON text, parsed with `JSONSerialization`: text that is not JSON fails at `$`.
    func validate(json data: Data) -> Failure? {
        do { return validate(try JSONTree(parsing: data)) } catch {
            return Failure(path: "$", schemaPointer: "#", message: "is not JSON: \(error)")
        }
    }

    /// A place in the document, rendered only when a failure names it: building the text of
    /// every place visited made validation several times slower.
    indirect enum Trail: Sendable {
        case start(String)
        case key(Trail, String)
        case index(Trail, Int)

        var depth: Int {
            switch self {
            case .start: return 0
            case .key(let t, _), .index(let t, _): return t.depth + 1
            }
        }
        /// As a JSON path: `$.driver[0].action`.
        var path: String {
            switch self {
            case .start(let s): return s
            case .key(let t, let k): return t.path + JSONSchemaValidator.pathSegment(k)
            case .index(let t, let i): return t.path + "[\(i)]"
            }
        }
    }

    /// One schema (a definition, a property's, a branch's), its keywords read once. Immutable.
    final class Node: Sendable {
        let pointer: String
        /// A schema that is `true` or `false`.
        let constant: Bool?
        let types: [String]?
        let constValue: JSONTree?
        let enumValues: [JSONTree]?
        let minimum: JSONTree?, maximum: JSONTree?
        let properties: [String: Node]
        let required: [String]
        let additional: Node?
        let additionalFalse: Bool
        let minProperties: Int?, maxProperties: Int?, minItems: Int?, maxItems: Int?
        /// The fewest characters a string may have, counted as the draft counts them: code
        /// points (RFC 8259's characters), not Swift's grapheme clusters.
        let minLength: Int?
        let prefixItems: [Node]
        let items: Node?
        let ref: String?
        let oneOf: [Node], anyOf: [Node]
        /// The branch's name in messages (`work`, `"self"`), as `branchLabel` gives it.
        let label: String
        /// For a `oneOf` whose every branch is a closed object requiring one key of its own (a
        /// one-key enumeration), the branch of each key. An object with exactly one key can
        /// match only the branch of that key, and any other value matches none; so looking the
        /// key up gives the answer of trying every branch, without trying them (17 for a step).
        let discriminator: [String: Node]?

        init(_ schema: JSONTree, pointer: String, index: Int = 0) {
            self.pointer = pointer
            label = JSONSchemaValidator.branchLabel(schema, index: index)
            let o: [String: JSONTree]
            if case .object(let x) = schema { o = x; constant = nil } else { o = [:]; constant = schema == .bool(true) }
            func count(_ k: String) -> Int? { if case .integer(let n)? = o[k] { return Int(clamping: n) }; return nil }
            func list(_ k: String) -> [Node] {
                guard case .array(let a)? = o[k] else { return [] }
                return a.enumerated().map { Node($1, pointer: "\(pointer)/\(k)/\($0)", index: $0) }
            }
            switch o["type"] {
            case .string(let t)?: types = [t]
            case .array(let a)?: types = a.compactMap { if case .string(let t) = $0 { return t }; return nil }
            default: types = nil
            }
            constValue = o["const"]
            if case .array(let a)? = o["enum"] { enumValues = a } else { enumValues = nil }
            minimum = o["minimum"]
            maximum = o["maximum"]
            var props: [String: Node] = [:]
            if case .object(let p)? = o["properties"] {
                for (k, v) in p { props[k] = Node(v, pointer: pointer + "/properties/" + JSONSchemaValidator.escape(k)) }
            }
            properties = props
            if case .array(let r)? = o["required"] { required = r.compactMap { if case .string(let k) = $0 { return k }; return nil } } else { required = [] }
            additional = o["additionalProperties"].map { Node($0, pointer: pointer + "/additionalProperties") }
            additionalFalse = o["additionalProperties"] == .bool(false)
            minProperties = count("minProperties"); maxProperties = count("maxProperties")
            minItems = count("minItems"); maxItems = count("maxItems")
            minLength = count("minLength")
            prefixItems = list("prefixItems")
            items = o["items"].map { Node($0, pointer: pointer + "/items") }
            if case .string(let r)? = o["$ref"] { ref = r } else { ref = nil }
            oneOf = list("oneOf")
            anyOf = list("anyOf")
            var byKey: [String: Node] = [:]
            for branch in oneOf {
                guard branch.types == ["object"], branch.additionalFalse, branch.required.count == 1,
                      byKey[branch.required[0]] == nil else { byKey = [:]; break }
                byKey[branch.required[0]] = branch
            }
            discriminator = byKey.isEmpty ? nil : byKey
        }
    }

    /// What a failing trial reports: a choice of a `oneOf` is first tried quietly, and the
    /// sentence is written only when no choice, or more than one, fits.
    static let quietFailure = Failure(path: "", schemaPointer: "", message: "")

    private func check(_ instance: JSONTree, against s: Node, path: Trail, quiet: Bool, coverage: inout Set<String>) -> Failure? {
        func failure(_ keyword: String, _ message: @autoclosure () -> String) -> Failure {
            quiet ? Self.quietFailure : Failure(path: path.path, schemaPointer: keyword.isEmpty ? s.pointer : s.pointer + "/" + keyword, message: message())
        }
        if let constant = s.constant {
            return constant ? nil : failure("", "is \(instance.shown), but nothing is allowed here")
        }
        if let names = s.types, !names.contains(where: { Self.has(instance, type: $0) }) {
            return failure("type", "is \(instance.shown), but must be \(names.map(Self.article).joined(separator: " or "))")
        }
        if let c = s.constValue, !instance.sameJSON(as: c) {
            return failure("const", "is \(instance.shown), but must be \(c.text)")
        }
        if let values = s.enumValues, !values.contains(where: { instance.sameJSON(as: $0) }) {
            return failure("enum", "is \(instance.shown), but must be one of: \(values.map(\.text).joined(separator: ", "))"
                + (Self.nearest(to: instance, among: values).map { "; did you mean \($0.text)?" } ?? ""))
        }
        if let number = JSONTree.numeric(instance) {
            if let bound = s.minimum, let b = JSONTree.numeric(bound), JSONTree.compare(number, b) < 0 {
                return failure("minimum", "is \(instance.text), but must be at least \(bound.text)")
            }
            if let bound = s.maximum, let b = JSONTree.numeric(bound), JSONTree.compare(number, b) > 0 {
                return failure("maximum", "is \(instance.text), but must be at most \(bound.text)")
            }
        }
        if case .object(let o) = instance {
            for key in s.required where o[key] == nil {
                return failure("required", "has no key \"\(key)\", which is required here")
            }
            if let n = s.minProperties, o.count < n { return failure("minProperties", "has \(o.count) keys, but must have at least \(n)") }
            if let n = s.maxProperties, o.count > n { return failure("maxProperties", "has \(o.count) keys, but must have at most \(n)") }
            // In sorted order, so that the first error is the same in every process.
            for key in o.count > 1 ? o.keys.sorted() : Array(o.keys) {
                if let p = s.properties[key] {
                    if let f = check(o[key]!, against: p, path: .key(path, key), quiet: quiet, coverage: &coverage) { return f }
                } else if s.additionalFalse {
                    return failure("additionalProperties", {
                        let allowed = s.properties.keys.sorted()
                        let nearest = Self.nearest(to: .string(key), among: allowed.map(JSONTree.string)).map { "; did you mean \($0.text)?" } ?? ""
                        let list = allowed.isEmpty ? "no key is allowed here" : "allowed here: " + allowed.joined(separator: ", ")
                        return "has the key \(JSONTree.quoted(key)), which is unknown\(nearest) (\(list))"
                    }())
                } else if let extra = s.additional {
                    if let f = check(o[key]!, against: extra, path: .key(path, key), quiet: quiet, coverage: &coverage) { return f }
                }
            }
        }
        if case .string(let text) = instance, let n = s.minLength, text.unicodeScalars.count < n {
            return failure("minLength", "is \(instance.shown), but must have at least \(n) character" + (n == 1 ? "" : "s"))
        }
        if case .array(let list) = instance {
            if let n = s.minItems, list.count < n { return failure("minItems", "is a list of \(list.count), but must hold at least \(n)") }
            if let n = s.maxItems, list.count > n { return failure("maxItems", "is a list of \(list.count), but must hold at most \(n)") }
            for (i, (element, schema)) in zip(list, s.prefixItems).enumerated() {
                if let f = check(element, against: schema, path: .index(path, i), quiet: quiet, coverage: &coverage) { return f }
            }
            if let items = s.items {
                for i in list.indices.dropFirst(s.prefixItems.count) {
                    if let f = check(list[i], against: items, path: .index(path, i), quiet: quiet, coverage: &coverage) { return f }
                }
            }
        }
        if let ref = s.ref {
            if let f = check(instance, against: compiledDefs[String(ref.dropFirst("#/$defs/".count))]!, path: path, quiet: quiet, coverage: &coverage) { return f }
            coverage.insert(ref)
        }
        if !s.oneOf.isEmpty, let f = choose(instance, s, "oneOf", s.oneOf, path: path, quiet: quiet, coverage: &coverage) { return f }
        if !s.anyOf.isEmpty, let f = choose(instance, s, "anyOf", s.anyOf, path: path, quiet: quiet, coverage: &coverage) { return f }
        return nil
    }

    /// `oneOf` (exactly one branch fits) or `anyOf` (at least one does); the branches that fit
    /// add their coverage.
    private func choose(_ instance: JSONTree, _ s: Node, _ keyword: String, _ branches: [Node], path: Trail, quiet: Bool, coverage: inout Set<String>) -> Failure? {
        func failure(_ message: @autoclosure () -> String) -> Failure {
            quiet ? Self.quietFailure : Failure(path: path.path, schemaPointer: s.pointer + "/" + keyword, message: message())
        }
        var matched: [(branch: Node, used: Set<String>)] = []
        var candidates = branches
        if keyword == "oneOf", let byKey = s.discriminator {
            if case .object(let o) = instance, o.count == 1, let only = byKey[o.keys.first!] { candidates = [only] } else { candidates = [] }
        }
        for branch in candidates {
            var used = Set<String>()
            if check(instance, against: branch, path: path, quiet: true, coverage: &used) == nil { matched.append((branch, used)) }
        }
        if keyword == "oneOf" && matched.count > 1 {
            return failure("matches \(matched.count) of the choices (\(matched.map(\.branch.label).joined(separator: ", "))), but must match exactly one")
        }
        if matched.isEmpty {
            if quiet { return Self.quietFailure }
            // Again, aloud: the sentences of each choice, to pick the one that helps.
            var failures: [(depth: Int, failure: Failure)] = []
            for branch in branches {
                var ignored = Set<String>()
                if let f = check(instance, against: branch, path: path, quiet: false, coverage: &ignored) { failures.append((depthOf(f.path), f)) }
            }
            return explain(instance, branches, failures, path: path, pointer: s.pointer + "/" + keyword)
        }
        for m in matched {
            coverage.formUnion(m.used)
            coverage.insert(m.branch.pointer)
        }
        return nil
    }

    /// How many steps into the document a rendered path goes (keys and indices).
    private func depthOf(_ path: String) -> Int {
        var depth = 0, inQuotes = false, escaped = false
        for c in path.unicodeScalars {
            if inQuotes {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inQuotes = false }
                continue
            }
            if c == "\"" { inQuotes = true } else if c == "." || c == "[" { depth += 1 }
        }
        return depth
    }

    /// Why no choice matched. When one choice got further into the value than the others (the
    /// object has the key of one case, and that case's content is wrong), its error is the one
    /// that helps; otherwise the value matches no choice at all, and the message lists them.
    private func explain(_ instance: JSONTree, _ branches: [Node], _ failures: [(depth: Int, failure: Failure)], path: Trail, pointer: String) -> Failure {
        if let deepest = failures.max(by: { $0.depth < $1.depth }), deepest.depth > path.depth { return deepest.failure }
        let labels = branches.map(\.label)
        var message = "is \(instance.shown), but must be one of: \(labels.joined(separator: ", "))"
        if case .object(let o) = instance, o.count == 1, let key = o.keys.first,
           let nearest = Self.nearest(to: .string(key), among: labels.map(JSONTree.string)) {
            message += "; did you mean \(nearest.text)?"
        }
        return Failure(path: path.path, schemaPointer: pointer, message: message)
    }

    static func has(_ v: JSONTree, type: String) -> Bool {
        switch (type, v) {
        case ("null", .null), ("boolean", .bool), ("object", .object), ("array", .array), ("string", .string),
             ("number", .integer), ("number", .real): return true
        case ("integer", _): return v.isInteger
        default: return false
        }
    }

    static func article(_ type: String) -> String {
        switch type {
        case "null": return "null"
        case "boolean": return "true or false"
        case "integer": return "a whole number"
        case "array": return "a list"
        case "object": return "an object"
        default: return "a " + type
        }
    }

    /// The candidate string nearest to a string value, when it is near (at most 2 edits, or a
    /// third of its length up to 3; a swap of neighbours is one edit): the "did you mean" of a
    /// misspelt key or case.
    static func nearest(to v: JSONTree, among candidates: [JSONTree]) -> JSONTree? {
        guard case .string(let s) = v else { return nil }
        var best: (JSONTree, Int)?
        for candidate in candidates {
            guard case .string(let c) = candidate else { continue }
            let d = editDistance(Array(s.unicodeScalars), Array(c.unicodeScalars))
            if d <= min(3, max(2, c.unicodeScalars.count / 3)), d < (best?.1 ?? .max) { best = (candidate, d) }
        }
        return best?.0
    }

    /// Insertions, deletions, substitutions and swaps of neighbours (optimal string alignment).
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }

    /// `.key`, or `["a key"]` when the key is not a plain identifier.
    static func pathSegment(_ key: String) -> String {
        let plain = !key.isEmpty && key.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" }
            && !("0"..."9").contains(key.unicodeScalars.first!)
        return plain ? "." + key : "[" + JSONTree.quoted(key) + "]"
    }
}
