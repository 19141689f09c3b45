import Conformance
import OperationSpec
import ReferenceEngine

/// `opconform replay FILE [--schedule-seed S] [--profile P] [--json]`: runs one scenario file on
/// the reference engine, prints its trace and the verdict of every rule.
enum ReplayCommand {
    static func run(_ input: Arguments, _ console: Console) throws -> Int32 {
        func print(_ s: String) { console.out(s + "\n") }
        var input = input
        let args = try input.parse(flags: ["--json"], options: ["--schedule-seed", "--profile", "--impl", "--rules"])
        if args.flags.contains("--help") { print(Help.replay); return 0 }
        guard args.positionals.count == 1 else { throw InputError("replay needs exactly one scenario file, given \(args.positionals.count)") }
        if let impl = args.options["--impl"], impl != "reference" {
            throw InputError("replay: unknown implementation '\(impl)'; this build has: reference")
        }
        // Options first, so a typo in one is reported before the file is read.
        let seed = UInt64(try args.int("--schedule-seed", default: 1, range: 0...Int.max))
        let profile = try args.profile()
        var checks = RuleBook.all
        if let glob = args.options["--rules"] {
            checks = RuleBook.matching(glob)
            if checks.isEmpty { throw InputError("no rule matches '\(glob)'; 'opconform rules' lists them") }
        }
        let scenario = try JSONCodec.loadScenario(at: args.positionals[0])
        let trace = ReferenceEngine(options: EngineOptions(profile: profile)).run(scenario, scheduleSeed: seed)
        let verdicts = RuleBook.verdicts(scenario: scenario, trace: trace, profile: profile, rules: checks)
        let violations = verdicts.flatMap { v -> [Violation] in if case .checked(let r) = v.verdict { return r.violations }; return [] }
        if args.flags.contains("--json") {
            console.out(JSONCodec.encodeString(ReplayReport(trace: trace, violations: violations)))
        } else {
            for e in trace.events { print(e.description) }
            print("")
            print("\(scenario.name): schedule seed \(seed), profile \(profile.rawValue), \(trace.events.count) events, ended \(trace.ending.rawValue)")
            let reached = verdicts.filter { if case .checked(let r) = $0.verdict { return r.hits > 0 }; return false }.count
            print("\(checks.count) rules checked, \(reached) reached, \(violations.count) violations")
            for v in violations { print(v.description) }
        }
        return violations.isEmpty ? 0 : 1
    }
}

/// What `replay --json` prints.
struct ReplayReport: Codable {
    var trace: Trace
    var violations: [Violation]
}
