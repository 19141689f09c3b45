import OperationSpec
import ReferenceEngine

/// "Is this bug caught, and how soon?": runs generated cases on the reference engine with one
/// fault until a rule breaks, and shrinks that case.
package enum FaultProbe {
    /// The most cases a fault may take to be caught.
    public static let bound = 2000

    public static func run(_ fault: Fault, seed: UInt64 = 1) -> RunResult {
        var configuration = RunConfiguration(impl: ReferenceImplementation(options: EngineOptions(faults: [fault])),
            faults: [fault], seed: seed, count: bound, generator: generator(for: fault),
                                             rules: rules(for: fault))
        configuration.stopAtFirstFailure = true
        return Runner(configuration).run()
    }

    /// The cases that can show `fault`: the default generator's, except for a fault only a
    /// flawed subclass reaches.
    public static func generator(for fault: Fault) -> GeneratorOptions {
        switch fault {
        // Only a subclass that says it is concurrent and leaves start to the default (its start
        // calls [super start]) reaches the default start with the flag set.
        case .flaggedStartDetaches: return GeneratorOptions(flawRate: 50, flaws: [.callsSuperStart])
        default: return GeneratorOptions()
        }
    }

    /// The rules judged: all of them, but for a fault whose cases hold flawed subclasses only
    /// the rule the fault is for. The flawed code breaks other rules with the fault or without
    /// it: the subclass's own (START-CONCURRENT-NO-SUPER, START-CONCURRENT-ASYNC), and, since
    /// its main finishes it and the default start then finishes it again, KVO-FINISH-ONCE and
    /// KVO-FINISH-CHANGES.
    public static func rules(for fault: Fault) -> [RuleCheck] {
        switch fault {
        case .flaggedStartDetaches: return RuleBook.all.filter { $0.rule.id == RuleID.startDefaultIgnoresFlag }
        default: return RuleBook.all
        }
    }

    /// The first finding (in catalog order) of the first case that broke a rule, shrunk.
    package static func firstFinding(_ fault: Fault, seed: UInt64 = 1) -> Finding? {
        run(fault, seed: seed).findings.first
    }
}
