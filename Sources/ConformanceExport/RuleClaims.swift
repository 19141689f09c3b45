import Conformance
import OperationSpec

/// The assertion of an exported reproducer, made from its finding: the rule, and the objects
/// the finding's message names. Each rule's message is written by its checker from one
/// template (`Sources/OperationSpec/Checkers/`), so the numbers in it say which operations,
/// queues, blocks and tokens the violation was about; the claim is the rule's sentence about
/// those objects, over what the reproducer can record with public API.
///
/// A rule with no claim here cannot be exported yet: `claims(for:)` says so, and which rules
/// can (`RuleClaims.supported`).
enum RuleClaims {
    /// The rules a reproducer can assert.
    static let supported: [String] = [
        RuleID.blockAllBeforeFinish, RuleID.blockConcurrent, RuleID.cancelBeforeStartFinishes, RuleID.cancelNotStop,
        RuleID.completionAfterFinish, RuleID.completionLateThrows, RuleID.completionOnce, RuleID.depAcrossQueues,
        RuleID.depOrder, RuleID.depRemoveRestores, RuleID.invocationCancelledResult, RuleID.kvoBalanced,
        RuleID.kvoCompletionBlock, RuleID.kvoCompletionOrder, RuleID.kvoFinishAlways, RuleID.kvoSetBracketed,
        RuleID.priorityOrder, RuleID.queueMaxConcurrent, RuleID.queueProgress, RuleID.queueReadyOnly,
        RuleID.queueThreadName, RuleID.queueThreadNameSet, RuleID.queueWaitAll, RuleID.queueWaitOp,
        RuleID.readyExecutingFinished, RuleID.readyOverride, RuleID.runHang, RuleID.startKVO, RuleID.stateExclusive,
        RuleID.stateFinishedAfterTask,
    ]

    struct Unsupported: Error, CustomStringConvertible {
        var description: String
    }

