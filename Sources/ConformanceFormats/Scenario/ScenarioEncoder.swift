import OperationSpec

/// A scenario as a format-2 tree (Specs/scenario-format.md): every enumeration value an object
/// whose one key is its case; a case with one field holds that field directly, a case with more
/// holds them by name; an operation reference is "self" or a number. A field at its default
/// (an empty list, a queue's -1 and false, a name of "scenario", a seed of 0) is left out, so a
/// file says only what was chosen; `ScenarioDecoder` puts the defaults back.
package enum ScenarioEncoder {
    static func value(_ s: Scenario) -> JSONValue {
        var out: [(key: String, value: JSONValue)] = [("format", .int(ScenarioFormat.newest))]
        if s.name != Scenario().name { out.append(("name", .string(s.name))) }
        if s.seed != 0 { out.append(("seed", .int(s.seed))) }
        if s.generatorVersion != 0 { out.append(("generatorVersion", .int(s.generatorVersion))) }
        if !s.queues.isEmpty { out.append(("queues", .array(s.queues.map(queue)))) }
        if !s.operations.isEmpty { out.append(("operations", .array(s.operations.map(operation)))) }
        if !s.dependencies.isEmpty { out.append(("dependencies", .array(s.dependencies.map(edge)))) }
        if !s.driver.isEmpty { out.append(("driver", .array(s.driver.map(driverStep)))) }
        return .object(out)
    }

    /// `{"case": value}`: the one shape of every enumeration value.
    private static func one(_ name: String, _ value: JSONValue) -> JSONValue { .object([(name, value)]) }
    /// `{"case": {}}`: a case with no fields.
    private static func bare(_ name: String) -> JSONValue { .object([(name, .object([]))]) }
    private static func steps(_ list: [Step]) -> JSONValue { .array(list.map(step)) }

    static func queue(_ q: QueueConfig) -> JSONValue {
        var out: [(key: String, value: JSONValue)] = []
        if q.maxConcurrent != QueueConfig.defaultMax { out.append(("maxConcurrent", .int(q.maxConcurrent))) }
        if q.suspended { out.append(("suspended", .bool(true))) }
        if let name = q.name { out.append(("name", .string(name))) }
        return .object(out)
    }

    static func edge(_ e: Edge) -> JSONValue { .object([("op", .int(e.op)), ("on", .int(e.on))]) }

    static func operation(_ o: OperationConfig) -> JSONValue {
        var out: [(key: String, value: JSONValue)] = [("kind", kind(o.kind))]
        if let p = o.queuePriority { out.append(("queuePriority", .int(p))) }
        if let p = o.threadPriority { out.append(("threadPriority", .double(p))) }
        // An empty completion block is still a completion block: only nil is left out.
        if let c = o.completion { out.append(("completion", steps(c))) }
        if let t = o.readyAfterSignal { out.append(("readyAfterSignal", .int(t))) }
        return .object(out)
    }

    static func kind(_ k: OperationKind) -> JSONValue {
        switch k {
        case .main(let body): return one("main", steps(body))
        case .block(let blocks): return one("block", .array(blocks.map(steps)))
        case .invocation(let body): return one("invocation", steps(body))
        case .subclass(let work): return one("subclass", steps(work))
        case .concurrent(let p):
            var out: [(key: String, value: JSONValue)] = []
            if !p.overridesIsConcurrent { out.append(("overridesIsConcurrent", .bool(false))) }
            if !p.start.isEmpty { out.append(("start", steps(p.start))) }
            if !p.main.isEmpty { out.append(("main", steps(p.main))) }
            if !p.routines.isEmpty {
                out.append(
                    (
                        "routines",
                        .array(p.routines.map { .object([("name", .string($0.name)), ("body", steps($0.body))]) })
                    ))
            }
            return one("concurrent", .object(out))
        }
    }

    static func opRef(_ r: OpRef) -> JSONValue {
        switch r {
        case .this: return .string("self")
        case .op(let n): return .int(n)
        }
    }

    static func step(_ s: Step) -> JSONValue {
        switch s {
        case .work(let n): return one("work", .int(n))
        case .returnIfCancelled: return bare("returnIfCancelled")
        case .if(let c, let then, let otherwise):
            var out: [(key: String, value: JSONValue)] = [("condition", condition(c))]
            if !then.isEmpty { out.append(("then", steps(then))) }
            if !otherwise.isEmpty { out.append(("else", steps(otherwise))) }
            return one("if", .object(out))
        case .repeat(let n, let body): return one("repeat", .object([("times", .int(n)), ("body", steps(body))]))
        case .return: return bare("return")
        case .willChange(let k): return one("willChange", .string(k.rawValue))
        case .didChange(let k): return one("didChange", .string(k.rawValue))
        case .willChangeUnprefixed(let k): return one("willChangeUnprefixed", .string(k.rawValue))
        case .didChangeUnprefixed(let k): return one("didChangeUnprefixed", .string(k.rawValue))
        case .set(let k, let b): return one("set", .object([("key", .string(k.rawValue)), ("value", .bool(b))]))
        case .call(let name): return one("call", .string(name))
        case .callMain: return bare("callMain")
        case .callSuperStart: return bare("callSuperStart")
        case .spawn(let m, let r): return one("spawn", .object([("method", .string(m.rawValue)), ("op", opRef(r))]))
        case .start(let r): return one("start", opRef(r))
        case .cancel(let r): return one("cancel", opRef(r))
        case .read(let k, let r): return one("read", .object([("key", .string(k.rawValue)), ("op", opRef(r))]))
        case .signal(let t): return one("signal", .int(t))
        case .await(let t, let timeout): return one("await", .object([("token", .int(t)), ("timeout", .int(timeout))]))
        case .readCurrentQueue: return bare("readCurrentQueue")
        case .cancelAll(let q): return one("cancelAll", .int(q))
        case .readUnderlyingQueue: return bare("readUnderlyingQueue")
        }
    }

    static func condition(_ c: Condition) -> JSONValue {
        switch c {
        case .isCancelled(let r): return one("isCancelled", opRef(r))
        case .isReady(let r): return one("isReady", opRef(r))
        case .isConcurrent(let r): return one("isConcurrent", opRef(r))
        case .isExecuting(let r): return one("isExecuting", opRef(r))
        case .isFinished(let r): return one("isFinished", opRef(r))
        case .not(let a): return one("not", condition(a))
        case .and(let a, let b): return one("and", .array([condition(a), condition(b)]))
        }
    }

    static func driverStep(_ d: DriverStep) -> JSONValue {
        var out: [(key: String, value: JSONValue)] = [("action", action(d.action))]
        if let t = d.after { out.append(("after", trigger(t))) }
        if let q = d.onDispatchQueue { out.append(("onDispatchQueue", .int(q))) }
        return .object(out)
    }

    static func trigger(_ t: Trigger) -> JSONValue {
        switch t {
        case .started(let o): return one("started", .int(o))
        case .mainBegan(let o): return one("mainBegan", .int(o))
        case .finished(let o): return one("finished", .int(o))
        case .blockBegan(let o, let b): return one("blockBegan", .object([("op", .int(o)), ("block", .int(b))]))
        case .signaled(let token): return one("signaled", .int(token))
        }
    }

    package static func action(_ a: DriverAction) -> JSONValue {
        func opAnd(_ name: String, _ op: Int, _ key: String, _ value: JSONValue) -> JSONValue {
            one(name, .object([("op", .int(op)), (key, value)]))
        }
        switch a {
        case .add(let o, let q): return one("add", .object([("op", .int(o)), ("queue", .int(q))]))
        case .addBatch(let ops, let q, let wait):
            return one(
                "addBatch", .object([("ops", .array(ops.map { .int($0) })), ("queue", .int(q)), ("wait", .bool(wait))]))
        case .start(let o): return one("start", .int(o))
        case .perform(let o, let body): return opAnd("perform", o, "body", steps(body))
        case .cancel(let o): return one("cancel", .int(o))
        case .releaseQueue(let q): return one("releaseQueue", .int(q))
        case .readOperations(let q): return one("readOperations", .int(q))
        case .readMainQueue: return bare("readMainQueue")
        case .readQueueDeallocated(let q): return one("readQueueDeallocated", .int(q))
        case .setUnderlyingQueue(let q, let d):
            let dispatchQueue: [(key: String, value: JSONValue)] = d.map { [("dispatchQueue", .int($0))] } ?? []
            return one("setUnderlyingQueue", .object([("queue", .int(q))] + dispatchQueue))
        case .cancelAll(let q): return one("cancelAll", .int(q))
        case .suspend(let q): return one("suspend", .int(q))
        case .resume(let q): return one("resume", .int(q))
        case .setMaxConcurrent(let q, let n):
            return one("setMaxConcurrent", .object([("queue", .int(q)), ("count", .int(n))]))
        case .addDependency(let o, let on): return opAnd("addDependency", o, "on", .int(on))
        case .removeDependency(let o, let on): return opAnd("removeDependency", o, "on", .int(on))
        case .waitUntilFinished(let o): return one("waitUntilFinished", .int(o))
        case .waitUntilAllFinished(let q): return one("waitUntilAllFinished", .int(q))
        case .setCompletionBlock(let o, let body): return opAnd("setCompletionBlock", o, "body", steps(body))
        case .addExecutionBlock(let o, let body): return opAnd("addExecutionBlock", o, "body", steps(body))
        case .setQueuePriority(let o, let raw): return opAnd("setQueuePriority", o, "priority", .int(raw))
        case .setThreadPriority(let o, let p): return opAnd("setThreadPriority", o, "priority", .double(p))
        case .read(let k, let o): return one("read", .object([("key", .string(k.rawValue)), ("op", .int(o))]))
        case .readOperationCount(let q): return one("readOperationCount", .int(q))
        case .result(let o): return one("result", .int(o))
        case .addBlock(let o, let q): return one("addBlock", .object([("op", .int(o)), ("queue", .int(q))]))
        case .readSuspended(let q): return one("readSuspended", .int(q))
        case .sleep(let n): return one("sleep", .int(n))
        }
    }
}
