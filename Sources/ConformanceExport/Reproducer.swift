import Conformance
import Foundation
import OperationSpec

/// A finding written as a program or test that needs nothing of this project: for GNUstep an
/// Objective-C program (`ObjCReproducer`), for Foundation a Swift Testing or XCTest test
/// (`SwiftReproducer`). It builds the finding's operations, queues and dependencies with the
/// implementation's own API, drives them as the scenario says with bounded waits, and asserts
/// the rule's sentence about the objects the finding names (`RuleClaims`). A nondeterministic
/// finding is run several times (`runs(reproduced:attempts:)`).
public enum Reproducer {
    public enum Style: String, CaseIterable, Sendable {
        case swiftTesting = "swift-testing"
        case xctest
        case objc

        /// The file name extension of what it writes.
        public var fileExtension: String { self == .objc ? "m" : "swift" }
    }

    /// The export of one finding: its text and how many runs it makes.
    public struct Export: Sendable {
        public var text: String
        public var runs: Int
        public var claims: [String]
    }

    public struct Refusal: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// A queue of the user's own, built by the reproducer as the user's driver builds it, in
    /// place of `OperationQueue()`: the expression of the driver's factory, and the modules it
    /// needs.
    ///
    /// The expression is the user's, typed on the command line, and reaches the file as code;
    /// so it is held to a small grammar (a type's name, dotted, and one argument list of names,
    /// numbers, dots, colons and commas) that cannot hold a string, a comment, a closure or a
    /// second statement. A module is an identifier. The type, the factory's name without its
    /// arguments, is the one the reproducer declares to have `OperationQueue`'s members.
    public struct UserQueue: Sendable, Equatable {
        public let factory: String
        public let modules: [String]

        public init(factory: String, modules: [String]) throws(Refusal) {
            let name = "[A-Za-z_][A-Za-z0-9_]*"
            let argument = "[A-Za-z0-9_.:, -]*"
            guard factory.wholeMatch(of: try! Regex("\(name)(\\.\(name))*\\(\(argument)\\)")) != nil else {
                throw Refusal(
                    description:
                        "--queue \(JSONDiagnosis.quoted(String(factory.prefix(80)))) is not a queue factory this "
                            + "export can write; "
                        + "give the initializer your driver's queue factory calls, a type with simple arguments, e.g. "
                        + "--queue 'MyQueue()' or --queue 'MyQueue(width: 4, bug: .none)' (no "
                        + "strings, closures or comments)"
                )
            }
            guard !modules.isEmpty else {
                throw Refusal(
                    description:
                        "--queue needs --import MODULE: the module that defines your queue (as your driver imports it)")
            }
            for module in modules where module.wholeMatch(of: try! Regex(name)) == nil {
                throw Refusal(
                    description:
                        "--import \(JSONDiagnosis.quoted(String(module.prefix(80)))) is not a "
                            + "module name (an identifier)"
                )
            }
            self.factory = factory
            self.modules = modules
        }

        /// The queue's type: the factory without its arguments.
        public var typeName: String { String(factory.prefix { $0 != "(" }) }
    }

    /// How many times a reproducer runs the scenario: enough that a bug showing at the finding's
    /// measured rate shows at least once with probability 99.9%. The rate is taken as
    /// reproduced / (attempts + 1), never 1, because a handful of replays measures it loosely.
    public static func runs(reproduced: Int, attempts: Int) -> Int {
        let p = Double(max(0, reproduced)) / Double(max(1, attempts) + 1)
        guard p > 0 else { return 1000 }
        return min(1000, max(1, Int((log(0.001) / log(1 - p)).rounded(.up))))
    }

    /// The name a test or program is given: the rule and the case it came from.
    public static func identifier(_ finding: Finding) -> String {
        let rule = finding.rule.split(separator: "-").map { $0.prefix(1) + $0.dropFirst().lowercased() }.joined()
        return rule + "Case\(finding.caseIndex)"
    }

