import Foundation

/// A JSON document held in memory and written in one style of our own, so that a scenario or
/// a finding file is the same bytes on every machine and every Foundation: keys sorted by their
/// UTF-8 bytes, two spaces a level, `"key": value`, empty lists and objects as `[]` and `{}`, a
/// newline at the end. (Foundation's pretty printing writes `"key" : value` and an empty list
/// over two lines; a file people edit by hand should not look like that.)
///
/// Numbers keep the text they were written with: a seed above `Int64.max` or a double that
/// must round-trip exactly never passes through a type that could change it.
package enum JSONValue: Sendable, Equatable {
    /// Members in any order: the writer sorts them, so no order here reaches the output.
    case object([(key: String, value: JSONValue)])
    case array([JSONValue])
    case string(String)
    case number(String)
    case bool(Bool)
    case null
    /// The same value, written on one line (`{"a": 1, "b": [2]}`): how a trace file writes each
    /// event, so a trace of thousands of events is a line per event that `grep` and `diff` can
    /// read. Only the layout differs: it equals, and encodes as, the value it wraps.
    indirect case oneLine(JSONValue)

    package static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.oneLine(let x), _): return x == b
        case (_, .oneLine(let y)): return a == y
        case (.object(let x), .object(let y)):
            return x.count == y.count
                && zip(sorted(x), sorted(y)).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case (.array(let x), .array(let y)): return x == y
        case (.string(let x), .string(let y)), (.number(let x), .number(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        case (.null, .null): return true
        default: return false
        }
    }

    static func int<T: BinaryInteger>(_ n: T) -> JSONValue { .number(String(n)) }

    /// A double as the shortest text that reads back as the same double (Swift's `description`,
    /// which is that), so a thread priority survives any number of rewrites.
    static func double(_ x: Double) -> JSONValue {
        // No scenario holds one that is not finite: `Scenario.problems()` refuses it on reading,
        // and neither the generator nor the shrinker makes one.
        precondition(x.isFinite, "a JSON number must be finite, not \(x)")
        return .number(x.description)
    }

    /// The tree the diagnosis reader read, with the numbers' text as written.
    package init(_ node: JSONDiagnosis.Node) {
        switch node.value {
        case .object(let members): self = .object(members.map { ($0.key, JSONValue($0.node)) })
        case .array(let items): self = .array(items.map(JSONValue.init))
        case .string(let s): self = .string(s)
        case .number(let text): self = .number(text)
        case .bool(let b): self = .bool(b)
        case .null: self = .null
        }
    }

    /// An object's member, or nil.
    subscript(key: String) -> JSONValue? {
        if case .oneLine(let inner) = self { return inner[key] }
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    // MARK: writing

    /// The document's bytes, ending with a newline.
    var text: Data {
        var out: [UInt8] = []
        write(into: &out, indent: 0)
        out.append(0x0A)
        return Data(out)
    }

    private static func sorted(_ members: [(key: String, value: JSONValue)]) -> [(key: String, value: JSONValue)] {
        members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }

    private func write(into out: inout [UInt8], indent: Int, flat: Bool = false) {
        // One line: a space after each comma, none inside the brackets.
        func newline(_ level: Int, first: Bool = false) {
            guard !flat else { if !first { out.append(0x20) }; return }
            out.append(0x0A)
            out += repeatElement(0x20, count: 2 * level)
        }
        switch self {
        case .oneLine(let inner): inner.write(into: &out, indent: indent, flat: true)
        case .object(let members):
            guard !members.isEmpty else { out += Array("{}".utf8); return }
            out.append(UInt8(ascii: "{"))
            for (k, member) in Self.sorted(members).enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                newline(indent + 1, first: k == 0)
                Self.writeString(member.key, into: &out)
                out += Array(": ".utf8)
                member.value.write(into: &out, indent: indent + 1, flat: flat)
            }
            if !flat { newline(indent) }
            out.append(UInt8(ascii: "}"))
        case .array(let items):
            guard !items.isEmpty else { out += Array("[]".utf8); return }
            out.append(UInt8(ascii: "["))
            for (k, item) in items.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                newline(indent + 1, first: k == 0)
                item.write(into: &out, indent: indent + 1, flat: flat)
            }
            if !flat { newline(indent) }
            out.append(UInt8(ascii: "]"))
        case .string(let s): Self.writeString(s, into: &out)
        case .number(let text): out += Array(text.utf8)
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .null: out += Array("null".utf8)
        }
    }

    /// A string in double quotes: the quote, the backslash and control characters escaped,
    /// everything else (slashes, non-ASCII letters) as it is.
    private static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += Array("\\\"".utf8)
            case UInt8(ascii: "\\"): out += Array("\\\\".utf8)
            case 0x0A: out += Array("\\n".utf8)
            case 0x0D: out += Array("\\r".utf8)
            case 0x09: out += Array("\\t".utf8)
            case 0x08: out += Array("\\b".utf8)
            case 0x0C: out += Array("\\f".utf8)
            case 0x00..<0x20:
                let hex = String(byte, radix: 16, uppercase: false)
                out += Array(("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// A `JSONValue` written through an `Encoder`: how a finding's scenario, held as a format-2
/// tree, goes into JSON that Foundation's encoder writes (`JSONCodec.encode(finding)`).
extension JSONValue: Encodable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    package func encode(to encoder: Encoder) throws {
        switch self {
        case .oneLine(let inner): try inner.encode(to: encoder)
        case .object(let members):
            var c = encoder.container(keyedBy: Key.self)
            for m in Self.sorted(members) { try c.encode(m.value, forKey: Key(stringValue: m.key)) }
        case .array(let items):
            var c = encoder.unkeyedContainer()
            for item in items { try c.encode(item) }
        case .string(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        case .number(let text):
            var c = encoder.singleValueContainer()
            if let n = Int64(text) {
                try c.encode(n)
            } else if let n = UInt64(text) {
                try c.encode(n)
            } else {
                try c.encode(Double(text) ?? 0)
            }
        case .bool(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b)
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        }
    }
}
