import OperationSpec
import ReferenceEngine

/// Minimises a failing scenario: it keeps a smaller candidate only if the same rule still fails
/// on it. Candidates come from coarse to fine: chunks of driver steps, whole operations, queues,
/// edges, then kinds, blocks, body steps, counts, priorities and queue settings. Greedy: the
/// first candidate that still fails is taken and the search starts again from it, until no
/// candidate fails or the budget of runs is spent.
///
/// A smaller scenario schedules differently, so each candidate is tried under the current
/// schedule seed and a few others derived from it. On a nondeterministic implementation each of
/// those is tried `attempts` times, and the result says how often the final scenario reproduces.
public struct Shrinker: Sendable {
    public struct Result: Sendable {
        public var scenario: Scenario
        public var scheduleSeed: UInt64
        public var violation: Violation
        public var accepted: Int
        public var runs: Int
        public var reproduced: Int
        public var attempts: Int
        public var milliseconds: Int
    }

    public let impl: any Implementation
    public let profile: Profile
    public let rule: RuleCheck
    public var schedulesPerCandidate = 4
    public var attempts: Int
    public var budget = 4000

    public init(impl: any Implementation, profile: Profile, rule: RuleCheck, attempts: Int? = nil) {
        self.impl = impl
        self.profile = profile
        self.rule = rule
        self.attempts = attempts ?? (impl.isDeterministic ? 1 : 5)
    }

    /// The rule's first violation on this scenario under this schedule seed, if any.
    public func violation(_ scenario: Scenario, scheduleSeed: UInt64) -> Violation? {
        let trace = impl.run(scenario, scheduleSeed: scheduleSeed)
        guard rule.rule.needs.allSatisfy(trace.capabilities.contains) else { return nil }
        return rule.check(CheckContext(scenario: scenario, trace: trace, profile: profile)).violations.first
    }

    public func shrink(_ scenario: Scenario, scheduleSeed: UInt64) -> Result {
        let clock = ContinuousClock()
        let start = clock.now
        var best = scenario, seed = scheduleSeed, runs = 0, accepted = 0
        var witness = violation(scenario, scheduleSeed: scheduleSeed)
        runs += 1
        let seeds = [scheduleSeed] + (1..<schedulesPerCandidate).map { SplitMix64.derive(scheduleSeed, UInt64($0)) }

        func fails(_ candidate: Scenario) -> (UInt64, Violation)? {
            for s in ([seed] + seeds.filter { $0 != seed }) {
                for _ in 0..<attempts {
                    runs += 1
                    if let v = violation(candidate, scheduleSeed: s) { return (s, v) }
                }
            }
            return nil
        }

        var progress = witness != nil
        while progress && runs < budget {
            progress = false
            for candidate in Self.candidates(best) where runs < budget {
                guard candidate != best, candidate.problems().isEmpty, let (s, v) = fails(candidate) else { continue }
                best = candidate; seed = s; witness = v
                accepted += 1
                progress = true
                break
            }
        }
        var reproduced = 0
        for _ in 0..<attempts { if violation(best, scheduleSeed: seed) != nil { reproduced += 1 } }
        let elapsed = clock.now - start
        let ms = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        return Result(scenario: best, scheduleSeed: seed,
                      violation: witness ?? Violation(rule: rule.rule.id, observed: "did not reproduce", expected: "", witnesses: []),
                      accepted: accepted, runs: runs, reproduced: reproduced, attempts: attempts, milliseconds: ms)
    }

