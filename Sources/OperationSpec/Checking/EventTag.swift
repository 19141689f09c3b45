/// What kind of event an event is, finely enough that a rule can ask the shared facts for just
/// the events it looks at ("every `addDependency` call", "every return of a wait") instead of
/// walking the whole trace. Most rules care about a few kinds out of dozens: sixty-eight rules
/// each walking every event was most of the checking time on large traces.
public struct EventTag: Hashable, Sendable {
    /// Position in the facts' index: the event kinds, then calls by call kind, then normal
    /// returns by call kind.
    let code: Int

    /// Events of this kind, whatever their payload (for `.call`: every call).
    public static func kind(_ k: EventKind.Tag) -> EventTag { EventTag(code: k.rawValue) }
    /// `call` events of this call kind.
    public static func call(_ c: Call.Tag) -> EventTag { EventTag(code: kinds + c.rawValue) }
    /// `returned` events (normal returns, not `threw`) of this call kind.
    public static func returned(_ c: Call.Tag) -> EventTag { EventTag(code: kinds + calls + c.rawValue) }
    static var count: Int { kinds + 2 * calls }
    /// The event-kind code of a code: a call's code is a `call` event's, a return's a `returned`'s.
    static func kindCode(of code: Int) -> Int {
        if code < kinds { return code }
        return code < kinds + calls ? EventKind.Tag.call.rawValue : EventKind.Tag.returned.rawValue
    }
    // From the last case, not `allCases.count`: `allCases` builds an array on every use, and a
    // `static let` is a lazily made global, checked on every read. These fold to constants.
    // (A test holds them equal to `allCases.count`.)
    static var kinds: Int { EventKind.Tag.underlyingQueue.rawValue + 1 }
    static var calls: Int { Call.Tag.setUnderlyingQueue.rawValue + 1 }
}

/// One or two `EventTag`s as a set of the codes the facts store (one bit per code, in two
/// words: there are 76 codes, at most 128), so "is this event of kind a or b" is a shift and a mask. Asked
/// for every event of an operation by many rules, the same test by comparisons was a fifth of a
/// checking pass.
struct EventTagMask: Sendable {
    private let low: UInt64, high: UInt64

    init(_ a: EventTag, _ b: EventTag? = nil) {
        let (al, ah) = Self.bits(a)
        let (bl, bh) = b.map(Self.bits) ?? (0, 0)
        low = al | bl
        high = ah | bh
    }

    /// Whether an event with this stored code is of one of the tags.
    func contains(_ code: UInt8) -> Bool {
        code < 64 ? (low >> UInt64(code)) & 1 != 0 : (high >> UInt64(code - 64)) & 1 != 0
    }

    /// A kind's own code, and for `call` / `returned` every call kind's code under it, as the
    /// low and high words.
    private static func bits(_ tag: EventTag) -> (UInt64, UInt64) {
        var low: UInt64 = 0, high: UInt64 = 0
        func set(_ code: Int) { if code < 64 { low |= 1 << UInt64(code) } else { high |= 1 << UInt64(code - 64) } }
        set(tag.code)
        switch tag.code {
        case EventKind.Tag.call.rawValue: for c in 0..<EventTag.calls { set(EventTag.kinds + c) }
        case EventKind.Tag.returned.rawValue: for c in 0..<EventTag.calls { set(EventTag.kinds + EventTag.calls + c) }
        default: break
        }
        return (low, high)
    }
}

extension EventKind {
    /// The case of an event kind, without its payload.
    public enum Tag: Int, Sendable, CaseIterable {
        case threadStarted, stepIssued, stepDone, triggerMissed, call, returned, threw
        case mainBegan, mainEnded, blockBegan, blockEnded, completionBegan, completionEnded
        case willChange, didChange, read, set, operationCount, operations, suspended, currentQueue, work, signal,
            awaited
        case invocationResult, crash, hang, unsupported, cut, breach, announced, end
        case mainQueue, queueDeallocated, underlyingQueue
    }

    public var tag: Tag {
        switch self {
        case .threadStarted: return .threadStarted
        case .stepIssued: return .stepIssued
        case .stepDone: return .stepDone
        case .triggerMissed: return .triggerMissed
        case .call: return .call
        case .returned: return .returned
        case .threw: return .threw
        case .mainBegan: return .mainBegan
        case .mainEnded: return .mainEnded
        case .blockBegan: return .blockBegan
        case .blockEnded: return .blockEnded
        case .completionBegan: return .completionBegan
        case .completionEnded: return .completionEnded
        case .willChange: return .willChange
        case .didChange: return .didChange
        case .read: return .read
        case .set: return .set
        case .operationCount: return .operationCount
        case .operations: return .operations
        case .suspended: return .suspended
        case .currentQueue: return .currentQueue
        case .announced: return .announced
        case .work: return .work
        case .signal: return .signal
        case .awaited: return .awaited
        case .invocationResult: return .invocationResult
        case .crash: return .crash
        case .hang: return .hang
        case .unsupported: return .unsupported
        case .cut: return .cut
        case .breach: return .breach
        case .end: return .end
        case .mainQueue: return .mainQueue
        case .queueDeallocated: return .queueDeallocated
        case .underlyingQueue: return .underlyingQueue
        }
    }
}

extension Call {
    /// The case of a call, without its arguments.
    public enum Tag: Int, Sendable, CaseIterable {
        case start, superStart, cancel, addOperation, addOperations, addDependency, removeDependency
        case setCompletionBlock, addExecutionBlock, setQueuePriority, setThreadPriority, cancelAll
        case setSuspended, setMaxConcurrent, waitUntilFinished, waitUntilAllFinished, result, addBlock, releaseQueue
        case setUnderlyingQueue
    }

    public var tag: Tag {
        switch self {
        case .start: return .start
        case .superStart: return .superStart
        case .cancel: return .cancel
        case .addOperation: return .addOperation
        case .addOperations: return .addOperations
        case .addDependency: return .addDependency
        case .removeDependency: return .removeDependency
        case .setCompletionBlock: return .setCompletionBlock
        case .addExecutionBlock: return .addExecutionBlock
        case .setQueuePriority: return .setQueuePriority
        case .setThreadPriority: return .setThreadPriority
        case .cancelAll: return .cancelAll
        case .setSuspended: return .setSuspended
        case .setMaxConcurrent: return .setMaxConcurrent
        case .waitUntilFinished: return .waitUntilFinished
        case .waitUntilAllFinished: return .waitUntilAllFinished
        case .result: return .result
        case .addBlock: return .addBlock
        case .releaseQueue: return .releaseQueue
        case .setUnderlyingQueue: return .setUnderlyingQueue
        }
    }
}
