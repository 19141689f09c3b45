import OperationSpec

/// Writes an `event` line without `JSONEncoder`, byte for byte as `ProtocolLines.line` writes it.
///
/// A driver writes one line per trace event, and a `JSONEncoder` per line was a quarter of a
/// Foundation driver's CPU (perf, 1,000 cases; Specs/performance.md). This writer knows the
/// event types' synthesized `Codable` shape and sorts each object's keys as `.sortedKeys`
/// does. A number it cannot be sure to write as `JSONEncoder` would (a `Double` whose shortest
/// form has an exponent) sends the event to `ProtocolLines.line` instead. `EventLineWriterTests`
/// holds every kind to the same bytes.
enum EventLineWriter {
    /// The event's line, newline included.
    static func line(_ event: TraceEvent) -> String {
        written(event) ?? ProtocolLines.line(DriverProtocol.Message.event(event))
    }

    /// The event's line as this writer writes it; nil when it is unsure of a number.
    static func written(_ event: TraceEvent) -> String? {
        var out = JSONText()
        out.raw(#"{"event":{"_0":{"kind":"#)
        kind(event.kind, &out)
        out.raw(#","seq":"#)
        out.int(event.seq)
        out.raw(#","thread":"#)
        out.int(event.thread)
        out.raw("}}}\n")
        return out.unsure ? nil : out.text
    }

    private static func kind(_ kind: EventKind, _ out: inout JSONText) {
        switch kind {
        case .threadStarted(let name, let queue):
            out.open("threadStarted")
            out.key("name", first: true); out.string(name)
            if let queue { out.key("queue"); out.int(queue) }
            out.close()
        case .stepIssued(let n): out.single("stepIssued") { $0.int(n) }
        case .stepDone(let n): out.single("stepDone") { $0.int(n) }
        case .triggerMissed(let n): out.single("triggerMissed") { $0.int(n) }
        case .call(let c): out.single("call") { call(c, &$0) }
        case .returned(let c): out.single("returned") { call(c, &$0) }
        case .threw(let c, let misuse, let message):
            out.open("threw")
            out.key("_0", first: true); call(c, &out)
            out.key("_1"); out.string(misuse.rawValue)
            out.key("_2"); out.string(message)
            out.close()
        case .mainBegan(let op, let priority): opAndPriority("mainBegan", op, priority, &out)
        case .mainEnded(let op): opOnly("mainEnded", op, &out)
        case .blockBegan(let op, let block): opAndBlock("blockBegan", op, block, &out)
        case .blockEnded(let op, let block): opAndBlock("blockEnded", op, block, &out)
        case .completionBegan(let op, let priority): opAndPriority("completionBegan", op, priority, &out)
        case .completionEnded(let op): opOnly("completionEnded", op, &out)
        case .willChange(let op, let key, let v): keyed("willChange", op, key, &out) { value(v, &$0) }
        case .didChange(let op, let key, let v): keyed("didChange", op, key, &out) { value(v, &$0) }
        case .read(let op, let key, let v): keyed("read", op, key, &out) { value(v, &$0) }
        case .set(let op, let key, let b): keyed("set", op, key, &out) { $0.bool(b) }
        case .operationCount(let queue, let n): queueAndOne("operationCount", queue, &out) { $0.int(n) }
        case .operations(let queue, let list):
            out.open("operations")
            out.key("ops", first: true); out.ints(list)
            out.key("queue"); out.int(queue)
            out.close()
        case .suspended(let queue, let b): queueAndOne("suspended", queue, &out) { $0.bool(b) }
        case .mainQueue(let same, let suspended, let current):
            out.open("mainQueue")
            out.key("current", first: true); out.bool(current)
            out.key("same"); out.bool(same)
            out.key("suspended"); out.bool(suspended)
            out.close()
        case .queueDeallocated(let queue, let deallocated):
            out.open("queueDeallocated")
            out.key("deallocated", first: true); out.bool(deallocated)
            out.key("queue"); out.int(queue)
            out.close()
        case .underlyingQueue(let op, let dispatchQueue):
            out.open("underlyingQueue")
            if let dispatchQueue { out.key("dispatchQueue", first: true); out.int(dispatchQueue) }
            out.key("op", first: dispatchQueue == nil); out.int(op)
            out.close()
        case .currentQueue(let op, let queue):
            out.open("currentQueue")
            out.key("op", first: true); out.int(op)
            if let queue { out.key("queue"); out.int(queue) }
            out.close()
        case .announced(let op, let key, let affects):
            out.open("announced")
            if let affects {
                out.key("affects", first: true)
                out.raw("[")
                for (n, k) in affects.enumerated() {
                    if n > 0 { out.raw(",") }
                    out.string(k.rawValue)
                }
                out.raw("]")
            }
            out.key("key", first: affects == nil); out.string(key)
            out.key("op"); out.int(op)
            out.close()
        case .work(let op, let units):
            out.open("work")
            out.key("op", first: true); out.int(op)
            out.key("units"); out.int(units)
            out.close()
        case .signal(let token):
            out.open("signal")
            out.key("token", first: true); out.int(token)
            out.close()
        case .awaited(let token, let satisfied):
            out.open("awaited")
            out.key("satisfied", first: true); out.bool(satisfied)
            out.key("token"); out.int(token)
            out.close()
        case .invocationResult(let op): opOnly("invocationResult", op, &out)
        case .crash(let signal, let message):
            out.open("crash")
            out.key("message", first: true); out.string(message)
            out.key("signal"); out.int(signal)
            out.close()
        case .hang(let s): out.single("hang") { $0.string(s) }
        case .unsupported(let s): out.single("unsupported") { $0.string(s) }
        case .cut(let s): out.single("cut") { $0.string(s) }
        case .breach(let s): out.single("breach") { $0.string(s) }
        case .end: out.raw(#"{"end":{}}"#)
        }
    }

    private static func opOnly(_ name: StaticString, _ op: Int, _ out: inout JSONText) {
        out.open(name)
        out.key("op", first: true); out.int(op)
        out.close()
    }

    private static func opAndPriority(_ name: StaticString, _ op: Int, _ priority: Double, _ out: inout JSONText) {
        out.open(name)
        out.key("op", first: true); out.int(op)
        out.key("threadPriority"); out.double(priority)
        out.close()
    }

    private static func opAndBlock(_ name: StaticString, _ op: Int, _ block: Int, _ out: inout JSONText) {
        out.open(name)
        out.key("block", first: true); out.int(block)
        out.key("op"); out.int(op)
        out.close()
    }

    /// A case of an operation, a key and a value: `_1` and `_2` sort before `op`.
    private static func keyed(_ name: StaticString, _ op: Int, _ key: StateKey, _ out: inout JSONText,
                              _ third: (inout JSONText) -> Void) {
        out.open(name)
        out.key("_1", first: true); out.string(key.rawValue)
        out.key("_2"); third(&out)
        out.key("op"); out.int(op)
        out.close()
    }

    /// A case of a queue and one unlabelled value: `_1` sorts before `queue`.
    private static func queueAndOne(_ name: StaticString, _ queue: Int, _ out: inout JSONText,
                                    _ second: (inout JSONText) -> Void) {
        out.open(name)
        out.key("_1", first: true); second(&out)
        out.key("queue"); out.int(queue)
        out.close()
    }

    private static func value(_ value: Value, _ out: inout JSONText) {
        switch value {
        case .bool(let b): out.single("bool") { $0.bool(b) }
        case .int(let i): out.single("int") { $0.int(i) }
        case .double(let d): out.single("double") { $0.double(d) }
        case .ops(let ops): out.single("ops") { $0.ints(ops) }
        }
    }

    private static func call(_ call: Call, _ out: inout JSONText) {
        switch call {
        case .start(let op, let by):
            out.open("start")
            out.key("_0", first: true); out.int(op)
            out.key("by"); out.string(by.rawValue)
            out.close()
        case .superStart(let op): out.single("superStart") { $0.int(op) }
        case .cancel(let op): out.single("cancel") { $0.int(op) }
        case .addOperation(let op, let queue): opAndQueue("addOperation", op, queue, &out)
        case .addBlock(let op, let queue): opAndQueue("addBlock", op, queue, &out)
        case .addOperations(let ops, let queue, let wait):
            out.open("addOperations")
            out.key("_0", first: true); out.ints(ops)
            out.key("queue"); out.int(queue)
            out.key("wait"); out.bool(wait)
            out.close()
        case .addDependency(let op, let on): opAndOn("addDependency", op, on, &out)
        case .removeDependency(let op, let on): opAndOn("removeDependency", op, on, &out)
        case .setCompletionBlock(let op): out.single("setCompletionBlock") { $0.int(op) }
        case .addExecutionBlock(let op): out.single("addExecutionBlock") { $0.int(op) }
        case .setQueuePriority(let op, let p):
            out.open("setQueuePriority")
            out.key("_0", first: true); out.int(op)
            out.key("_1"); out.int(p)
            out.close()
        case .setThreadPriority(let op, let p):
            out.open("setThreadPriority")
            out.key("_0", first: true); out.int(op)
            out.key("_1"); out.double(p)
            out.close()
        case .cancelAll(let queue): queueOnly("cancelAll", queue, &out)
        case .releaseQueue(let queue): queueOnly("releaseQueue", queue, &out)
        case .setUnderlyingQueue(let queue, let dispatchQueue):
            out.open("setUnderlyingQueue")
            if let dispatchQueue { out.key("dispatchQueue", first: true); out.int(dispatchQueue) }
            out.key("queue", first: dispatchQueue == nil); out.int(queue)
            out.close()
        case .setSuspended(let queue, let b): queueAndOne("setSuspended", queue, &out) { $0.bool(b) }
        case .setMaxConcurrent(let queue, let n): queueAndOne("setMaxConcurrent", queue, &out) { $0.int(n) }
        case .waitUntilFinished(let op): out.single("waitUntilFinished") { $0.int(op) }
        case .waitUntilAllFinished(let queue): queueOnly("waitUntilAllFinished", queue, &out)
        case .result(let op): out.single("result") { $0.int(op) }
        }
    }

    private static func opAndQueue(_ name: StaticString, _ op: Int, _ queue: Int, _ out: inout JSONText) {
        out.open(name)
        out.key("_0", first: true); out.int(op)
        out.key("queue"); out.int(queue)
        out.close()
    }

    private static func opAndOn(_ name: StaticString, _ op: Int, _ on: Int, _ out: inout JSONText) {
        out.open(name)
        out.key("_0", first: true); out.int(op)
        out.key("on"); out.int(on)
        out.close()
    }

    private static func queueOnly(_ name: StaticString, _ queue: Int, _ out: inout JSONText) {
        out.open(name)
        out.key("queue", first: true); out.int(queue)
        out.close()
    }
}

/// A line of JSON being written, in bytes.
private struct JSONText {
    var bytes: [UInt8] = []
    /// A value was met that only `JSONEncoder` can be trusted to write.
    var unsure = false

    init() { bytes.reserveCapacity(160) }

    var text: String { String(decoding: bytes, as: UTF8.self) }

    mutating func raw(_ s: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// `{"name":{`: an enum case whose values follow as keys.
    mutating func open(_ name: StaticString) {
        raw("{\""); raw(name); raw("\":{")
    }

    mutating func close() { raw("}}") }

    mutating func key(_ name: StaticString, first: Bool = false) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\"")); raw(name); raw("\":")
    }

    /// `{"name":{"_0":value}}`: an enum case with one unlabelled value.
    mutating func single(_ name: StaticString, _ value: (inout JSONText) -> Void) {
        open(name); key("_0", first: true); value(&self); close()
    }

    mutating func int(_ i: Int) { bytes.append(contentsOf: String(i).utf8) }

    mutating func ints(_ list: [Int]) {
        bytes.append(UInt8(ascii: "["))
        for (n, i) in list.enumerated() {
            if n > 0 { bytes.append(UInt8(ascii: ",")) }
            int(i)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    mutating func bool(_ b: Bool) { if b { raw("true") } else { raw("false") } }

    /// A finite number by its shortest form, without a trailing `.0` (as `JSONEncoder` writes
    /// 1.0: `1`) when that form has no exponent; else `unsure`.
    mutating func double(_ d: Double) {
        var text = d.description
        guard d.isFinite, !text.contains("e"), !text.contains("E") else { unsure = true; return }
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    /// A string as `JSONEncoder` writes it: `"` and `\` escaped, the control characters with
    /// their short escapes or `\u00XX`, everything else (`/` and all of Unicode) as it is.
    mutating func string(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x08: raw("\\b")
            case 0x0C: raw("\\f")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0..<0x20:
                raw("\\u00")
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(hex[Int(byte >> 4)]); bytes.append(hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
