import Foundation
import OperationSpec
import ReferenceEngine

/// Bad input from a user: one sentence that says what is wrong and where. The command line
/// prints it and exits with status 2; it never traps.
public struct InputError: Error, CustomStringConvertible, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }

    /// A value that was read but is not allowed, found after decoding: the field, and the
    /// sentence (after "SOURCE: ") given the field's name and " at line L, column C" (empty when
    /// the value cannot be located).
    struct FieldProblem: Sendable {
        var path: [JSONPathSegment]
        var sentence: @Sendable (_ field: String, _ at: String) -> String

        init(path: [JSONPathSegment], sentence: @escaping @Sendable (_ field: String, _ at: String) -> String) {
            self.path = path
            self.sentence = sentence
        }

        /// "FIELD WHAT at line L, column C REQUIREMENT": `names an unknown rule 'X'`, `; did you mean Y?`.
        init(path: [JSONPathSegment], what: String, requirement: String) {
            self.init(path: path) { field, at in "\(field) \(what)\(at)\(requirement)" }
        }
    }

    /// The sentence for a field problem of a document read from `source`.
    static func field(_ problem: FieldProblem, source: String, data: Data?) -> InputError {
        let diagnosis = data.map(JSONDiagnosis.init)
        let at = diagnosis.flatMap { d in d.node(at: problem.path).map { " at " + d.at($0.offset) } } ?? ""
        let sentence = problem.sentence(JSONPathSegment.render(problem.path), at)
        return InputError(JSONDiagnosis.oneLine("\(JSONDiagnosis.oneLine(source)): \(sentence)", limit: 1000))
    }

    /// A key that has no meaning where it stands, refused rather than passed over (a misspelt
    /// "queuePriorty" would otherwise run and quietly mean something else): the place, the key
    /// and where it is, the nearest key that does mean something there, and `clause`, the keys
    /// allowed there. `source` is already on one line.
    package static func unknownKey(
        _ key: String, in path: [JSONPathSegment], at position: String, allowed: [String], clause: String,
        source: String
    ) -> InputError {
        let sentence =
            "\(source): \(JSONPathSegment.render(path)) has an unknown key \(JSONDiagnosis.quoted(key)) at \(position)"
            + KeySuggestion.clause(for: key, among: allowed) + " (\(clause))"
        return InputError(JSONDiagnosis.oneLine(sentence, limit: 1000))
    }

    /// Turns a decoding failure into one sentence naming the source, the field, what is there
    /// (with its line and column) and what is allowed. With `data`, the document that failed,
    /// the sentence can say where; with `retry`, which decodes data the same way, a number the
    /// decoder refused without saying where (Foundation's reader loses the field) is found again.
    package static func decoding(
        _ error: Error, source: String, data: Data? = nil, retry: ((Data) -> Error?)? = nil
    ) -> InputError {
        let source = JSONDiagnosis.oneLine(source)
        let diagnosis = data.map(JSONDiagnosis.init)
        func one(_ s: String) -> InputError { InputError(JSONDiagnosis.oneLine(s, limit: 1000)) }
        /// What stands at `path`, and " at line L, column C"; `fallback` when it cannot be found.
        func found(_ path: [JSONPathSegment], _ fallback: String) -> (what: String, at: String) {
            guard let d = diagnosis, let node = d.node(at: path) else { return (fallback, "") }
            return (JSONDiagnosis.describe(node), " at " + d.at(node.offset))
        }
        switch error {
        case DecodingError.dataCorrupted(let ctx)
        where ctx.codingPath.isEmpty && (ctx.underlyingError != nil || ctx.debugDescription.contains("not valid JSON")):
            return unreadable(source: source, diagnosis, retry: retry)
        case is DecodingError where diagnosis != nil && diagnosis?.root == nil:
            // The decoder reads lazily: it stopped at a field before the place where the text
            // stops being JSON. That place comes first: nothing else can be located before it.
            return unreadable(source: source, diagnosis, retry: retry)
        case DecodingError.dataCorrupted(let ctx):
            let path = ctx.codingPath.map(JSONPathSegment.init)
            let (what, at) = found(path, "a value it cannot use")
            let debug = ctx.debugDescription
            // Validation inside a type's own decoder says what is required: "must be ...".
            if debug.hasPrefix("must ") {
                return one("\(source): \(JSONPathSegment.render(path)) is \(what)\(at), but \(debug)")
            }
            if let typeName = rawEnumeration(debug) {
                let allowed =
                    enumerationValues[typeName].map { "must be one of: " + $0.joined(separator: ", ") }
                    ?? "is not a value of \(typeName)"
                return one("\(source): \(JSONPathSegment.render(path)) is \(what)\(at), but \(allowed)")
            }
            return one("\(source): \(JSONPathSegment.render(path)) is \(what)\(at): \(debug)")
        case DecodingError.keyNotFound(let key, let ctx):
            let path = ctx.codingPath.map(JSONPathSegment.init)
            let (_, at) = found(path, "")
            let object = path.isEmpty ? "the top-level object" : "the object \(JSONPathSegment.render(path))"
            return one(
                "\(source): \(object)\(at) has no field \(JSONDiagnosis.quoted(key.stringValue)), which is required")
        case DecodingError.typeMismatch(let type, let ctx):
            let path = ctx.codingPath.map(JSONPathSegment.init)
            if ctx.debugDescription.contains("number of keys") {
                // A synthesized enumeration's decoder: not exactly one key it knows.
                let rule = "(an enumeration value is an object whose one key names its case: Specs/scenario-format.md)"
                guard let d = diagnosis, let node = d.node(at: path) else {
                    return one(
                        "\(source): \(JSONPathSegment.render(path)) is not an object with one key that names a case of "
                            + "\(type) \(rule)"
                    )
                }
                let what = JSONDiagnosis.describe(node)
                let why =
                    what.hasPrefix("an object with the key ")
                    ? "that is not a case of \(type)" : "a \(type) has exactly one key"
                return one(
                    "\(source): \(JSONPathSegment.render(path)) is \(what) at \(d.at(node.offset)), but \(why) \(rule)")
            }
            let (what, at) = found(path, foundInDebugDescription(ctx.debugDescription))
            return one(
                "\(source): \(JSONPathSegment.render(path)) is \(what)\(at), but must be \(requirement(type, at: path))"
            )
        case DecodingError.valueNotFound(let type, let ctx):
            let path = ctx.codingPath.map(JSONPathSegment.init)
            let (what, at) = found(path, "missing")
            return one(
                "\(source): \(JSONPathSegment.render(path)) is \(what)\(at), but must be \(requirement(type, at: path))"
            )
        default:
            return one("\(source) could not be read: \(error)")
        }
    }

    /// The sentence for a document the decoder could not read at all: not JSON (where, and a
    /// hint), empty, nested too deep, or holding a number that does not fit its field.
    static func unreadable(source: String, _ diagnosis: JSONDiagnosis?, retry: ((Data) -> Error?)?) -> InputError {
        guard let diagnosis else {
            return InputError("\(source) is not valid JSON, or holds a number that does not fit its field")
        }
        switch diagnosis.outcome {
        case .empty(let whiteSpaceOnly):
            return InputError(
                whiteSpaceOnly
                    ? "\(source) holds only white space, but must hold one JSON object"
                    : "\(source) is empty, but must hold one JSON object")
        case .invalid(_, let clause):
            return InputError(JSONDiagnosis.oneLine("\(source) is not valid JSON: \(clause)", limit: 1000))
        case .tooDeep(let offset):
            let limit = JSONDiagnosis.depthLimit
            return InputError(
                "\(source) nests objects and lists deeper than \(limit) levels (level \(limit + 1) opens at "
                    + "\(diagnosis.at(offset))); the reader allows at most \(limit)"
            )
        case .document:
            if let retry, let message = numberThatDoesNotFit(source: source, diagnosis, retry: retry) { return message }
            return InputError(
                "\(source) could not be decoded: its text is valid JSON, but the reader refused a value "
                    + "in it without saying which"
            )
        }
    }

    /// Foundation's decoder refuses a number that does not fit its field (1e30 for an Int, -1 for
    /// a UInt64, 3.5 for an Int) without saying which field. Each number that might not fit is
    /// replaced by a string, so that the decoder reports the first one it reaches with its path
    /// and type; one that fits is put back, and the search goes on, one decode per number.
    private static func numberThatDoesNotFit(
        source: String, _ diagnosis: JSONDiagnosis, retry: (Data) -> Error?
    ) -> InputError? {
        let candidates = diagnosis.numbers().filter { candidate in
            guard case .number(let text) = candidate.node.value else { return false }
            return text.contains { "-.eE".contains($0) } || text.count >= 19
        }
        guard !candidates.isEmpty else { return nil }
        var replaced = Array(repeating: true, count: candidates.count)
        let sentinel = Array("\"#\"".utf8)
        for _ in 0...candidates.count {
            var text: [UInt8] = []
            text.reserveCapacity(diagnosis.bytes.count)
            var cursor = 0
            for (k, c) in candidates.enumerated() where replaced[k] {
                guard case .number(let literal) = c.node.value else { continue }
                text += diagnosis.bytes[cursor..<c.node.offset]
                text += sentinel
                cursor = c.node.offset + literal.utf8.count
            }
            text += diagnosis.bytes[cursor...]
            guard case DecodingError.typeMismatch(let type, let ctx)? = retry(Data(text)) else { return nil }
            let path = ctx.codingPath.map(JSONPathSegment.init)
            guard let k = candidates.firstIndex(where: { $0.path == path }), replaced[k],
                  case .number(let literal) = candidates[k].node.value else { return nil }
            if fits(literal, type) { replaced[k] = false; continue }
            let at = diagnosis.at(candidates[k].node.offset)
            return InputError(
                JSONDiagnosis.oneLine(
                    "\(source): \(JSONPathSegment.render(path)) is \(JSONDiagnosis.oneLine(literal, limit: 40)) at "
                        + "\(at), but must be \(requirement(type, at: path))",
                    limit: 1000))
        }
        return nil
    }

    /// Whether the decoder reads the number `literal` as a `type`.
    private static func fits(_ literal: String, _ type: Any.Type) -> Bool {
        let data = Data("[\(literal)]".utf8)
        func reads<T: Decodable>(_: T.Type) -> Bool { (try? JSONDecoder().decode([T].self, from: data)) != nil }
        switch ObjectIdentifier(type) {
        case ObjectIdentifier(Int.self): return reads(Int.self)
        case ObjectIdentifier(Int64.self): return reads(Int64.self)
        case ObjectIdentifier(Int32.self): return reads(Int32.self)
        case ObjectIdentifier(UInt64.self): return reads(UInt64.self)
        case ObjectIdentifier(UInt.self): return reads(UInt.self)
        case ObjectIdentifier(UInt32.self): return reads(UInt32.self)
        case ObjectIdentifier(Double.self): return reads(Double.self)
        case ObjectIdentifier(Float.self): return reads(Float.self)
        default: return false
        }
    }

    /// What a field of `type` at `path` may hold, as the end of "must be ...".
    static func requirement(_ type: Any.Type, at path: [JSONPathSegment]) -> String {
        func whole<T: FixedWidthInteger>(_: T.Type) -> String {
            if let range = fieldRange(path) { return "a whole number from \(range.lowerBound) to \(range.upperBound)" }
            return "a whole number from \(T.min) to \(T.max)"
        }
        switch ObjectIdentifier(type) {
        case ObjectIdentifier(Int.self): return whole(Int.self)
        case ObjectIdentifier(Int64.self): return whole(Int64.self)
        case ObjectIdentifier(Int32.self): return whole(Int32.self)
        case ObjectIdentifier(UInt64.self): return whole(UInt64.self)
        case ObjectIdentifier(UInt.self): return whole(UInt.self)
        case ObjectIdentifier(UInt32.self): return whole(UInt32.self)
        case ObjectIdentifier(Double.self):
            return "a number from \(-Double.greatestFiniteMagnitude) to \(Double.greatestFiniteMagnitude)"
        case ObjectIdentifier(Float.self):
            return "a number from \(-Float.greatestFiniteMagnitude) to \(Float.greatestFiniteMagnitude)"
        case ObjectIdentifier(String.self): return "a string in double quotes"
        case ObjectIdentifier(Bool.self): return "true or false"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") { return "a list [...]" }
            if name.hasPrefix("Dictionary") { return "an object {...}" }
            return "a \(name)"
        }
    }

    /// The ranges the harness allows for some whole-number fields, narrower than their type's:
    /// what validation enforces, said already when the number does not even fit the type.
    static func fieldRange(_ path: [JSONPathSegment]) -> ClosedRange<Int>? {
        let keys = path.compactMap { if case .key(let k) = $0 { return k }; return nil }
        let last = keys.last, before = keys.dropLast().last
        switch (before, last) {
        case ("work"?, "_0"?): return Step.workRange
        case ("repeat"?, "_0"?): return Step.repeatRange
        case ("await"?, "timeout"?): return Step.awaitTimeoutRange
        case (_, "maxConcurrent"?), ("setMaxConcurrent"?, "_1"?): return QueueConfig.defaultMax...Int.max
        case ("options"?, "size"?), (nil, "size"?): return GeneratorOptions.sizeRange
        case ("options"?, "misuseRate"?), (nil, "misuseRate"?), ("options"?, "flawRate"?), (nil, "flawRate"?):
            return GeneratorOptions.rateRange
        default: return nil
        }
    }

    /// The type named by Foundation's "Cannot initialize X from invalid String value y".
    private static func rawEnumeration(_ debug: String) -> String? {
        guard debug.hasPrefix("Cannot initialize ") else { return nil }
        return debug.dropFirst("Cannot initialize ".count).split(separator: " ").first.map(String.init)
    }

    /// The values of the string enumerations inputs hold, for "must be one of: ...".
    static let enumerationValues: [String: [String]] = [
        "StateKey": StateKey.allCases.map(\.rawValue),
        "Observation": Observation.allCases.map(\.rawValue),
        "Profile": Profile.allCases.map(\.rawValue),
        "MisuseKind": MisuseKind.allCases.map(\.rawValue),
        "Fault": Fault.allCases.map(\.rawValue),
        "Method": OperationSpec.Method.allCases.map(\.rawValue),
        "Kind": Expectations.Kind.allCases.map(\.rawValue),
    ]

    /// "a string" from "Expected to decode Int but found a string instead.", when the document
    /// is not at hand.
    private static func foundInDebugDescription(_ debug: String) -> String {
        guard let r = debug.range(of: "but found "),
            let end = debug.range(of: " instead", range: r.upperBound..<debug.endIndex)
        else { return "a value of another kind" }
        return String(debug[r.upperBound..<end.lowerBound])
    }
}
