import Foundation
import OperationSpec

/// Reads a format-2 scenario (Specs/scenario-format.md) from the tree `JSONDiagnosis` read, by
/// hand and strictly. A key it does not know is refused, never passed over: a misspelt
/// "queuePriorty" or "afer" once ran and quietly meant something else. Every refusal is one
/// sentence naming the source, the path, the line and column, what stands there and what is
/// allowed (the keys or cases of that place, and the nearest one to a misspelling); fields at
/// their default may be left out, as `ScenarioEncoder` leaves them out.
struct ScenarioDecoder {
    typealias Node = JSONDiagnosis.Node
    typealias Path = [JSONPathSegment]

    let source: String
    let diagnosis: JSONDiagnosis

    init(source: String, diagnosis: JSONDiagnosis) {
        self.source = JSONDiagnosis.oneLine(source)
        self.diagnosis = diagnosis
    }

    // MARK: shapes

    /// An object with named fields: what it is called in a sentence, its keys, the ones it
    /// must have, and one to copy.
    struct Shape {
        var noun: String
        var keys: [String]
        var required: [String] = []
        var example: String
        var keysClause: String { "the keys of \(noun) are: " + keys.joined(separator: ", ") }
    }

    /// An enumeration: an object whose one key is the case.
    struct Cases {
        var noun: String
        var plural: String
        var names: [String]
        var example: String
        var casesClause: String { "\(plural) are: " + names.joined(separator: ", ") }
    }

