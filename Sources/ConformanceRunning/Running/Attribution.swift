import ConformanceFormats
import Foundation
import OperationDriverKit
import OperationSpec

/// Whose duty a broken rule broke: the code under test, the platform it runs on, or nobody
/// yet (`Specs/expectations-format.md`, "Causes").
///
/// A driver built on a platform (a queue of a user's own running Foundation's operations, or a
/// user's subclass on Foundation's queue) shows that platform's known divergences under any
/// code: they are the platform's, and a run says so apart instead of failing the user. But a
/// known divergence excuses a violation only where the platform's own objects or behaviour are
/// its witnesses, never where the user's class or queue is: an expectation names its cause
/// (`Expectations.Cause`), and a violation is excused only by an entry whose cause it shows.
public enum Attribution: Sendable, Equatable {
    /// The code under test broke the rule.
    case codeUnderTest
    /// A known divergence of the platform (the entry that excuses it).
    case platform(Expectations.Entry)

    /// What the code under test provides, and what it runs on; nil platform for an
    /// implementation that is all its own (a driver in another language, the reference engine)
    /// or that is the platform itself (`--impl foundation`).
    public struct Setting: Sendable, Equatable {
        /// The platform the rest of the model comes from (`foundation-linux`).
        public var platform: String?
        /// The parts the code under test provides: `queue`, `subclass`.
        public var owns: [String]
        public init(platform: String?, owns: [String]) {
            self.platform = platform
            self.owns = owns
        }
        package static let ownEverything = Setting(platform: nil, owns: [])
    }

    /// The platforms a driver's hello may claim to build on: the two with shipped known
    /// divergences (`Fixtures/expectations/NAME.json`) and Foundation on Darwin, which has none
    /// (nothing is excused there). A claim of any other name is refused (issue 42).
    package static let platforms = ["foundation-darwin", "foundation-linux", "gnustep"]

    /// The entry of `known` that excuses `violation` in `scenario` run under `setting`, if one
    /// does; entries are tried in the file's order.
    package static func excuse(_ violation: Violation, in scenario: Scenario, known: Expectations?,
                              setting: Setting) -> Expectations.Entry? {
        guard let known else { return nil }
        return known.expected.first { entry in
            entry.rule == violation.rule && matches(entry.cause, violation, scenario, setting)
        }
    }

    /// Whether `violation` shows `cause`: every part the cause names holds.
    static func matches(
        _ cause: Expectations.Cause?, _ violation: Violation, _ scenario: Scenario, _ setting: Setting
    ) -> Bool {
        // An entry that names no cause matches by its rule alone, as expectations files did
        // before causes; the shipped platform files name one for every entry.
        guard let cause else { return true }
        let witnesses = witnessOperations(violation, scenario)
        switch cause.owner {
        case .queue:
            // The queue's choice: the platform's only when the queue under test is.
            if setting.owns.contains("queue") { return false }
        case .operations:
            // A user's subclass among the witnesses is the user's, unless the behaviour is one
            // a subclass inherits from the platform's class (`inherited`).
            if !cause.inherited && witnesses.contains(where: { scenario.operations[$0].kind.isSubclass }) {
                return false
            }
        case .platform:
            break
        }
        if let kinds = cause.kinds, !witnesses.isEmpty,
           !witnesses.contains(where: { kinds.contains(kindName(scenario.operations[$0].kind)) }) { return false }
        for need in cause.needs ?? [] where !ingredients(scenario, witnesses: witnesses).contains(need) { return false }
        if let says = cause.says, !says.contains(where: { violation.observed.contains($0) }) { return false }
        if let during = cause.during, !openCallNames(violation).contains(where: during.contains) { return false }
        return true
    }

    /// The names `during` may use (`Expectations.Cause.callNames`).
    public static let callNames = Expectations.Cause.callNames

    /// The calls a crash's violation shows open when the implementation died (its witnesses:
    /// `ShrinkTarget.death(of:)` names every call made and not returned), by `callNames`.
    package static func openCallNames(_ violation: Violation) -> [String] {
        violation.witnesses.compactMap { event in
            guard case .call(let call) = event.kind else { return nil }
            return callName(call)
        }
    }

