import OperationSpec
import ReferenceEngine

/// How soon each subclass flaw is caught on an implementation (`opconform flaws --probe`, and
/// `SubclassFlawTests` on the reference engine): cases in which every concurrent subclass
/// carries that one flaw, judged by the flaw's own rules only, until the first that breaks one,
/// which is then shrunk. What a user runs to learn which subclass mistakes the harness would
/// catch on their implementation, and the detection table of issue 18.
package enum FlawProbe {
    /// The cases tried per flaw when none is given: the reference engine catches every flaw
    /// well within it (`SubclassFlawTests`).
    public static let bound = 300

    /// What became of one flaw.
    public struct Outcome: Sendable, Codable, Equatable {
        public var flaw: String
        /// caught, missed (no expected rule broke in `cases`), not-observable (the
        /// implementation cannot observe any of the flaw's rules), not-applicable (its driver
        /// runs a subclass of its own, so the generator writes no flawed ones).
        public var status: String
        /// The rule that caught it: one of the flaw's `expectedRules`.
        public var rule: String?
        /// Cases run: up to and including the first that broke a rule, or all of them.
        public var cases: Int
        /// Operations of the first breaking case, and of its minimised form.
        public var originalOperations: Int?
        public var operations: Int?
        /// How often the minimised case broke the rule when run again (`Finding.reproduced`).
        public var reproduced: Int?
        public var attempts: Int?
        public var replay: String?
        /// Why, for not-observable and not-applicable.
        public var reason: String?
    }

    /// The run that probes `flaw`: `count` cases from `seed`, each concurrent subclass with
    /// that flaw, no misuse, the flaw's rules judged strictly (its documented-example rules
    /// count), stopping at the first case that breaks one of them (not at a hang or a crash of
    /// the implementation's own).
    public static func configuration(
        _ flaw: SubclassFlaw, impl: any Implementation, count: Int = bound, seed: UInt64 = 1, size: Int = 8
    ) -> RunConfiguration {
        let checks = RuleBook.all.filter { flaw.expectedRules.contains($0.rule.id) }
        var c = RunConfiguration(
            impl: impl, seed: seed, count: count,
            generator: GeneratorOptions(size: size, misuseRate: 0, flawRate: 100, flaws: [flaw]),
            rules: checks)
        c.profile = flaw.profile
        c.stopAtFirstFailure = true
        c.stopRules = flaw.expectedRules
        c.strict = true
        return c
    }

    public static func probe(
        _ flaw: SubclassFlaw, impl: any Implementation, count: Int = bound, seed: UInt64 = 1, size: Int = 8,
        stop: StopRequest? = nil
    ) -> Outcome {
        var c = configuration(flaw, impl: impl, count: count, seed: seed, size: size)
        c.stop = stop
        var outcome = Outcome(flaw: flaw.rawValue, status: "missed", cases: 0)
        if c.generator.subclass {
            outcome.status = "not-applicable"
            outcome.reason = "\(impl.name) runs a subclass of its own, so the generator writes no flawed ones"
            return outcome
        }
        let blind = c.rules.compactMap { check -> String? in
            let missing = check.rule.needs.filter { !impl.capabilities.contains($0) }
            return missing.isEmpty ? nil : "\(check.rule.id) needs \(missing.map(\.rawValue).joined(separator: ", "))"
        }
        if blind.count == c.rules.count {
            outcome.status = "not-observable"
            outcome.reason =
                "\(impl.name) cannot observe what the flaw's rules need (" + blind.joined(separator: "; ") + ")"
            return outcome
        }
        let result = Runner(c).run()
        outcome.cases = result.cases
        // The flaw's own rule: a hang or a crash on the way (an implementation's own) is not
        // the flaw caught.
        guard let finding = result.findings.first(where: { flaw.expectedRules.contains($0.rule) }) else {
            return outcome
        }
        outcome.status = "caught"
        outcome.rule = finding.rule
        outcome.originalOperations = finding.originalOperations
        outcome.operations = finding.operations
        outcome.reproduced = finding.reproduced
        outcome.attempts = finding.attempts
        outcome.replay = finding.replayLine(file: nil)
        return outcome
    }
}
