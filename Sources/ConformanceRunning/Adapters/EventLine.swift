import ConformanceFormats
import OperationDriverKit
import OperationSpec

/// Reads the driver protocol's commonest line, an `event` message, without `JSONDecoder`.
///
/// The harness reads one such line per trace event, and `JSONDecoder` spent half of the
/// harness's CPU on them (perf, 1,000 Foundation cases: 2,052 of 3,993 samples; Specs/performance.md).
/// This reader accepts only the shape the protocol's encoder writes, in any key order: each
/// object with exactly its keys, integers as integers. For anything else (another message, an
/// unknown or repeated key, a number of another form, a lone surrogate escape, nesting over 16
/// deep) it returns nil, and the caller decodes the line with `JSONDecoder`,
/// which decides. So it changes no verdict and no error message: what it accepts decodes to the
/// same event (`EventLineTests` holds it to that on every kind and on mutated lines).
enum EventLine {
    /// The event of an `event` line, or nil when the line is not one this reader is sure of.
    static func event(_ line: Substring) -> TraceEvent? {
        let decoded: TraceEvent?? = line.utf8.withContiguousStorageIfAvailable { bytes -> TraceEvent? in
            var parser = Parser(bytes: bytes)
            guard let root = parser.document() else { return nil }
            return Reading.message(root)
        }
        return decoded ?? nil
    }
}

/// A parsed JSON value, as small as this reader needs.
private indirect enum Node {
    case object([Member])
    case array([Node])
    /// A number written without fraction or exponent that fits an `Int`.
    case integer(Int)
    /// Any other finite number.
    case real(Double)
    case string(String)
    case bool(Bool)
    case null

    var int: Int? { if case .integer(let i) = self { return i }; return nil }
    /// A `Double` field takes an integer too (the encoder writes 1.0 as `1`), as `JSONDecoder` does.
    var double: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .real(let d): return d
        default: return nil
        }
    }
    var string: String? { if case .string(let s) = self { return s }; return nil }
    var bool: Bool? { if case .bool(let b) = self { return b }; return nil }
    var ints: [Int]? {
        guard case .array(let items) = self else { return nil }
        var out: [Int] = []
        out.reserveCapacity(items.count)
        for item in items { guard let i = item.int else { return nil }; out.append(i) }
        return out
    }
}

private struct Member {
    let key: String
    let value: Node
}