    /// The claims for a finding, or why there are none.
    static func claims(rule: String, message: String, scenario: Scenario) throws(Unsupported) -> [Claim] {
        let m = MessageNumbers(message)
        func need(_ label: String, _ k: Int = 0) throws(Unsupported) -> Int {
            guard let n = m.number(after: label, k) else {
                throw Unsupported(
                    description:
                        "the finding's message does not name the \(label.trimmingCharacters(in: .whitespaces)) a "
                            + "\(rule) reproducer needs (\"\(message)\")"
                )
            }
            return n
        }
        func p(_ kind: ReproducerEvent, _ op: Int = -1, _ a: Int = -1, _ b: Int = -1) -> EventPattern {
            EventPattern(kind: kind, op: op, a: a, b: b)
        }
        // The reproducers hold every queue for the whole test: a release would be a no-op there,
        // and the test would not be the case that failed.
        if let q = scenario.driver.lazy.compactMap({ step -> Int? in
            if case .releaseQueue(let q) = step.action { return q }; return nil
        }).first {
            throw Unsupported(
                description:
                    "the scenario releases queue \(q) (API surface 3), which the reproducers cannot express yet: "
                    + "they hold every queue for the whole test; replay the finding with opconform instead")
        }
        // Nor Dispatch queues: a reproducer that ran the steps without them would not be the case.
        if let construct = scenario.dispatchConstructs.first {
            throw Unsupported(description: "the scenario uses \(construct) (a Dispatch construct), which the "
                + "reproducers cannot express yet; replay the finding with opconform instead")
        }
        switch rule {
        case RuleID.blockConcurrent:
            let (block, op, token, sibling) = (
                try need("block "), try need("op "), try need("token "), try need("block ", 1)
            )
            return [
                Claim(
                    sentence:
                        "block \(block) of op \(op) receives token \(token) from its sibling block \(sibling): the "
                            + "blocks of one block operation run together, so a block waiting "
                            + "for a sibling is not starved",
                    check: .never(p(.awaited, -1, token, 0)))
            ]
        case RuleID.depRemoveRestores:
            let (op, on) = (try need("op "), try need("op ", 1))
            return [
                Claim(
                    sentence:
                        "op \(op) reports isReady YES once removeDependency removed its last unfinished dependency, op "
                            + "\(on)",
                    check: .valuesAfter(anchor: .returned(.removeDependency, op), .read(op, .isReady), value: 1))
            ]
        case RuleID.priorityOrder:
            let (q, low, high) = (try need("queue "), try need("op "), try need("op ", 1))
            if let why = ReproducerScenario.undecidedOrder(scenario, queue: q, first: high, then: low) {
                throw Unsupported(
                    description:
                        "a PRIORITY-ORDER reproducer asserts that op \(high) starts before op \(low), which a faithful "
                            + "queue must do only when the order is decided before it chooses: here \(why). To export "
                            + "it, edit the finding's scenario so that op \(high) is added in an earlier step than op "
                            + "\(low), or both to a suspended queue resumed after them, and replay it to see that it "
                            + "still breaks the rule"
                )
            }
            return [
                Claim(
                    sentence: "serial queue \(q) starts op \(high), of higher priority and ready, before op \(low)",
                    check: .before(p(.start, high), p(.start, low)))
            ]
        case RuleID.queueProgress:
            let (op, q) = (try need("op "), try need("queue "))
            return [Claim(sentence: "queue \(q), not suspended and with a free slot, starts op \(op), which is ready",
                          check: .occurs(p(.start, op)))]
        case RuleID.runHang:
            return [Claim(sentence: "every call the program makes returns (\(m.clause(after: "hang: ") ?? message))",
                          check: .never(.stuck()))]
        case RuleID.blockAllBeforeFinish:
            let (op, block) = (try need("operation "), try need("block "))
            return [Claim(sentence: "block operation \(op) begins finishing only after its block \(block) ended",
                          check: .before(p(.blockEnded, op, block), p(.finishing, op)))]
        case RuleID.cancelBeforeStartFinishes:
            let op = try need("op ")
            return [Claim(sentence: "op \(op), cancelled in its queue before it started, becomes finished",
                          check: .occurs(p(.finished, op)))]
        case RuleID.cancelNotStop:
            let op = try need("op ")
            return [Claim(sentence: "op \(op)'s task, running when cancel was called, runs to its end",
                          check: .implies(p(.taskBegan, op), p(.taskEnded, op)))]
        case RuleID.completionAfterFinish:
            let op = try need("op ")
            return [Claim(sentence: "op \(op)'s completion block does not begin while its main is running",
                          check: .notDuring(p(.completionBegan, op), from: p(.mainBegan, op), to: p(.mainEnded, op)))]
        case RuleID.completionLateThrows:
            let op = try need("op ")
            return [Claim(sentence: "setCompletionBlock on op \(op) after it was started is refused with an exception",
                          check: .callsAfterThrow(.setCompletionBlock, op: op, anchor: p(.start, op)))]
        case RuleID.completionOnce:
            let op = try need("op ")
            if message.contains("never ran") {
                return [Claim(sentence: "op \(op) finished, so its completion block runs",
                              check: .implies(p(.finished, op), p(.completionBegan, op)))]
            }
            return [
                Claim(
                    sentence: "op \(op)'s completion block runs exactly once",
                    check: .countIs(p(.completionBegan, op), 1))
            ]
        case RuleID.depOrder, RuleID.depAcrossQueues:
            let (op, dep) = (try need("op "), try need("op ", 1))
            return [
                Claim(
                    sentence: "op \(op)'s task begins only after its dependency op \(dep) began finishing"
                        + (rule == RuleID.depAcrossQueues ? ", though they are in different queues" : ""),
                    check: .before(p(.finishing, dep), p(.taskBegan, op)))
            ]
        case RuleID.invocationCancelledResult:
            let op = try need("op ")
            return [Claim(sentence: "asking cancelled invocation operation op \(op) for its result raises an exception",
                          check: .callsAfterThrow(.result, op: op, anchor: .call(.cancel, op)))]
        case RuleID.kvoBalanced:
            let op = try need("op ")
            return [
                Claim(
                    sentence: "op \(op)'s will- and did-change notifications come in pairs on each thread",
                    check: .balanced(op: op))
            ]
        case RuleID.kvoCompletionBlock:
            let op = try need("op ")
            return [
                Claim(
                    sentence: "setCompletionBlock on op \(op) sends a will-change for completionBlock during the call",
                    check: .duringCall(.setCompletionBlock, op: op, .will(op, .completionBlock))),
                Claim(
                    sentence: "setCompletionBlock on op \(op) sends a did-change for completionBlock during the call",
                    check: .duringCall(.setCompletionBlock, op: op, .did(op, .completionBlock)))
            ]
        case RuleID.kvoCompletionOrder:
            let op = try need("op ")
            return [
                Claim(
                    sentence:
                        "op \(op) announces its finish will isFinished, will isExecuting, did "
                            + "isExecuting, did isFinished",
                    check: .finishOrder(op: op))
            ]
        case RuleID.kvoSetBracketed:
            let op = try need("op ")
            let key: StateKey = message.contains("set isFinished") ? .isFinished : .isExecuting
            return [
                Claim(
                    sentence:
                        "op \(op) changes \(key.rawValue) only between a will-change and a "
                            + "did-change of it on the same thread",
                    check: .bracketed(op: op, key: key))
            ]
        case RuleID.kvoFinishAlways:
            let op = try need("op ")
            return [Claim(sentence: "op \(op) became finished, so it sent a did-change for isFinished",
                          check: .implies(.read(op, .isFinished, 1), .did(op, .isFinished, 1)))]
        case RuleID.queueReadyOnly:
            let (op, dep) = (try need("op "), try need("op ", 1))
            return [Claim(sentence: "op \(op) is started only after its dependency op \(dep) began finishing",
                          check: .before(p(.finishing, dep), p(.start, op)))]
        case RuleID.queueThreadName, RuleID.queueThreadNameSet:
            let queue = rule == RuleID.queueThreadNameSet ? try need("queue ") : nil
            let claims = queuedOnly(scenario).filter { queue == nil || $0.queue == queue }.compactMap {
                (op, q) -> Claim? in
                guard let name = scenario.queues[q].name ?? (rule == RuleID.queueThreadName ? nil : "") else {
                    return Claim(
                        sentence: "op \(op), run by unnamed queue \(q), runs on a thread named NSOperationQ_<number>",
                        check: .threadPrefix(op: op, prefix: "NSOperationQ_"))
                }
                guard !name.isEmpty else { return nil }
                return Claim(
                    sentence: "op \(op), run by queue \(q) named \"\(name)\", runs on a thread named \(name)_<number>",
                    check: .threadPrefix(op: op, prefix: name + "_"))
            }
            guard !claims.isEmpty else {
                throw Unsupported(
                    description:
                        "no operation of the scenario is only ever run by "
                            + "\(queue.map { "queue \($0)" } ?? "an unnamed queue"), so no thread name can be asserted"
                )
            }
            return claims
        case RuleID.queueWaitAll:
            let q = try need("queue ")
            return [
                Claim(
                    sentence: "waitUntilAllOperationsAreFinished on queue \(q) returns once its operations finished",
                    check: .never(.stuck(.waitUntilAllFinished, q)))
            ]
        case RuleID.queueWaitOp:
            let op = try need("op ")
            return [
                Claim(
                    sentence: "waitUntilFinished on op \(op) returns once it finished",
                    check: .never(.stuck(.waitUntilFinished, op)))
            ]
        case RuleID.readyExecutingFinished:
            let op = try need("op ")
            return [Claim(sentence: "op \(op) reports isReady YES once it has been executing or finished",
                          check: .valuesAfter(anchor: p(.active, op), .read(op, .isReady), value: 1))]
        case RuleID.readyOverride:
            let (op, token) = (try need("op "), try need("token "))
            return [
                Claim(
                    sentence:
                        "op \(op), whose isReady says NO until token \(token) is signalled, is "
                            + "started only after the signal",
                    check: .before(p(.signal, -1, token), p(.start, op)))
            ]
        case RuleID.startKVO:
            let op = try need("op ")
            return [
                Claim(
                    sentence:
                        "the default start of op \(op) sends did-change isExecuting YES before main and did-change "
                            + "isFinished YES after it",
                    check: .startAnnounces(op: op))
            ]
        case RuleID.queueMaxConcurrent:
            let q = try need("queue "), width = try need("(max ")
            // The reproducer sees an operation run from its start to its task's end, as the
            // checker does; so every operation the queue was given must have been given to it
            // alone, once, and started by nothing else, and the width must stay as it was.
            if scenario.driver.contains(where: {
                if case .setMaxConcurrent(let w, _) = $0.action { return w == q }; return false
            }) {
                throw Unsupported(
                    description:
                        "the scenario changes queue \(q)'s width, and a reproducer's claim holds one width; shrink or "
                            + "write the scenario without setMaxConcurrent"
                )
            }
            var given: [Int] = []
            for step in scenario.driver {
                switch step.action {
                case .add(let op, let to) where to == q: given.append(op)
                case .addBatch(let ops, let to, _) where to == q: given += ops
                case .addBlock(let op, let to) where to == q: given.append(op)
                default: break
                }
            }
            let alone = Set(queuedOnly(scenario).filter { $0.queue == q }.map(\.op))
            let blockAdded = Set(given.filter { ReproducerScenario.isBlockAdded(scenario, $0) })
            if let shared = given.first(where: { !alone.contains($0) && !blockAdded.contains($0) }) {
                throw Unsupported(
                    description:
                        "op \(shared) is given to queue \(q) and also started or queued elsewhere, so the reproducer "
                            + "could not tell the queue's runs from the others"
                )
            }
            let ops = Array(Set(given)).sorted()
            return [
                Claim(
                    sentence:
                        "queue \(q) (maxConcurrentOperationCount \(width)) never has more than \(width) of its "
                            + "operations (\(ops.map { "op \($0)" }.joined(separator: ", "))) running at once",
                    check: .atMostRunning(ops: ops, width: width))
            ]
        case RuleID.stateExclusive:
            let op = try need("op ")
            return [
                Claim(sentence: "op \(op) never reports isExecuting and isFinished both YES", check: .exclusive(op: op))
            ]
        case RuleID.stateFinishedAfterTask:
            let op = try need("op ")
            // A concurrent subclass finishes itself at the end of its own main (Listing 2-7):
            // finished during main is its normal end, which the reproducer cannot tell apart.
            guard scenario.operations.indices.contains(op), !scenario.operations[op].kind.overridesStart else {
                throw Unsupported(
                    description:
                        "a STATE-FINISHED-AFTER-TASK reproducer asserts that op \(op) is not seen finished while its "
                            + "main runs, which holds only for an operation with the default start; op \(op) overrides "
                            + "start, and finishes inside its own main (004 Listing 2-7)"
                )
            }
            return [Claim(sentence: "op \(op) is not seen finished while its main is running",
                          check: .notDuring(p(.finished, op), from: p(.mainBegan, op), to: p(.mainEnded, op)))]
        default:
            throw Unsupported(
                description: "no reproducer assertion is written for \(rule) yet; the rules that can be exported are: "
                    + supported.joined(separator: ", "))
        }
    }

