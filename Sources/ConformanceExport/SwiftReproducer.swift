import Conformance
import Foundation
import OperationSpec

/// Writes a finding as one Swift test file for Foundation's Operation and OperationQueue: a
/// Swift Testing `@Test`, or an `XCTestCase` in the style of swift-corelibs-foundation's own
/// `TestOperationQueue.swift`. Everything in it is `fileprivate` but the test, so several
/// reproducers can share a test target. It repeats the scenario `runs` times and records one
/// issue (the claim, what was seen, the run's events) at the first run that breaks a claim.
struct SwiftReproducer {
    let scenario: Scenario
    let claims: [Claim]
    let header: [String]
    let runs: Int
    let bound: Double
    let name: String
    let xctest: Bool
    /// The user's own queue, built in place of `OperationQueue()`.
    let queue: Reproducer.UserQueue?

    private var functions: [String] = []

    init(scenario: Scenario, claims: [Claim], header: [String], runs: Int, bound: Double, name: String, xctest: Bool,
         queue: Reproducer.UserQueue? = nil) {
        self.queue = queue
        self.scenario = scenario
        self.claims = claims
        self.header = header
        self.runs = runs
        self.bound = bound
        self.name = name
        self.xctest = xctest
    }

    static func pattern(_ p: EventPattern) -> String { "P(.\(p.kind.rawValue), \(p.op), \(p.a), \(p.b))" }

    static func call(_ c: Claim.Check) -> String {
        switch c {
        case .occurs(let p): return "run.occurs(\(pattern(p)))"
        case .never(let p): return "run.never(\(pattern(p)))"
        case .before(let p, let q): return "run.before(\(pattern(p)), \(pattern(q)))"
        case .countIs(let p, let n): return "run.countIs(\(pattern(p)), \(n))"
        case .valuesAfter(let a, let p, let v): return "run.valuesAfter(\(pattern(a)), \(pattern(p)), \(v))"
        case .callsAfterThrow(let call, let op, let a): return "run.callsAfterThrow(.\(call), \(op), \(pattern(a)))"
        case .duringCall(let call, let op, let p): return "run.duringCall(.\(call), \(op), \(pattern(p)))"
        case .implies(let p, let q): return "run.implies(\(pattern(p)), \(pattern(q)))"
        case .notDuring(let p, let f, let t): return "run.notDuring(\(pattern(p)), \(pattern(f)), \(pattern(t)))"
        case .exclusive(let op): return "run.exclusive(\(op))"
        case .threadPrefix(let op, let prefix): return "run.threadPrefix(\(op), \(SwiftSource.stringLiteral(prefix)))"
        case .atMostRunning(let ops, let width): return "run.atMostRunning(\(ops), \(width))"
        case .balanced, .bracketed, .finishOrder, .startAnnounces:
            preconditionFailure("key-value claims are refused for Foundation before a reproducer is written")
        }
    }

    mutating func text() -> String {
        var lines = header.map { SwiftSource.comment($0) }
        lines +=
            ["", "import Foundation", xctest ? "import XCTest" : "import Testing"]
            + (queue?.modules.map { "import \($0)" } ?? [])
        lines += [
            "",
            queue == nil
                ? SwiftRuntime.text
                : SwiftRuntime.text.replacingOccurrences(of: SwiftRuntime.queuesLine, with: SwiftRuntime.userQueuesLine)
        ]
        if let queue { lines += SwiftRuntime.userQueue(queue) }
        lines += ["// MARK: - The scenario's operations", ""]
        var classes: [String] = []
        for (i, o) in scenario.operations.enumerated() where !ReproducerScenario.isBlockAdded(scenario, i) {
            classes += operationClass(i, o)
        }
        let run = runOnce()
        lines += classes + functions + run + testFunction()
        return lines.joined(separator: "\n") + "\n"
    }


