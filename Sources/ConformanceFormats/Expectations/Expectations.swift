import Foundation
import OperationSpec

/// The known, explained divergences of one implementation from the rules (`Specs/expectations-format.md`).
/// A CI gate passes when every failure of a run is expected, fails on any new one, and reports
/// expected failures that no longer happen.
public struct Expectations: Codable, Sendable, Equatable {
    /// 1; 2 adds `driver`, the driver the gate starts when it is given no `--impl`; 3 adds an
    /// entry's `cause` (`Cause`), and lets one rule have an entry for each of its causes.
    public static let formatVersion = 1
    public static let newestFormat = 4

    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// The platform does it differently and says so (a trap where Cocoa throws, no KVO...).
        case platformDifference = "platform-difference"
        /// We believe the implementation is wrong.
        case bug
        /// The documents can be read both ways.
        case ambiguity
    }

    public struct Entry: Codable, Sendable, Equatable {
        public var rule: String
        public var kind: Kind
        /// One line: what the implementation does, and why it is expected.
        public var reason: String
        /// A finding file, relative to the expectations file, that shows it.
        public var finding: String
        /// Why a gate of ordinary length may not see it, and how many cases it takes (measured:
        /// `opconform bench`, time to detect). A rare entry not seen is said so, and does not fail
        /// `--strict`: its absence is explained, not a fix to acknowledge.
        public var rare: String?
        /// What the divergence is made of (format 3): a violation of `rule` is excused only when
        /// it shows this cause. Without one, every violation of the rule is (formats 1 and 2).
        public var cause: Cause?
        /// How often the divergence was measured to show (format 3): a gate fails when a run
        /// shows it far more often (`Rate.bound`), since a rare flake's entry would otherwise
        /// let a frequent defect of the same rule pass.
        public var rate: Rate?
        public init(rule: String, kind: Kind, reason: String, finding: String, rare: String? = nil, cause: Cause? = nil,
                    rate: Rate? = nil) {
            self.rule = rule
            self.kind = kind
            self.reason = reason
            self.finding = finding
            self.rare = rare
            self.cause = cause
            self.rate = rate
        }
    }

    /// A measured rate: `cases` of `of` cases showed the divergence.
    public struct Rate: Codable, Sendable, Equatable {
        public var cases: Int
        public var of: Int
        public init(cases: Int, of: Int) {
            self.cases = cases
            self.of = of
        }

        /// The most cases of `n` that may show the divergence before a gate calls its rate
        /// exceeded: the smallest k with P(X >= k) below one in a thousand for X binomial with
        /// n trials and p = (cases + 1) / (of + 2) (the measured rate, moved towards a half by
        /// one case each way so that 0 of N is not taken for impossible), less one. A gate of
        /// ordinary length thus fails a correct implementation once in a thousand at most,
        /// and a defect ten times as frequent as the flake its entry records almost always.
        public func bound(cases n: Int) -> Int {
            let p = Double(cases + 1) / Double(of + 2)
            guard n > 0, p < 1 else { return n }
            // P(X >= k) = 1 - sum_{i<k} pmf(i), the terms in logs (no underflow at n = 100,000).
            var logPMF = Double(n) * log1p(-p)
            var below = 0.0
            for i in 0...n {
                if 1 - below < 0.001 { return max(0, i - 1) }
                below += exp(logPMF)
                logPMF += log(Double(n - i)) - log(Double(i + 1)) + log(p) - log1p(-p)
            }
            return n
        }
    }

    /// The cause of a known divergence, so that it excuses only itself (`Attribution`): whose
    /// code breaks the rule, what a case must hold to show it, and for a crash or a hang what it
    /// says. Every part given must hold.
    public struct Cause: Codable, Sendable, Equatable {
        public enum Owner: String, Codable, Sendable, CaseIterable {
            /// The platform's operation classes (`Operation`, `BlockOperation`, ...): excused
            /// unless an operation of the user's own class is among the witnesses.
            case operations
            /// The platform's queue: excused only when the queue under test is the platform's.
            case queue
            /// The platform as a whole (threads, the runtime): excused on the platform.
            case platform
        }
        public var owner: Owner
        /// With owner `operations`: the behaviour is one a user's subclass inherits from the
        /// platform's class unless it overrides it (the base class's `isReady`), so a witness
        /// of the user's class does not rule the entry out.
        public var inherited: Bool
        /// Operation kinds (`main`, `block`, `invocation`, `concurrent`, `subclass`) of which
        /// one must be among the witnesses.
        public var kinds: [String]?
        /// What the case must hold (`Attribution.ingredients`): driver actions by their
        /// scenario-file names, operation kinds, `selfDependency`.
        public var needs: [String]?
        /// For a crash or a hang: words of which one must be in what it says (the crash
        /// message, the call that never returned).
        public var says: [String]?
        /// For a crash (format 4): calls of which one must be open (called, not returned) when
        /// the implementation died, by their scenario-file names (`Attribution.openCallNames`):
        /// `start` is a start by hand (the driver's or an operation's own code), `queueStart` a
        /// queue's. A trap in Foundation's `start` while a queue of the user's own starts an
        /// operation that is not ready is that queue's doing, not the platform's.
        public var during: [String]?

        public init(
            owner: Owner, inherited: Bool = false, kinds: [String]? = nil, needs: [String]? = nil,
            says: [String]? = nil,
            during: [String]? = nil
        ) {
            self.owner = owner
            self.inherited = inherited
            self.kinds = kinds
            self.needs = needs
            self.says = says
            self.during = during
        }

        enum CodingKeys: String, CodingKey { case owner, inherited, kinds, needs, says, during }
        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            owner = try c.decode(Owner.self, forKey: .owner)
            inherited = try c.decodeIfPresent(Bool.self, forKey: .inherited) ?? false
            kinds = try c.decodeIfPresent([String].self, forKey: .kinds)
            needs = try c.decodeIfPresent([String].self, forKey: .needs)
            says = try c.decodeIfPresent([String].self, forKey: .says)
            during = try c.decodeIfPresent([String].self, forKey: .during)
        }
        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(owner, forKey: .owner)
            if inherited { try c.encode(inherited, forKey: .inherited) }
            try c.encodeIfPresent(kinds, forKey: .kinds)
            try c.encodeIfPresent(needs, forKey: .needs)
            try c.encodeIfPresent(says, forKey: .says)
            try c.encodeIfPresent(during, forKey: .during)
        }

        /// The cause in a few words, for a report: `operations, needs removeDependency`.
        public var summary: String {
            var parts = [owner.rawValue + (inherited ? " (inherited)" : "")]
            if let kinds { parts.append("kinds " + kinds.joined(separator: "/")) }
            if let needs { parts.append("needs " + needs.joined(separator: "+")) }
            if let says { parts.append("says " + says.map { "'\($0)'" }.joined(separator: "/")) }
            if let during { parts.append("during " + during.joined(separator: "/")) }
            return parts.joined(separator: ", ")
        }

        /// The operation kinds a cause may name.
        static let kindNames = ["block", "concurrent", "invocation", "main", "subclass"]
        /// The words `needs` may hold besides kinds: every driver action, and `selfDependency`.
        static let ingredientNames =
            (ScenarioDecoder.actionCases.names + ["addedTwice", "secondStart", "selfDependency"] + kindNames).sorted()
        /// The calls `during` may name (`Attribution.openCallNames`): a call by its scenario-file action
        /// name, `start` for a start by hand (the driver's or an operation's own code) and `queueStart`
        /// for a queue's.
        public static let callNames = [
            "add", "addBatch", "addBlock", "addDependency", "addExecutionBlock", "cancel", "cancelAll",
            "queueStart", "releaseQueue", "removeDependency", "result", "resume", "setCompletionBlock",
            "setMaxConcurrent", "setQueuePriority", "setThreadPriority", "setUnderlyingQueue", "start", "superStart",
            "suspend", "waitUntilAllFinished", "waitUntilFinished",
        ]
    }

    public var format: Int
    public var impl: String
    /// The driver to start (format 2): a path relative to this file (or absolute, or a bare
    /// name looked up on PATH) and its arguments, so `gate --expectations FILE` alone runs a
    /// driver of the user's own.
    public var driver: DriverEntry?
    public var profile: Profile
    public var expected: [Entry]

    public struct DriverEntry: Codable, Sendable, Equatable {
        public var path: String
        public var arguments: [String]?
        public init(path: String, arguments: [String]? = nil) { self.path = path; self.arguments = arguments }
    }

    /// The driver this file names, resolved against the file's folder.
    package func driverLaunch(relativeTo file: String) throws(InputError) -> DriverLaunch? {
        guard let driver else { return nil }
        let base = PathText.absolute(PathText.folder(of: file))
        do {
            return try DriverLaunch.resolve(driver.path, arguments: driver.arguments ?? [], directory: base)
        } catch {
            throw InputError("\(file): its driver: \(error.message)")
        }
    }

    public init(format: Int = Expectations.formatVersion, impl: String, profile: Profile, expected: [Entry]) {
        self.format = format
        self.impl = impl
        self.profile = profile
        self.expected = expected
    }

    /// Reads an expectations file; its format, driver entry and rule ids are checked as it is
    /// decoded (`inputProblem`), so are its keys (`StrictlyKeyed`), and every problem is one
    /// sentence naming the field.
    public static func load(_ path: String) throws(InputError) -> Expectations {
        let expectations = try JSONCodec.decode(Expectations.self, from: try JSONCodec.readFile(at: path), source: path)
        try expectations.checkFindings(relativeTo: path)
        return expectations
    }

    /// Throws unless every entry's `finding` is a finding file of the entry's rule inside the
    /// expectations file's folder: an entry is explained by its evidence, so a missing one (or
    /// one that names `../../etc/passwd`) is refused, not passed over.
    package func checkFindings(relativeTo file: String) throws(InputError) {
        let shown = JSONDiagnosis.oneLine(file)
        let folder = PathText.folder(of: file)
        guard let realFolder = DriverConsent.realPath(folder) else {
            throw InputError("\(shown): its folder cannot be read")
        }
        for (i, entry) in expected.enumerated() {
            let at = "\(shown): expected[\(i)] (\(entry.rule))"
            let path = entry.finding.hasPrefix("/") ? entry.finding : folder + "/" + entry.finding
            guard !entry.finding.isEmpty, let real = DriverConsent.realPath(path) else {
                throw InputError(
                    "\(at) names the finding \(JSONDiagnosis.quoted(entry.finding)), which does not exist; "
                        + "every entry names the finding that shows it, relative to the expectations file")
            }
            guard DriverConsent.isInside(real, realFolder) else {
                throw InputError(
                    "\(at) names the finding \(JSONDiagnosis.quoted(entry.finding)), which lies outside the "
                        + "expectations file's folder; a finding is kept beside the file that cites it")
            }
            let data = try JSONCodec.readFile(at: real)
            guard JSONCodec.looksLikeFinding(data), case .object(let members)? = JSONDiagnosis(data).root?.value,
                  case .string(let rule)? = members.first(where: { $0.key == "rule" })?.node.value else {
                throw InputError(
                    "\(at) names \(JSONDiagnosis.quoted(entry.finding)), which is not a finding (a file 'run' writes)")
            }
            guard rule == entry.rule else {
                throw InputError(
                    "\(at) names \(JSONDiagnosis.quoted(entry.finding)), a finding of \(rule), not of \(entry.rule)")
            }
        }
    }

    /// The path of an entry's finding file.
    package func findingPath(_ entry: Entry, relativeTo file: String) -> String {
        PathText.join(PathText.parent(file), entry.finding)
    }
}

