extension Scenario {
    /// Every reason this scenario cannot be run, each one sentence; empty when it is valid.
    /// Checked before any run so that bad input is reported, never trapped on.
    public func problems() -> [String] {
        var out: [String] = []
        let nOps = operations.count, nQueues = queues.count
        if format != Scenario.formatVersion { out.append("the scenario's format is \(format), but this build reads format \(Scenario.formatVersion)") }
        func op(_ i: Int, _ place: String) { if i < 0 || i >= nOps { out.append("\(place) names operation \(i), but the scenario has \(nOps) (0..<\(nOps))") } }
        func queue(_ i: Int, _ place: String) { if i < 0 || i >= nQueues { out.append("\(place) names queue \(i), but the scenario has \(nQueues) (0..<\(nQueues))") } }

        for (q, config) in queues.enumerated() where config.maxConcurrent < QueueConfig.defaultMax {
            out.append("queue \(q) has maxConcurrent \(config.maxConcurrent); use -1 for the default, or 0 or more")
        }
        for (i, o) in operations.enumerated() {
            let place = "operation \(i)"
            // 004 2.6.3: thread priorities run from 0.0 to 1.0.
            if let p = o.threadPriority, !(0...1).contains(p) { out.append("\(place) has thread priority \(p); allowed is 0.0...1.0") }
            switch o.kind {
            case .main(let body), .invocation(let body): check(body, in: place, this: i, program: nil, &out)
            case .block(let blocks):
                if blocks.isEmpty { out.append("\(place) is a block operation with no block") }
                for (b, body) in blocks.enumerated() { check(body, in: "\(place) block \(b)", this: i, program: nil, &out) }
            case .subclass(let work): check(work, in: "\(place) work", this: i, program: nil, &out)
            case .concurrent(let p):
                check(p.start, in: "\(place) start", this: i, program: p, &out)
                check(p.main, in: "\(place) main", this: i, program: p, &out)
                for r in p.routines { check(r.body, in: "\(place) routine \(Self.shown(r.name))", this: i, program: p, &out) }
            }
            if let c = o.completion { check(c, in: "\(place) completion block", this: i, program: nil, &out) }
        }
        for (k, e) in dependencies.enumerated() { op(e.op, "dependency \(k)"); op(e.on, "dependency \(k)") }
        for (s, step) in driver.enumerated() {
            let place = "driver step \(s)"
            if let t = step.after {
                op(t.op, "\(place)'s trigger")
                if case .blockBegan(let o, let b) = t, o >= 0, o < nOps, b >= operations[o].kind.blockCount || b < 0 {
                    out.append("\(place)'s trigger names block \(b) of operation \(o), which has \(operations[o].kind.blockCount) blocks")
                }
            }
            switch step.action {
            case .add(let o, let q): op(o, place); queue(q, place)
            case .addBatch(let list, let q, _):
                list.forEach { op($0, place) }; queue(q, place)
                if list.isEmpty { out.append("\(place) adds an empty batch") }
            case .start(let o), .cancel(let o), .waitUntilFinished(let o), .read(_, let o): op(o, place)
            case .perform(let o, let steps):
                op(o, place)
                if o >= 0 && o < nOps { check(steps, in: place, this: o, program: operations[o].kind.program, &out) }
            case .cancelAll(let q), .suspend(let q), .resume(let q), .waitUntilAllFinished(let q), .readOperationCount(let q): queue(q, place)
            case .setMaxConcurrent(let q, let n):
                queue(q, place)
                if n < QueueConfig.defaultMax { out.append("\(place) sets maxConcurrent \(n); use -1 for the default, or 0 or more") }
            case .addDependency(let a, let b), .removeDependency(let a, let b): op(a, place); op(b, place)
            case .setCompletionBlock(let o, let body):
                op(o, place)
                check(body, in: place, this: max(0, min(o, nOps - 1)), program: nil, &out)
            case .addExecutionBlock(let o, let body):
                op(o, place)
                if o >= 0 && o < nOps && !operations[o].kind.isBlock { out.append("\(place) adds an execution block to operation \(o), which is not a block operation") }
                check(body, in: place, this: max(0, min(o, nOps - 1)), program: nil, &out)
            case .setQueuePriority(let o, _): op(o, place)
            case .setThreadPriority(let o, let p):
                op(o, place)
                if !(0...1).contains(p) { out.append("\(place) sets thread priority \(p); allowed is 0.0...1.0") }
            case .result(let o):
                op(o, place)
                if o >= 0 && o < nOps, case .invocation = operations[o].kind {} else if o >= 0 && o < nOps {
                    out.append("\(place) asks operation \(o) for a result, but only invocation operations have one")
                }
            }
        }
        return out
    }

