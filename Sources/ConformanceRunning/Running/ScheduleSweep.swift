import ConformanceFormats
import OperationDriverKit
import OperationSpec
import ReferenceEngine

/// Runs one scenario under many schedule seeds and tallies, per rule, how often it was reached
/// and broken, keeping the first breaking seed and its violation. On the reference engine a
/// schedule seed decides every interleaving, so a tally is exact and replays; on a real
/// implementation the seed only names the run (the threads decide), and the tally says how often
/// the scenario breaks a rule there.
public struct ScheduleSweep: Sendable {
    public struct RuleTally: Sendable, Equatable {
        public var id: String
        public var hits = 0
        public var violatingSeeds = 0
        public var firstSeed: UInt64?
        public var firstViolation: Violation?
        /// Why the implementation could not observe what the rule needs, when it could not.
        public var notObservable: String?
        /// The rule belongs to another profile.
        public var notApplicable = false
    }
    public let scenario: String
    public let schedules: Int
    package private(set) var tallies: [RuleTally]
    public private(set) var endings: [String: Int] = [:]
    /// Runs that crashed, hung or broke the driver protocol: the first schedule seed of each
    /// ending, and what the trace's last event said.
    public private(set) var deaths: [(ending: String, seed: UInt64, what: String)] = []

    /// Schedules whose only violations of a rule a known divergence excused (`known`), per rule.
    public private(set) var known: [String: Int] = [:]

    /// `known`: divergences of the platform the implementation builds on (`Attribution`); a
    /// violation one of them excuses is counted in `known`, not as the rule's.
    public init(scenario: Scenario, schedules: Int, firstSeed: UInt64 = 1, profile: Profile = .guide,
                impl: (any Implementation)? = nil, rules: [RuleCheck] = RuleBook.all, known: Expectations? = nil,
                progress: (Int) -> Void = { _ in }) {
        self.scenario = scenario.name
        self.schedules = schedules
        let impl = impl ?? ReferenceImplementation(options: EngineOptions(profile: profile))
        tallies = rules.map { RuleTally(id: $0.rule.id) }
        for k in 0..<schedules {
            let seed = firstSeed &+ UInt64(k)
            let trace = impl.run(scenario, scheduleSeed: seed)
            endings[trace.ending.rawValue, default: 0] += 1
            if trace.ending != .complete, !deaths.contains(where: { $0.ending == trace.ending.rawValue }) {
                deaths.append((trace.ending.rawValue, seed, trace.events.last.map(\.kind.description) ?? ""))
            }
            progress(k + 1)
            // A trace whose driver broke the protocol is not judged (Specs/driver-protocol.md).
            if trace.ending == .breach { continue }
            for (n, v) in RuleBook.verdicts(scenario: scenario, trace: trace, profile: profile, rules: rules)
                .enumerated()
            {
                switch v.verdict {
                case .notApplicable: tallies[n].notApplicable = true
                case .notObservable(let reason): tallies[n].notObservable = reason
                case .checked(let r):
                    tallies[n].hits += r.hits
                    let own = r.violations.filter {
                        Attribution.excuse($0, in: scenario, known: known, setting: impl.setting) == nil
                    }
                    if own.isEmpty && !r.violations.isEmpty { self.known[v.rule.id, default: 0] += 1 }
                    if let first = own.first {
                        tallies[n].violatingSeeds += 1
                        if tallies[n].firstSeed == nil {
                            tallies[n].firstSeed = seed; tallies[n].firstViolation = first
                        }
                    }
                }
            }
        }
        impl.endSessions()
    }

    public var violated: [RuleTally] { tallies.filter { $0.violatingSeeds > 0 } }
    /// Broken rules whose breaking fails (documented musts), then those that warn.
    public var failing: [RuleTally] { violated.filter { Finding.severity(of: $0.id) == .failure } }
    public var warning: [RuleTally] { violated.filter { Finding.severity(of: $0.id) == .warning } }
}
