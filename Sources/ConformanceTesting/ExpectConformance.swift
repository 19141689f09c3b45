import Conformance
import OperationSpec
import ReferenceEngine
import Testing

/// Checks an implementation from a Swift Testing test in one call:
///
/// ```swift
/// @Test func myQueueConforms() {
///     expectConformance(of: MyImplementation(), count: 500, seed: 7)
/// }
/// ```
///
/// Generated cases run on the implementation and every rule is checked. Each broken rule
/// becomes one `Issue` saying which rule, what happened against what was required, the case
/// seed, and the line that replays it; the minimised scenario is attached as JSON. Returns the
/// run's result for further assertions. A queue of your own, run through a driver executable
/// of your package, is checked by `expectConformance(driver:)`.
@discardableResult
public func expectConformance(of impl: any Implementation, count: Int = 200, seed: UInt64 = 1,
                              generator: GeneratorOptions = GeneratorOptions(), profile: Profile = .guide,
                              faults: [Fault] = [], rules: [RuleCheck] = RuleBook.all,
                              sourceLocation: SourceLocation = #_sourceLocation) -> RunResult {
    let result = Runner(RunConfiguration(impl: impl, profile: profile, faults: faults, seed: seed, count: count,
                                         generator: generator, rules: rules)).run()
    for finding in result.findings {
        let rule = RuleBook.check(id: finding.rule)?.rule
        Issue.record(Comment(rawValue: """
            \(finding.rule): \(finding.message)
            \(rule?.statement ?? "")
            case \(finding.caseIndex) of seed \(seed), case seed \(finding.identity.caseSeed); minimised to \(finding.operations) operations
            replay: \(finding.replayLine(file: nil, program: ReplayProgram.swiftRun(packageAt: HarnessCheckout.path)))
            """), sourceLocation: sourceLocation)
        Attachment.record(Array(JSONCodec.encode(finding).map { $0 }), named: finding.fileName, sourceLocation: sourceLocation)
    }
    return result
}