    private func check(_ body: [Step], in place: String, this: Int, program: ConcurrentProgram?, _ out: inout [String]) {
        let nOps = operations.count
        // `this` can name no operation (a driver step about an operation the scenario lacks,
        // already reported): then nothing is known of its kind, and nothing may be read of it.
        let kind: OperationKind? = this >= 0 && this < nOps ? operations[this].kind : nil
        // The implementation's own subclass runs its own state code: steps may not do it for it.
        let own = kind?.isSubclass ?? false
        for step in body {
            if own {
                switch step {
                case .set, .willChange, .didChange, .callSuperStart, .call, .callMain:
                    out.append("\(place) runs \(step) with self = operation \(this), an instance of the implementation's own subclass: only the subclass's code changes its state or calls its methods")
                    continue
                default: break
                }
            }
            switch step {
            case .work(let n) where !Step.workRange.contains(n):
                out.append("\(place) works \(n) units; allowed is \(Step.workRange.lowerBound)...\(Step.workRange.upperBound)")
            case .if(let cond, let a, let b):
                checkRefs(cond, place, &out)
                check(a, in: place, this: this, program: program, &out)
                check(b, in: place, this: this, program: program, &out)
            case .repeat(let n, let a):
                if !Step.repeatRange.contains(n) { out.append("\(place) repeats \(n) times; allowed is \(Step.repeatRange.lowerBound)...\(Step.repeatRange.upperBound)") }
                check(a, in: place, this: this, program: program, &out)
            case .set, .willChange(.isExecuting), .willChange(.isFinished), .didChange(.isExecuting), .didChange(.isFinished):
                if program == nil && !(kind?.overridesStart ?? false) {
                    out.append("\(place) changes isExecuting or isFinished itself, which only a concurrent subclass (one overriding start) may do")
                }
                if case .set(let key, _) = step, key != .isExecuting && key != .isFinished {
                    out.append("\(place) sets \(key.rawValue), but only the isExecuting and isFinished ivars can be set")
                }
            case .call(let name):
                if kind?.program?.routine(named: name) == nil { out.append("\(place) calls routine \(Self.shown(name)), which operation \(this) does not define") }
            case .callSuperStart where !(kind?.overridesStart ?? false):
                out.append("\(place) calls [super start], but operation \(this) does not override start")
            case .spawn(_, let r), .start(let r), .cancel(let r), .read(_, let r):
                if case .op(let o) = r, o < 0 || o >= nOps { out.append("\(place) names operation \(o), but the scenario has \(nOps) (0..<\(nOps))") }
            case .await(_, let t) where !Step.awaitTimeoutRange.contains(t):
                out.append("\(place) awaits with timeout \(t); allowed is \(Step.awaitTimeoutRange.lowerBound)...\(Step.awaitTimeoutRange.upperBound)")
            default: break
            }
        }
    }

    private func checkRefs(_ c: Condition, _ place: String, _ out: inout [String]) {
        let nOps = operations.count
        switch c {
        case .isCancelled(let r), .isReady(let r), .isConcurrent(let r), .isExecuting(let r), .isFinished(let r):
            if case .op(let o) = r, o < 0 || o >= nOps { out.append("\(place) names operation \(o), but the scenario has \(nOps) (0..<\(nOps))") }
        case .not(let a): checkRefs(a, place, &out)
        case .and(let a, let b): checkRefs(a, place, &out); checkRefs(b, place, &out)
        }
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
