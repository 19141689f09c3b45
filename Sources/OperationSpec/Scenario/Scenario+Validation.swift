extension Scenario {
    /// Every reason this scenario cannot be run, each one sentence; empty when it is valid.
    /// Checked before any run so that bad input is reported, never trapped on.
    public func problems() -> [String] {
        var out: [String] = []
        if format != Scenario.formatVersion {
            out.append("the scenario's format is \(format), but this build reads format \(Scenario.formatVersion)")
        }
        out += queueConfigProblems()
        out += blockAddProblems()
        out += operationProblems()
        for (k, e) in dependencies.enumerated() {
            checkOperation(e.op, "dependency \(k)", &out); checkOperation(e.on, "dependency \(k)", &out)
        }
        out += driverProblems()
        out += releaseProblems()
        out += underlyingQueueProblems()
        return out
    }

    /// A problem when `i` names no operation of the scenario.
    private func checkOperation(_ i: Int, _ place: String, _ out: inout [String]) {
        let nOps = operations.count
        if i < 0 || i >= nOps {
            out.append("\(place) names operation \(i), but the scenario has \(nOps) (0..<\(nOps))")
        }
    }

    /// A problem when `i` names no queue of the scenario.
    private func checkQueue(_ i: Int, _ place: String, _ out: inout [String]) {
        let nQueues = queues.count
        if i < 0 || i >= nQueues {
            out.append("\(place) names queue \(i), but the scenario has \(nQueues) (0..<\(nQueues))")
        }
    }

    /// A problem when `i` names a dispatch queue the driver does not make.
    private static func checkDispatchQueue(_ i: Int, _ place: String, _ out: inout [String]) {
        if !dispatchQueueRange.contains(i) {
            out.append("\(place) names dispatch queue \(i); the driver makes dispatch queues "
                + "\(dispatchQueueRange.lowerBound) to \(dispatchQueueRange.upperBound)")
        }
    }

    /// Each queue's width and name, queue by queue.
    private func queueConfigProblems() -> [String] {
        var out: [String] = []
        for (q, config) in queues.enumerated() {
            if config.maxConcurrent < QueueConfig.defaultMax {
                out.append("queue \(q) has maxConcurrent \(config.maxConcurrent); use -1 for the default, or 0 or more")
            }
            if let name = config.name, let why = Self.nameProblem(name) {
                out.append("queue \(q)'s name \(Self.shown(name)) \(why)")
            }
        }
        return out
    }

    /// The operations added with `addBlock`, which must be plain one-block operations nothing else names.
    /// Operations added with addOperationWithBlock: have no object the scenario can reach.
    private func blockAddProblems() -> [String] {
        var out: [String] = []
        let nOps = operations.count
        let blockAdds = blockAddedOperations()
        for (o, count) in blockAdds where count > 1 {
            out.append("operation \(o) is added with addBlock \(count) times; a block is handed to a queue once")
        }
        for o in blockAdds.map(\.op) where o >= 0 && o < nOps {
            let config = operations[o]
            if config.kind.blockCount != 1 {
                out.append(
                    "addBlock adds operation \(o), which must be a block operation with exactly one block (it is "
                        + "\(config.kind.label))"
                )
            }
            if config.queuePriority != nil || config.threadPriority != nil || config.completion != nil
                || config.readyAfterSignal != nil
            {
                out.append(
                    "operation \(o) is added with addBlock, so it cannot be configured (queuePriority, threadPriority, "
                        + "completion, readyAfterSignal): the queue makes its operation object"
                )
            }
            for place in references(to: o) {
                out.append(
                    "\(place) names operation \(o), which is added with addBlock: the queue makes its operation "
                        + "object, so nothing else can reach it (only a blockBegan trigger may name its block)"
                )
            }
            if case .block(let blocks) = config.kind, let body = blocks.first, let step = Self.firstSelfUse(body) {
                out.append(
                    "operation \(o)'s block is added with addBlock, so it has no self for \(step) (work, signal, "
                        + "await, repeat, readCurrentQueue, readUnderlyingQueue and cancelAll are allowed)")
            }
        }
        return out
    }

    /// Each operation's thread priority, code (every step list it runs) and isReady override.
    private func operationProblems() -> [String] {
        var out: [String] = []
        for (i, o) in operations.enumerated() {
            let place = "operation \(i)"
            // 004 2.6.3: thread priorities run from 0.0 to 1.0.
            if let p = o.threadPriority, !(0...1).contains(p) {
                out.append("\(place) has thread priority \(p); allowed is 0.0...1.0")
            }
            switch o.kind {
            case .main(let body), .invocation(let body): check(body, in: place, this: i, program: nil, &out)
            case .block(let blocks):
                if blocks.isEmpty { out.append("\(place) is a block operation with no block") }
                for (b, body) in blocks.enumerated() {
                    check(body, in: "\(place) block \(b)", this: i, program: nil, &out)
                }
            case .subclass(let work): check(work, in: "\(place) work", this: i, program: nil, &out)
            case .concurrent(let p):
                check(p.start, in: "\(place) start", this: i, program: p, &out)
                check(p.main, in: "\(place) main", this: i, program: p, &out)
                for r in p.routines {
                    check(r.body, in: "\(place) routine \(Self.shown(r.name))", this: i, program: p, &out)
                }
            }
            if let c = o.completion { check(c, in: "\(place) completion block", this: i, program: nil, &out) }
            if o.readyAfterSignal != nil, o.kind.isSubclass {
                out.append(
                    "\(place) is an instance of the implementation's own subclass, which cannot be given an isReady "
                        + "override (readyAfterSignal)"
                )
            }
        }
        return out
    }

    /// Each driver step's trigger, dispatch queue and action, step by step.
    private func driverProblems() -> [String] {
        var out: [String] = []
        for (s, step) in driver.enumerated() {
            let place = "driver step \(s)"
            if let t = step.after { checkTrigger(t, place, &out) }
            if let d = step.onDispatchQueue { Self.checkDispatchQueue(d, place, &out) }
            checkAction(step.action, place, &out)
        }
        return out
    }

    /// A driver step's trigger names an operation of the scenario, and a block it has.
    private func checkTrigger(_ t: Trigger, _ place: String, _ out: inout [String]) {
        let nOps = operations.count
        if let o = t.op { checkOperation(o, "\(place)'s trigger", &out) }
        if case .blockBegan(let o, let b) = t, o >= 0, o < nOps, b >= operations[o].kind.blockCount || b < 0 {
            out.append(
                "\(place)'s trigger names block \(b) of operation \(o), which has "
                    + "\(operations[o].kind.blockCount) blocks"
            )
        }
    }

    /// A driver action names operations, queues and dispatch queues that exist, with values in range.
    private func checkAction(_ action: DriverAction, _ place: String, _ out: inout [String]) {
        let nOps = operations.count
        switch action {
        case .add(let o, let q): checkOperation(o, place, &out); checkQueue(q, place, &out)
        case .addBatch(let list, let q, _):
            list.forEach { checkOperation($0, place, &out) }; checkQueue(q, place, &out)
            if list.isEmpty { out.append("\(place) adds an empty batch") }
        case .start(let o), .cancel(let o), .waitUntilFinished(let o): checkOperation(o, place, &out)
        case .read(let key, let o):
            checkOperation(o, place, &out)
            if key == .executionBlocks, o >= 0, o < nOps, !operations[o].kind.isBlock {
                out.append("\(place) reads executionBlocks of operation \(o), which is not a block operation")
            }
        case .perform(let o, let steps):
            checkOperation(o, place, &out)
            if o >= 0 && o < nOps { check(steps, in: place, this: o, program: operations[o].kind.program, &out) }
        case .cancelAll(let q), .suspend(let q), .resume(let q), .waitUntilAllFinished(let q),
            .readOperationCount(let q),
             .readSuspended(let q), .releaseQueue(let q), .readOperations(let q), .readQueueDeallocated(let q):
            checkQueue(q, place, &out)
        case .readMainQueue: break
        case .setUnderlyingQueue(let q, let d):
            checkQueue(q, place, &out)
            if let d { Self.checkDispatchQueue(d, place, &out) }
        case .addBlock(let o, let q): checkOperation(o, place, &out); checkQueue(q, place, &out)
        case .sleep(let n):
            if !Step.workRange.contains(n) {
                out.append(
                    "\(place) sleeps \(n) units; allowed is "
                        + "\(Step.workRange.lowerBound)...\(Step.workRange.upperBound)"
                )
            }
        case .setMaxConcurrent(let q, let n):
            checkQueue(q, place, &out)
            if n < QueueConfig.defaultMax {
                out.append("\(place) sets maxConcurrent \(n); use -1 for the default, or 0 or more")
            }
        case .addDependency(let a, let b), .removeDependency(let a, let b):
            checkOperation(a, place, &out); checkOperation(b, place, &out)
        case .setCompletionBlock(let o, let body):
            checkOperation(o, place, &out)
            check(body, in: place, this: max(0, min(o, nOps - 1)), program: nil, &out)
        case .addExecutionBlock(let o, let body):
            checkOperation(o, place, &out)
            if o >= 0 && o < nOps && !operations[o].kind.isBlock {
                out.append("\(place) adds an execution block to operation \(o), which is not a block operation")
            }
            check(body, in: place, this: max(0, min(o, nOps - 1)), program: nil, &out)
        case .setQueuePriority(let o, _): checkOperation(o, place, &out)
        case .setThreadPriority(let o, let p):
            checkOperation(o, place, &out)
            if !(0...1).contains(p) { out.append("\(place) sets thread priority \(p); allowed is 0.0...1.0") }
        case .result(let o):
            checkOperation(o, place, &out)
            if o >= 0 && o < nOps, case .invocation = operations[o].kind {} else if o >= 0 && o < nOps {
                out.append("\(place) asks operation \(o) for a result, but only invocation operations have one")
            }
        }
    }

    /// The dispatch queues a scenario may name (`setUnderlyingQueue`, `onDispatchQueue`): the
    /// driver makes each one, serial, the first time a step names it.
    public static let dispatchQueueRange = 0...7

    /// An underlying queue is set only on a queue nothing was added to yet: the class reference
    /// says that setting it while `operationCount` is not 0 raises, and a scenario says only
    /// what the documents define.
    private func underlyingQueueProblems() -> [String] {
        var out: [String] = []
        var firstAdd: [Int: Int] = [:]   // looked up, never iterated
        for (s, step) in driver.enumerated() {
            switch step.action {
            case .add(_, let q), .addBatch(_, let q, _), .addBlock(_, let q):
                if firstAdd[q] == nil { firstAdd[q] = s }
            case .setUnderlyingQueue(let q, _):
                if let a = firstAdd[q] {
                    out.append("driver step \(s) sets the underlyingQueue of queue \(q), which driver step \(a) "
                        + "already added to; set it before anything is added (the class reference: it raises while "
                        + "operationCount is not 0)")
                }
            default: break
            }
        }
        return out
    }

    /// A released queue is gone from the driver's hands: no later driver step may name it, and
    /// no code may cancel its operations (code runs when it runs, possibly after the release).
    private func releaseProblems() -> [String] {
        var out: [String] = []
        var releasedBy: [Int: Int] = [:]   // looked up, never iterated
        for (s, step) in driver.enumerated() {
            guard let q = step.action.namedQueue else { continue }
            if case .readQueueDeallocated = step.action {
                if releasedBy[q] == nil {
                    out.append("driver step \(s) asks whether queue \(q) was deallocated, but no step before it "
                        + "releases the queue (releaseQueue); the driver holds it")
                }
            } else if let r = releasedBy[q] {
                out.append(
                    "driver step \(s) names queue \(q), which driver step \(r) released; the driver no longer holds it")
            } else if case .releaseQueue = step.action {
                releasedBy[q] = s
            }
        }
        let named = stepLists.flatMap(Self.cancelledQueues)
        for q in queues.indices where releasedBy[q] != nil && named.contains(q) {
            out.append("a step cancels all operations of queue \(q), which driver step \(releasedBy[q]!) releases; "
                + "code may run after the release, when the driver no longer holds it")
        }
        return out
    }

    /// The problems of one step list, run with self = operation `this` (`program`: the concurrent
    /// program whose code it is, if any); step lists inside it are checked too.
    private func check(_ body: [Step], in place: String, this: Int, program: ConcurrentProgram?, _ out: inout [String])
    {
        let nOps = operations.count
        // `this` can name no operation (a driver step about an operation the scenario lacks,
        // already reported): then nothing is known of its kind, and nothing may be read of it.
        let kind: OperationKind? = this >= 0 && this < nOps ? operations[this].kind : nil
        // The implementation's own subclass runs its own state code: steps may not do it for it.
        let own = kind?.isSubclass ?? false
        // Only a concurrent program's code, or an operation overriding start, changes its own state.
        let mayChangeState = program != nil || (kind?.overridesStart ?? false)
        for step in body {
            if own, let problem = Self.ownSubclassProblem(step, place, this: this) {
                out.append(problem)
                continue
            }
            switch step {
            case .work(let n) where !Step.workRange.contains(n):
                out.append(
                    "\(place) works \(n) units; allowed is \(Step.workRange.lowerBound)...\(Step.workRange.upperBound)")
            case .if(let cond, let a, let b):
                checkRefs(cond, place, &out)
                check(a, in: place, this: this, program: program, &out)
                check(b, in: place, this: this, program: program, &out)
            case .repeat(let n, let a):
                if !Step.repeatRange.contains(n) {
                    out.append(
                        "\(place) repeats \(n) times; allowed is "
                            + "\(Step.repeatRange.lowerBound)...\(Step.repeatRange.upperBound)"
                    )
                }
                check(a, in: place, this: this, program: program, &out)
            case .willChange(.executionBlocks), .didChange(.executionBlocks):
                out.append(
                    "\(place) notifies executionBlocks, which is read only (it is not one of the observable key paths)")
            case .read(.executionBlocks, let r):
                let o = r.resolve(this)
                if o >= 0 && o < nOps && !operations[o].kind.isBlock {
                    out.append("\(place) reads executionBlocks of operation \(o), which is not a block operation")
                }
                else if o < 0 || o >= nOps {
                    out.append("\(place) names operation \(o), but the scenario has \(nOps) (0..<\(nOps))")
                }
            case .willChangeUnprefixed(let key), .didChangeUnprefixed(let key):
                Self.checkUnprefixed(key, place, mayChangeState: mayChangeState, &out)
            case .set, .willChange(.isExecuting), .willChange(.isFinished), .didChange(.isExecuting),
                .didChange(.isFinished):
                Self.checkStateChange(step, place, mayChangeState: mayChangeState, &out)
            case .call(let name):
                if kind?.program?.routine(named: name) == nil {
                    out.append("\(place) calls routine \(Self.shown(name)), which operation \(this) does not define")
                }
            case .callSuperStart where !(kind?.overridesStart ?? false):
                out.append("\(place) calls [super start], but operation \(this) does not override start")
            case .spawn(_, let r), .start(let r), .cancel(let r), .read(_, let r):
                if case .op(let o) = r, o < 0 || o >= nOps {
                    out.append("\(place) names operation \(o), but the scenario has \(nOps) (0..<\(nOps))")
                }
            case .cancelAll(let q) where q < 0 || q >= queues.count:
                out.append(
                    "\(place) names queue \(q) in cancelAll, but the scenario has \(queues.count) (0..<\(queues.count))"
                )
            case .await(_, let t) where !Step.awaitTimeoutRange.contains(t):
                out.append(
                    "\(place) awaits with timeout \(t); allowed is "
                        + "\(Step.awaitTimeoutRange.lowerBound)...\(Step.awaitTimeoutRange.upperBound)"
                )
            default: break
            }
        }
    }

    /// Why a step may not run with self bound to the implementation's own subclass, or nil.
    /// That subclass runs its own state code: steps may not do it for it.
    private static func ownSubclassProblem(_ step: Step, _ place: String, this: Int) -> String? {
        switch step {
        case .set, .willChange, .didChange, .willChangeUnprefixed, .didChangeUnprefixed, .callSuperStart, .call,
            .callMain:
            return "\(place) runs \(step) with self = operation \(this), an instance of the implementation's own "
                + "subclass: only the subclass's code changes its state or calls its methods"
        default: return nil
        }
    }

    /// A notification without the `is` prefix names a key that has one, and changes state only where allowed.
    /// `mayChangeState`: the code is a concurrent program's, or its operation overrides start.
    private static func checkUnprefixed(_ key: StateKey, _ place: String, mayChangeState: Bool, _ out: inout [String]) {
        if key.unprefixedName == nil {
            out.append("\(place) notifies \(key.rawValue) without its `is` prefix, but that key has none")
        }
        // Foundation on Linux hears `finished` as isFinished: the same rule as the prefixed steps.
        if (key == .isExecuting || key == .isFinished) && !mayChangeState {
            out.append(
                "\(place) changes isExecuting or isFinished itself, which only a concurrent subclass (one "
                    + "overriding start) may do"
            )
        }
    }

    /// A step that sets or notifies isExecuting or isFinished runs only where state may change, and sets only those.
    /// `mayChangeState`: the code is a concurrent program's, or its operation overrides start.
    private static func checkStateChange(_ step: Step, _ place: String, mayChangeState: Bool, _ out: inout [String]) {
        if !mayChangeState {
            out.append(
                "\(place) changes isExecuting or isFinished itself, which only a concurrent subclass (one "
                    + "overriding start) may do"
            )
        }
        if case .set(let key, _) = step, key != .isExecuting && key != .isFinished {
            out.append(
                "\(place) sets \(key.rawValue), but only the isExecuting and isFinished ivars can be set")
        }
    }

    private func checkRefs(_ c: Condition, _ place: String, _ out: inout [String]) {
        let nOps = operations.count
        switch c {
        case .isCancelled(let r), .isReady(let r), .isConcurrent(let r), .isExecuting(let r), .isFinished(let r):
            if case .op(let o) = r, o < 0 || o >= nOps {
                out.append("\(place) names operation \(o), but the scenario has \(nOps) (0..<\(nOps))")
            }
        case .not(let a): checkRefs(a, place, &out)
        case .and(let a, let b): checkRefs(a, place, &out); checkRefs(b, place, &out)
        }
    }

    /// Why a queue name cannot be used, or nil: it must be 1 to 64 characters with no control
    /// characters (it becomes part of thread names, which travel in a line-based protocol).
    static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "is empty; leave name out for the implementation's default" }
        if name.count > 64 { return "has \(name.count) characters; allowed is 1 to 64" }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "holds a control character"
        }
        return nil
    }

    /// The operations some `addBlock` action adds, each with how many such actions add it, in
    /// order of first appearance.
    public func blockAddedOperations() -> [(op: Int, count: Int)] {
        var counts: [(op: Int, count: Int)] = []
        for step in driver {
            guard case .addBlock(let o, _) = step.action else { continue }
            if let k = counts.firstIndex(where: { $0.op == o }) { counts[k].count += 1 } else { counts.append((o, 1)) }
        }
        return counts
    }

    /// Every place, other than its own `addBlock` action and a `blockBegan` trigger, that names
    /// operation `o`: dependencies, driver actions, triggers and explicit `op` references in any
    /// step list.
    func references(to o: Int) -> [String] {
        var places: [String] = []
        for (k, e) in dependencies.enumerated() where e.op == o || e.on == o { places.append("dependency \(k)") }
        for (s, step) in driver.enumerated() {
            let place = "driver step \(s)"
            if let t = step.after, t.op == o { if case .blockBegan = t {} else { places.append("\(place)'s trigger") } }
            if step.action.namedOperations.contains(o) { places.append(place) }
        }
        if stepLists.contains(where: { Self.names(o, in: $0) }) { places.append("a step") }
        return places
    }

    /// Whether a step list names operation `o` explicitly (`op: o`, not `self`).
    static func names(_ o: Int, in steps: [Step]) -> Bool {
        func refers(_ r: OpRef) -> Bool { if case .op(let n) = r { return n == o }; return false }
        func inCondition(_ c: Condition) -> Bool {
            switch c {
            case .isCancelled(let r), .isReady(let r), .isConcurrent(let r), .isExecuting(let r), .isFinished(let r):
                return refers(r)
            case .not(let a): return inCondition(a)
            case .and(let a, let b): return inCondition(a) || inCondition(b)
            }
        }
        return steps.contains { step in
            switch step {
            case .spawn(_, let r), .start(let r), .cancel(let r), .read(_, let r): return refers(r)
            case .if(let c, let a, let b): return inCondition(c) || names(o, in: a) || names(o, in: b)
            case .repeat(_, let a): return names(o, in: a)
            default: return false
            }
        }
    }

    /// The first step of a block handed to `addOperationWithBlock:` that needs `self` (there is
    /// none: the queue made the operation), described; nil when every step can run without it.
    static func firstSelfUse(_ steps: [Step]) -> String? {
        for step in steps {
            switch step {
            case .work, .signal, .await, .readCurrentQueue, .cancelAll, .readUnderlyingQueue: continue
            case .repeat(_, let body): if let s = firstSelfUse(body) { return s }
            case .spawn(_, .op), .start(.op), .cancel(.op), .read(_, .op): continue
            default: return "\(step)"
            }
        }
        return nil
    }

    /// A name from the file, quoted on one line: a problem is one sentence, whatever the name holds.
    static func shown(_ name: String) -> String {
        var out = "\""
        for (k, scalar) in name.unicodeScalars.enumerated() {
            if k == 60 { out += "…"; break }
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate:
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default:
                if scalar == "\"" || scalar == "\\" { out += "\\" }
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