    /// `call`'s name in `callNames`.
    static func callName(_ call: Call) -> String {
        switch call {
        case .start(_, by: .queue): return "queueStart"
        case .start: return "start"
        case .superStart: return "superStart"
        case .cancel: return "cancel"
        case .addOperation: return "add"
        case .addOperations: return "addBatch"
        case .addDependency: return "addDependency"
        case .removeDependency: return "removeDependency"
        case .setCompletionBlock: return "setCompletionBlock"
        case .addExecutionBlock: return "addExecutionBlock"
        case .setQueuePriority: return "setQueuePriority"
        case .setThreadPriority: return "setThreadPriority"
        case .cancelAll: return "cancelAll"
        case .releaseQueue: return "releaseQueue"
        case .setUnderlyingQueue: return "setUnderlyingQueue"
        case .setSuspended(_, let suspended): return suspended ? "suspend" : "resume"
        case .setMaxConcurrent: return "setMaxConcurrent"
        case .waitUntilFinished: return "waitUntilFinished"
        case .waitUntilAllFinished: return "waitUntilAllFinished"
        case .result: return "result"
        case .addBlock: return "addBlock"
        }
    }

    /// What Foundation on Linux cannot do, told apart from the tested subclass's defects: it
    /// has no dependent keys, so a subclass that announces its finish only as a change of a key
    /// that `isFinished` depends on (`keyPathsForValuesAffectingIsFinished`: correct KVO, and
    /// correct on Darwin) is never heard by the queue. Its operation says isFinished YES when
    /// asked (the driver asks every subclass operation when a case hangs), yet the queue never
    /// acts on it: waits never return, a serial queue's slot stays taken, the completion block
    /// never runs. Those consequences are the platform's limit, reported as such with what
    /// they mean, not as the class's failures; a class that announces nothing at all looks the
    /// same on Linux, which the report says too.
    package static let unheardFinishRules = [
        RuleID.cancelBeforeStartFinishes, RuleID.completionOnce, RuleID.queueAddWait, RuleID.queueProgress,
        RuleID.queueSuspendRunningContinue,
        RuleID.queueWaitAll, RuleID.queueWaitOp, RuleID.stateFinishedRegardless, Finding.hangRule,
    ]

    /// What a case shows of a subclass finish Foundation's queue never heard, proved from the
    /// case's own evidence (issue 42): what the class announced when it turned finished.
    public enum UnheardFinish: Sendable, Equatable {
        /// No finish went unheard (or none of the tested class's operations finished).
        case none
        /// Heard by Darwin, not by Linux: every unheard operation announced a key its class
        /// declares as affecting isFinished. The evidence, in words.
        case platformLimit(String)
        /// Not provable either way: the class announced keys but declares none, or the driver
        /// cannot hear announcements. Why, in words: the case's failures are unconfirmed.
        case unproven(String)
        /// The class's own: an unheard operation announced no key that says it finished
        /// (SUBCLASS-FINISH-ANNOUNCED names what it announced). Nothing is excused.
        case classDefect(String)

        /// Whether the case's waits and slots may be excused as the platform's.
        package var excusable: Bool { if case .platformLimit = self { return true }; return false }
    }

    /// The entry that explains `violation` as Foundation on Linux's unheard finish, when the
    /// tested code is a subclass on Foundation on Linux, the rule is one the unheard finish
    /// breaks, and the case proves the limit (`unheardFinish(in:_:)` is `.platformLimit`).
    public static func limit(_ violation: Violation, setting: Setting, unheard: UnheardFinish) -> Expectations.Entry? {
        guard case .platformLimit(let evidence) = unheard, setting.platform == "foundation-linux",
              setting.owns.contains("subclass"), unheardFinishRules.contains(violation.rule) else { return nil }
        return Expectations.Entry(
            rule: violation.rule, kind: .platformDifference,
            reason:
                "your subclass announced its finish through a dependent key, and Foundation's queue never learned it: "
                + evidence + ". Foundation on Linux has no dependent keys (keyPathsForValuesAffectingIsFinished), so "
                + "this case's waits, slots and completion blocks wait for ever; on Darwin the "
                + "class is heard. Announce "
                + "isFinished itself (didChangeValue(forKey: \"isFinished\")) to be heard on both",
            finding: "", cause: Expectations.Cause(owner: .platform, needs: ["unheardFinish"]))
    }

