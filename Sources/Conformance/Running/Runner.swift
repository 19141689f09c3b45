import OperationSpec
import ReferenceEngine

/// What a run is asked to do.
public struct RunConfiguration: Sendable {
    public var impl: any Implementation
    public var profile: Profile
    public var faults: [Fault]
    public var seed: UInt64
    public var count: Int
    public var generator: GeneratorOptions
    public var rules: [RuleCheck]
    public var shrink: Bool
    /// Attempts per shrink candidate on a nondeterministic implementation.
    public var attempts: Int?
    /// Stop at the first case that breaks a rule (for "is this bug caught, and how soon").
    public var stopAtFirstFailure = false

    public init(impl: any Implementation, profile: Profile = .guide, faults: [Fault] = [], seed: UInt64 = 1, count: Int = 100,
                generator: GeneratorOptions = GeneratorOptions(), rules: [RuleCheck] = RuleBook.all, shrink: Bool = true, attempts: Int? = nil) {
        self.impl = impl
        self.profile = profile
        self.faults = faults
        self.seed = seed
        self.count = count
        self.generator = generator
        self.rules = rules
        self.shrink = shrink
        self.attempts = attempts
    }
}

/// Per rule: how many cases reached its antecedent, how many broke it, and its status.
public struct RuleStatistics: Sendable, Codable, Equatable {
    public var id: String
    /// Antecedents reached, summed over cases.
    public var hits = 0
    /// Cases in which the antecedent was reached at least once.
    public var cases = 0
    /// Cases that broke the rule.
    public var violations = 0
    public var status: Status = .notReached
    /// Why, for not-observable and not-applicable.
    public var reason: String?

    public enum Status: String, Sendable, Codable { case pass, fail, notObservable = "not-observable", notApplicable = "not-applicable", notReached = "not-reached" }
}

/// The first failing case of a rule, before shrinking.
public struct FailingCase: Sendable {
    public var index: Int
    public var identity: CaseIdentity
    public var scenario: Scenario
    public var violation: Violation
}

/// What a run found.
public struct RunResult: Sendable {
    public var configuration: RunConfiguration
    public var statistics: [RuleStatistics]
    public var findings: [Finding]
    public var endings: [String: Int]
    /// Cases run: the configured count, or fewer when stopping at the first failure.
    public var cases: Int
    public var seconds: Double
    public var shrinkSeconds: Double
    public var failed: Bool { !findings.isEmpty }
}

/// Runs generated cases on an implementation, checks every rule, and shrinks the first failure
/// of each broken rule. Progress is reported through a callback so the console stays outside.
public struct Runner: Sendable {
    public let configuration: RunConfiguration
    public init(_ configuration: RunConfiguration) { self.configuration = configuration }

