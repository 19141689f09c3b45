import ConformanceFormats
import ConformanceRunning
import OperationDriverKit
import OperationSpec
import Synchronization

/// One shrink of one failing case, in the phases `Shrinker.shrink` runs: the original's runs
/// and replay rate (`init`, `measureOriginal`), a start from another finding's minimum
/// (`startFromHint`), the descent through ever smaller candidates (`descend`), and the replay
/// rate of the minimum, walking back along the accepted candidates when it replays less often
/// than the original (`settleOnRate`). `result` is what it found.
struct ShrinkSearch {
    let shrinker: Shrinker
    let original: Scenario
    let originalSeed: UInt64
    let clock = ContinuousClock()
    let start: ContinuousClock.Instant
    /// The original's failure on its first failing run (nil: it never failed), and that run's end.
    let first: Violation?
    let ending: Trace.Ending
    /// What a run must show to count as the same failure (`Shrinker.signature`).
    let signature: String?
    /// The schedule seeds a candidate is tried under: the original's, then derived ones.
    let seeds: [UInt64]
    /// A correct runtime runs the original to its end: then it must run a kept candidate so too.
    var mustComplete = false
    var best: Scenario
    var seed: UInt64
    var witness: Violation?
    var runs: Int
    var rateRuns = 0
    /// Every accepted candidate in order, the smallest last: the way back when the smallest
    /// replays less often than the original.
    var chain: [(scenario: Scenario, seed: UInt64, violation: Violation)] = []
    var hintTaken: Int?
    var originalRate: Int?
    /// Where in the candidate list the last accepted one was (the next search starts there).
    var position = 0
    var exhausted = false
    var reproduced = 0, walkedBack = 0

    var stopped: Bool { shrinker.stop?.isRequested == true }

    /// Runs the original: a real implementation may not show a failure that depends on timing
    /// on the first run again, so it gets `attempts` tries before the search gives up on it.
    init(shrinker: Shrinker, original: Scenario, scheduleSeed: UInt64) {
        self.shrinker = shrinker
        self.original = original
        originalSeed = scheduleSeed
        start = clock.now
        var runs = 1
        var (first, ending) = shrinker.run(original, scheduleSeed: scheduleSeed)
        while first == nil && runs < shrinker.attempts {
            runs += 1
            (first, ending) = shrinker.run(original, scheduleSeed: scheduleSeed)
        }
        self.first = first
        self.ending = ending
        self.runs = runs
        witness = first
        signature = first.map(Shrinker.signature)
        seeds =
            [scheduleSeed] + (1..<shrinker.schedulesPerCandidate).map { SplitMix64.derive(scheduleSeed, UInt64($0)) }
        best = original
        seed = scheduleSeed
    }

    /// The original's replay rate, before anything is taken from it (a real implementation
    /// only: on a deterministic one its first run decided it), and whether it runs to its end.
    mutating func measureOriginal() {
        if witness != nil && !shrinker.impl.isDeterministic && !stopped { originalRate = rate(original, originalSeed) }
        mustComplete = shrinker.completesOnCorrectRuntime(original, seeds: seeds)
    }

    /// How many of `rateAttempts` runs show the violation, or nil as soon as fewer than
    /// `needing` can (the rest of the runs are not spent) or the run is stopped.
    mutating func rate(_ candidate: Scenario, _ s: UInt64, needing: Int = 0) -> Int? {
        let attempts = shrinker.rateAttempts
        if shrinker.parallelism > 1 && needing == 0 {
            // Side by side: every run is wanted.
            let shown = Atomic<Int>(0)
            let (runner, signature) = (shrinker, signature)
            SideBySide.perform(attempts) { _ in
                if runner.run(candidate, scheduleSeed: s, signature: signature).0 != nil {
                    shown.add(1, ordering: .relaxed)
                }
            }
            rateRuns += attempts
            return stopped ? nil : shown.load(ordering: .relaxed)
        }
        var shown = 0
        for attempt in 0..<attempts {
            if shown + (attempts - attempt) < needing { return nil }
            rateRuns += 1
            if shrinker.run(candidate, scheduleSeed: s, signature: signature).0 != nil { shown += 1 }
            if stopped { return nil }
        }
        return shown
    }

