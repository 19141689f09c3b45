import ConformanceFormats
import ConformanceRunning
import Dispatch
import OperationDriverKit
import OperationSpec
import ReferenceEngine
import Synchronization

/// Minimises a failing scenario: it keeps a smaller candidate only if it still shows the same
/// violation (the same rule, and the same sentence once operation numbers and values are set
/// aside), and ends no worse than the original (no new hang or crash: a minimised case must not
/// wait for ever on a correct runtime). Candidates come from coarse to fine: chunks of driver
/// steps, chunks of operations, operations, queues, edges, then kinds, blocks, body steps, counts,
/// priorities, isReady overrides, sleeps and queue settings (names among them). Greedy: the
/// first candidate that still fails is taken, and the search resumes from that position on the
/// new scenario, until a full round finds nothing or the budget of runs is spent (the result
/// says which).
///
/// A smaller scenario schedules differently, so each candidate is tried under the current
/// schedule seed and a few others derived from it. On a nondeterministic implementation each of
/// those is tried `attempts` times, and the result says how often the final scenario reproduces.
///
/// A minimum must replay at least as often as what it was minimised from (issue 18): on a
/// nondeterministic implementation the original's replay rate is measured first (`rateAttempts`
/// runs), and so is the minimum's. A minimum that replays less often (a race whose trigger was
/// shrunk away, which the implementation now wins most of the time) is given up for the
/// smallest scenario along the chain of accepted candidates whose rate is at least the
/// original's, or for the original itself (`Result.walkedBack`).
///
/// Findings of one run often share a cause: `hints` (earlier findings' minima) are tried before
/// the greedy search, and the search starts from the first that still shows this failure.
package struct Shrinker: Sendable {
    package typealias Hint = ShrinkHint

    public struct Result: Sendable {
        public var scenario: Scenario
        public var scheduleSeed: UInt64
        public var violation: Violation
        /// Accepted steps from the original to `scenario` (a hint counts as one).
        public var accepted: Int
        /// Runs of candidates: what the budget counts (the rate measurements are `rateRuns`).
        public var runs: Int
        /// In how many of `attempts` runs (`rateAttempts`) `scenario` showed the violation.
        public var reproduced: Int
        public var attempts: Int
        package var milliseconds: Int
        /// The budget ran out before a full round found nothing smaller.
        public var exhausted: Bool
        /// The run was stopped (`stop`) before the search ended: `scenario` is the smallest
        /// confirmed so far, and `reproduced` was not measured again (1 of 1: it was seen).
        public var interrupted = false
        /// On a nondeterministic implementation: in how many of `attempts` runs the original
        /// scenario showed the violation, measured before shrinking. Nil on a deterministic one
        /// (one run decides: 1 of 1) and when the search was stopped before it was measured.
        public var originalReproduced: Int? = nil
        /// Accepted steps given up because the smallest candidate replayed less often than the
        /// original: 0 when the minimum held up; `accepted + walkedBack` steps were taken, and
        /// `accepted == 0` with `walkedBack > 0` means the original itself was kept.
        package var walkedBack = 0
        /// The index of the hint the search started from, if one was accepted.
        public var hint: Int? = nil
        /// Runs spent measuring replay rates (the original's, the minimum's, and those walked
        /// back through).
        package var rateRuns = 0
        /// A larger scenario than the smallest found was kept, since it replays more often.
        package var keptLarger: Bool { walkedBack > 0 }

        /// Every stored property (the memberwise initializer is internal to its module).
        package init(
            scenario: Scenario, scheduleSeed: UInt64, violation: Violation, accepted: Int, runs: Int,
            reproduced: Int, attempts: Int, milliseconds: Int, exhausted: Bool, interrupted: Bool = false,
            originalReproduced: Int? = nil, walkedBack: Int = 0, hint: Int? = nil
        ) {
            self.scenario = scenario
            self.scheduleSeed = scheduleSeed
            self.violation = violation
            self.accepted = accepted
            self.runs = runs
            self.reproduced = reproduced
            self.attempts = attempts
            self.milliseconds = milliseconds
            self.exhausted = exhausted
            self.interrupted = interrupted
            self.originalReproduced = originalReproduced
            self.walkedBack = walkedBack
            self.hint = hint
        }
    }

    public let impl: any Implementation
    public let profile: Profile
    public let target: ShrinkTarget
    package var schedulesPerCandidate = 4
    public var attempts: Int
    /// How many of a candidate's `attempts` under one schedule seed must show the failure for it
    /// to be kept. 1 on a deterministic implementation. On a real one, 2 of 3: a candidate kept
    /// on a single lucky run is often a race the implementation wins most of the time (two empty
    /// operations on a queue whose width is off by one), and its replay line then says "did not
    /// break" most of the time; requiring most runs keeps the work that makes the failure show.
    package var keepAfter: Int
    /// Runs that measure a replay rate: the original's before shrinking and the minimum's after
    /// (the `attempts` a result reports). 1 on a deterministic implementation, where one run
    /// decides; on a real one 5, or `attempts` when more were asked for: with 3, a minimum that
    /// replays 2 of 3 could not be told from one that replays 3 of 3.
    package var rateAttempts: Int
    public var budget = 4000
    /// Candidates tried side by side (`trial`), on a real implementation: its runs mostly wait
    /// (work steps sleep, windows of quiet), so four at once take little more wall time than
    /// one. The search still takes the first candidate in its order that shows the failure;
    /// the others' runs are spent for speed. 1 on the deterministic reference engine, whose
    /// findings stay the same bytes.
    package var parallelism = 1
    /// The longest the search may take on a real implementation before it keeps the smallest
    /// case found so far (`Result.exhausted`, "a smaller case may exist"): a failure that shows
    /// in one run of three keeps almost every candidate's trial failing, and the search would
    /// spend its whole budget of runs (164 s for Listing 2-6's race on Foundation). nil: no limit
    /// (the reference engine, whose search is decided by runs alone, and same seed, same bytes).
    package var timeLimit: Duration?
    /// The limit on a real implementation: the time from `run` to a finding stays under a minute.
    package static let realTimeLimit = Duration.seconds(30)
    /// The runs the search may spend: `budget`, and half as much again per further trial side
    /// by side, since those spend runs on candidates after the one taken, each costing a
    /// fraction of the wall time.
    var searchBudget: Int { parallelism > 1 ? budget * parallelism / 2 : budget }
    /// The side-by-side trials on a real implementation (issue 31: shrinking was 73 to 98 % of
    /// the time from `run` to a minimised finding of the planted defects).
    package static let realParallelism = 4
    /// Set to stop the search at once (SIGINT): no candidate run after it is trusted, since the
    /// stop kills the implementation's driver.
    public var stop: StopRequest?
    /// A correct runtime to ask "would this candidate wait for ever?": the faithful reference
    /// engine. An implementation with a bug may finish a case that a correct one never could
    /// (a wait that returns early), so its own ending cannot answer that.
    let oracle: ReferenceEngine

    public init(impl: any Implementation, profile: Profile, rule: RuleCheck, attempts: Int? = nil) {
        self.init(impl: impl, profile: profile, target: ShrinkTarget(rule), attempts: attempts)
    }

    public init(impl: any Implementation, profile: Profile, target: ShrinkTarget, attempts: Int? = nil) {
        self.impl = impl
        self.profile = profile
        self.target = target
        self.attempts = attempts ?? (impl.isDeterministic ? 1 : 3)
        self.keepAfter = impl.isDeterministic ? 1 : self.attempts / 2 + 1
        self.rateAttempts = impl.isDeterministic ? 1 : max(5, self.attempts)
        // A real implementation chooses its own interleavings, and every run costs a process:
        // one schedule seed, repeated `attempts` times, and a budget of a few hundred runs.
        if !impl.isDeterministic {
            schedulesPerCandidate = 1
            parallelism = Self.realParallelism
            budget = 300
            timeLimit = Self.realTimeLimit
        }
        self.oracle = ReferenceEngine(options: EngineOptions(profile: profile))
    }

    /// Whether a correct runtime runs the scenario to its end (under a few schedules).
    func completesOnCorrectRuntime(_ scenario: Scenario, seeds: [UInt64]) -> Bool {
        seeds.allSatisfy { oracle.run(scenario, scheduleSeed: $0).ending == .complete }
    }

    /// The violation's sentence with every number replaced by `#`: "the same failure".
    package static func signature(_ v: Violation) -> String {
        var out = "", inNumber = false
        for ch in v.observed {
            if ch.isNumber || (inNumber && ch == ".") {
                if !inNumber { out += "#" }; inNumber = true
            } else {
                out.append(ch); inNumber = false
            }
        }
        return v.rule + ": " + out
    }

    /// The rule's violation on this scenario under this schedule seed with the wanted signature
    /// (any, if nil), and how the run ended.
    public func run(_ scenario: Scenario, scheduleSeed: UInt64, signature: String? = nil) -> (Violation?, Trace.Ending)
    {
        let (violation, ending, _) = replay(scenario, scheduleSeed: scheduleSeed, signature: signature)
        return (violation, ending)
    }

    /// `run`, and whether the machine failed the run (`Trace.isMachineFailure`): such a run is
    /// no replay at all, neither a success nor a miss (issue 43).
    func replay(
        _ scenario: Scenario, scheduleSeed: UInt64, signature: String?
    ) -> (Violation?, Trace.Ending, machine: Bool) {
        let trace = impl.run(scenario, scheduleSeed: scheduleSeed)
        if trace.isMachineFailure { return (nil, trace.ending, true) }
        guard target.needs.allSatisfy(trace.capabilities.contains) else { return (nil, trace.ending, false) }
        let found = target.violations(CheckContext(scenario: scenario, trace: trace, profile: profile))
        return (found.first { signature == nil || Self.signature($0) == signature }, trace.ending, false)
    }

    /// Whether the candidate shows the failure (`keepAfter` of `attempts` runs under one of
    /// `seeds`, tried in order), and the runs it took, at most `maxRuns`. It touches no search
    /// state, so that several candidates can be tried side by side; the search's `fails` is
    /// this with its seeds and what is left of its budget.
    func trial(_ candidate: Scenario, seeds: [UInt64], signature: String?, ending: Trace.Ending,
               maxRuns: Int = .max) -> (found: (UInt64, Violation)?, runs: Int) {
        var used = 0
        for s in seeds {
            var shown = 0, witnessed: Violation?
            for attempt in 0..<attempts {
                // Stop as soon as the rest of the attempts could not reach `keepAfter`.
                if shown + (attempts - attempt) < keepAfter { break }
                if stop?.isRequested == true || used >= maxRuns { return (nil, used) }
                used += 1
                let (v, end, machine) = replay(candidate, scheduleSeed: s, signature: signature)
                // A run after a stop is not trusted: the stop killed the implementation's driver.
                // Nor one the machine failed: the candidate is left untried, not refuted.
                if stop?.isRequested == true || machine { return (nil, used) }
                // No worse ending than the original: a new hang or crash is a different failure.
                if let v, end == ending || end == .complete {
                    shown += 1
                    witnessed = witnessed ?? v
                    if shown >= keepAfter { return ((s, witnessed!), used) }
                }
            }
        }
        return (nil, used)
    }

    /// Counts how many of `rateAttempts` runs show the violation: a scenario's replay rate.
    /// A run the machine failed is run again (up to as many runs again), not counted as a miss.
    package func reproductions(_ scenario: Scenario, scheduleSeed: UInt64, signature: String?) -> Int {
        var shown = 0, counted = 0, runs = 0
        while counted < rateAttempts && runs < 2 * rateAttempts {
            runs += 1
            let (v, _, machine) = replay(scenario, scheduleSeed: scheduleSeed, signature: signature)
            if machine { continue }
            counted += 1
            if v != nil { shown += 1 }
        }
        return shown
    }

    /// Whether `a` is smaller than `b`: fewer operations, then fewer driver steps, edges, queues.
    /// A hint is tried only when it is, so the search never starts from something larger.
    package static func isSmaller(_ a: Scenario, than b: Scenario) -> Bool {
        func size(_ s: Scenario) -> [Int] { [s.operations.count, s.driver.count, s.dependencies.count, s.queues.count] }
        return size(a).lexicographicallyPrecedes(size(b))
    }

    /// Shrinks a failing case to a smaller one that fails the same way, in the phases of a
    /// `ShrinkSearch`: the original's runs and replay rate, a start from another finding's
    /// minimum (`hints`), the descent, and the minimum's replay rate (walking back along the
    /// accepted candidates when it replays less often than the original).
    public func shrink(_ scenario: Scenario, scheduleSeed: UInt64, hints: [Hint] = []) -> Result {
        var search = ShrinkSearch(shrinker: self, original: scenario, scheduleSeed: scheduleSeed)
        search.measureOriginal()
        if search.witness != nil && stop?.isRequested != true {
            search.startFromHint(hints)
            search.descend()
        }
        search.settleOnRate()
        return search.result()
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
                let range = start..<min(s.operations.count, start + size)
                if !range.contains(where: s.protocolNames) {
                    for _ in range { c = c.removingOperation(start) }
                    out.append(c)
                }
                start += size
            }
            size /= 2
        }
        for op in s.operations.indices.reversed() where !s.protocolNames(op) { out.append(s.removingOperation(op)) }
        for q in s.queues.indices.reversed() { out.append(s.removingQueue(q)) }
        for e in s.dependencies.indices { var c = s; c.dependencies.remove(at: e); out.append(c) }
        let handedAsBlocks = s.blockAddedOperations().map(\.op)
        for (i, o) in s.operations.enumerated() {
            func with(_ change: (inout OperationConfig) -> Void) { var c = s; change(&c.operations[i]); out.append(c) }
            if o.completion != nil { with { $0.completion = nil } }
            if o.queuePriority != nil { with { $0.queuePriority = nil } }
            if o.threadPriority != nil { with { $0.threadPriority = nil } }
            if o.readyAfterSignal != nil { with { $0.readyAfterSignal = nil } }
            switch o.kind {
            case .block(let blocks):
                if blocks.count > 1 { for b in blocks.indices { out.append(s.removingBlock(b, of: i)) } }
                // A block handed to addOperationWithBlock: must stay a one-block operation.
                else if !handedAsBlocks.contains(i) { with { $0.kind = .main(blocks[0]) } }
            case .invocation(let body): with { $0.kind = .main(body) }
            default: break
            }
            for simpler in simplerBodies(o) { with { $0 = simpler } }
        }
        for (q, config) in s.queues.enumerated() {
            if config.name != nil { var c = s; c.queues[q].name = nil; out.append(c) }
            if config.suspended { var c = s; c.queues[q].suspended = false; out.append(c) }
            if config.maxConcurrent != QueueConfig.defaultMax {
                var c = s; c.queues[q].maxConcurrent = QueueConfig.defaultMax; out.append(c)
            }
        }
        for (i, step) in s.driver.enumerated() {
            if step.after != nil { var c = s; c.driver[i].after = nil; out.append(c) }
            if case .sleep(let n) = step.action, n > 1 { var c = s; c.driver[i].action = .sleep(1); out.append(c) }
            if case .addBatch(let list, let q, let wait) = step.action {
                if wait { var c = s; c.driver[i].action = .addBatch(ops: list, queue: q, wait: false); out.append(c) }
                var c = s
                c.driver.replaceSubrange(
                    i...i, with: list.map { DriverStep(after: step.after, .add(op: $0, queue: q)) })
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
        let keepProtocol = o.kind.overridesStart && !o.kind.isSubclass
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
            case .repeat(let n, let inner):
                for v in simpler(inner, keepProtocol: keepProtocol) { b = body; b[i] = .repeat(n, v); out.append(b) }
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
        case .work, .read, .signal, .await, .readCurrentQueue: return true
        default: return false
        }
    }
}