    static let scenarioShape = Shape(
        noun: "a scenario",
        keys: ["dependencies", "driver", "format", "generatorVersion", "name", "operations", "queues", "seed"],
        required: ["format"], example: #"{"format": 2, "operations": [...], "driver": [...]}"#)
    static let queueShape = Shape(
        noun: "a queue", keys: ["maxConcurrent", "name", "suspended"], example: #"{"maxConcurrent": 1}"#)
    static let operationShape = Shape(
        noun: "an operation", keys: ["completion", "kind", "queuePriority", "readyAfterSignal", "threadPriority"],
        required: ["kind"], example: #"{"kind": {"main": [{"work": 1}]}}"#)
    static let edgeShape = Shape(
        noun: "a dependency", keys: ["on", "op"], required: ["on", "op"], example: #"{"op": 1, "on": 0}"#)
    static let driverStepShape = Shape(noun: "a driver step", keys: ["action", "after", "onDispatchQueue"],
                                       required: ["action"],
                                       example: #"{"action": {"add": {"op": 0, "queue": 0}}}"#)
    static let programShape = Shape(
        noun: "a concurrent subclass", keys: ["main", "overridesIsConcurrent", "routines", "start"],
        example: #"{"start": [...], "main": [...], "routines": [{"name": "completeOperation", "body": [...]}]}"#)
    static let routineShape = Shape(
        noun: "a routine", keys: ["body", "name"], required: ["body", "name"],
        example: #"{"name": "completeOperation", "body": [...]}"#)

    static let kindCases = Cases(
        noun: "a kind", plural: "the kinds", names: ["block", "concurrent", "invocation", "main", "subclass"],
        example: #"{"main": [{"work": 1}]}"#)
    static let stepCases = Cases(noun: "a step", plural: "the steps",
        names: [
            "await", "call", "callMain", "callSuperStart", "cancel", "cancelAll", "didChange", "if", "read",
            "readCurrentQueue", "repeat",
            "readUnderlyingQueue", "return", "returnIfCancelled", "set", "signal", "spawn", "start",
            "willChange", "work",
            "willChangeUnprefixed", "didChangeUnprefixed"
        ].sorted(),
                             example: #"{"work": 1}"#)
    static let conditionCases = Cases(noun: "a condition", plural: "the conditions",
        names: ["and", "isCancelled", "isConcurrent", "isExecuting", "isFinished", "isReady", "not"],
                                  example: #"{"isCancelled": "self"}"#)
    static let triggerCases = Cases(
        noun: "a trigger", plural: "the triggers",
        names: ["blockBegan", "finished", "mainBegan", "signaled", "started"],
        example: #"{"finished": 0}"#)
    static let actionCases = Cases(noun: "an action", plural: "the actions",
        names: [
            "add", "addBatch", "addBlock", "addDependency", "addExecutionBlock", "cancel", "cancelAll", "perform",
            "read",
            "readMainQueue", "readOperationCount", "readOperations", "readQueueDeallocated",
            "readSuspended", "releaseQueue", "removeDependency", "result", "resume",
            "setCompletionBlock", "setMaxConcurrent", "setQueuePriority",
            "setThreadPriority", "setUnderlyingQueue", "sleep", "start", "suspend",
            "waitUntilAllFinished", "waitUntilFinished"
        ],
                               example: #"{"add": {"op": 0, "queue": 0}}"#)

    // MARK: the scenario

    /// The scenario at `path`, whose `format` must be 2; `formats` ends the sentence that
    /// refuses another (what this reader, or the document around it, accepts).
    func scenario(_ node: Node, _ path: Path, formats: String) throws(InputError) -> Scenario {
        guard case .object(let members) = node.value else {
            throw fail(
                "\(JSONPathSegment.render(path)) is \(JSONDiagnosis.describe(node)) at \(at(node)), but must be an "
                    + "object, a scenario such as \(Self.scenarioShape.example)"
            )
        }
        guard let format = members.first(where: { $0.key == "format" })?.node else {
            throw fail(
                "\(objectName(path)) at \(at(node)) has no key \"format\": format 2 is current, so a scenario begins "
                    + "{\"format\": 2, ...} (Specs/scenario-format.md; a file of the older form says \"format\": 1, "
                    + "and 'opconform convert FILE' rewrites it)"
            )
        }
        guard case .number("2") = format.value else {
            throw fail(
                "\(JSONPathSegment.render(path + [.key("format")])) is \(JSONDiagnosis.describe(format)) at "
                    + "\(at(format)), but \(formats)"
            )
        }
        let f = try fields(node, path, Self.scenarioShape)
        var s = Scenario()
        if let (n, p) = f["name"] { s.name = try string(n, p) }
        if let (n, p) = f["seed"] { s.seed = try seed(n, p) }
        if let (n, p) = f["generatorVersion"] { s.generatorVersion = try int(n, p) }
        if let (n, p) = f["queues"] {
            for (item, at) in try list(n, p, of: "queues") { s.queues.append(try queue(item, at)) }
        }
        if let (n, p) = f["operations"] {
            for (item, at) in try list(n, p, of: "operations") { s.operations.append(try operation(item, at)) }
        }
        if let (n, p) = f["dependencies"] {
            for (item, at) in try list(n, p, of: "dependencies") {
                let e = try fields(item, at, Self.edgeShape)
                s.dependencies.append(Edge(try int(e.required("op")), on: try int(e.required("on"))))
            }
        }
        if let (n, p) = f["driver"] {
            for (item, at) in try list(n, p, of: "driver steps") { s.driver.append(try driverStep(item, at)) }
        }
        return s
    }

    func queue(_ node: Node, _ path: Path) throws(InputError) -> QueueConfig {
        let f = try fields(node, path, Self.queueShape)
        var q = QueueConfig()
        if let (n, p) = f["maxConcurrent"] { q.maxConcurrent = try int(n, p, QueueConfig.defaultMax...Int.max) }
        if let (n, p) = f["suspended"] { q.suspended = try bool(n, p) }
        if let (n, p) = f["name"] { q.name = try string(n, p) }
        return q
    }

    func operation(_ node: Node, _ path: Path) throws(InputError) -> OperationConfig {
        let f = try fields(node, path, Self.operationShape)
        var o = OperationConfig(kind: try kind(f.required("kind")))
        if let (n, p) = f["queuePriority"] { o.queuePriority = try int(n, p) }
        if let (n, p) = f["threadPriority"] { o.threadPriority = try double(n, p) }
        if let (n, p) = f["completion"] { o.completion = try steps(n, p) }
        if let (n, p) = f["readyAfterSignal"] { o.readyAfterSignal = try int(n, p) }
        return o
    }

    func kind(_ node: Node, _ path: Path) throws(InputError) -> OperationKind {
        let (name, n, p) = try oneKey(node, path, Self.kindCases)
        switch name {
        case "main": return .main(try steps(n, p))
        case "invocation": return .invocation(try steps(n, p))
        case "subclass": return .subclass(try steps(n, p))
        case "block":
            var blocks: [[Step]] = []
            for (item, at) in try list(n, p, of: "blocks, each a list of steps") { blocks.append(try steps(item, at)) }
            return .block(blocks)
        default:
            let f = try fields(n, p, Self.programShape)
            var program = ConcurrentProgram(start: [], main: [])
            if let (v, at) = f["overridesIsConcurrent"] { program.overridesIsConcurrent = try bool(v, at) }
            if let (v, at) = f["start"] { program.start = try steps(v, at) }
            if let (v, at) = f["main"] { program.main = try steps(v, at) }
            if let (v, at) = f["routines"] {
                for (item, itemPath) in try list(v, at, of: "routines") {
                    let r = try fields(item, itemPath, Self.routineShape)
                    program.routines.append(Routine(try string(r.required("name")), try steps(r.required("body"))))
                }
            }
            return .concurrent(program)
        }
    }

    // MARK: steps

    func steps(_ node: Node, _ path: Path) throws(InputError) -> [Step] {
        var out: [Step] = []
        for (item, at) in try list(node, path, of: "steps") { out.append(try step(item, at)) }
        return out
    }

    func step(_ node: Node, _ path: Path) throws(InputError) -> Step {
        let (name, n, p) = try oneKey(node, path, Self.stepCases)
        switch name {
        case "work": return .work(try int(n, p, Step.workRange))
        case "returnIfCancelled": try empty(n, p, name); return .returnIfCancelled
        case "return": try empty(n, p, name); return .return
        case "callMain": try empty(n, p, name); return .callMain
        case "callSuperStart": try empty(n, p, name); return .callSuperStart
        case "readCurrentQueue": try empty(n, p, name); return .readCurrentQueue
        case "readUnderlyingQueue": try empty(n, p, name); return .readUnderlyingQueue
        case "if":
            let f = try fields(
                n, p,
                Shape(
                    noun: "an if", keys: ["condition", "else", "then"], required: ["condition"],
                    example: #"{"condition": {"isCancelled": "self"}, "then": [{"return": {}}]}"#))
            let c = try condition(f.required("condition"))
            let then = try f["then"].map { (v, at) throws(InputError) in try steps(v, at) } ?? []
            let otherwise = try f["else"].map { (v, at) throws(InputError) in try steps(v, at) } ?? []
            return .if(c, then: then, else: otherwise)
        case "repeat":
            let f = try fields(
                n, p,
                Shape(
                    noun: "a repeat", keys: ["body", "times"], required: ["body", "times"],
                    example: #"{"times": 3, "body": [{"work": 1}]}"#))
            return .repeat(try int(f.required("times"), Step.repeatRange), try steps(f.required("body")))
        case "willChange": return .willChange(try stateKey(n, p))
        case "didChange": return .didChange(try stateKey(n, p))
        case "willChangeUnprefixed": return .willChangeUnprefixed(try prefixedKey(n, p))
        case "didChangeUnprefixed": return .didChangeUnprefixed(try prefixedKey(n, p))
        case "set":
            let f = try fields(
                n, p,
                Shape(
                    noun: "a set", keys: ["key", "value"], required: ["key", "value"],
                    example: #"{"key": "isFinished", "value": true}"#))
            return .set(try stateKey(f.required("key")), try bool(f.required("value")))
        case "call": return .call(try string(n, p))
        case "spawn":
            let f = try fields(
                n, p,
                Shape(
                    noun: "a spawn", keys: ["method", "op"], required: ["method", "op"],
                    example: #"{"method": "main", "op": "self"}"#))
            return .spawn(try method(f.required("method")), try opRef(f.required("op")))
        case "start": return .start(try opRef(n, p))
        case "cancel": return .cancel(try opRef(n, p))
        case "cancelAll": return .cancelAll(try int(n, p))
        case "read":
            let f = try fields(
                n, p,
                Shape(
                    noun: "a read", keys: ["key", "op"], required: ["key", "op"],
                    example: #"{"key": "isReady", "op": "self"}"#))
            return .read(try stateKey(f.required("key")), try opRef(f.required("op")))
        case "signal": return .signal(try int(n, p))
        default:
            let f = try fields(
                n, p,
                Shape(
                    noun: "an await", keys: ["timeout", "token"], required: ["timeout", "token"],
                    example: #"{"token": 1, "timeout": 50}"#))
            return .await(try int(f.required("token")), timeout: try int(f.required("timeout"), Step.awaitTimeoutRange))
        }
    }

    func condition(_ node: Node, _ path: Path) throws(InputError) -> Condition {
        let (name, n, p) = try oneKey(node, path, Self.conditionCases)
        switch name {
        case "isCancelled": return .isCancelled(try opRef(n, p))
        case "isReady": return .isReady(try opRef(n, p))
        case "isConcurrent": return .isConcurrent(try opRef(n, p))
        case "isExecuting": return .isExecuting(try opRef(n, p))
        case "isFinished": return .isFinished(try opRef(n, p))
        case "not": return .not(try condition(n, p))
        default:
            let items = try list(n, p, of: "two conditions")
            guard items.count == 2 else {
                throw fail(
                    "\(JSONPathSegment.render(p)) is \(JSONDiagnosis.describe(n)) at \(at(n)), but must be a list of "
                        + "exactly two conditions, such as [{\"isReady\": \"self\"}, {\"not\": "
                        + "{\"isCancelled\": \"self\"}}]"
                )
            }
            return .and(try condition(items[0].node, items[0].path), try condition(items[1].node, items[1].path))
        }
    }

    // MARK: the driver

    func driverStep(_ node: Node, _ path: Path) throws(InputError) -> DriverStep {
        let f = try fields(node, path, Self.driverStepShape)
        let after = try f["after"].map { (v, at) throws(InputError) in try trigger(v, at) }
        let on = try f["onDispatchQueue"].map { (v, at) throws(InputError) in
            try int(v, at, Scenario.dispatchQueueRange)
        }
        return DriverStep(after: after, try action(f.required("action")), onDispatchQueue: on)
    }

    func trigger(_ node: Node, _ path: Path) throws(InputError) -> Trigger {
        let (name, n, p) = try oneKey(node, path, Self.triggerCases)
        switch name {
        case "started": return .started(try int(n, p))
        case "mainBegan": return .mainBegan(try int(n, p))
        case "finished": return .finished(try int(n, p))
        case "signaled": return .signaled(try int(n, p))
        default:
            let f = try fields(
                n, p,
                Shape(
                    noun: "a blockBegan", keys: ["block", "op"], required: ["block", "op"],
                    example: #"{"op": 0, "block": 1}"#))
            return .blockBegan(try int(f.required("op")), block: try int(f.required("block")))
        }
    }

    func action(_ node: Node, _ path: Path) throws(InputError) -> DriverAction {
        let (name, n, p) = try oneKey(node, path, Self.actionCases)
        /// `{"op": n, "<second>": ...}`, the shape of most actions with two fields.
        func opAnd(_ second: String, _ example: String) throws(InputError) -> (op: Int, second: (Node, Path)) {
            let f = try fields(
                n, p,
                Shape(
                    noun: "a " + name, keys: ["op", second].sorted(), required: ["op", second].sorted(),
                    example: example))
            return (try int(f.required("op")), f.required(second))
        }
        switch name {
        case "add":
            let f = try fields(
                n, p,
                Shape(
                    noun: "an add", keys: ["op", "queue"], required: ["op", "queue"], example: #"{"op": 0, "queue": 0}"#
                ))
            return .add(op: try int(f.required("op")), queue: try int(f.required("queue")))
        case "addBatch":
            let f = try fields(
                n, p,
                Shape(
                    noun: "an addBatch", keys: ["ops", "queue", "wait"], required: ["ops", "queue", "wait"],
                    example: #"{"ops": [0, 1], "queue": 0, "wait": false}"#))
            let (opsNode, opsPath) = f.required("ops")
            var ops: [Int] = []
            for (item, at) in try list(opsNode, opsPath, of: "operation numbers") { ops.append(try int(item, at)) }
            return .addBatch(ops: ops, queue: try int(f.required("queue")), wait: try bool(f.required("wait")))
        case "start": return .start(try int(n, p))
        case "cancel": return .cancel(try int(n, p))
        case "waitUntilFinished": return .waitUntilFinished(try int(n, p))
        case "result": return .result(try int(n, p))
        case "cancelAll": return .cancelAll(queue: try int(n, p))
        case "suspend": return .suspend(queue: try int(n, p))
        case "resume": return .resume(queue: try int(n, p))
        case "waitUntilAllFinished": return .waitUntilAllFinished(queue: try int(n, p))
        case "readOperationCount": return .readOperationCount(queue: try int(n, p))
        case "readSuspended": return .readSuspended(queue: try int(n, p))
        case "releaseQueue": return .releaseQueue(queue: try int(n, p))
        case "readOperations": return .readOperations(queue: try int(n, p))
        case "readMainQueue": try empty(n, p, name); return .readMainQueue
        case "readQueueDeallocated": return .readQueueDeallocated(queue: try int(n, p))
        case "setUnderlyingQueue":
            let f = try fields(n, p, Shape(noun: "a setUnderlyingQueue", keys: ["dispatchQueue", "queue"],
                                            required: ["queue"], example: #"{"queue": 0, "dispatchQueue": 0}"#))
            let d = try f["dispatchQueue"].map { (v, at) throws(InputError) in
                try int(v, at, Scenario.dispatchQueueRange)
            }
            return .setUnderlyingQueue(queue: try int(f.required("queue")), dispatchQueue: d)
        case "sleep": return .sleep(try int(n, p, Step.workRange))
        case "addBlock":
            let f = try fields(
                n, p,
                Shape(
                    noun: "an addBlock", keys: ["op", "queue"], required: ["op", "queue"],
                    example: #"{"op": 0, "queue": 0}"#))
            return .addBlock(op: try int(f.required("op")), queue: try int(f.required("queue")))
        case "perform":
            let (op, body) = try opAnd("body", #"{"op": 0, "body": [{"start": "self"}]}"#)
            return .perform(op: op, try steps(body))
        case "setCompletionBlock":
            let (op, body) = try opAnd("body", #"{"op": 0, "body": [{"work": 1}]}"#)
            return .setCompletionBlock(op: op, try steps(body))
        case "addExecutionBlock":
            let (op, body) = try opAnd("body", #"{"op": 0, "body": [{"work": 1}]}"#)
            return .addExecutionBlock(op: op, try steps(body))
        case "addDependency":
            let (op, on) = try opAnd("on", #"{"op": 1, "on": 0}"#)
            return .addDependency(op: op, on: try int(on))
        case "removeDependency":
            let (op, on) = try opAnd("on", #"{"op": 1, "on": 0}"#)
            return .removeDependency(op: op, on: try int(on))
        case "setQueuePriority":
            let (op, priority) = try opAnd("priority", #"{"op": 0, "priority": 4}"#)
            return .setQueuePriority(op: op, try int(priority))
        case "setThreadPriority":
            let (op, priority) = try opAnd("priority", #"{"op": 0, "priority": 0.5}"#)
            return .setThreadPriority(op: op, try double(priority))
        case "setMaxConcurrent":
            let f = try fields(
                n, p,
                Shape(
                    noun: "a setMaxConcurrent", keys: ["count", "queue"], required: ["count", "queue"],
                    example: #"{"queue": 0, "count": 1}"#))
            return .setMaxConcurrent(
                queue: try int(f.required("queue")), try int(f.required("count"), QueueConfig.defaultMax...Int.max))
        default:
            let f = try fields(
                n, p,
                Shape(
                    noun: "a read", keys: ["key", "op"], required: ["key", "op"],
                    example: #"{"key": "isFinished", "op": 0}"#))
            return .read(try stateKey(f.required("key")), op: try int(f.required("op")))
        }
    }

    // MARK: objects and enumerations

    /// The members of an object of a known shape, each looked up by key.
    struct Fields {
        let path: Path
        let members: [Node.Member]

        subscript(key: String) -> (Node, Path)? {
            members.first { $0.key == key }.map { ($0.node, path + [.key(key)]) }
        }

        /// A key `fields` made sure is there.
        func required(_ key: String) -> (Node, Path) { self[key]! }
    }

    /// The object at `path`, once every key is one `shape` has, none appears twice, and every
    /// required one is there.
    func fields(_ node: Node, _ path: Path, _ shape: Shape) throws(InputError) -> Fields {
        guard case .object(let members) = node.value else {
            throw fail(
                "\(JSONPathSegment.render(path)) is \(JSONDiagnosis.describe(node)) at \(at(node)), but must be an "
                    + "object, \(shape.noun) such as \(shape.example)"
            )
        }
        // Looked up, never iterated: the order of the sentence is the document's.
        var seen: [String: Int] = [:]
        for m in members {
            if let first = seen[m.key] {
                throw fail(
                    "\(JSONPathSegment.render(path)) has the key \(JSONDiagnosis.quoted(m.key)) twice, at "
                        + "\(diagnosis.at(first)) and at \(diagnosis.at(m.keyOffset)); a key may appear once"
                )
            }
            seen[m.key] = m.keyOffset
            guard shape.keys.contains(m.key) else {
                throw InputError.unknownKey(
                    m.key, in: path, at: diagnosis.at(m.keyOffset), allowed: shape.keys, clause: shape.keysClause,
                    source: source)
            }
        }
        for key in shape.required where seen[key] == nil {
            throw fail(
                "\(objectName(path)) at \(at(node)) has no key \(JSONDiagnosis.quoted(key)), which is required "
                    + "(\(shape.keysClause))"
            )
        }
        return Fields(path: path, members: members)
    }

    /// The case of an enumeration value, its value and the value's path.
    func oneKey(_ node: Node, _ path: Path, _ cases: Cases) throws(InputError) -> (name: String, node: Node, path: Path)
    {
        guard case .object(let members) = node.value, members.count == 1 else {
            throw fail(
                "\(JSONPathSegment.render(path)) is \(JSONDiagnosis.describe(node)) at \(at(node)), but must be "
                    + "\(cases.noun): an object with one key, its case, such as \(cases.example) (\(cases.casesClause))"
            )
        }
        let m = members[0]
        guard cases.names.contains(m.key) else {
            throw fail(
                "\(JSONPathSegment.render(path)) has the key \(JSONDiagnosis.quoted(m.key)) at "
                    + "\(diagnosis.at(m.keyOffset)), which is not "
                    + "\(cases.noun)\(KeySuggestion.clause(for: m.key, among: cases.names)) (\(cases.casesClause))"
            )
        }
        return (m.key, m.node, path + [.key(m.key)])
    }

    /// A case without fields holds `{}`.
    func empty(_ node: Node, _ path: Path, _ name: String) throws(InputError) {
        guard case .object(let members) = node.value, members.isEmpty else {
            throw fail(
                "\(JSONPathSegment.render(path)) is \(JSONDiagnosis.describe(node)) at \(at(node)), but must be {}: "
                    + "\(name) has no fields ({\"\(name)\": {}})"
            )
        }
    }

    func list(_ node: Node, _ path: Path, of what: String) throws(InputError) -> [(node: Node, path: Path)] {
        guard case .array(let items) = node.value else {
            throw fail(
                "\(JSONPathSegment.render(path)) is \(JSONDiagnosis.describe(node)) at \(at(node)), but must be a list "
                    + "[...] of \(what)"
            )
        }
        return items.enumerated().map { ($1, path + [.index($0)]) }
    }

    // The same, for a field `fields` found: its value and its path.
    func kind(_ field: (Node, Path)) throws(InputError) -> OperationKind { try kind(field.0, field.1) }
    func steps(_ field: (Node, Path)) throws(InputError) -> [Step] { try steps(field.0, field.1) }
    func condition(_ field: (Node, Path)) throws(InputError) -> Condition { try condition(field.0, field.1) }
    func action(_ field: (Node, Path)) throws(InputError) -> DriverAction { try action(field.0, field.1) }

    // MARK: values

    func int(_ node: Node, _ path: Path, _ range: ClosedRange<Int> = Int.min...Int.max) throws(InputError) -> Int {
        if case .number(let text) = node.value, let n = Int(text), range.contains(n) { return n }
        throw mustBe(node, path, "a whole number from \(range.lowerBound) to \(range.upperBound)")
    }
    func int(_ field: (Node, Path), _ range: ClosedRange<Int> = Int.min...Int.max) throws(InputError) -> Int {
        try int(field.0, field.1, range)
    }

    func seed(_ node: Node, _ path: Path) throws(InputError) -> UInt64 {
        if case .number(let text) = node.value, let n = UInt64(text) { return n }
        throw mustBe(node, path, "a whole number from 0 to \(UInt64.max)")
    }

    /// A double exactly as written: the shortest text of a double reads back as that double.
    func double(_ node: Node, _ path: Path) throws(InputError) -> Double {
        if case .number(let text) = node.value, let x = Double(text), x.isFinite { return x }
        throw mustBe(node, path, InputError.requirement(Double.self, at: path))
    }
    func double(_ field: (Node, Path)) throws(InputError) -> Double { try double(field.0, field.1) }

    func bool(_ node: Node, _ path: Path) throws(InputError) -> Bool {
        if case .bool(let b) = node.value { return b }
        throw mustBe(node, path, "true or false")
    }
    func bool(_ field: (Node, Path)) throws(InputError) -> Bool { try bool(field.0, field.1) }

    func string(_ node: Node, _ path: Path) throws(InputError) -> String {
        if case .string(let s) = node.value { return s }
        throw mustBe(node, path, "a string in double quotes")
    }
    func string(_ field: (Node, Path)) throws(InputError) -> String { try string(field.0, field.1) }

    /// "self" (the operation the code belongs to) or an operation's number.
    func opRef(_ node: Node, _ path: Path) throws(InputError) -> OpRef {
        if case .string("self") = node.value { return .this }
        if case .number(let text) = node.value, let n = Int(text) { return .op(n) }
        throw mustBe(node, path, "\"self\" or an operation's number")
    }
    func opRef(_ field: (Node, Path)) throws(InputError) -> OpRef { try opRef(field.0, field.1) }

    func stateKey(_ node: Node, _ path: Path) throws(InputError) -> StateKey {
        try named(node, path, "a state key", StateKey.allCases.map(\.rawValue)) { StateKey(rawValue: $0) }
    }
    func stateKey(_ field: (Node, Path)) throws(InputError) -> StateKey { try stateKey(field.0, field.1) }

    /// A state key whose name begins with `is`: what `willChangeUnprefixed` and
    /// `didChangeUnprefixed` name (they send it without the prefix).
    func prefixedKey(_ node: Node, _ path: Path) throws(InputError) -> StateKey {
        try named(
            node, path, "a state key with an `is` prefix",
            StateKey.allCases.filter { $0.unprefixedName != nil }.map(\.rawValue)
        ) {
            StateKey(rawValue: $0).flatMap { $0.unprefixedName == nil ? nil : $0 }
        }
    }

    func method(_ field: (Node, Path)) throws(InputError) -> OperationSpec.Method {
        try named(field.0, field.1, "a method", OperationSpec.Method.allCases.map(\.rawValue)) {
            OperationSpec.Method(rawValue: $0)
        }
    }

    /// A string that must be one of `names`.
    func named<T>(
        _ node: Node, _ path: Path, _ noun: String, _ names: [String], _ make: (String) -> T?
    ) throws(InputError) -> T {
        if case .string(let s) = node.value {
            if let value = make(s) { return value }
            throw fail(
                "\(JSONPathSegment.render(path)) is \(JSONDiagnosis.describe(node)) at \(at(node)), which is not "
                    + "\(noun)\(KeySuggestion.clause(for: s, among: names)) (it must be one of: "
                    + "\(names.joined(separator: ", ")))"
            )
        }
        throw mustBe(node, path, "\(noun), one of: " + names.joined(separator: ", "))
    }

    // MARK: sentences
    // Internal, not private: `TraceDecoder` reads trace files with these same pieces, so a
    // trace file's refusals are worded as a scenario file's are.

    func at(_ node: Node) -> String { diagnosis.at(node.offset) }

    func objectName(_ path: Path) -> String {
        path.isEmpty ? "the top-level object" : "the object \(JSONPathSegment.render(path))"
    }

    func fail(_ sentence: String) -> InputError {
        InputError(JSONDiagnosis.oneLine("\(source): \(sentence)", limit: 1000))
    }

    func mustBe(_ node: Node, _ path: Path, _ requirement: String) -> InputError {
        fail(
            "\(JSONPathSegment.render(path)) is \(JSONDiagnosis.describe(node)) at \(at(node)), but must be "
                + "\(requirement)"
        )
    }
}