    private func loggedOverrides(_ i: Int, readyToken: Int?, getters: Bool) -> [String] {
        let ready = readyToken.map { "super.isReady && run.isSignalled(\($0))" } ?? "super.isReady"
        var lines = [
            "    override func cancel() { run.called(.cancel, \(i)) { super.cancel() } }",
            "    override var isReady: Bool { run.logged(\(i), .isReady, \(ready)) }",
            "    override var isCancelled: Bool { run.logged(\(i), .isCancelled, super.isCancelled) }",
        ]
        if getters {
            lines += ["    override func start() { run.record(.start, \(i)); super.start() }",
                      "    override var isExecuting: Bool { run.logged(\(i), .isExecuting, super.isExecuting) }",
                      "    override var isFinished: Bool { run.logged(\(i), .isFinished, super.isFinished) }"]
        }
        return lines
    }

    private mutating func operationClass(_ i: Int, _ o: OperationConfig) -> [String] {
        let name = "Op\(i)"
        var lines: [String] = []
        // Each generated class's `@unchecked Sendable` carries the comment that says why it is sound.
        let soundness = "/// `@unchecked Sendable` is sound: its stored properties are `let`"
        switch o.kind {
        case .main(let body):
            lines += [
                soundness + ".", "fileprivate final class \(name): Operation, @unchecked Sendable {",
                "    unowned let run: Run",
                "    init(_ run: Run) { self.run = run; super.init() }"
            ]
            lines += loggedOverrides(i, readyToken: o.readyAfterSignal, getters: true)
            lines +=
                [
                    "    override func main() { run.record(.mainBegan, \(i)); run.taskThread(\(i)); steps(); "
                        + "run.record(.mainEnded, \(i)) }",
                    "    func steps() {"
                ] + steps(body, this: i, selfExpr: "self", indent: 2) + ["    }", "}", ""]
        case .block(let blocks):
            lines += [
                soundness + ".", "fileprivate final class \(name): BlockOperation, @unchecked Sendable {",
                "    unowned let run: Run",
                "    init(_ run: Run) { self.run = run; super.init() }"
            ]
            lines += loggedOverrides(i, readyToken: o.readyAfterSignal, getters: true)
            lines += [
                "    override func main() { run.record(.mainBegan, \(i)); super.main(); run.record(.mainEnded, \(i)) }",
                "}", ""
            ]
            for (b, body) in blocks.enumerated() { function("block_\(i)_\(b)", body, this: i) }
        case .concurrent(let p):
            lines += [
                "/// `@unchecked Sendable` is sound: `executing` and `finished` are only touched under `stateLock`;",
                "/// the other stored properties are `let`.",
                "fileprivate final class \(name): Operation, @unchecked Sendable {", "    unowned let run: Run",
                "    private let stateLock = NSLock()", "    private var executing = false",
                "    private var finished = false",
                "    init(_ run: Run) { self.run = run; super.init() }"
            ]
            lines += loggedOverrides(i, readyToken: o.readyAfterSignal, getters: false)
            if p.overridesIsConcurrent { lines.append("    override var isAsynchronous: Bool { true }") }
            lines += [
                "    override var isExecuting: Bool { stateLock.withLock { run.logged(\(i), "
                    + ".isExecuting, executing) } }",
                "    override var isFinished: Bool { stateLock.withLock { run.logged(\(i), .isFinished, finished) } }",
                "    func storeExecuting(_ value: Bool) { stateLock.withLock { executing = value; run.record(.set, "
                    + "\(i), Key.isExecuting.rawValue, value ? 1 : 0) } }",
                "    func storeFinished(_ value: Bool) { stateLock.withLock { finished = value; run.record(.set, \(i), "
                    + "Key.isFinished.rawValue, value ? 1 : 0) } }",
                "    func superStart() { super.start() }",
                "    override func start() { run.record(.start, \(i)); startSteps() }",
                "    override func main() { run.record(.mainBegan, \(i)); run.taskThread(\(i)); mainSteps(); "
                    + "run.record(.mainEnded, \(i)) }"
            ]
            lines += ["    func startSteps() {"] + steps(p.start, this: i, selfExpr: "self", indent: 2) + ["    }"]
            lines += ["    func mainSteps() {"] + steps(p.main, this: i, selfExpr: "self", indent: 2) + ["    }"]
            for r in p.routines {
                lines +=
                    ["    func \(ReproducerScenario.routineName(r.name))() {"]
                    + steps(r.body, this: i, selfExpr: "self", indent: 2) + ["    }"]
            }
            lines += ["}", ""]
        case .invocation, .subclass:
            preconditionFailure("invocation and subclass operations are refused before a Swift reproducer is written")
        }
        if let c = o.completion { function("completion_\(i)", c, this: i) }
        return lines
    }