/// Strict JSON (RFC 8259) over a line's bytes, failing (nil) on what it does not take: a lone
/// surrogate escape, nesting deeper than `maxDepth`, anything after the value but whitespace.
private struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    var at = 0
    static let maxDepth = 16

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func document() -> Node? {
        guard let node = value(depth: 0) else { return nil }
        skipSpace()
        return at == bytes.count ? node : nil
    }

    private mutating func skipSpace() {
        while at < bytes.count {
            switch bytes[at] {
            case 0x20, 0x0A, 0x0D, 0x09: at += 1
            default: return
            }
        }
    }

    private mutating func value(depth: Int) -> Node? {
        skipSpace()
        guard at < bytes.count, depth < Parser.maxDepth else { return nil }
        switch bytes[at] {
        case UInt8(ascii: "{"): return object(depth: depth)
        case UInt8(ascii: "["): return array(depth: depth)
        case UInt8(ascii: "\""): return string().map(Node.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return number()
        }
    }

    private mutating func literal(_ word: StaticString, _ node: Node) -> Node? {
        let count = word.utf8CodeUnitCount
        guard bytes.count - at >= count else { return nil }
        for i in 0..<count where bytes[at + i] != word.utf8Start[i] { return nil }
        at += count
        return node
    }

    private mutating func object(depth: Int) -> Node? {
        at += 1
        var members: [Member] = []
        skipSpace()
        if at < bytes.count, bytes[at] == UInt8(ascii: "}") { at += 1; return .object(members) }
        while true {
            skipSpace()
            guard at < bytes.count, bytes[at] == UInt8(ascii: "\""), let key = string() else { return nil }
            skipSpace()
            guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { return nil }
            at += 1
            guard let item = value(depth: depth + 1) else { return nil }
            members.append(Member(key: key, value: item))
            skipSpace()
            guard at < bytes.count else { return nil }
            if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
            if bytes[at] == UInt8(ascii: "}") { at += 1; return .object(members) }
            return nil
        }
    }

    private mutating func array(depth: Int) -> Node? {
        at += 1
        var items: [Node] = []
        skipSpace()
        if at < bytes.count, bytes[at] == UInt8(ascii: "]") { at += 1; return .array(items) }
        while true {
            guard let item = value(depth: depth + 1) else { return nil }
            items.append(item)
            skipSpace()
            guard at < bytes.count else { return nil }
            if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
            if bytes[at] == UInt8(ascii: "]") { at += 1; return .array(items) }
            return nil
        }
    }

    /// A string; nil for one with a control character, an unknown escape or a `\u` escape
    /// that is half of a surrogate pair without the other half. The line's bytes are valid
    /// UTF-8: they came from a `String`.
    private mutating func string() -> String? {
        at += 1
        let start = at
        while at < bytes.count {
            let byte = bytes[at]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
                at += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { return escapedString(from: start) }
            if byte < 0x20 { return nil }
            at += 1
        }
        return nil
    }

    /// The rest of a string that has an escape, from its first byte (`start`).
    private mutating func escapedString(from start: Int) -> String? {
        var text = Array(UnsafeBufferPointer(rebasing: bytes[start..<at]))
        while at < bytes.count {
            let byte = bytes[at]
            if byte == UInt8(ascii: "\"") {
                at += 1
                return String(decoding: text, as: UTF8.self)
            }
            if byte < 0x20 { return nil }
            guard byte == UInt8(ascii: "\\") else { text.append(byte); at += 1; continue }
            guard at + 1 < bytes.count else { return nil }
            let escape = bytes[at + 1]
            at += 2
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
            case UInt8(ascii: "b"): text.append(0x08)
            case UInt8(ascii: "f"): text.append(0x0C)
            case UInt8(ascii: "n"): text.append(0x0A)
            case UInt8(ascii: "r"): text.append(0x0D)
            case UInt8(ascii: "t"): text.append(0x09)
            case UInt8(ascii: "u"):
                guard var scalar = hex4() else { return nil }
                if (0xD800...0xDBFF).contains(scalar) {
                    guard at + 1 < bytes.count, bytes[at] == UInt8(ascii: "\\"),
                          bytes[at + 1] == UInt8(ascii: "u") else { return nil }
                    at += 2
                    guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    return nil
                }
                guard let unicode = Unicode.Scalar(scalar) else { return nil }
                text.append(contentsOf: UTF8.encode(unicode)!)
            default: return nil
            }
        }
        return nil
    }

    /// Four hex digits, as a `\u` escape's code unit.
    private mutating func hex4() -> UInt32? {
        guard bytes.count - at >= 4 else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[at]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
            at += 1
        }
        return value
    }

    /// A number as RFC 8259 writes it: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func number() -> Node? {
        let start = at
        func digit(_ i: Int) -> Bool {
            i < bytes.count && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i])
        }
        if at < bytes.count, bytes[at] == UInt8(ascii: "-") { at += 1 }
        guard digit(at) else { return nil }
        if bytes[at] == UInt8(ascii: "0") { at += 1 } else { while digit(at) { at += 1 } }
        var integral = true
        if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
            integral = false
            at += 1
            guard digit(at) else { return nil }
            while digit(at) { at += 1 }
        }
        if at < bytes.count, bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
            integral = false
            at += 1
            if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
            guard digit(at) else { return nil }
            while digit(at) { at += 1 }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
        if integral, let i = Int(text) { return .integer(i) }
        guard let d = Double(text), d.isFinite else { return nil }
        return .real(d)
    }
}

