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
/// becomes one `Issue` saying which rule and its strength, what happened against what was
/// required, the case seed, and the line that replays it; the minimised scenario is attached as
/// JSON. A broken must-rule, a crash or a hang is an error; a broken documented example, piece
/// of advice or observed-only rule is an issue of severity `.warning`, which does not fail the
/// test unless `strict` is true. Returns the
/// run's result for further assertions. A queue of your own, run through a driver executable
/// of your package, is checked by `expectConformance(driver:)`.
@discardableResult
public func expectConformance(of impl: any Implementation, count: Int = 200, seed: UInt64 = 1,
                              generator: GeneratorOptions = GeneratorOptions(), profile: Profile = .guide,
                              faults: [Fault] = [], rules: [RuleCheck] = RuleBook.all, strict: Bool = false,
                              sourceLocation: SourceLocation = #_sourceLocation) -> RunResult {
    var configuration = RunConfiguration(impl: impl, profile: profile, faults: faults, seed: seed, count: count,
                                         generator: generator, rules: rules)
    configuration.strict = strict
    let result = Runner(configuration).run()
    // One bug, one story (`Story`, issue 45): one issue for each, its knock-ons told in it.
    let program = ReplayProgram.forTests(checkout: HarnessCheckout.path)
    for story in result.stories {
        let finding = story.root
        let rule = RuleBook.check(id: finding.rule)?.rule
        let warns = finding.severity == .warning && !strict
        let told =
            story.knockOns.isEmpty
            ? ""
            : "\nthe same case then breaks (knock-ons of \(finding.rule), most likely; each replays on its own):\n"
                + story.knockOns.map {
                    "  \($0.rule): \($0.message)\n  replay: \($0.replayLine(file: nil, program: program))"
                }.joined(separator: "\n")
        Issue.record(Comment(rawValue: """
            \(warns ? "warning: " : "")\(finding.rule) [\(finding.strengthLabel)]: \(finding.message)
            \(rule?.statement ?? "")
            case \(finding.caseIndex) of seed \(seed), case seed \(finding.identity.caseSeed); minimised to \
            \(finding.operations) operations
            replay: \(finding.replayLine(file: nil, program: program))
            """ + told), severity: warns ? .warning : .error, sourceLocation: sourceLocation)
        for f in story.findings {
            Attachment.record(Array(f.fileData.map { $0 }), named: f.fileName, sourceLocation: sourceLocation)
        }
    }
    return result
}
