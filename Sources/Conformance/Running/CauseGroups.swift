import Foundation
import OperationSpec

/// The tested code's failures of one rule (or its crashes, or its hangs), told apart by cause,
/// so that a second cause is seen and shrunk instead of hidden behind the first (issue 29 item
/// 5: Foundation's `addDependency(self)` deadlock hangs 12 cases in 1,000, and RUN-HANG's one
/// finding was another hang).
///
/// A cause is the violation's sentence with its numbers set aside (`Shrinker.signature`): the
/// same notion of "the same failure" the shrinker keeps while it shrinks, so a cause's minimum
/// shows that cause. Hangs differ by the call that never returned, crashes by their message,
/// a rule's violations by what its checker says happened.
struct CauseGroups: Sendable {
    /// Causes kept per rule: the first (the rule's finding) and up to two more. Each costs a
    /// shrink, which on a real implementation takes seconds to minutes.
    static let limit = 3
    /// Runs a further cause's shrink may spend on a real implementation (a rule's first cause:
    /// up to 300, 120 for a death; on the reference engine the usual budget): further causes come
    /// after the findings a user waits for, and there each run costs a process.
    static let shrinkBudget = 60

    struct Group: Sendable {
        var signature: String
        var first: FailingCase
        var cases: Int
        /// The cause's second case, with its witness: the case shrunk instead of `first` when
        /// `first`'s failure, a rare schedule, does not show again in any replay (a finding that
        /// replays 0 of 5 is a poor first story, and a CI script that replays it sees exit 0).
        var second: FailingCase? = nil
    }

    private(set) var groups: [Group] = []

    /// Counts `failing` under its cause, opening a group for a new cause while fewer than
    /// `limit` are open.
    mutating func add(_ failing: FailingCase, witness: @autoclosure () -> Trace? = nil) {
        let signature = Self.cause(of: failing.violation)
        if let n = groups.firstIndex(where: { $0.signature == signature }) {
            groups[n].cases += 1
            if groups[n].second == nil {
                groups[n].second = failing
                groups[n].second?.witness = witness()
            }
        } else if groups.count < Self.limit {
            groups.append(Group(signature: signature, first: failing, cases: 1))
        }
    }

    /// The violation's cause: its sentence with numbers set aside, and a list of them
    /// ("holds [2, 1]") counted as one, since how many operations a queue holds is not a cause.
    static func cause(of violation: Violation) -> String {
        var text = Shrinker.signature(violation)
        while text.contains("#, #") { text = text.replacingOccurrences(of: "#, #", with: "#") }
        return text
    }

    /// The second case of the first cause: the rule's finding's fallback (`Group.second`).
    var fallback: FailingCase? { groups.first?.second }

    /// The causes after the first, in the order their first cases came.
    var others: ArraySlice<Group> { groups.dropFirst() }
}

/// A cause of a rule's failure other than its finding's: its own minimised finding, and how
/// many cases broke the rule this way.
public struct OtherCause: Sendable {
    public var finding: Finding
    public var cases: Int
}