/// The protocol's types from parsed nodes, as their synthesized `Codable` conformances read
/// them: an enum case is an object with one key, its name, whose value holds the associated
/// values by label (`_0`, `_1`, … when unlabelled); a case without values holds `{}`.
private enum Reading {
    static func message(_ node: Node) -> TraceEvent? {
        guard let (name, body) = single(node), name == "event", let f = fields(body, ["_0"]),
              let e = fields(f[0], ["seq", "thread", "kind"]),
              let seq = e[0].int, let thread = e[1].int, let kind = kind(e[2]) else { return nil }
        return TraceEvent(seq: seq, thread: thread, kind)
    }

    /// The one member of an object of one member: an enum case's name and its values.
    static func single(_ node: Node) -> (String, Node)? {
        guard case .object(let members) = node, members.count == 1 else { return nil }
        return (members[0].key, members[0].value)
    }

    /// The values of an object that has exactly `keys` (none missing, none other, none twice),
    /// in the order of `keys`.
    static func fields(_ node: Node, _ keys: [StaticString]) -> [Node]? {
        guard case .object(let members) = node, members.count == keys.count else { return nil }
        var out: [Node] = []
        out.reserveCapacity(keys.count)
        for key in keys {
            var found: Node?
            for member in members where equal(member.key, key) {
                if found != nil { return nil }
                found = member.value
            }
            guard let found else { return nil }
            out.append(found)
        }
        return out
    }

    /// `fields` with one more key that may be absent or null (an `Optional` value, which the
    /// synthesized decoder reads with `decodeIfPresent`): its value last, nil when absent or null.
    static func fields(_ node: Node, _ keys: [StaticString],
                       optional: StaticString) -> (values: [Node], optional: Node?)? {
        guard case .object(let members) = node else { return nil }
        let present = members.contains { equal($0.key, optional) }
        guard let values = fields(node, present ? keys + [optional] : keys) else { return nil }
        guard present else { return (values, nil) }
        let last = values[values.count - 1]
        if case .null = last { return (Array(values.dropLast()), nil) }
        return (Array(values.dropLast()), last)
    }

    static func equal(_ key: String, _ expected: StaticString) -> Bool {
        let count = expected.utf8CodeUnitCount
        guard key.utf8.count == count else { return false }
        var i = 0
        for byte in key.utf8 {
            if byte != expected.utf8Start[i] { return false }
            i += 1
        }
        return true
    }

    static func optionalInt(_ node: Node?) -> Int?? {
        guard let node else { return .some(nil) }
        guard let i = node.int else { return nil }
        return .some(i)
    }