    /// Smaller variants of `s`, coarse first.
    public static func candidates(_ s: Scenario) -> [Scenario] {
        var out: [Scenario] = []
        // Chunks of driver steps, halving.
        var chunk = max(1, s.driver.count / 2)
        while chunk >= 1 {
            var i = 0
            while i < s.driver.count {
                var c = s
                c.driver.removeSubrange(i..<min(s.driver.count, i + chunk))
                out.append(c)
                i += chunk
            }
            if chunk == 1 { break }
            chunk /= 2
        }
        // Operations in halving chunks, then one by one.
        var size = s.operations.count / 2
        while size > 1 {
            var start = 0
            while start < s.operations.count {
                var c = s
                for _ in 0..<min(size, s.operations.count - start) { c = c.removingOperation(start) }
                out.append(c)
                start += size
            }
            size /= 2
        }
        for op in s.operations.indices.reversed() { out.append(s.removingOperation(op)) }
        for q in s.queues.indices.reversed() { out.append(s.removingQueue(q)) }
        for e in s.dependencies.indices { var c = s; c.dependencies.remove(at: e); out.append(c) }
        for (i, o) in s.operations.enumerated() {
            func with(_ change: (inout OperationConfig) -> Void) { var c = s; change(&c.operations[i]); out.append(c) }
            if o.completion != nil { with { $0.completion = nil } }
            if o.queuePriority != nil { with { $0.queuePriority = nil } }
            if o.threadPriority != nil { with { $0.threadPriority = nil } }
            switch o.kind {
            case .block(let blocks):
                if blocks.count > 1 { for b in blocks.indices { with { var bs = blocks; bs.remove(at: b); $0.kind = .block(bs) } } }
                else { with { $0.kind = .main(blocks[0]) } }
            case .invocation(let body): with { $0.kind = .main(body) }
            default: break
            }
            for simpler in simplerBodies(o) { with { $0 = simpler } }
        }
        for (q, config) in s.queues.enumerated() {
            if config.suspended { var c = s; c.queues[q].suspended = false; out.append(c) }
            if config.maxConcurrent != QueueConfig.defaultMax { var c = s; c.queues[q].maxConcurrent = QueueConfig.defaultMax; out.append(c) }
        }
        for (i, step) in s.driver.enumerated() {
            if step.after != nil { var c = s; c.driver[i].after = nil; out.append(c) }
            if case .addBatch(let list, let q, let wait) = step.action {
                if wait { var c = s; c.driver[i].action = .addBatch(ops: list, queue: q, wait: false); out.append(c) }
                var c = s
                c.driver.replaceSubrange(i...i, with: list.map { DriverStep(after: step.after, .add(op: $0, queue: q)) })
                out.append(c)
            }
        }
        return out
    }

    /// The operation with one body step removed or one count lowered, for each possibility.
    /// A concurrent subclass keeps its protocol (checks, notifications, ivar stores, threads,
    /// calls): removing any of those would turn a correct subclass into a flawed one, and the
    /// minimised case would fail for a reason that was not the original one.
    static func simplerBodies(_ o: OperationConfig) -> [OperationConfig] {
        var out: [OperationConfig] = []
        var bodies: [[Step]] = []
        _ = o.mappingSteps { b in bodies.append(b); return b }
        let keepProtocol = o.kind.overridesStart
        for (k, body) in bodies.enumerated() {
            for variant in simpler(body, keepProtocol: keepProtocol) {
                var n = 0
                out.append(o.mappingSteps { b in defer { n += 1 }; return n == k ? variant : b })
            }
        }
        return out
    }

    static func simpler(_ body: [Step], keepProtocol: Bool) -> [[Step]] {
        var out: [[Step]] = []
        for i in body.indices {
            var b = body
            if !keepProtocol || body[i].isIncidental { b.remove(at: i); out.append(b) }
            switch body[i] {
            case .work(let n) where n > 1: b = body; b[i] = .work(1); out.append(b)
            case .repeat(let n, let inner) where n > 1: b = body; b[i] = .repeat(1, inner); out.append(b)
            case .repeat(let n, let inner): for v in simpler(inner, keepProtocol: keepProtocol) { b = body; b[i] = .repeat(n, v); out.append(b) }
            case .if(let c, let t, let e) where keepProtocol:
                for v in simpler(t, keepProtocol: true) { b = body; b[i] = .if(c, then: v, else: e); out.append(b) }
            default: break
            }
        }
        return out
    }
}

extension Step {
    /// Steps that do work or look, but take no part in an operation's state protocol.
    var isIncidental: Bool {
        switch self {
        case .work, .read, .signal, .await: return true
        default: return false
        }
    }
}