    /// Whether the candidate shows the failure (`keepAfter` of `attempts` runs under one
    /// schedule seed): under `preferred` first, then the current seed, then the derived ones;
    /// on a nondeterministic implementation, where a seed hardly steers the schedule and every
    /// run costs a process, under `preferred` alone when it is given.
    mutating func fails(_ candidate: Scenario, preferred: UInt64? = nil) -> (UInt64, Violation)? {
        var order: [UInt64] = []
        let tried = preferred.map { shrinker.impl.isDeterministic ? [$0, seed] + seeds : [$0] } ?? [seed] + seeds
        for s in tried where !order.contains(s) { order.append(s) }
        let t = shrinker.trial(candidate, seeds: order, signature: signature, ending: ending,
                               maxRuns: max(0, shrinker.searchBudget - runs))
        runs += t.runs
        return t.found
    }

    /// Whether a candidate may be kept at all: one a correct runtime would not run to its end,
    /// when the original does, is never kept. A real implementation asks before the candidate's
    /// runs, each of which would cost a stall window (issue 45: 6 of the Python example's 175
    /// shrink runs, 5 of their 17 seconds); the reference engine asks after them, as it always
    /// did, so that its findings keep their bytes. Asked once either way.
    func worthRunning(_ candidate: Scenario) -> Bool {
        shrinker.impl.isDeterministic || !mustComplete || shrinker.completesOnCorrectRuntime(candidate, seeds: seeds)
    }

    func keptAfterRuns(_ candidate: Scenario) -> Bool {
        !shrinker.impl.isDeterministic || !mustComplete || shrinker.completesOnCorrectRuntime(candidate, seeds: seeds)
    }

    func overTime() -> Bool { shrinker.timeLimit.map { clock.now - start > $0 } ?? false }

    private mutating func accept(_ candidate: Scenario, _ s: UInt64, _ v: Violation) {
        best = candidate
        seed = s
        witness = v
        chain.append((candidate, s, v))
    }

    /// Another finding's minimum, when it is smaller and shows this failure too, is a shorter
    /// way down: the first that does is where the search starts.
    mutating func startFromHint(_ hints: [Shrinker.Hint]) {
        for (i, hint) in hints.enumerated() {
            if stopped || runs >= shrinker.searchBudget { break }
            var candidate = hint.scenario
            // It stands for this case now: its label and provenance are this case's.
            candidate.name = original.name
            candidate.seed = original.seed
            candidate.generatorVersion = original.generatorVersion
            guard Shrinker.isSmaller(candidate, than: best), candidate.problems().isEmpty, worthRunning(candidate),
                  let (s, v) = fails(candidate, preferred: hint.scheduleSeed),
                  keptAfterRuns(candidate) else { continue }
            accept(candidate, s, v)
            hintTaken = i
            break
        }
    }

    /// Takes smaller candidates of the current minimum, coarse first, for as long as one shows
    /// the failure and the budget, the time limit and the run allow.
    mutating func descend() {
        while true {
            let candidates = Shrinker.candidates(best)
            guard !candidates.isEmpty else { return }
            let took = shrinker.parallelism > 1 ? takeFromBatches(candidates) : takeInTurn(candidates)
            if !took { return }
        }
    }

    /// One candidate at a time, from where the last was taken; true when one was.
    private mutating func takeInTurn(_ candidates: [Scenario]) -> Bool {
        for k in 0..<candidates.count {
            if stopped { return false }
            if runs >= shrinker.searchBudget || overTime() {
                exhausted = true
                return false
            }
            let index = (position + k) % candidates.count
            let candidate = candidates[index]
            guard candidate != best, candidate.problems().isEmpty, worthRunning(candidate),
                let (s, v) = fails(candidate),
                  keptAfterRuns(candidate) else { continue }
            accept(candidate, s, v)
            position = index
            return true
        }
        return false
    }