    private mutating func function(_ name: String, _ body: [Step], this: Int) {
        functions +=
            ["fileprivate func \(name)(_ run: Run) {"]
            + steps(body, this: this, selfExpr: "run.ops[\(this)]", indent: 1) + ["}", ""]
    }

    private func ref(_ r: OpRef, this: Int, selfExpr: String) -> String {
        if case .op(let n) = r, n != this { return "run.ops[\(n)]" }
        return selfExpr
    }

    private func typed(_ this: Int, _ selfExpr: String) -> String {
        selfExpr == "self" ? "self" : "(\(selfExpr) as! Op\(this))"
    }

    private func condition(_ c: Condition, this: Int, selfExpr: String) -> String {
        switch c {
        case .isCancelled(let r): return "\(ref(r, this: this, selfExpr: selfExpr)).isCancelled"
        case .isReady(let r): return "\(ref(r, this: this, selfExpr: selfExpr)).isReady"
        case .isConcurrent(let r): return "\(ref(r, this: this, selfExpr: selfExpr)).isAsynchronous"
        case .isExecuting(let r): return "\(ref(r, this: this, selfExpr: selfExpr)).isExecuting"
        case .isFinished(let r): return "\(ref(r, this: this, selfExpr: selfExpr)).isFinished"
        case .not(let c): return "!(\(condition(c, this: this, selfExpr: selfExpr)))"
        case .and(let a, let b):
            return
                "(\(condition(a, this: this, selfExpr: selfExpr)) && \(condition(b, this: this, selfExpr: selfExpr)))"
        }
    }

    private func steps(_ body: [Step], this: Int, selfExpr: String, indent: Int) -> [String] {
        let pad = String(repeating: "    ", count: indent)
        var lines: [String] = []
        for s in body {
            switch s {
            case .work(let n): lines.append(pad + "work(\(n))")
            case .returnIfCancelled: lines.append(pad + "if \(selfExpr).isCancelled { return }")
            case .if(let c, let then, let otherwise):
                lines.append(pad + "if \(condition(c, this: this, selfExpr: selfExpr)) {")
                lines += steps(then, this: this, selfExpr: selfExpr, indent: indent + 1)
                if !otherwise.isEmpty {
                    lines.append(pad + "} else {")
                    lines += steps(otherwise, this: this, selfExpr: selfExpr, indent: indent + 1)
                }
                lines.append(pad + "}")
            case .repeat(let n, let inner):
                lines.append(pad + "for _ in 0..<\(n) {")
                lines += steps(inner, this: this, selfExpr: selfExpr, indent: indent + 1)
                lines.append(pad + "}")
            case .return: lines.append(pad + "return")
            case .willChange(let k): lines.append(pad + "\(selfExpr).willChangeValue(forKey: \"\(k.rawValue)\")")
            case .didChange(let k): lines.append(pad + "\(selfExpr).didChangeValue(forKey: \"\(k.rawValue)\")")
            case .willChangeUnprefixed(let k):
                lines.append(pad + "\(selfExpr).willChangeValue(forKey: \"\(k.unprefixedName ?? k.rawValue)\")")
            case .didChangeUnprefixed(let k):
                lines.append(pad + "\(selfExpr).didChangeValue(forKey: \"\(k.unprefixedName ?? k.rawValue)\")")
            case .set(let k, let v):
                lines.append(
                    pad + "\(typed(this, selfExpr)).\(k == .isFinished ? "storeFinished" : "storeExecuting")(\(v))")
            case .call(let name):
                lines.append(pad + "\(typed(this, selfExpr)).\(ReproducerScenario.routineName(name))()")
            case .callMain: lines.append(pad + "\(selfExpr).main()")
            case .callSuperStart: lines.append(pad + "\(typed(this, selfExpr)).superStart()")
            case .spawn(let m, let r):
                let target = r.resolve(this)
                lines.append(
                    pad + "Thread.detachNewThread { [run] in run.ops[\(target)].\(m == .start ? "start" : "main")() }")
            case .start(let r): lines.append(pad + "run.ops[\(r.resolve(this))].start()")
            case .cancel(let r): lines.append(pad + "\(ref(r, this: this, selfExpr: selfExpr)).cancel()")
            case .read(let k, let r): lines.append(pad + "run.readKey(\(r.resolve(this)), .\(k.rawValue))")
            case .signal(let t):
                lines.append(pad + "run.signal(\(t))")
                for (i, o) in scenario.operations.enumerated() where o.readyAfterSignal == t {
                    lines.append(pad + "run.ops[\(i)].willChangeValue(forKey: \"isReady\")")
                    lines.append(pad + "run.ops[\(i)].didChangeValue(forKey: \"isReady\")")
                }
            case .await(let t, let timeout): lines.append(pad + "run.await(\(t), \(timeout))")
            case .readCurrentQueue: lines.append(pad + "_ = OperationQueue.current")
            case .cancelAll(let q): lines.append(pad + "run.queues[\(q)].cancelAllOperations()")
            case .readUnderlyingQueue: break   // refused before: RuleClaims.claims
            }
        }
        return lines
    }