    /// Whether, and how, a subclass operation said isFinished YES in `trace` while the queue
    /// never acted on it (the case hung, or the operation's completion block never began: on
    /// Foundation the queue reads isFinished when told of the change, and then runs the
    /// completion), with every started subclass operation saying YES when last asked (a started
    /// one that still says NO is the class's own unfinished operation, and the case's waits are
    /// its fault). Then what each operation that said YES announced decides whose it is
    /// (`FinishAnnouncement`): a key its class declares as affecting isFinished is the
    /// platform's limit; no such key is the class's defect; keys with no declaration, or a
    /// driver that cannot hear announcements, prove nothing.
    package static func unheardFinish(in trace: Trace, _ scenario: Scenario) -> UnheardFinish {
        func isSubclass(_ o: Int) -> Bool {
            scenario.operations.indices.contains(o) && scenario.operations[o].kind.isSubclass
        }
        var last: [Int: Bool] = [:]   // looked up only
        var started: [Int] = []
        var completed: [Int] = []
        for e in trace.events {
            switch e.kind {
            case .read(let o, .isFinished, .bool(let v)) where isSubclass(o): last[o] = v
            case .call(.start(let o, _)) where isSubclass(o): if !started.contains(o) { started.append(o) }
            case .mainBegan(let o, _) where isSubclass(o): if !started.contains(o) { started.append(o) }
            case .completionBegan(let o, _): if !completed.contains(o) { completed.append(o) }
            default: break
            }
        }
        guard !started.contains(where: { last[$0] != true }) else { return .none }
        let said = scenario.operations.indices.filter { last[$0] == true }
        guard !said.isEmpty else { return .none }
        guard
            trace.ending == .hang
                || said.contains(where: { scenario.operations[$0].completion != nil && !completed.contains($0) })
        else { return .none }
        guard trace.capabilities.contains(.announcements) else {
            return .unproven(
                "the driver cannot hear what the class announces (it does not say 'announcements': a driver "
                    + "not built with OperationDriverKit, or one that links Foundation "
                    + "statically), so an unheard dependent "
                    + "key cannot be told from a class that announces nothing")
        }
        let context = CheckContext(scenario: scenario, trace: trace, profile: .guide)
        var dependent: [String] = [], undeclared: [String] = [], defects: [String] = []
        func seq(_ i: Int) -> Int { trace.events[i].seq }
        for op in said {
            switch FinishAnnouncement.of(op, in: context) {
            case .direct?, nil: continue
            case .dependent(let at)?:
                if case .announced(_, let key, _) = trace.events[at].kind {
                    dependent.append(
                        "op \(op) announced \"\(key)\" (seq \(seq(at))), which the class "
                            + "declares as affecting isFinished"
                    )
                }
            case .undeclared(let list)?:
                let keys = list.compactMap { i -> String? in
                    if case .announced(_, let key, _) = trace.events[i].kind { return "\"\(key)\"" }
                    return nil
                }
                undeclared.append("op \(op) announced " + keys.joined(separator: ", "))
            case .missing(let turned, let others)?:
                defects.append(
                    "op \(op) turned finished (seq \(seq(turned))) "
                        + (others.isEmpty
                            ? "announcing nothing"
                            : "announcing only "
                                + others.map { context.announcedKeyText($0) }.joined(separator: ", ")))
            }
        }
        if !defects.isEmpty { return .classDefect(defects.joined(separator: "; ")) }
        if !undeclared.isEmpty {
            return .unproven(
                undeclared.joined(separator: "; ") + ", and the class declares no keys affecting isFinished, "
                    + "so whether Darwin would hear it is unknown: declare them in your test subclass "
                    + "(probe.declare(Self.keyPathsForValuesAffectingIsFinished(), affecting: .isFinished))")
        }
        return dependent.isEmpty ? .none : .platformLimit(dependent.joined(separator: "; "))
    }