    public func run(progress: (Int, Int, Int) -> Void = { _, _, _ in },
                    shrinking: (String) -> Void = { _ in }) -> RunResult {
        let c = configuration
        let clock = ContinuousClock()
        let start = clock.now
        var stats = c.rules.map { RuleStatistics(id: $0.rule.id) }
        var first: [FailingCase?] = Array(repeating: nil, count: c.rules.count)
        // The first case that crashed and the first that hung: findings of their own.
        var crashed: FailingCase?, hung: FailingCase?
        var endings: [String: Int] = [:]
        var broken = 0
        var casesRun = c.count
        for k in 0..<c.count {
            let identity = CaseIdentity.of(run: c.seed, index: k, options: c.generator)
            let scenario = identity.scenario()
            let trace = c.impl.run(scenario, scheduleSeed: identity.scheduleSeed)
            endings[trace.ending.rawValue, default: 0] += 1
            var caseBroken = false
            if let last = trace.events.last, trace.ending == .crash || trace.ending == .hang {
                let crash = trace.ending == .crash
                let v = Violation(rule: crash ? Finding.crashRule : Finding.hangRule, observed: last.kind.description,
                                  expected: crash ? "no crash: misuse is reported, not fatal (004 2.7.2)" : "every call returns and the run ends", witnesses: [last])
                if crash && crashed == nil { crashed = FailingCase(index: k, identity: identity, scenario: scenario, violation: v) }
                if !crash && hung == nil { hung = FailingCase(index: k, identity: identity, scenario: scenario, violation: v) }
                caseBroken = true
            }
            for (n, v) in RuleBook.verdicts(scenario: scenario, trace: trace, profile: c.profile, rules: c.rules).enumerated() {
                switch v.verdict {
                case .notApplicable:
                    stats[n].status = .notApplicable
                    stats[n].reason = "applies under profile " + v.rule.profiles.map(\.rawValue).joined(separator: ", ") + " only"
                case .notObservable(let reason):
                    stats[n].status = .notObservable
                    stats[n].reason = reason
                case .checked(let r):
                    stats[n].hits += r.hits
                    if r.hits > 0 { stats[n].cases += 1 }
                    if let violation = r.violations.first {
                        stats[n].violations += 1
                        caseBroken = true
                        if first[n] == nil { first[n] = FailingCase(index: k, identity: identity, scenario: scenario, violation: violation) }
                    }
                }
            }
            if caseBroken { broken += 1 }
            progress(k + 1, c.count, broken)
            if caseBroken && c.stopAtFirstFailure { casesRun = k + 1; break }
        }
        for n in stats.indices where stats[n].status != .notApplicable && stats[n].status != .notObservable {
            stats[n].status = stats[n].violations > 0 ? .fail : (stats[n].hits > 0 ? .pass : .notReached)
        }
        let mid = clock.now
        var findings: [Finding] = []
        for (n, failing) in first.enumerated() {
            guard let f = failing else { continue }
            shrinking(c.rules[n].rule.id)
            findings.append(finding(for: f, rule: c.rules[n]))
        }
        for f in [crashed, hung].compactMap({ $0 }) { findings.append(outcomeFinding(f)) }
        let end = clock.now
        return RunResult(configuration: c, statistics: stats, findings: findings, endings: endings, cases: casesRun,
                         seconds: (mid - start).seconds, shrinkSeconds: (end - mid).seconds)
    }

    /// A crash or a hang, reported as found: its case seed replays it (not shrunk yet).
    func outcomeFinding(_ f: FailingCase) -> Finding {
        let c = configuration
        var scenario = f.scenario
        scenario.name = "\(f.violation.rule) in case \(f.index)"
        return Finding(rule: f.violation.rule, message: f.violation.observed + "; required: " + f.violation.expected,
                       impl: c.impl.name, profile: c.profile, faults: c.faults, runSeed: c.seed, caseIndex: f.index,
                       identity: f.identity, originalHash: ScenarioHash.of(f.scenario), originalOperations: f.scenario.operations.count,
                       scenario: scenario, scheduleSeed: f.identity.scheduleSeed, reproduced: 1, attempts: 1,
                       shrinkSteps: 0, shrinkExhausted: false)
    }

    func finding(for f: FailingCase, rule: RuleCheck) -> Finding {
        let c = configuration
        let shrinker = Shrinker(impl: c.impl, profile: c.profile, rule: rule, attempts: c.attempts)
        var result = Shrinker.Result(scenario: f.scenario, scheduleSeed: f.identity.scheduleSeed, violation: f.violation,
                                     accepted: 0, runs: 0, reproduced: 1, attempts: 1, milliseconds: 0, exhausted: false)
        if c.shrink {
            result = shrinker.shrink(f.scenario, scheduleSeed: f.identity.scheduleSeed)
            if result.reproduced == 0 {
                // The minimum did not hold up: report the original case, measured the same way.
                result.scenario = f.scenario; result.scheduleSeed = f.identity.scheduleSeed; result.violation = f.violation
                result.accepted = 0
                result.reproduced = shrinker.reproductions(f.scenario, scheduleSeed: f.identity.scheduleSeed, signature: Shrinker.signature(f.violation))
            }
        }
        var minimal = result.scenario
        minimal.name = "\(rule.rule.id) minimised from case \(f.index)"
        return Finding(rule: rule.rule.id, message: result.violation.observed + "; required: " + result.violation.expected,
                       impl: c.impl.name, profile: c.profile, faults: c.faults, runSeed: c.seed, caseIndex: f.index,
                       identity: f.identity, originalHash: ScenarioHash.of(f.scenario), originalOperations: f.scenario.operations.count,
                       scenario: minimal, scheduleSeed: result.scheduleSeed, reproduced: result.reproduced, attempts: result.attempts,
                       shrinkSteps: result.accepted, shrinkExhausted: result.exhausted, shrinkMilliseconds: result.milliseconds)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