    private mutating func runOnce() -> [String] {
        var body: [String] = []
        var handed: [Int] = []
        func hand(_ op: Int) { if !handed.contains(op) { handed.append(op) } }
        body.append("    // The queues and operations of the scenario, configured as it says.")
        for (q, c) in scenario.queues.enumerated() {
            body.append("    run.queues.append(\(queue?.factory ?? "OperationQueue()"))")
            if let name = c.name { body.append("    run.queues[\(q)].name = \(SwiftSource.stringLiteral(name))") }
            if c.maxConcurrent != QueueConfig.defaultMax {
                body.append("    run.queues[\(q)].maxConcurrentOperationCount = \(c.maxConcurrent)")
            }
            if c.suspended { body.append("    run.queues[\(q)].isSuspended = true") }
        }
        for (i, o) in scenario.operations.enumerated() {
            if ReproducerScenario.isBlockAdded(scenario, i) {
                body.append(
                    "    run.ops.append(Operation())   // a place holder: op \(i)'s block goes to "
                        + "addOperation(_:) with a closure"
                )
                continue
            }
            body.append("    run.ops.append(Op\(i)(run))")
            if case .block(let blocks) = o.kind {
                for b in blocks.indices {
                    body.append(
                        "    (run.ops[\(i)] as! BlockOperation).addExecutionBlock { [run] in run.record(.blockBegan, "
                            + "\(i), \(b)); run.taskThread(\(i)); block_\(i)_\(b)(run); run.record(.blockEnded, \(i), "
                            + "\(b)) }"
                    )
                }
            }
            if let p = o.queuePriority {
                body.append("    run.ops[\(i)].queuePriority = Operation.QueuePriority(rawValue: \(p)) ?? .normal")
            }
            if let t = o.threadPriority {
                body.append(
                    "    // op \(i)'s threadPriority \(t) is not set: swift-corelibs-foundation's "
                        + "Operation has no threadPriority"
                )
            }
            if o.completion != nil {
                body.append(
                    "    run.called(.setCompletionBlock, \(i)) { run.ops[\(i)].completionBlock = { [run] in "
                        + "run.record(.completionBegan, \(i)); completion_\(i)(run); run.record(.completionEnded, "
                        + "\(i)) } }"
                )
            }
        }
        for d in scenario.dependencies { body.append("    run.ops[\(d.op)].addDependency(run.ops[\(d.on)])") }
        body += ["", "    func drive() {"]
        var blocksAdded: [Int: Int] = [:]
        for (k, step) in scenario.driver.enumerated() {
            let comment = SwiftSource.comment("driver step \(k): " + ReproducerScenario.describe(step))
            var d: [String] = ["", "        " + comment, "        if run.abandoned { return }"]
            if let t = step.after {
                switch t {
                case .started(let op): d.append("        run.after { run.find(P(.start, \(op), -1, -1)) != nil }")
                case .mainBegan(let op): d.append("        run.after { run.find(P(.mainBegan, \(op), -1, -1)) != nil }")
                case .blockBegan(let op, let b):
                    d.append("        run.after { run.find(P(.blockBegan, \(op), \(b), -1)) != nil }")
                case .finished(let op): d.append("        run.after { run.quietlyFinished(\(op)) }")
                case .signaled(let t): d.append("        run.after { run.isSignalled(\(t)) }")
                }
            }
            switch step.action {
            case .add(let op, let q):
                hand(op)
                d.append("        run.called(.add, \(op)) { run.queues[\(q)].addOperation(run.ops[\(op)]) }")
            case .addBatch(let list, let q, let wait):
                list.forEach(hand)
                let array = "[" + list.map { "run.ops[\($0)]" }.joined(separator: ", ") + "]"
                if wait {
                    d.append(
                        "        run.bounded(.addBatch, \(q)) { [run] in run.queues[\(q)].addOperations(\(array), "
                            + "waitUntilFinished: true) }"
                    )
                    d += list.map { "        if !run.abandoned { run.readKey(\($0), .isFinished) }" }
                } else {
                    d.append(
                        "        run.called(.addBatch, \(q)) { run.queues[\(q)].addOperations(\(array), "
                            + "waitUntilFinished: false) }"
                    )
                }
            case .start(let op):
                hand(op)
                d.append("        run.ops[\(op)].start()")
            case .perform(let op, let steps):
                function("perform_\(k)", steps, this: op)
                d.append("        perform_\(k)(run)")
            case .cancel(let op): d.append("        run.ops[\(op)].cancel()")
            case .cancelAll(let q): d.append("        run.queues[\(q)].cancelAllOperations()")
            case .suspend(let q): d.append("        run.queues[\(q)].isSuspended = true")
            case .resume(let q): d.append("        run.queues[\(q)].isSuspended = false")
            case .setMaxConcurrent(let q, let n):
                d.append("        run.queues[\(q)].maxConcurrentOperationCount = \(n)")
            case .addDependency(let op, let on):
                d.append("        run.called(.addDependency, \(op)) { run.ops[\(op)].addDependency(run.ops[\(on)]) }")
            case .removeDependency(let op, let on):
                d.append(
                    "        run.called(.removeDependency, \(op)) { run.ops[\(op)].removeDependency(run.ops[\(on)]) }")
            case .waitUntilFinished(let op):
                d.append(
                    "        run.bounded(.waitUntilFinished, \(op)) { [run] in run.ops[\(op)].waitUntilFinished() }")
                d.append("        if !run.abandoned { run.readKey(\(op), .isFinished) }")
            case .waitUntilAllFinished(let q):
                d.append(
                    "        run.bounded(.waitUntilAllFinished, \(q)) { [run] in "
                        + "run.queues[\(q)].waitUntilAllOperationsAreFinished() }"
                )
                d += ReproducerScenario.addedTo(scenario, q, before: k).map {
                    "        if !run.abandoned { run.readKey(\($0), .isFinished) }"
                }
            case .setCompletionBlock(let op, let steps):
                function("setCompletion_\(k)", steps, this: op)
                d.append(
                    "        run.called(.setCompletionBlock, \(op)) { run.ops[\(op)].completionBlock = { [run] in "
                        + "run.record(.completionBegan, \(op)); setCompletion_\(k)(run); run.record(.completionEnded, "
                        + "\(op)) } }"
                )
            case .addExecutionBlock(let op, let steps):
                let number = scenario.operations[op].kind.blockCount + blocksAdded[op, default: 0]
                blocksAdded[op, default: 0] += 1
                function("addBlock_\(k)", steps, this: op)
                d.append(
                    "        run.called(.addExecutionBlock, \(op)) { (run.ops[\(op)] as! "
                        + "BlockOperation).addExecutionBlock { [run] in run.record(.blockBegan, \(op), \(number)); "
                        + "run.taskThread(\(op)); addBlock_\(k)(run); run.record(.blockEnded, \(op), \(number)) } }"
                )
            case .setQueuePriority(let op, let p):
                d.append("        run.ops[\(op)].queuePriority = Operation.QueuePriority(rawValue: \(p)) ?? .normal")
            case .setThreadPriority(let op, let p):
                d.append(
                    "        // (threadPriority \(p) of op \(op) is not set: swift-corelibs-foundation's Operation has "
                        + "no threadPriority)"
                )
            case .read(let key, let op): d.append("        run.readKey(\(op), .\(key.rawValue))")
            case .readOperationCount(let q): d.append("        _ = run.queues[\(q)].operationCount")
            case .result: continue
            case .addBlock(let op, let q):
                guard case .block(let blocks) = scenario.operations[op].kind, let only = blocks.first else { continue }
                function("queueBlock_\(op)", only, this: op)
                d.append(
                    "        run.queues[\(q)].addOperation { [run] in run.record(.blockBegan, \(op), 0); "
                        + "run.taskThread(\(op)); queueBlock_\(op)(run); run.record(.blockEnded, \(op), 0) }"
                )
            case .readSuspended(let q): d.append("        _ = run.queues[\(q)].isSuspended")
            case .readOperations: break   // a read of the list changes nothing, and a queue of yours need not have one
            case .releaseQueue, .readQueueDeallocated, .setUnderlyingQueue: break   // refused before: RuleClaims.claims
            case .readMainQueue: d.append("        _ = OperationQueue.main")
            case .sleep(let n): d.append("        work(\(n))")
            }
            body += d
        }
        body += ["    }", "    drive()", "",
                 "    // Everything handed over has time to finish; then each operation's isFinished is read.",
                 "    run.settle([" + handed.map(String.init).joined(separator: ", ") + "])"]
        body += scenario.operations.indices.filter { !ReproducerScenario.isBlockAdded(scenario, $0) }.map {
            "    run.readKey(\($0), .isFinished)"
        }
        body += ["", "    var failures: [String] = []"]
        for c in claims {
            body.append("    " + SwiftSource.comment(c.sentence))
            let sentence = SwiftSource.stringLiteral(c.sentence + ": instead, ")
            body.append("    if let seen = \(Self.call(c.check)) { failures.append(\(sentence) + seen) }")
        }
        body += [
            "    if !failures.isEmpty { failures.append(\"the events of that run:\\n\" + run.snapshot().indices.map { "
                + "\"  \" + run.describe($0) }.joined(separator: \"\\n\")) }",
            "    return failures"
        ]
        return ["// MARK: - One run of the scenario, and the claims about it", "",
                "fileprivate func runOnce() -> [String] {",
                "    let run = Run(bound: \(String(format: "%.1f", bound)))"] + body + ["}", ""]
    }


