import ConformanceFormats
import OperationSpec

extension CaseIdentity {
    /// The case's scenario, generated again from its seed and options.
    public func scenario() -> Scenario { ScenarioGenerator(options: options).generate(seed: caseSeed) }
}