    /// Writes the reproducer of a finding, or says why it cannot.
    /// - Parameter runs: how many runs it makes; nil for `runs(reproduced:attempts:)`.
    /// - Parameter file: the finding's file as the user named it, for the replay line.
    /// - Parameter queue: the user's own queue, built in place of `OperationQueue()`; a finding
    ///   whose driver said the queue was the tested code's needs one (Swift reproducers only).
    public static func export(_ finding: Finding, as style: Style, runs given: Int? = nil, file: String? = nil,
                              queue: UserQueue? = nil) throws(Refusal) -> Export {
        try refuseUnreproducible(finding, style: style, queue: queue)
        let s = finding.scenario
        let claims: [Claim]
        do { claims = try RuleClaims.claims(rule: finding.rule, message: finding.message, scenario: s) } catch {
            throw Refusal(description: error.description)
        }
        try refuseWhatLinuxLacks(finding, claims: claims, style: style)
        let runs = given ?? Self.runs(reproduced: finding.reproduced, attempts: finding.attempts)
        let bound = 2.0 + Double(s.totalWork) * 0.001
        var header = header(finding, claims: claims, style: style, runs: runs, given: given != nil, file: file)
        if let queue {
            header.insert("Builds your queue as your driver does, with \(queue.factory), in place of OperationQueue(): "
                    + "it needs \(queue.modules.joined(separator: ", ")) (put it in a test target that depends on "
                          + (queue.modules.count == 1 ? "it" : "them") + ").", at: header.firstIndex(of: "") ?? 0)
        }
        switch style {
        case .objc:
            var writer = ObjCReproducer(scenario: s, claims: claims, header: header, runs: runs, bound: bound)
            return Export(text: writer.text(), runs: runs, claims: claims.map(\.sentence))
        case .swiftTesting, .xctest:
            var writer = SwiftReproducer(scenario: s, claims: claims, header: header, runs: runs, bound: bound,
                                         name: identifier(finding), xctest: style == .xctest, queue: queue)
            return Export(text: writer.text(), runs: runs, claims: claims.map(\.sentence))
        }
    }

    /// Refuses a finding no reproducer can rebuild: an implementation replay could not run, a
    /// queue of the user's in Objective-C, the user's own queue without `--queue`, or an
    /// operation that is the implementation's own subclass.
    private static func refuseUnreproducible(
        _ finding: Finding, style: Style, queue: UserQueue?
    ) throws(Refusal) {
        // What replay would refuse (`Implementations.make`): an impl this build does not have,
        // in a finding that names no driver to start instead.
        if finding.driver == nil ? !Implementations.names.contains(finding.impl) : finding.impl.isEmpty {
            let shown = JSONDiagnosis.oneLine(finding.impl, limit: 60)
            let names = Implementations.names.joined(separator: ", ")
            throw Refusal(description: "its impl '\(shown)' is not an implementation of this build (\(names))"
                          + " nor the name of a driver the finding names, so replay could not run it either")
        }
        let s = finding.scenario
        if let queue, style == .objc {
            throw Refusal(
                description:
                    "--queue \(queue.factory) builds a Swift queue, and --as objc writes an Objective-C program for "
                        + "GNUstep; export it --as swift-testing or --as xctest"
            )
        }
        if queue == nil, let platform = finding.platform, platform.owns.contains("queue") {
            let driver = finding.driver.map { " (" + $0.command.joined(separator: " ") + ")" } ?? ""
            throw Refusal(
                description:
                    "the finding is of your own queue: its driver\(driver) said the queue is the tested code's, "
                        + "running on \(platform.name)'s operations. "
                    + "A reproducer of OperationQueue() would test the platform, not your queue: give the "
                    + "expression your driver's "
                    + "queue factory returns and its module, e.g. --queue 'MyQueue()' --import MyQueue, and the test "
                    + "builds your queue as the driver does"
            )
        }
        if let op = s.operations.indices.first(where: { s.operations[$0].kind.isSubclass }) {
            throw Refusal(
                description:
                    "op \(op) is the implementation's own asynchronous subclass (a `subclass` operation): its code is "
                        + "yours, not the scenario's, so a standalone reproducer cannot rebuild it; replay the finding "
                        + "with your driver instead"
            )
        }
    }