    private func testFunction() -> [String] {
        let runsLine = "let runs = ProcessInfo.processInfo.environment[\"REPRO_RUNS\"].flatMap { Int($0) } ?? \(runs)"
        let sentence = claims.map(\.sentence).joined(separator: "; ")
        if xctest {
            let type = name.prefix(1).uppercased() + name.dropFirst() + "Tests"
            return ["// MARK: - The test", "",
                    "final class \(type): XCTestCase {",
                    "    " + SwiftSource.comment(sentence, doc: true),
                    "    func test\(name.prefix(1).uppercased() + name.dropFirst())() {",
                    "        \(runsLine)",
                    "        for run in 1...max(1, runs) {",
                    "            let failures = runOnce()",
                    "            if !failures.isEmpty {",
                "                XCTFail(\"failed on run \\(run) of \\(runs):\\n\" + "
                    + "failures.joined(separator: \"\\n\"))",
                    "                return",
                    "            }",
                    "        }",
                    "    }",
                    "}"]
        }
        return ["// MARK: - The test", "",
                "@Test(\(SwiftSource.stringLiteral(sentence)))",
                "func \(name.prefix(1).lowercased() + name.dropFirst())() {",
                "    \(runsLine)",
                "    for run in 1...max(1, runs) {",
                "        let failures = runOnce()",
                "        if !failures.isEmpty {",
            "            Issue.record(Comment(rawValue: \"failed on run \\(run) of \\(runs):\\n\" + "
                + "failures.joined(separator: \"\\n\")))",
                "            return",
                "        }",
                "    }",
                "}"]
    }
}
