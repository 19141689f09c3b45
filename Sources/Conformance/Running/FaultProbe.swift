import OperationSpec
import ReferenceEngine

/// "Is this bug caught, and how soon?": runs generated cases on the reference engine with one
/// fault until a rule breaks, and shrinks that case.
public enum FaultProbe {
    /// The most cases a fault may take to be caught.
    public static let bound = 2000

    public static func run(_ fault: Fault, seed: UInt64 = 1) -> RunResult {
        var configuration = RunConfiguration(impl: ReferenceImplementation(options: EngineOptions(faults: [fault])),
                                             faults: [fault], seed: seed, count: bound)
        configuration.stopAtFirstFailure = true
        return Runner(configuration).run()
    }

    /// The first finding (in catalog order) of the first case that broke a rule, shrunk.
    public static func firstFinding(_ fault: Fault, seed: UInt64 = 1) -> Finding? {
        run(fault, seed: seed).findings.first
    }
}
