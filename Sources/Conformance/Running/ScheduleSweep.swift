import OperationSpec
import ReferenceEngine

/// Runs one scenario under many schedule seeds on the reference engine and tallies, per rule,
/// how often it was reached and broken, keeping the first breaking seed and its violation.
public struct ScheduleSweep: Sendable {
    public struct RuleTally: Sendable, Equatable {
        public var id: String
        public var hits = 0
        public var violatingSeeds = 0
        public var firstSeed: UInt64?
        public var firstViolation: Violation?
    }
    public let scenario: String
    public let schedules: Int
    public private(set) var tallies: [RuleTally]
    public private(set) var endings: [String: Int] = [:]

    public init(scenario: Scenario, schedules: Int, firstSeed: UInt64 = 1, profile: Profile = .guide) {
        self.scenario = scenario.name
        self.schedules = schedules
        let engine = ReferenceEngine(options: EngineOptions(profile: profile))
        let checks = RuleBook.all
        tallies = checks.map { RuleTally(id: $0.rule.id) }
        for k in 0..<schedules {
            let seed = firstSeed &+ UInt64(k)
            let trace = engine.run(scenario, scheduleSeed: seed)
            endings[trace.ending.rawValue, default: 0] += 1
            for (n, v) in RuleBook.verdicts(scenario: scenario, trace: trace, profile: profile, rules: checks).enumerated() {
                guard case .checked(let r) = v.verdict else { continue }
                tallies[n].hits += r.hits
                if let first = r.violations.first {
                    tallies[n].violatingSeeds += 1
                    if tallies[n].firstSeed == nil { tallies[n].firstSeed = seed; tallies[n].firstViolation = first }
                }
            }
        }
    }

    public var violated: [RuleTally] { tallies.filter { $0.violatingSeeds > 0 } }
}
