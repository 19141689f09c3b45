import Foundation
import OperationSpec

/// Reads a format-2 trace file (Specs/trace-format.md) from the tree `JSONDiagnosis` read, by
/// hand and strictly, with the pieces and the sentences `ScenarioDecoder` reads scenarios
/// with: an unknown key or case is refused with the nearest known one, a value of the wrong
/// type with what it must be, and every refusal names the source, the path, the line and the
/// column.
struct TraceDecoder {
    typealias Node = JSONDiagnosis.Node
    typealias Path = [JSONPathSegment]
    typealias Shape = ScenarioDecoder.Shape
    typealias Cases = ScenarioDecoder.Cases

    let r: ScenarioDecoder

    init(source: String, diagnosis: JSONDiagnosis) {
        r = ScenarioDecoder(source: source, diagnosis: diagnosis)
    }

    static let fileShape = Shape(
        noun: "a trace file", keys: ["capabilities", "events", "format", "impl", "scenario", "scheduleSeed"],
        required: ["capabilities", "events", "format", "impl", "scenario", "scheduleSeed"],
        example:
            #"{"format": 2, "impl": "reference", "scheduleSeed": 1, "capabilities": [...], "#
                + #""scenario": {...}, "events": [...]}"#
    )
    static let eventShape = Shape(
        noun: "an event", keys: ["kind", "seq", "thread"], required: ["kind", "seq", "thread"],
        example: #"{"seq": 0, "thread": 0, "kind": {"threadStarted": {"name": "main"}}}"#)
    static let kindCases = Cases(noun: "an event kind", plural: "the event kinds",
        names: [
            "announced", "awaited", "blockBegan", "blockEnded", "breach", "call", "completionBegan", "completionEnded",
            "crash",
            "currentQueue", "cut", "didChange", "end", "hang", "invocationResult", "mainBegan", "mainEnded",
            "mainQueue", "operationCount", "operations", "queueDeallocated", "read",
            "returned", "set", "signal", "stepDone", "stepIssued", "suspended",
            "threadStarted", "threw", "triggerMissed", "underlyingQueue", "unsupported",
            "willChange", "work"
        ],
                                 example: #"{"end": {}}"#)
    static let callCases = Cases(noun: "a call", plural: "the calls",
        names: [
            "addBlock", "addDependency", "addExecutionBlock", "addOperation", "addOperations", "cancel", "cancelAll",
            "releaseQueue", "removeDependency", "result", "setCompletionBlock", "setMaxConcurrent", "setQueuePriority",
            "setSuspended",
            "setThreadPriority", "setUnderlyingQueue", "start", "superStart",
            "waitUntilAllFinished", "waitUntilFinished"
        ],
                                 example: #"{"addOperation": {"op": 0, "queue": 0}}"#)

    /// The names and keys of a format-2 trace file, for the schema's test to compare with.
    static var vocabulary: [String: [String]] {
        ["kinds": kindCases.names, "calls": callCases.names, "file": fileShape.keys, "event": eventShape.keys,
         "misuse": MisuseKind.allCases.map(\.rawValue).sorted(), "caller": ["driver", "program", "queue"],
         "capabilities": Observation.allCases.map(\.rawValue).sorted()]
    }

    static let reportShape = Shape(noun: "a replay report", keys: ["format", "profile", "trace", "violations"],
                                   required: ["format", "profile", "trace", "violations"],
                                   example: #"{"format": 2, "profile": "guide", "trace": {...}, "violations": [...]}"#)
    static let violationShape = Shape(
        noun: "a violation", keys: ["expected", "observed", "rule", "severity", "strength", "witnesses"],
        required: ["expected", "observed", "rule", "severity", "strength", "witnesses"],
        example:
            #"{"rule": "DEP-ORDER", "observed": "...", "expected": "...", "severity": "failure", "#
                + #""strength": "documented must", "witnesses": [3, 9]}"#
    )

    // MARK: the file

    /// The trace of a replay report (`replay --json`): its verdict is read, strictly, and left;
    /// `check` judges the trace again.
    func report(_ node: Node) throws(InputError) -> TraceFile {
        try format(node, [])
        let f = try r.fields(node, [], Self.reportShape)
        _ = try r.string(f.required("profile"))
        let (vn, vp) = f.required("violations")
        for (item, at) in try r.list(vn, vp, of: "violations") {
            let v = try r.fields(item, at, Self.violationShape)
            for key in ["expected", "observed", "rule", "severity", "strength"] { _ = try r.string(v.required(key)) }
            let (wn, wp) = v.required("witnesses")
            for (w, wat) in try r.list(wn, wp, of: "event seq numbers") { _ = try r.int(w, wat, 0...Int.max) }
        }
        let (tn, tp) = f.required("trace")
        return try file(tn, tp)
    }

    /// The `format` of the object at `path`, when it has one, must be 2 or 3: it says how the
    /// rest is read. Returns it.
    @discardableResult
    private func format(_ node: Node, _ path: Path) throws(InputError) -> Int? {
        guard case .object(let members) = node.value, let format = members.first(where: { $0.key == "format" })?.node
        else { return nil }
        switch format.value {
        case .number("2"): return 2
        case .number("3"): return 3
        case .number("4"): return 4
        case .number("5"): return 5
        default:
            throw r.fail("\(JSONPathSegment.render(path + [.key("format")])) is \(JSONDiagnosis.describe(format)) at "
                + "\(r.at(format)), but this build reads trace formats 2 to 5 (and the format-1 'replay --json' "
                + "document, which has no format)")
        }
    }

    func file(_ node: Node, _ path: Path) throws(InputError) -> TraceFile {
        guard case .object = node.value else {
            throw r.fail(
                "\(JSONPathSegment.render(path)) is \(JSONDiagnosis.describe(node)) at \(r.at(node)), but must be an "
                    + "object, \(Self.fileShape.noun) such as \(Self.fileShape.example)"
            )
        }
        let declared = try format(node, path)
        let f = try r.fields(node, path, Self.fileShape)
        let scenario = try r.scenario(
            f.required("scenario").0, f.required("scenario").1,
            formats: "a trace file of format 2 holds its scenario in format \(ScenarioFormat.newest)")
        var capabilities: [Observation] = []
        let (cn, cp) = f.required("capabilities")
        // Each at most once, in the order written: the order reaches the trace, which is compared
        // byte for byte when written again.
        for (item, at) in try r.list(cn, cp, of: "capabilities") {
            let c = try r.named(item, at, "a capability", Self.vocabulary["capabilities"]!) {
                Observation(rawValue: $0)
            }
            guard !capabilities.contains(c) else {
                throw r.fail(
                    "\(JSONPathSegment.render(at)) names the capability \(c.rawValue) a second "
                        + "time; each is listed once"
                )
            }
            capabilities.append(c)
        }
        var events: [TraceEvent] = []
        let (en, ep) = f.required("events")
        let items = try r.list(en, ep, of: "events")
        events.reserveCapacity(items.count)
        for (item, at) in items { events.append(try event(item, at)) }
        let trace = Trace(
            impl: try r.string(f.required("impl")),
            scheduleSeed: try r.seed(f.required("scheduleSeed").0, f.required("scheduleSeed").1),
            capabilities: capabilities, events: events)
        if let declared, declared < 5 && TraceFormat.format(of: trace) == 5 {
            throw r.fail("\(JSONPathSegment.render(path + [.key("format")])) is \(declared), but the trace has "
                + "the 'apiSurface4' or 'dispatchQueues' capability, a 'setUnderlyingQueue' call or a 'mainQueue', "
                + "'queueDeallocated' or 'underlyingQueue' event, which trace format 5 added: write \"format\": 5")
        }
        if let declared, declared < 4 && TraceFormat.format(of: trace) == 4 {
            throw r.fail(
                "\(JSONPathSegment.render(path + [.key("format")])) is \(declared), but the trace has "
                    + "the 'apiSurface3' capability, a 'releaseQueue' call or an 'operations' event, which trace "
                    + "format 4 added: write \"format\": 4"
            )
        }
        if declared == 2 && TraceFormat.format(of: trace) == 3 {
            throw r.fail(
                "\(JSONPathSegment.render(path + [.key("format")])) is 2, but the trace has an 'announced' event or "
                    + "the 'announcements' capability, which trace format 3 added: write \"format\": 3")
        }
        return TraceFile(scenario: scenario, trace: trace)
    }

    func event(_ node: Node, _ path: Path) throws(InputError) -> TraceEvent {
        let f = try r.fields(node, path, Self.eventShape)
        return TraceEvent(
            seq: try r.int(f.required("seq"), 0...Int.max), thread: try r.int(f.required("thread"), 0...Int.max),
            try kind(f.required("kind").0, f.required("kind").1))
    }

    // MARK: kinds

    func kind(_ node: Node, _ path: Path) throws(InputError) -> EventKind {
        let (name, n, p) = try r.oneKey(node, path, Self.kindCases)
        func shape(
            _ keys: [String], required: [String]? = nil, _ example: String
        ) throws(InputError) -> ScenarioDecoder.Fields {
            try r.fields(
                n, p,
                Shape(noun: "a " + name, keys: keys.sorted(), required: (required ?? keys).sorted(), example: example))
        }
        func index(_ field: (Node, Path)) throws(InputError) -> Int { try r.int(field, 0...Int.max) }
        switch name {
        case "threadStarted":
            let f = try shape(["name", "queue"], required: ["name"], #"{"name": "main", "queue": 0}"#)
            return .threadStarted(
                name: try r.string(f.required("name")),
                queue: try f["queue"].map { (v, at) throws(InputError) in try r.int(v, at, 0...Int.max) })
        case "stepIssued": return .stepIssued(try r.int(n, p, 0...Int.max))
        case "stepDone": return .stepDone(try r.int(n, p, 0...Int.max))
        case "triggerMissed": return .triggerMissed(try r.int(n, p, 0...Int.max))
        case "call": return .call(try call(n, p))
        case "returned": return .returned(try call(n, p))
        case "threw":
            let f = try shape(
                ["call", "message", "misuse"],
                #"{"call": {"start": {"op": 0, "by": "driver"}}, "misuse": "notReady", "message": "..."}"#)
            let (cn, cp) = f.required("call")
            let (mn, mp) = f.required("misuse")
            return .threw(
                try call(cn, cp),
                try r.named(mn, mp, "a misuse kind", Self.vocabulary["misuse"]!) { MisuseKind(rawValue: $0) },
                try r.string(f.required("message")))
        case "mainBegan", "completionBegan":
            let f = try shape(["op", "threadPriority"], #"{"op": 0, "threadPriority": 0.5}"#)
            let op = try index(f.required("op")), priority = try double(f.required("threadPriority"))
            return name == "mainBegan"
                ? .mainBegan(op: op, threadPriority: priority) : .completionBegan(op: op, threadPriority: priority)
        case "mainEnded": return .mainEnded(op: try r.int(n, p, 0...Int.max))
        case "completionEnded": return .completionEnded(op: try r.int(n, p, 0...Int.max))
        case "invocationResult": return .invocationResult(op: try r.int(n, p, 0...Int.max))
        case "blockBegan", "blockEnded":
            let f = try shape(["block", "op"], #"{"op": 0, "block": 1}"#)
            let op = try index(f.required("op")), block = try index(f.required("block"))
            return name == "blockBegan" ? .blockBegan(op: op, block: block) : .blockEnded(op: op, block: block)
        case "willChange", "didChange", "read":
            let f = try shape(["key", "op", "value"], #"{"op": 0, "key": "isFinished", "value": true}"#)
            let op = try index(f.required("op"))
            let key = try r.stateKey(f.required("key"))
            let v = try value(f.required("value"), key: key, event: name)
            switch name {
            case "willChange": return .willChange(op: op, key, v)
            case "didChange": return .didChange(op: op, key, v)
            default: return .read(op: op, key, v)
            }
        case "set":
            let f = try shape(["key", "op", "value"], #"{"op": 0, "key": "isFinished", "value": true}"#)
            let op = try index(f.required("op"))
            return .set(op: op, try r.stateKey(f.required("key")), try r.bool(f.required("value")))
        case "operationCount":
            let f = try shape(["count", "queue"], #"{"queue": 0, "count": 2}"#)
            return .operationCount(queue: try index(f.required("queue")), try index(f.required("count")))
        case "operations":
            let f = try shape(["ops", "queue"], #"{"queue": 0, "ops": [0, 2]}"#)
            let (ln, lp) = f.required("ops")
            var list: [Int] = []
            for (item, at) in try r.list(ln, lp, of: "operation numbers") {
                list.append(try r.int(item, at, -1...Int.max))
            }
            return .operations(queue: try index(f.required("queue")), ops: list)
        case "suspended":
            let f = try shape(["queue", "value"], #"{"queue": 0, "value": true}"#)
            return .suspended(queue: try index(f.required("queue")), try r.bool(f.required("value")))
        case "mainQueue":
            let f = try shape(["current", "same", "suspended"], #"{"current": true, "same": true, "suspended": false}"#)
            return .mainQueue(same: try r.bool(f.required("same")), suspended: try r.bool(f.required("suspended")),
                              current: try r.bool(f.required("current")))
        case "queueDeallocated":
            let f = try shape(["deallocated", "queue"], #"{"queue": 0, "deallocated": true}"#)
            return .queueDeallocated(queue: try index(f.required("queue")),
                                     deallocated: try r.bool(f.required("deallocated")))
        case "underlyingQueue":
            let f = try shape(["dispatchQueue", "op"], required: ["op"], #"{"op": 1, "dispatchQueue": 0}"#)
            let d = try f["dispatchQueue"].map { (v, at) throws(InputError) in try r.int(v, at, 0...Int.max) }
            return .underlyingQueue(op: try index(f.required("op")), dispatchQueue: d)
        case "currentQueue":
            let f = try shape(["op", "queue"], required: ["op"], #"{"op": 1, "queue": 0}"#)
            return .currentQueue(
                op: try index(f.required("op")),
                queue: try f["queue"].map { (v, at) throws(InputError) in try r.int(v, at, 0...Int.max) })
        case "announced":
            let f = try shape(
                ["affects", "key", "op"], required: ["key", "op"],
                #"{"op": 1, "key": "state", "affects": ["isFinished"]}"#)
            let affects = try f["affects"].map { (v, at) throws(InputError) -> [StateKey] in
                var keys: [StateKey] = []
                for (item, itemAt) in try r.list(v, at, of: "state keys") { keys.append(try r.stateKey(item, itemAt)) }
                return keys
            }
            return .announced(op: try index(f.required("op")), key: try r.string(f.required("key")), affects: affects)
        case "work":
            let f = try shape(["op", "units"], #"{"op": 0, "units": 3}"#)
            return .work(op: try index(f.required("op")), units: try index(f.required("units")))
        case "signal": return .signal(token: try r.int(n, p))
        case "awaited":
            let f = try shape(["satisfied", "token"], #"{"token": 1, "satisfied": true}"#)
            return .awaited(token: try r.int(f.required("token")), satisfied: try r.bool(f.required("satisfied")))
        case "crash":
            let f = try shape(["message", "signal"], #"{"signal": 11, "message": "..."}"#)
            return .crash(signal: try r.int(f.required("signal")), message: try r.string(f.required("message")))
        case "hang": return .hang(try r.string(n, p))
        case "unsupported": return .unsupported(try r.string(n, p))
        case "cut": return .cut(try r.string(n, p))
        case "breach": return .breach(try r.string(n, p))
        default:
            try r.empty(n, p, name)
            return .end
        }
    }

    // MARK: calls

    func call(_ node: Node, _ path: Path) throws(InputError) -> Call {
        let (name, n, p) = try r.oneKey(node, path, Self.callCases)
        func shape(_ keys: [String], _ example: String) throws(InputError) -> ScenarioDecoder.Fields {
            try r.fields(
                n, p, Shape(noun: "a " + name + " call", keys: keys.sorted(), required: keys.sorted(), example: example)
            )
        }
        func index(_ field: (Node, Path)) throws(InputError) -> Int { try r.int(field, 0...Int.max) }
        func bare() throws(InputError) -> Int { try r.int(n, p, 0...Int.max) }
        switch name {
        case "start":
            let f = try shape(["by", "op"], #"{"op": 0, "by": "driver"}"#)
            let (bn, bp) = f.required("by")
            return .start(
                try index(f.required("op")),
                by: try r.named(bn, bp, "a caller", Self.vocabulary["caller"]!) { Caller(rawValue: $0) })
        case "superStart": return .superStart(try bare())
        case "cancel": return .cancel(try bare())
        case "setCompletionBlock": return .setCompletionBlock(try bare())
        case "addExecutionBlock": return .addExecutionBlock(try bare())
        case "waitUntilFinished": return .waitUntilFinished(try bare())
        case "result": return .result(try bare())
        case "cancelAll": return .cancelAll(queue: try bare())
        case "releaseQueue": return .releaseQueue(queue: try bare())
        case "waitUntilAllFinished": return .waitUntilAllFinished(queue: try bare())
        case "addOperation", "addBlock":
            let f = try shape(["op", "queue"], #"{"op": 0, "queue": 0}"#)
            let op = try index(f.required("op")), queue = try index(f.required("queue"))
            return name == "addOperation" ? .addOperation(op, queue: queue) : .addBlock(op, queue: queue)
        case "addOperations":
            let f = try shape(["ops", "queue", "wait"], #"{"ops": [0, 1], "queue": 0, "wait": false}"#)
            let (on, op) = f.required("ops")
            var ops: [Int] = []
            for (item, at) in try r.list(on, op, of: "operation numbers") {
                ops.append(try r.int(item, at, 0...Int.max))
            }
            return .addOperations(ops, queue: try index(f.required("queue")), wait: try r.bool(f.required("wait")))
        case "addDependency", "removeDependency":
            let f = try shape(["on", "op"], #"{"op": 1, "on": 0}"#)
            let op = try index(f.required("op")), on = try index(f.required("on"))
            return name == "addDependency" ? .addDependency(op, on: on) : .removeDependency(op, on: on)
        case "setQueuePriority":
            let f = try shape(["op", "priority"], #"{"op": 0, "priority": 4}"#)
            return .setQueuePriority(try index(f.required("op")), try r.int(f.required("priority")))
        case "setThreadPriority":
            let f = try shape(["op", "priority"], #"{"op": 0, "priority": 0.5}"#)
            return .setThreadPriority(try index(f.required("op")), try double(f.required("priority")))
        case "setSuspended":
            let f = try shape(["queue", "suspended"], #"{"queue": 0, "suspended": true}"#)
            return .setSuspended(queue: try index(f.required("queue")), try r.bool(f.required("suspended")))
        case "setUnderlyingQueue":
            let f = try r.fields(n, p, Shape(noun: "a setUnderlyingQueue call", keys: ["dispatchQueue", "queue"],
                                             required: ["queue"], example: #"{"queue": 0, "dispatchQueue": 0}"#))
            let d = try f["dispatchQueue"].map { (v, at) throws(InputError) in try r.int(v, at, 0...Int.max) }
            return .setUnderlyingQueue(queue: try index(f.required("queue")), dispatchQueue: d)
        default:
            let f = try shape(["count", "queue"], #"{"queue": 0, "count": 1}"#)
            return .setMaxConcurrent(queue: try index(f.required("queue")), try r.int(f.required("count")))
        }
    }

    // MARK: values

    /// A double: a number, or (for one that is not finite, which JSON has no number for) the
    /// string Swift names it by, as `TraceEncoder.double` writes it.
    func double(_ field: (Node, Path)) throws(InputError) -> Double {
        if case .string(let s) = field.0.value, ["nan", "inf", "-inf"].contains(s), let x = Double(s) { return x }
        if case .number(let text) = field.0.value, let x = Double(text), x.isFinite { return x }
        throw r.mustBe(field.0, field.1, "a number (or \"nan\", \"inf\" or \"-inf\" for a double that is not finite)")
    }

    /// The value a read or a notification of `key` carries, of the type the key has: YES or NO
    /// for the state keys and completionBlock (whether there is one), a list of operation
    /// numbers for dependencies, a whole number for queuePriority and executionBlocks (a count),
    /// a number for threadPriority.
    func value(_ field: (Node, Path), key: StateKey, event: String) throws(InputError) -> Value {
        let (node, path) = field
        switch key {
        case .isCancelled, .isConcurrent, .isExecuting, .isFinished, .isReady, .completionBlock:
            if case .bool(let b) = node.value { return .bool(b) }
            throw r.mustBe(node, path, "true or false: the value of \(key.rawValue)")
        case .dependencies:
            guard case .array = node.value else {
                throw r.mustBe(node, path, "a list of operation numbers: the value of dependencies")
            }
            var ops: [Int] = []
            for (item, at) in try r.list(node, path, of: "operation numbers") {
                ops.append(try r.int(item, at, 0...Int.max))
            }
            return .ops(ops)
        case .queuePriority, .executionBlocks:
            return .int(try r.int(node, path))
        case .threadPriority:
            // Written as a double (with a point); a whole number, as a driver may send, reads
            // back as the integer it is, so a trace read and written again is the same trace.
            if case .number(let text) = node.value, let n = Int(text) { return .int(n) }
            return .double(try double(field))
        }
    }
}