    /// The operations handed to exactly one queue and never started, spawned or run by the
    /// program itself: the threads their tasks begin on are that queue's.
    static func queuedOnly(_ s: Scenario) -> [(op: Int, queue: Int)] {
        var queueOf: [Int: [Int]] = [:]
        var byHand: [Int] = []
        func scan(_ steps: [Step], this: Int) {
            for step in steps {
                switch step {
                case .start(let r), .spawn(_, let r): byHand.append(r.resolve(this))
                case .callMain: byHand.append(this)
                case .if(_, let a, let b): scan(a, this: this); scan(b, this: this)
                case .repeat(_, let body): scan(body, this: this)
                default: break
                }
            }
        }
        for (i, o) in s.operations.enumerated() {
            switch o.kind {
            case .main(let b), .invocation(let b), .subclass(let b): scan(b, this: i)
            case .block(let bs): bs.forEach { scan($0, this: i) }
            case .concurrent(let p):
                scan(p.start, this: i); scan(p.main, this: i); p.routines.forEach { scan($0.body, this: i) }
            }
            if let c = o.completion { scan(c, this: i) }
        }
        for d in s.driver {
            switch d.action {
            case .add(let op, let q): queueOf[op, default: []].append(q)
            case .addBatch(let ops, let q, _): for op in ops { queueOf[op, default: []].append(q) }
            case .start(let op): byHand.append(op)
            case .perform(let op, let body), .setCompletionBlock(let op, let body),
                .addExecutionBlock(let op, let body):
                scan(body, this: op)
            default: break
            }
        }
        return queueOf.keys.sorted().compactMap { op in
            guard let qs = queueOf[op], Set(qs).count == 1, !byHand.contains(op) else { return nil }
            return (op, qs[0])
        }
    }
}

/// The numbers a checker's message names, by the word before them: "op 3", "queue 0".
struct MessageNumbers {
    let text: String
    init(_ text: String) { self.text = text }

    /// The k-th number (from 0) written right after `label`.
    func number(after label: String, _ k: Int = 0) -> Int? {
        var found: [Int] = []
        var rest = Substring(text)
        while let r = rest.range(of: label) {
            rest = rest[r.upperBound...]
            let digits = rest.prefix { $0.isNumber || $0 == "-" }
            if let n = Int(digits) { found.append(n) }
        }
        return k < found.count ? found[k] : nil
    }

    /// The text after `label`, up to the first "; required".
    func clause(after label: String) -> String? {
        guard let r = text.range(of: label) else { return nil }
        let rest = text[r.upperBound...]
        return String(rest.range(of: "; required").map { rest[..<$0.lowerBound] } ?? rest)
    }
}