    /// The operations the violation is about: those its witness events name, and those its
    /// sentence names ("op 2"), since a checker's witnesses may be the moments that decide (a
    /// serial queue's choice and the start it made) rather than every operation involved (the
    /// higher-priority rival of PRIORITY-ORDER). In the scenario's range.
    static func witnessOperations(_ violation: Violation, _ scenario: Scenario) -> [Int] {
        var ops: [Int] = []
        func add(_ o: Int) { if scenario.operations.indices.contains(o) && !ops.contains(o) { ops.append(o) } }
        for event in violation.witnesses {
            for o in DriverCheck.references(event.kind).ops { add(o) }
        }
        let words = violation.observed.split(whereSeparator: {
            $0 == " " || $0 == "," || $0 == ";" || $0 == "(" || $0 == ")"
        })
        for (i, word) in words.enumerated() where word == "op" && i + 1 < words.count {
            if let o = Int(words[i + 1].trimmingCharacters(in: .punctuationCharacters)) { add(o) }
        }
        return ops.sorted()
    }

    /// The name of an operation's kind, as scenario files write it (`main`, `block`, ...).
    package static func kindName(_ kind: OperationKind) -> String {
        switch kind {
        case .main: return "main"
        case .block: return "block"
        case .concurrent: return "concurrent"
        case .invocation: return "invocation"
        case .subclass: return "subclass"
        }
    }

    /// What a case is made of, for a cause's `needs`: the driver actions it performs by their
    /// scenario-file names (`removeDependency`, `start`, ...), the kinds of its operations,
    /// `selfDependency` when an operation is made to depend on itself, and `addedTwice` when
    /// one of the witness operations (any, when the violation names none) is added to a queue
    /// by two steps, `secondStart` when such an operation is added to a queue and also started
    /// by hand or added again. A dependency action
    /// counts only where it names one of the witness operations as the dependent (when the
    /// violation names any), since a dependency changed elsewhere in the case is not its cause.
    package static func ingredients(_ scenario: Scenario, witnesses: [Int] = []) -> [String] {
        var found: [String] = []
        func add(_ name: String) { if !found.contains(name) { found.append(name) } }
        for step in scenario.driver {
            switch step.action {
            case .addDependency(let o, let on), .removeDependency(let o, let on):
                if o == on { add("selfDependency") }
                if !witnesses.isEmpty && !witnesses.contains(o) { continue }
            default: break
            }
            if case .object(let members) = ScenarioEncoder.action(step.action), let name = members.first?.key {
                add(name)
            }
        }
        for edge in scenario.dependencies where edge.op == edge.on { add("selfDependency") }
        // An operation added to a queue by two steps (a misuse the generator makes).
        var added: [Int] = []
        for step in scenario.driver {
            let ops: [Int]
            switch step.action {
            case .add(let o, _), .addBlock(let o, _): ops = [o]
            case .addBatch(let list, _, _): ops = list
            default: ops = []
            }
            for o in ops {
                // The operation added twice must be the violation's, when it names any.
                if added.contains(o) && (witnesses.isEmpty || witnesses.contains(o)) { add("addedTwice") }
                added.append(o)
            }
        }
        // An operation started twice: added to a queue and started by hand (by the driver or by
        // an operation's own code), or added twice. GNUstep's queue then finishes it behind its
        // running task (a refused second start, then -_finish). The operation must be the
        // violation's, when it names any.
        var handStarted: [Int] = []
        for step in scenario.driver { if case .start(let o) = step.action { handStarted.append(o) } }
        func programStarts(_ steps: [Step]) {
            for step in steps {
                switch step {
                case .start(.op(let o)): handStarted.append(o)
                case .if(_, let then, let otherwise): programStarts(then); programStarts(otherwise)
                case .repeat(_, let body): programStarts(body)
                default: continue
                }
            }
        }
        scenario.stepLists.forEach(programStarts)
        for o in Set(added).sorted() where witnesses.isEmpty || witnesses.contains(o) {
            if handStarted.contains(o) || added.filter({ $0 == o }).count > 1 { add("secondStart") }
        }
        for op in scenario.operations { add(kindName(op.kind)) }
        return found.sorted()
    }
}