    static func kind(_ node: Node) -> EventKind? {
        guard let (name, body) = single(node) else { return nil }
        switch name {
        case "threadStarted":
            guard let f = fields(body, ["name"], optional: "queue"), let n = f.values[0].string,
                  let q = optionalInt(f.optional) else { return nil }
            return .threadStarted(name: n, queue: q)
        case "stepIssued": return one(body)?.int.map(EventKind.stepIssued)
        case "stepDone": return one(body)?.int.map(EventKind.stepDone)
        case "triggerMissed": return one(body)?.int.map(EventKind.triggerMissed)
        case "call": return one(body).flatMap(call).map(EventKind.call)
        case "returned": return one(body).flatMap(call).map(EventKind.returned)
        case "threw":
            guard let f = fields(body, ["_0", "_1", "_2"]), let c = call(f[0]),
                  let m = f[1].string.flatMap(MisuseKind.init(rawValue:)), let s = f[2].string else { return nil }
            return .threw(c, m, s)
        case "mainBegan":
            guard let f = fields(body, ["op", "threadPriority"]), let o = f[0].int,
                  let p = f[1].double else { return nil }
            return .mainBegan(op: o, threadPriority: p)
        case "mainEnded": return opOnly(body).map { .mainEnded(op: $0) }
        case "blockBegan", "blockEnded":
            guard let f = fields(body, ["op", "block"]), let o = f[0].int, let b = f[1].int else { return nil }
            return name == "blockBegan" ? .blockBegan(op: o, block: b) : .blockEnded(op: o, block: b)
        case "completionBegan":
            guard let f = fields(body, ["op", "threadPriority"]), let o = f[0].int,
                  let p = f[1].double else { return nil }
            return .completionBegan(op: o, threadPriority: p)
        case "completionEnded": return opOnly(body).map { .completionEnded(op: $0) }
        case "willChange", "didChange", "read":
            guard let f = fields(body, ["op", "_1", "_2"]), let o = f[0].int,
                  let k = f[1].string.flatMap(StateKey.init(rawValue:)), let v = value(f[2]) else { return nil }
            switch name {
            case "willChange": return .willChange(op: o, k, v)
            case "didChange": return .didChange(op: o, k, v)
            default: return .read(op: o, k, v)
            }
        case "set":
            guard let f = fields(body, ["op", "_1", "_2"]), let o = f[0].int,
                  let k = f[1].string.flatMap(StateKey.init(rawValue:)), let b = f[2].bool else { return nil }
            return .set(op: o, k, b)
        case "operationCount":
            guard let f = fields(body, ["queue", "_1"]), let q = f[0].int, let n = f[1].int else { return nil }
            return .operationCount(queue: q, n)
        case "operations":
            guard let f = fields(body, ["ops", "queue"]), let list = f[0].ints, let q = f[1].int else { return nil }
            return .operations(queue: q, ops: list)
        case "suspended":
            guard let f = fields(body, ["queue", "_1"]), let q = f[0].int, let b = f[1].bool else { return nil }
            return .suspended(queue: q, b)
        case "currentQueue":
            guard let f = fields(body, ["op"], optional: "queue"), let o = f.values[0].int,
                  let q = optionalInt(f.optional) else { return nil }
            return .currentQueue(op: o, queue: q)
        case "underlyingQueue":
            guard let f = fields(body, ["op"], optional: "dispatchQueue"), let o = f.values[0].int,
                  let d = optionalInt(f.optional) else { return nil }
            return .underlyingQueue(op: o, dispatchQueue: d)
        case "mainQueue":
            guard let f = fields(body, ["current", "same", "suspended"]), let c = f[0].bool, let s = f[1].bool,
                  let u = f[2].bool else { return nil }
            return .mainQueue(same: s, suspended: u, current: c)
        case "queueDeallocated":
            guard let f = fields(body, ["deallocated", "queue"]), let d = f[0].bool,
                  let q = f[1].int else { return nil }
            return .queueDeallocated(queue: q, deallocated: d)
        case "announced":
            guard let f = fields(body, ["op", "key"], optional: "affects"), let o = f.values[0].int,
                  let k = f.values[1].string else { return nil }
            guard let list = f.optional else { return .announced(op: o, key: k, affects: nil) }
            guard case .array(let items) = list else { return nil }
            var affects: [StateKey] = []
            for item in items {
                guard let key = item.string.flatMap(StateKey.init(rawValue:)) else { return nil }
                affects.append(key)
            }
            return .announced(op: o, key: k, affects: affects)
        case "work":
            guard let f = fields(body, ["op", "units"]), let o = f[0].int, let u = f[1].int else { return nil }
            return .work(op: o, units: u)
        case "signal":
            guard let f = fields(body, ["token"]), let t = f[0].int else { return nil }
            return .signal(token: t)
        case "awaited":
            guard let f = fields(body, ["token", "satisfied"]), let t = f[0].int, let s = f[1].bool else { return nil }
            return .awaited(token: t, satisfied: s)
        case "invocationResult": return opOnly(body).map { .invocationResult(op: $0) }
        case "crash":
            guard let f = fields(body, ["signal", "message"]), let s = f[0].int, let m = f[1].string else { return nil }
            return .crash(signal: s, message: m)
        case "hang": return one(body)?.string.map(EventKind.hang)
        case "unsupported": return one(body)?.string.map(EventKind.unsupported)
        case "cut": return one(body)?.string.map(EventKind.cut)
        case "breach": return one(body)?.string.map(EventKind.breach)
        case "end": return fields(body, []) != nil ? .end : nil
        default: return nil
        }
    }

