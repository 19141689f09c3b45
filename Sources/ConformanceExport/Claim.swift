import Conformance
import OperationSpec

/// What an exported reproducer asserts: one rule's sentence made concrete for the finding's
/// scenario, as a check over the reproducer's event log (`ReproducerEvent`). The check is the
/// rule read at the objects the finding names (op 1 is ready after its last dependency is
/// removed; op 3 starts before op 0), so a maintainer reads what went wrong in their own
/// terms, and a faithful implementation passes it.
struct Claim: Sendable, Equatable {
    /// The assertion in words, for this scenario: the failure message of the reproducer.
    var sentence: String
    var check: Check

    /// The checks the reproducers' runtime implements, each in every language.
    enum Check: Sendable, Equatable {
        /// The pattern occurs.
        case occurs(EventPattern)
        /// The pattern never occurs.
        case never(EventPattern)
        /// Where the second occurs, the first occurred before it (first occurrences).
        case before(EventPattern, EventPattern)
        /// The pattern occurs exactly this many times.
        case countIs(EventPattern, Int)
        /// Every event matching the pattern after the anchor's first occurrence carries `b` = value.
        case valuesAfter(anchor: EventPattern, EventPattern, value: Int)
        /// Every call of this kind on this object begun after the anchor threw.
        case callsAfterThrow(ReproducerCall, op: Int, anchor: EventPattern)
        /// Between each call of this kind on this object and its return, the pattern occurs.
        case duringCall(ReproducerCall, op: Int, EventPattern)
        /// Where the first occurs, the second occurs too.
        case implies(EventPattern, EventPattern)
        /// No event matching the pattern comes while a span (an event matching `from`, until
        /// the next matching `to`) is open.
        case notDuring(EventPattern, from: EventPattern, to: EventPattern)
        /// Every will-change of the operation is followed by its did-change on the same thread,
        /// and every did-change follows a will-change there (KVO-BALANCED).
        case balanced(op: Int)
        /// Every store into the ivar behind the key lies between a will- and a did-change of it
        /// on the same thread (KVO-SET-BRACKETED).
        case bracketed(op: Int, key: StateKey)
        /// The finish of an operation that executed is announced will isFinished, will
        /// isExecuting, did isExecuting, did isFinished (KVO-COMPLETION-ORDER).
        case finishOrder(op: Int)
        /// No getter or notification shows isExecuting and isFinished YES at once.
        case exclusive(op: Int)
        /// did-change isExecuting YES before main began, did-change isFinished YES after it ended.
        case startAnnounces(op: Int)
        /// Every thread the operation's task began on has a name beginning with the prefix.
        case threadPrefix(op: Int, prefix: String)
        /// At no moment are more than `width` of the operations running: an operation runs from
        /// its first `start` (or, with none, its task's first beginning) to its task's last end
        /// (QUEUE-MAX-CONCURRENT). One whose task never began counts for no time at all, so the
        /// check never sees more running than there were.
        case atMostRunning(ops: [Int], width: Int)

        /// Whether the check needs key-value notifications, which not every implementation has.
        var needsKVO: Bool {
            switch self {
            case .balanced, .bracketed, .finishOrder, .startAnnounces: return true
            case .occurs(let p), .never(let p), .countIs(let p, _), .callsAfterThrow(_, _, let p),
                .duringCall(_, _, let p):
                return p.kind == .will || p.kind == .did
            case .before(let p, let q), .valuesAfter(let p, let q, _), .implies(let p, let q),
                .notDuring(let p, let q, _):
                return [p.kind, q.kind].contains(.will) || [p.kind, q.kind].contains(.did)
            case .exclusive, .threadPrefix, .atMostRunning: return false
            }
        }
    }
}