extension Expectations: CheckedInput {
    func inputProblem() -> InputError.FieldProblem? {
        guard (Self.formatVersion...Self.newestFormat).contains(format) else {
            return .init(
                path: [.key("format")], what: "is \(format)",
                requirement: ", but this build reads expectations formats \(Self.formatVersion) to \(Self.newestFormat)"
            )
        }
        if driver != nil && format < 2 {
            let format = format
            return .init(path: [.key("driver")]) { _, at in
                "a driver entry needs format 2, but the file is format \(format) (the entry "
                    + "is\(at.isEmpty ? " there" : at))"
            }
        }
        for (i, entry) in expected.enumerated() {
            if let rate = entry.rate, let problem = rateProblem(rate, entry: i) { return problem }
            if let cause = entry.cause, let problem = causeProblem(cause, entry: i) { return problem }
            // A reason is printed as it is: a control character in it could clear a terminal or
            // forge a FAIL line (issue 43).
            if entry.reason.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
                return .init(path: [.key("expected"), .index(i), .key("reason")], what: "holds a control character",
                             requirement: ", but a reason is one line of text (no newline, tab or escape)")
            }
            let path: [JSONPathSegment] = [.key("expected"), .index(i), .key("rule")]
            // A driver that breaks the protocol gives no verdict at all: it is fixed, never expected.
            if entry.rule == Finding.protocolRule {
                return .init(
                    path: path, what: "names \(Finding.protocolRule)",
                    requirement:
                        ", which cannot be an expected divergence: a driver that breaks the protocol is fixed, not "
                            + "expected (the run gives no verdict)"
                )
            }
            if let problem = Finding.ruleProblem(entry.rule, at: path) { return problem }
        }
        return nil
    }

    /// A rate the file's format cannot hold, or that is not a measured count of cases.
    private func rateProblem(_ rate: Rate, entry i: Int) -> InputError.FieldProblem? {
        let at: [JSONPathSegment] = [.key("expected"), .index(i), .key("rate")]
        if format < 3 {
            let format = format
            return .init(path: at) { _, where_ in
                "a rate needs format 3, but the file is format \(format) (the rate "
                    + "is\(where_.isEmpty ? " there" : where_))"
            }
        }
        guard rate.of > 0, rate.of <= RunRecord.maxCount, (0...rate.of).contains(rate.cases) else {
            return .init(
                path: at, what: "is \(rate.cases) of \(rate.of)",
                requirement:
                    ", but must be a measured count of cases: 0 <= cases <= of, 0 < of <= \(RunRecord.maxCount)"
            )
        }
        return nil
    }

    /// A cause the file's format cannot hold, or that names a call, kind or ingredient not known.
    private func causeProblem(_ cause: Cause, entry i: Int) -> InputError.FieldProblem? {
        let at: [JSONPathSegment] = [.key("expected"), .index(i), .key("cause")]
        if format < 3 {
            let format = format
            return .init(path: at) { _, where_ in
                "a cause needs format 3, but the file is format \(format) (the cause "
                    + "is\(where_.isEmpty ? " there" : where_))"
            }
        }
        if cause.during != nil && format < 4 {
            let format = format
            return .init(path: at + [.key("during")]) { _, where_ in
                "a cause's during needs format 4, but the file is format \(format) (it "
                    + "is\(where_.isEmpty ? " there" : where_))"
            }
        }
        for (j, call) in (cause.during ?? []).enumerated() where !Cause.callNames.contains(call) {
            return .init(
                path: at + [.key("during"), .index(j)],
                what: "is \"\(JSONDiagnosis.oneLine(call, limit: 40))\"",
                requirement:
                    ", but must be a call by its scenario-file name (start is a start by "
                    + "hand, queueStart a queue's): " + Cause.callNames.joined(separator: ", "))
        }
        for (j, kind) in (cause.kinds ?? []).enumerated() where !Cause.kindNames.contains(kind) {
            return .init(
                path: at + [.key("kinds"), .index(j)], what: "is \"\(JSONDiagnosis.oneLine(kind, limit: 40))\"",
                requirement: ", but must be one of: " + Cause.kindNames.joined(separator: ", "))
        }
        for (j, need) in (cause.needs ?? []).enumerated() where !Cause.ingredientNames.contains(need) {
            return .init(
                path: at + [.key("needs"), .index(j)], what: "is \"\(JSONDiagnosis.oneLine(need, limit: 40))\"",
                requirement:
                    ", but must be a driver action, an operation kind, addedTwice, secondStart or "
                        + "selfDependency ("
                    + Cause.ingredientNames.joined(separator: ", ") + ")")
        }
        return nil
    }
}

/// A key an expectations file does not have is refused with the nearest one it does (a
/// misspelt "rare" would otherwise leave an entry not rare, and the gate failing for it).
extension Expectations: StrictlyKeyed {
    func optionalKeys(at path: [JSONPathSegment]) -> [String] {
        switch path {
        case []: return ["driver"]
        case [.key("driver")]: return ["arguments"]
        default:
            if path.count == 2, path[0] == .key("expected"), case .index = path[1] { return ["cause", "rare", "rate"] }
            if path.count == 3, path[0] == .key("expected"), case .index = path[1], path[2] == .key("cause") {
                return ["during", "inherited", "kinds", "needs", "says"]
            }
            return []
        }
    }
}