    /// Side by side, a batch at a time in the search's order: the first of the batch that shows
    /// the failure is taken; true when one was.
    private mutating func takeFromBatches(_ candidates: [Scenario]) -> Bool {
        let width = shrinker.parallelism
        var k = 0
        while k < candidates.count {
            if stopped { return false }
            if runs >= shrinker.searchBudget || overTime() {
                exhausted = true
                return false
            }
            let batch = (k..<min(k + width, candidates.count)).map { (position + $0) % candidates.count }
                .filter { candidates[$0] != best && candidates[$0].problems().isEmpty && worthRunning(candidates[$0]) }
            k += width
            var order: [UInt64] = []
            for s in [seed] + seeds where !order.contains(s) { order.append(s) }
            let outcomes = Mutex<[Int: (UInt64, Violation)]>([:])
            let used = Atomic<Int>(0)
            let (tried, sig, end, searcher) = (order, signature, ending, shrinker)
            SideBySide.perform(batch.count) { j in
                let t = searcher.trial(candidates[batch[j]], seeds: tried, signature: sig, ending: end)
                used.add(t.runs, ordering: .relaxed)
                if let found = t.found { outcomes.withLock { $0[batch[j]] = found } }
            }
            runs += used.load(ordering: .relaxed)
            if stopped { return false }
            let shown = outcomes.withLock { $0 }
            for index in batch {
                guard let (s, v) = shown[index], keptAfterRuns(candidates[index]) else { continue }
                accept(candidates[index], s, v)
                position = index
                return true
            }
        }
        return false
    }

    /// The minimum's replay rate. When it replays less often than the original: back along the
    /// chain to the smallest that replays at least as often, or to the original.
    mutating func settleOnRate() {
        guard !stopped else { return }
        // Nothing accepted: the minimum is the original, already measured.
        if chain.isEmpty, let measured = originalRate {
            reproduced = measured
        } else {
            reproduced = rate(best, seed) ?? 0
        }
        guard let originalReplays = originalRate, reproduced < originalReplays, !chain.isEmpty, !stopped else { return }
        var kept: (scenario: Scenario, seed: UInt64, violation: Violation?, rate: Int, back: Int)
            = (original, originalSeed, first, originalReplays, chain.count)
        for k in stride(from: chain.count - 2, through: 0, by: -1) {
            if stopped { break }
            if let r = rate(chain[k].scenario, chain[k].seed, needing: originalReplays) {
                kept = (chain[k].scenario, chain[k].seed, chain[k].violation, r, chain.count - 1 - k)
                break
            }
        }
        if !stopped {
            best = kept.scenario
            seed = kept.seed
            witness = kept.violation
            reproduced = kept.rate
            walkedBack = kept.back
        }
    }

    /// What the search found.
    func result() -> Shrinker.Result {
        let interrupted = stopped
        let elapsed = clock.now - start
        let ms = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        let violation =
            witness ?? Violation(rule: shrinker.target.id, observed: "did not reproduce", expected: "", witnesses: [])
        var result = Shrinker.Result(
            scenario: best, scheduleSeed: seed, violation: violation, accepted: chain.count - walkedBack,
            runs: runs, reproduced: interrupted ? (witness == nil ? 0 : 1) : reproduced,
            attempts: interrupted ? 1 : shrinker.rateAttempts, milliseconds: ms,
            exhausted: exhausted, interrupted: interrupted)
        result.originalReproduced = interrupted ? nil : originalRate
        result.walkedBack = walkedBack
        // A hint is the chain's first step: walking back to the original gives it up too.
        result.hint = walkedBack < chain.count ? hintTaken : nil
        result.rateRuns = rateRuns
        return result
    }
}
