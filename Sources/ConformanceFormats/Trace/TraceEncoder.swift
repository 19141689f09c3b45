import OperationSpec

/// A trace file as a format-2 tree (Specs/trace-format.md), in the conventions of scenario
/// format 2 (`ScenarioEncoder`): every enumeration value (an event's kind, a call) is an object
/// whose one key is its case; a case with one field holds it directly, a case with more holds
/// them by name; an optional field that is absent is left out. Each event is written on one line.
enum TraceEncoder {
    static func value(_ file: TraceFile) -> JSONValue {
        let t = file.trace
        return .object([
            ("format", .int(TraceFormat.format(of: t))),
            ("impl", .string(t.impl)),
            ("scheduleSeed", .int(t.scheduleSeed)),
            ("capabilities", .array(t.capabilities.map { .string($0.rawValue) })),
            ("scenario", ScenarioEncoder.value(file.scenario)),
            ("events", .array(t.events.map { .oneLine(event($0)) })),
        ])
    }

    static func event(_ e: TraceEvent) -> JSONValue {
        .object([("seq", .int(e.seq)), ("thread", .int(e.thread)), ("kind", kind(e.kind))])
    }

    private static func one(_ name: String, _ value: JSONValue) -> JSONValue { .object([(name, value)]) }
    private static func fields(_ name: String, _ members: [(key: String, value: JSONValue)]) -> JSONValue {
        one(name, .object(members))
    }

    static func kind(_ k: EventKind) -> JSONValue {
        switch k {
        case .threadStarted(let name, let queue):
            return fields("threadStarted", [("name", .string(name))] + (queue.map { [("queue", .int($0))] } ?? []))
        case .stepIssued(let i): return one("stepIssued", .int(i))
        case .stepDone(let i): return one("stepDone", .int(i))
        case .triggerMissed(let i): return one("triggerMissed", .int(i))
        case .call(let c): return one("call", call(c))
        case .returned(let c): return one("returned", call(c))
        case .threw(let c, let misuse, let message):
            return fields(
                "threw", [("call", call(c)), ("misuse", .string(misuse.rawValue)), ("message", .string(message))])
        case .mainBegan(let op, let p): return fields("mainBegan", [("op", .int(op)), ("threadPriority", .double(p))])
        case .mainEnded(let op): return one("mainEnded", .int(op))
        case .blockBegan(let op, let b): return fields("blockBegan", [("op", .int(op)), ("block", .int(b))])
        case .blockEnded(let op, let b): return fields("blockEnded", [("op", .int(op)), ("block", .int(b))])
        case .completionBegan(let op, let p):
            return fields("completionBegan", [("op", .int(op)), ("threadPriority", .double(p))])
        case .completionEnded(let op): return one("completionEnded", .int(op))
        case .willChange(let op, let key, let v): return fields("willChange", keyed(op, key, value(v)))
        case .didChange(let op, let key, let v): return fields("didChange", keyed(op, key, value(v)))
        case .read(let op, let key, let v): return fields("read", keyed(op, key, value(v)))
        case .set(let op, let key, let b): return fields("set", keyed(op, key, .bool(b)))
        case .operationCount(let q, let n): return fields("operationCount", [("queue", .int(q)), ("count", .int(n))])
        case .operations(let q, let list):
            return fields("operations", [("ops", .array(list.map { .int($0) })), ("queue", .int(q))])
        case .suspended(let q, let b): return fields("suspended", [("queue", .int(q)), ("value", .bool(b))])
        case .currentQueue(let op, let q):
            return fields("currentQueue", [("op", .int(op))] + (q.map { [("queue", .int($0))] } ?? []))
        case .mainQueue(let same, let suspended, let current):
            return fields("mainQueue", [("current", .bool(current)), ("same", .bool(same)),
                                        ("suspended", .bool(suspended))])
        case .queueDeallocated(let q, let gone):
            return fields("queueDeallocated", [("deallocated", .bool(gone)), ("queue", .int(q))])
        case .underlyingQueue(let op, let d):
            return fields("underlyingQueue", [("op", .int(op))] + (d.map { [("dispatchQueue", .int($0))] } ?? []))
        case .work(let op, let units): return fields("work", [("op", .int(op)), ("units", .int(units))])
        case .announced(let op, let key, let affects):
            return fields("announced", [("op", .int(op)), ("key", .string(key))]
                + (affects.map { [("affects", .array($0.map { .string($0.rawValue) }))] } ?? []))
        case .signal(let token): return one("signal", .int(token))
        case .awaited(let token, let satisfied):
            return fields("awaited", [("token", .int(token)), ("satisfied", .bool(satisfied))])
        case .invocationResult(let op): return one("invocationResult", .int(op))
        case .crash(let signal, let message):
            return fields("crash", [("signal", .int(signal)), ("message", .string(message))])
        case .hang(let what): return one("hang", .string(what))
        case .unsupported(let why): return one("unsupported", .string(why))
        case .cut(let why): return one("cut", .string(why))
        case .breach(let what): return one("breach", .string(what))
        case .end: return fields("end", [])
        }
    }