    /// Refuses, for the Swift styles, what swift-corelibs-foundation does not have: key-value
    /// notifications and invocation operations.
    private static func refuseWhatLinuxLacks(_ finding: Finding, claims: [Claim], style: Style) throws(Refusal) {
        let s = finding.scenario
        switch style {
        case .objc:
            break
        case .swiftTesting, .xctest:
            if let kvo = claims.first(where: { $0.check.needsKVO }) {
                throw Refusal(
                    description:
                        "\(finding.rule)'s assertion (\(kvo.sentence)) needs key-value notifications, which "
                            + "swift-corelibs-foundation does not send; export it --as objc for "
                            + "GNUstep, or assert it on Darwin"
                )
            }
            if let op = s.operations.indices.first(where: {
                if case .invocation = s.operations[$0].kind { return true }; return false
            }) {
                throw Refusal(
                    description:
                        "op \(op) is an invocation operation, which swift-corelibs-foundation does not have (no "
                            + "NSInvocationOperation on Linux)"
                )
            }
        }
    }

    static func header(_ f: Finding, claims: [Claim], style: Style, runs: Int, given: Bool, file: String?) -> [String] {
        let rule = RuleBook.rules.first { $0.id == f.rule }
        var lines: [String] = []
        lines.append(
            "\(f.rule) on \(f.impl): "
                + (rule?.statement ?? "every call returns and the run ends (the harness's hang rule)."))
        if let rule {
            lines.append(
                "Documents: " + rule.citations.map(\.description).joined(separator: "; ")
                    + " (000-004 are the five seed documents of OperationConformance's Specs/rules.md)")
        }
        lines.append("")
        lines.append("What the harness saw: \(f.message)")
        lines.append("What this program asserts:")
        for c in claims { lines.append("  - \(c.sentence)") }
        lines.append("")
        lines.append(
            "Found by OperationConformance (case \(f.caseIndex) of seed \(f.runSeed), minimised to "
                + "\(f.scenario.operations.count) operations from \(f.originalOperations)); "
                + "the harness replays it with:"
        )
        lines.append("  " + f.replayLine(file: file))
        lines.append("")
        switch style {
        case .objc:
            lines.append("Needs only GNUstep Base and gcc. Build and run:")
            lines.append("  gcc `gnustep-config --objc-flags` -o repro THIS_FILE.m `gnustep-config --base-libs`")
            lines.append(
                "  ./repro        exit status 1: the bug showed (the claim, what was seen, the run's events are "
                    + "printed); 0: it held"
            )
        case .swiftTesting:
            lines.append(
                "A Swift Testing test that needs only Foundation: put it in a test target and run `swift test`.")
        case .xctest:
            lines.append(
                "An XCTest test that needs only Foundation and XCTest: put it in a test target and run `swift test`.")
        }
        let rate = "the finding reproduced \(f.reproduced) of \(f.attempts) times when it was found"
        lines.append(
            "Runs the scenario \(runs) time\(runs == 1 ? "" : "s") and fails at the first run that breaks the claim: "
                + (given
                    ? "the number asked for at export (\(rate))."
                    : "\(rate); \(runs) runs show a bug of that rate with probability 99.9%."))
        if style == .objc {
            lines.append("REPRO_RUNS=N sets the number of runs; REPRO_ALL=1 runs them all and counts the failures.")
        }
        else { lines.append("REPRO_RUNS=N in the environment sets the number of runs.") }
        lines.append(
            "Waits and triggers are bounded: a call that does not return is recorded as stuck and the "
                + "rest of the run is skipped."
        )
        lines.append("Written by `opconform export`; nothing of OperationConformance is needed to build or run it.")
        return lines
    }
}