    /// The value of a case's one unlabelled associated value (`{"_0": …}`).
    static func one(_ body: Node) -> Node? { fields(body, ["_0"])?[0] }

    static func opOnly(_ body: Node) -> Int? { fields(body, ["op"])?[0].int }

    static func value(_ node: Node) -> Value? {
        guard let (name, body) = single(node), let v = one(body) else { return nil }
        switch name {
        case "bool": return v.bool.map(Value.bool)
        case "int": return v.int.map(Value.int)
        case "double": return v.double.map(Value.double)
        case "ops": return v.ints.map(Value.ops)
        default: return nil
        }
    }

    static func call(_ node: Node) -> Call? {
        guard let (name, body) = single(node) else { return nil }
        switch name {
        case "start":
            guard let f = fields(body, ["_0", "by"]), let o = f[0].int,
                  let by = f[1].string.flatMap(Caller.init(rawValue:)) else { return nil }
            return .start(o, by: by)
        case "superStart": return one(body)?.int.map(Call.superStart)
        case "cancel": return one(body)?.int.map(Call.cancel)
        case "addOperation", "addBlock":
            guard let f = fields(body, ["_0", "queue"]), let o = f[0].int, let q = f[1].int else { return nil }
            return name == "addOperation" ? .addOperation(o, queue: q) : .addBlock(o, queue: q)
        case "addOperations":
            guard let f = fields(body, ["_0", "queue", "wait"]), let ops = f[0].ints, let q = f[1].int,
                  let w = f[2].bool else { return nil }
            return .addOperations(ops, queue: q, wait: w)
        case "addDependency", "removeDependency":
            guard let f = fields(body, ["_0", "on"]), let o = f[0].int, let d = f[1].int else { return nil }
            return name == "addDependency" ? .addDependency(o, on: d) : .removeDependency(o, on: d)
        case "setCompletionBlock": return one(body)?.int.map(Call.setCompletionBlock)
        case "addExecutionBlock": return one(body)?.int.map(Call.addExecutionBlock)
        case "setQueuePriority":
            guard let f = fields(body, ["_0", "_1"]), let o = f[0].int, let p = f[1].int else { return nil }
            return .setQueuePriority(o, p)
        case "setThreadPriority":
            guard let f = fields(body, ["_0", "_1"]), let o = f[0].int, let p = f[1].double else { return nil }
            return .setThreadPriority(o, p)
        case "cancelAll":
            guard let f = fields(body, ["queue"]), let q = f[0].int else { return nil }
            return .cancelAll(queue: q)
        case "releaseQueue":
            guard let f = fields(body, ["queue"]), let q = f[0].int else { return nil }
            return .releaseQueue(queue: q)
        case "setUnderlyingQueue":
            guard let f = fields(body, ["queue"], optional: "dispatchQueue"), let q = f.values[0].int,
                  let d = optionalInt(f.optional) else { return nil }
            return .setUnderlyingQueue(queue: q, dispatchQueue: d)
        case "setSuspended":
            guard let f = fields(body, ["queue", "_1"]), let q = f[0].int, let b = f[1].bool else { return nil }
            return .setSuspended(queue: q, b)
        case "setMaxConcurrent":
            guard let f = fields(body, ["queue", "_1"]), let q = f[0].int, let n = f[1].int else { return nil }
            return .setMaxConcurrent(queue: q, n)
        case "waitUntilFinished": return one(body)?.int.map(Call.waitUntilFinished)
        case "waitUntilAllFinished":
            guard let f = fields(body, ["queue"]), let q = f[0].int else { return nil }
            return .waitUntilAllFinished(queue: q)
        case "result": return one(body)?.int.map(Call.result)
        default: return nil
        }
    }
}