    private static func keyed(_ op: Int, _ key: StateKey, _ v: JSONValue) -> [(key: String, value: JSONValue)] {
        [("op", .int(op)), ("key", .string(key.rawValue)), ("value", v)]
    }

    /// A value as its JSON type says it: true/false, a whole number, a number with a point or an
    /// exponent (a double: Swift writes every finite double so), a list of operation numbers.
    static func value(_ v: Value) -> JSONValue {
        switch v {
        case .bool(let b): return .bool(b)
        case .int(let n): return .int(n)
        case .double(let x): return double(x)
        case .ops(let ops): return .array(ops.map { .int($0) })
        }
    }

    /// A double; one that is not finite (an implementation reporting NaN as a thread priority)
    /// has no JSON number, so it is written as the string Swift names it by, which reading
    /// takes back.
    static func double(_ x: Double) -> JSONValue { x.isFinite ? .double(x) : .string(x.description) }

    static func call(_ c: Call) -> JSONValue {
        func opAnd(_ name: String, _ op: Int, _ key: String, _ v: JSONValue) -> JSONValue {
            fields(name, [("op", .int(op)), (key, v)])
        }
        switch c {
        case .start(let op, let by): return fields("start", [("op", .int(op)), ("by", .string(by.rawValue))])
        case .superStart(let op): return one("superStart", .int(op))
        case .cancel(let op): return one("cancel", .int(op))
        case .addOperation(let op, let q): return opAnd("addOperation", op, "queue", .int(q))
        case .addOperations(let ops, let q, let wait):
            return fields(
                "addOperations", [("ops", .array(ops.map { .int($0) })), ("queue", .int(q)), ("wait", .bool(wait))])
        case .addDependency(let op, let on): return opAnd("addDependency", op, "on", .int(on))
        case .removeDependency(let op, let on): return opAnd("removeDependency", op, "on", .int(on))
        case .setCompletionBlock(let op): return one("setCompletionBlock", .int(op))
        case .addExecutionBlock(let op): return one("addExecutionBlock", .int(op))
        case .setQueuePriority(let op, let raw): return opAnd("setQueuePriority", op, "priority", .int(raw))
        case .setThreadPriority(let op, let p): return opAnd("setThreadPriority", op, "priority", double(p))
        case .cancelAll(let q): return one("cancelAll", .int(q))
        case .setSuspended(let q, let b): return fields("setSuspended", [("queue", .int(q)), ("suspended", .bool(b))])
        case .setMaxConcurrent(let q, let n):
            return fields("setMaxConcurrent", [("queue", .int(q)), ("count", .int(n))])
        case .waitUntilFinished(let op): return one("waitUntilFinished", .int(op))
        case .waitUntilAllFinished(let q): return one("waitUntilAllFinished", .int(q))
        case .result(let op): return one("result", .int(op))
        case .addBlock(let op, let q): return opAnd("addBlock", op, "queue", .int(q))
        case .releaseQueue(let q): return one("releaseQueue", .int(q))
        case .setUnderlyingQueue(let q, let d):
            return fields("setUnderlyingQueue", [("queue", .int(q))] + (d.map { [("dispatchQueue", .int($0))] } ?? []))
        }
    }
}
