import Foundation

/// A place in a JSON document: object keys and list indices from the top, written
/// `operations[2].kind.main._0[0].work._0`.
package enum JSONPathSegment: Sendable, Hashable {
    case key(String)
    case index(Int)

    init(_ key: CodingKey) {
        if let i = key.intValue { self = .index(i) } else { self = .key(key.stringValue) }
    }

    /// The path as a reader writes it, or "the top level" for the empty path.
    static func render(_ path: [JSONPathSegment]) -> String {
        var out = ""
        for segment in path {
            switch segment {
            case .index(let i): out += "[\(i)]"
            case .key(let k): out += (out.isEmpty ? "" : ".") + JSONDiagnosis.oneLine(k, limit: 60)
            }
        }
        return out.isEmpty ? "the top level" : out
    }
}

/// What the harness needs to explain a JSON document it could not use: a strict reader of its
/// own (RFC 8259 and the decoder's nesting limit; like the decoder, it lets a comma end a list
/// or an object) that says where the text stops being JSON, and a
/// tree of what was read with each value's position, to say what stands at a field and where.
/// Scenario files of format 2 and finding files are read with it (`ScenarioFormat`, `FindingFile`),
/// since their strict reading needs every key and where it stands; other documents are read with
/// it only when the decoder refused them, or to look for keys the decoder passed over.
package struct JSONDiagnosis {
    /// The deepest nesting of objects and lists Foundation's JSONDecoder reads (513 fails).
    static let depthLimit = 512

    package struct Node: Sendable {
        package enum Value: Sendable {
            /// Members in the order of the text; `keyOffset` is where the key's opening quote is,
            /// so that a sentence about a key it does not know points at the key itself.
            case object([Member])
            case array([Node])
            case string(String)
            case number(String)
            case bool(Bool)
            case null
        }
        package typealias Member = (key: String, keyOffset: Int, node: Node)
        /// The byte offset of the value's first character.
        package var offset: Int
        package var value: Value
    }

    enum Outcome: Sendable {
        case document(Node)
        /// Nothing but (perhaps) white space.
        case empty(whiteSpaceOnly: Bool)
        /// Where the text stops being JSON, and a clause saying what is there and why it is wrong.
        case invalid(offset: Int, clause: String)
        /// A container opens deeper than `depthLimit`, at this offset.
        case tooDeep(offset: Int)
    }

    let bytes: [UInt8]
    let outcome: Outcome

    package init(_ data: Data) {
        bytes = [UInt8](data)
        var reader = Reader(bytes: bytes)
        outcome = reader.read()
    }

    package var root: Node? { if case .document(let n) = outcome { return n }; return nil }

    // MARK: positions

    /// 1-based line and column (in characters) of a byte offset.
    func position(_ offset: Int) -> (line: Int, column: Int) {
        Self.position(offset, in: bytes)
    }

    static func position(_ offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1, column = 1
        for b in bytes[0..<min(offset, bytes.count)] {
            if b == 0x0A { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
        }
        return (line, column)
    }

    package func at(_ offset: Int) -> String {
        let p = position(offset)
        return "line \(p.line), column \(p.column)"
    }

    // MARK: looking values up

    /// The value at a decoder's coding path (the first of duplicate keys, as the decoder reads them).
    func node(at path: [JSONPathSegment]) -> Node? {
        guard var node = root else { return nil }
        for segment in path {
            switch (segment, node.value) {
            case (.key(let k), .object(let members)):
                guard let m = members.first(where: { $0.key == k }) else { return nil }
                node = m.node
            case (.index(let i), .array(let items)):
                guard i >= 0 && i < items.count else { return nil }
                node = items[i]
            default:
                return nil
            }
        }
        return node
    }

    /// The first key, in the order of the text, that an object of the document holds twice,
    /// as one sentence naming `source`; nil when every key is given once.
    ///
    /// Foundation's decoder reads one of two equal keys and says nothing, so a finding whose
    /// `rule` is given twice would run what a reader of the file does not see. Every format
    /// says a key given twice is refused; readers that use Foundation's decoder ask here first.
    func duplicateKey(source: String) -> String? {
        guard let root else { return nil }
        // Depth first, in the order of the text; each object's keys are looked up, never
        // iterated, so the sentence names the document's first duplicate whatever the hashing.
        var stack: [(path: [JSONPathSegment], node: Node)] = [([], root)]
        while let (path, node) = stack.popLast() {
            switch node.value {
            case .array(let items):
                for (i, item) in items.enumerated().reversed() { stack.append((path + [.index(i)], item)) }
            case .object(let members):
                var seen: [String: Int] = [:]
                for m in members {
                    if let first = seen[m.key] {
                        return "\(JSONDiagnosis.oneLine(source)): \(JSONPathSegment.render(path)) has the key "
                            + "\(JSONDiagnosis.quoted(m.key)) twice, at \(at(first)) and at \(at(m.keyOffset)); a key "
                            + "may appear once"
                    }
                    seen[m.key] = m.keyOffset
                }
                for m in members.reversed() { stack.append((path + [.key(m.key)], m.node)) }
            default: break
            }
        }
        return nil
    }

    /// Every number of the document with its path, in the order of the text.
    func numbers() -> [(path: [JSONPathSegment], node: Node)] {
        guard let root else { return [] }
        var out: [(path: [JSONPathSegment], node: Node)] = []
        var stack: [(path: [JSONPathSegment], node: Node)] = [([], root)]
        while let (path, node) = stack.popLast() {
            switch node.value {
            case .number: out.append((path, node))
            case .array(let items):
                for (i, item) in items.enumerated().reversed() { stack.append((path + [.index(i)], item)) }
            case .object(let members): for m in members.reversed() { stack.append((path + [.key(m.key)], m.node)) }
            default: break
            }
        }
        return out
    }

    /// What a value is, for a sentence: `1e30`, `the string "7"`, `an object with the key "mian"`.
    static func describe(_ node: Node) -> String {
        switch node.value {
        case .number(let text): return oneLine(text, limit: 40)
        case .string(let s): return "the string " + quoted(s)
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .array(let items):
            return items.isEmpty ? "an empty list" : "a list of \(items.count) item" + (items.count == 1 ? "" : "s")
        case .object(let members):
            if members.isEmpty { return "an empty object" }
            let keys =
                members.prefix(4).map { quoted($0.key, limit: 30) }.joined(separator: ", ")
                + (members.count > 4 ? ", …" : "")
            return "an object with the key" + (members.count == 1 ? " " : "s ") + keys
        }
    }

    // MARK: one line

    /// `s` with every character that could break a line or hide (controls, line and paragraph
    /// separators, format characters) written as an escape, shortened to `limit` characters.
    package static func oneLine(_ s: String, limit: Int = 200) -> String {
        var out = ""
        var count = 0
        for scalar in s.unicodeScalars {
            if count == limit { out += "…"; break }
            count += 1
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                let category = scalar.properties.generalCategory
                if category == .control || category == .format || category == .lineSeparator
                    || category == .paragraphSeparator
                    || category == .surrogate {
                    out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// `s` in double quotes, its quotes and backslashes escaped, on one line.
    package static func quoted(_ s: String, limit: Int = 60) -> String {
        "\""
            + oneLine(
                s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\""),
                limit: limit) + "\""
    }
}

// MARK: - the reader

extension JSONDiagnosis {
    /// A strict, iterative reader (no recursion: a hostile file nests as deep as it likes).
    struct Reader {
        let bytes: [UInt8]
        var i = 0

        private enum Frame {
            case array(offset: Int, items: [Node])
            case object(offset: Int, members: [Node.Member], key: (text: String, offset: Int))
        }

        private struct Stop: Error { var outcome: Outcome }

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func read() -> Outcome {
            do { return .document(try document()) } catch let stop as Stop { return stop.outcome } catch {
                return .invalid(offset: i, clause: "\(error)")
            }
        }

        private var atEnd: Bool { i >= bytes.count }
        private var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

        private mutating func skipSpace() {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 {
                i += 1
            }
        }

        private func at(_ offset: Int) -> String {
            let p = JSONDiagnosis.position(offset, in: bytes)
            return "line \(p.line), column \(p.column)"
        }

        private func invalid(_ clause: String, at offset: Int? = nil) -> Stop {
            Stop(outcome: .invalid(offset: offset ?? i, clause: clause))
        }

        private mutating func document() throws -> Node {
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }   // a UTF-8 byte order mark, as the decoder allows
            skipSpace()
            if atEnd { throw Stop(outcome: .empty(whiteSpaceOnly: !bytes.isEmpty)) }
            var stack: [Frame] = []
            while true {
                // A value begins at i.
                guard let c = peek else { throw endInside(stack, expecting: "a value") }
                var done: Node
                switch c {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    if stack.count >= JSONDiagnosis.depthLimit { throw Stop(outcome: .tooDeep(offset: i)) }
                    let start = i
                    i += 1
                    skipSpace()
                    if c == UInt8(ascii: "{") {
                        if peek == UInt8(ascii: "}") { i += 1; done = Node(offset: start, value: .object([])) } else {
                            let key = try memberKey(
                                stack + [.object(offset: start, members: [], key: ("", start))], afterComma: false)
                            stack.append(.object(offset: start, members: [], key: key))
                            continue
                        }
                    } else {
                        if peek == UInt8(ascii: "]") { i += 1; done = Node(offset: start, value: .array([])) } else {
                            stack.append(.array(offset: start, items: []))
                            continue
                        }
                    }
                case UInt8(ascii: "\""):
                    let start = i
                    done = Node(offset: start, value: .string(try string()))
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    let start = i
                    done = Node(offset: start, value: .number(try number()))
                case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                    let start = i
                    if matches("true") { done = Node(offset: start, value: .bool(true)) }
                    else if matches("false") { done = Node(offset: start, value: .bool(false)) }
                    else if matches("null") { done = Node(offset: start, value: .null) }
                    else { throw valueExpected(stack) }
                default:
                    throw valueExpected(stack)
                }
                if let document = try hand(done, to: &stack) { return document }
            }
        }

        /// Hands a complete value to its container, closing containers as they end: the document
        /// when the outermost value is complete, else nil with i at the next value or key.
        private mutating func hand(_ value: Node, to stack: inout [Frame]) throws -> Node? {
            var done = value
            while true {
                guard let top = stack.popLast() else {
                    skipSpace()
                    if !atEnd {
                        throw invalid(
                            "at \(at(i)) there is \(found(i)) after the end of the JSON value (a file holds one "
                                + "value; are two joined?)"
                        )
                    }
                    return done
                }
                skipSpace()
                // Consumed, so the container's array is referenced once and grows in place:
                // a copy kept in `top` made every append copy the whole array (reading was
                // quadratic in a container's length: 20,000 driver steps took 22 s).
                switch consume top {
                case .array(let offset, var items):
                    items.append(done)
                    if peek == UInt8(ascii: ",") {
                        i += 1
                        skipSpace()
                        // A comma before the end: the decoder allows it, so it explains nothing.
                        if peek == UInt8(ascii: "]") {
                            i += 1; done = Node(offset: offset, value: .array(items)); continue
                        }
                        stack.append(.array(offset: offset, items: items))
                        return nil
                    }
                    if peek == UInt8(ascii: "]") {
                        i += 1; done = Node(offset: offset, value: .array(items)); continue
                    }
                    stack.append(.array(offset: offset, items: items))
                    throw separatorExpected(stack, closer: "]")
                case .object(let offset, var members, let key):
                    members.append((key.text, key.offset, done))
                    if peek == UInt8(ascii: ",") {
                        i += 1
                        skipSpace()
                        if peek == UInt8(ascii: "}") {
                            i += 1; done = Node(offset: offset, value: .object(members)); continue
                        }
                        let next = try memberKey(
                            stack + [.object(offset: offset, members: members, key: key)], afterComma: true)
                        stack.append(.object(offset: offset, members: members, key: next))
                        return nil
                    }
                    if peek == UInt8(ascii: "}") {
                        i += 1; done = Node(offset: offset, value: .object(members)); continue
                    }
                    stack.append(.object(offset: offset, members: members, key: key))
                    throw separatorExpected(stack, closer: "}")
                }
            }
        }

        /// A key (with where it begins), its colon and the space after; i is then at the member's value.
        private mutating func memberKey(_ open: [Frame], afterComma: Bool) throws -> (text: String, offset: Int) {
            guard let c = peek else { throw endInside(open, expecting: "a key") }
            guard c == UInt8(ascii: "\"") else {
                let hint: String
                switch c {
                case UInt8(ascii: "'"): hint = "JSON keys use double quotes, not single ones"
                case UInt8(ascii: "/"): hint = "JSON has no comments"
                case _ where isWordByte(c): hint = "keys need double quotes"
                default: hint = "each field is \"key\": value"
                }
                throw invalid("at \(at(i)) there is \(found(i)) where a key in double quotes should begin (\(hint))")
            }
            let keyOffset = i
            let key = try string()
            skipSpace()
            guard peek == UInt8(ascii: ":") else {
                if atEnd { throw endInside(open, expecting: "a colon") }
                throw invalid(
                    "at \(at(i)) there is \(found(i)) where a colon should follow the key "
                        + "\(JSONDiagnosis.quoted(key, limit: 30))"
                )
            }
            i += 1
            skipSpace()
            return (key, keyOffset)
        }

        private mutating func matches(_ word: String) -> Bool {
            let w = Array(word.utf8)
            guard i + w.count <= bytes.count, Array(bytes[i..<i + w.count]) == w else { return false }
            // `nullx`, `true1`: the word must end there.
            if i + w.count < bytes.count, isWordByte(bytes[i + w.count]) { return false }
            i += w.count
            return true
        }

        private func isWordByte(_ b: UInt8) -> Bool {
            (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x5F
        }

        private func word(at offset: Int) -> String {
            var j = offset
            while j < bytes.count, j - offset < 24,
                isWordByte(bytes[j]) || (j == offset && bytes[j] == UInt8(ascii: "-"))
            { j += 1 }
            return String(decoding: bytes[offset..<j], as: UTF8.self)
        }

        private func valueExpected(_ stack: [Frame]) -> Stop {
            guard let c = peek else { return endInside(stack, expecting: "a value") }
            let hint: String
            let w = word(at: i)
            switch c {
            case _
            where ["NaN", "Infinity", "inf", "nan", "-Infinity", "Inf"].contains(w)
                || (c == UInt8(ascii: "-") && w.count > 1):
                hint = "NaN and Infinity are not JSON numbers"
            case _ where ["True", "False", "Null", "TRUE", "FALSE", "NULL", "None", "nil"].contains(w):
                hint = "JSON writes true, false and null in lower case"
            case UInt8(ascii: "'"): hint = "JSON strings use double quotes, not single ones"
            case UInt8(ascii: "/"), UInt8(ascii: "#"): hint = "JSON has no comments"
            case UInt8(ascii: "]"), UInt8(ascii: "}"): hint = "a value is missing, or a comma comes before the end"
            case UInt8(ascii: ","): hint = "a value is missing before this comma"
            case UInt8(ascii: "+"): hint = "a number may not begin with +"
            case UInt8(ascii: "."): hint = "a number needs a digit before its decimal point"
            case _ where isWordByte(c): hint = "a string needs double quotes"
            default: hint = "a value is a string in double quotes, a number, an object, a list, true, false or null"
            }
            return invalid("at \(at(i)) there is \(found(i)) where a value should begin (\(hint))")
        }

        private func separatorExpected(_ stack: [Frame], closer: String) -> Stop {
            guard let c = peek else { return endInside(stack, expecting: "a comma or \(closer)") }
            let inList = closer == "]"
            let hint: String
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "-"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                hint = inList ? "a comma is missing between two items" : "a comma is missing between two fields"
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                hint = inList ? "a list opened with [ closes with ]" : "an object opened with { closes with }"
            case UInt8(ascii: ":"):
                hint = inList ? "a list holds values, not key: value pairs" : "a field has one colon"
            case UInt8(ascii: "/"), UInt8(ascii: "#"): hint = "JSON has no comments"
            default: hint = inList ? "items are separated by commas" : "fields are separated by commas"
            }
            return invalid("at \(at(i)) there is \(found(i)) where a comma or \(closer) should be (\(hint))")
        }

        private func endInside(_ stack: [Frame], expecting what: String) -> Stop {
            guard let inner = stack.last else {
                return invalid("the text ends at \(at(i)) where \(what) should be (it was cut short)")
            }
            let (offset, kind, closer): (Int, String, String)
            switch inner {
            case .array(let o, _): (offset, kind, closer) = (o, "list", "]")
            case .object(let o, _, _): (offset, kind, closer) = (o, "object", "}")
            }
            let more = stack.count > 1 ? " and \(stack.count - 1) around it" : ""
            return invalid(
                "the text ends at \(at(i)) inside the \(kind) that begins at \(at(offset))\(more), where \(what) "
                    + "should be (it was cut short, or a \(closer) is missing)"
            )
        }

        /// What stands at `offset`, for a sentence.
        private func found(_ offset: Int) -> String {
            guard offset < bytes.count else { return "the end of the text" }
            let b = bytes[offset]
            if b >= 0x21 && b <= 0x7E {
                if isWordByte(b) { return "'" + word(at: offset) + "'" }
                if b == UInt8(ascii: "'") { return "a single quote" }
                return "'" + String(UnicodeScalar(b)) + "'"
            }
            if b == 0x20 { return "a space" }
            if b < 0x80 { return "the control character U+" + hex(UInt32(b)) }
            if let (scalar, _) = utf8Scalar(at: offset) {
                let shown = JSONDiagnosis.oneLine(String(Character(scalar)), limit: 1)
                return shown.hasPrefix("\\u{")
                    ? "the character U+" + hex(scalar.value) : "'\(shown)' (U+\(hex(scalar.value)))"
            }
            return "the byte 0x" + String(b, radix: 16, uppercase: true)
                + ", which is not UTF-8 (the file must be UTF-8 text)"
        }

        private func hex(_ v: UInt32) -> String {
            let h = String(v, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, 4 - h.count)) + h
        }

        /// The scalar a well-formed UTF-8 sequence at `offset` encodes, and its length.
        private func utf8Scalar(at offset: Int) -> (Unicode.Scalar, Int)? {
            let b0 = bytes[offset]
            let (length, low, high): (Int, UInt8, UInt8)
            switch b0 {
            case 0x00...0x7F: return (Unicode.Scalar(b0), 1)
            case 0xC2...0xDF: (length, low, high) = (2, 0x80, 0xBF)
            case 0xE0: (length, low, high) = (3, 0xA0, 0xBF)
            case 0xE1...0xEC, 0xEE...0xEF: (length, low, high) = (3, 0x80, 0xBF)
            case 0xED: (length, low, high) = (3, 0x80, 0x9F)
            case 0xF0: (length, low, high) = (4, 0x90, 0xBF)
            case 0xF1...0xF3: (length, low, high) = (4, 0x80, 0xBF)
            case 0xF4: (length, low, high) = (4, 0x80, 0x8F)
            default: return nil
            }
            guard offset + length <= bytes.count, (low...high).contains(bytes[offset + 1]) else { return nil }
            var value = UInt32(b0) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
            for k in 1..<length {
                let b = bytes[offset + k]
                guard b & 0xC0 == 0x80 else { return nil }
                value = value << 6 | UInt32(b & 0x3F)
            }
            guard let scalar = Unicode.Scalar(value) else { return nil }
            return (scalar, length)
        }

        private mutating func string() throws -> String {
            let start = i
            i += 1
            var scalars = String.UnicodeScalarView()
            while true {
                guard i < bytes.count else {
                    throw invalid(
                        "the text ends at \(at(i)) inside the string that begins at \(at(start)) (it was cut short, or "
                            + "its closing \" is missing)"
                    )
                }
                let b = bytes[i]
                if b == UInt8(ascii: "\"") { i += 1; return String(scalars) }
                if b == UInt8(ascii: "\\") {
                    scalars.append(try escape())
                } else if b < 0x20 {
                    let name =
                        b == 0x0A ? "a line break" : b == 0x09 ? "a tab" : "the control character U+" + hex(UInt32(b))
                    throw invalid(
                        "at \(at(i)) there is \(name) inside the string that begins at \(at(start)) (write it as an "
                            + "escape such as \\n or \\t, or close the string)"
                    )
                } else if let (scalar, length) = utf8Scalar(at: i) {
                    scalars.append(scalar)
                    i += length
                } else {
                    throw invalid("at \(at(i)) there is \(found(i))")
                }
            }
        }

        private mutating func escape() throws -> Unicode.Scalar {
            let start = i
            i += 1
            guard let c = peek else { throw invalid("the text ends at \(at(i)) inside an escape (it was cut short)") }
            i += 1
            switch c {
            case UInt8(ascii: "\""): return "\""
            case UInt8(ascii: "\\"): return "\\"
            case UInt8(ascii: "/"): return "/"
            case UInt8(ascii: "b"): return "\u{8}"
            case UInt8(ascii: "f"): return "\u{C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                let unit = try hexUnit(start)
                switch unit {
                case 0xD800...0xDBFF:
                    guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                        throw invalid(
                            "at \(at(start)) the escape \\u\(hex(unit)) is the first half of a surrogate pair, and its "
                                + "second half is missing",
                            at: start)
                    }
                    let second = i
                    i += 2
                    let low = try hexUnit(second)
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw invalid(
                            "at \(at(start)) the escape \\u\(hex(unit)) is the first half of a surrogate pair, but "
                                + "\\u\(hex(low)) is not a second half",
                            at: start)
                    }
                    return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
                case 0xDC00...0xDFFF:
                    throw invalid(
                        "at \(at(start)) the escape \\u\(hex(unit)) is the second half of a "
                            + "surrogate pair with no first half",
                        at: start)
                default:
                    return Unicode.Scalar(unit)!
                }
            default:
                i -= 1
                throw invalid(
                    "at \(at(start)) there is a backslash, then \(found(i)), which is not a JSON escape (the escapes "
                        + "are \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX)",
                    at: start)
            }
        }

        private mutating func hexUnit(_ escapeStart: Int) throws -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let c = peek else {
                    throw invalid("the text ends at \(at(i)) inside an escape (it was cut short)")
                }
                let digit: UInt32
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - UInt8(ascii: "A") + 10)
                default:
                    throw invalid(
                        "at \(at(escapeStart)) the escape \\u needs four hexadecimal digits, but there is \(found(i))",
                        at: escapeStart)
                }
                value = value << 4 | digit
                i += 1
            }
            return value
        }

        private mutating func number() throws -> String {
            let start = i
            func isDigit(_ b: UInt8?) -> Bool { b.map { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } ?? false }
            if peek == UInt8(ascii: "-") { i += 1 }
            guard isDigit(peek) else {
                let w = word(at: i)
                let hint =
                    ["Infinity", "inf", "Inf", "NaN"].contains(w) ? " (NaN and Infinity are not JSON numbers)" : ""
                throw invalid("at \(at(i)) there is \(found(i)) where a digit should follow the minus sign\(hint)")
            }
            if peek == UInt8(ascii: "0") {
                i += 1
                if isDigit(peek) {
                    throw invalid(
                        "at \(at(start)) a number begins with 0 and goes on with more digits (JSON "
                            + "numbers have no leading zeros)",
                        at: start)
                }
            } else {
                while isDigit(peek) { i += 1 }
            }
            if peek == UInt8(ascii: ".") {
                i += 1
                guard isDigit(peek) else {
                    throw invalid("at \(at(i)) there is \(found(i)) where a digit should follow the decimal point")
                }
                while isDigit(peek) { i += 1 }
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                i += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { i += 1 }
                guard isDigit(peek) else {
                    throw invalid("at \(at(i)) there is \(found(i)) where the digits of an exponent should be")
                }
                while isDigit(peek) { i += 1 }
            }
            return String(decoding: bytes[start..<i], as: UTF8.self)
        }
    }
}
