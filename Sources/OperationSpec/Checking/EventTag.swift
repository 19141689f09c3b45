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
    static let count = kinds + 2 * calls
    /// The event-kind code of a code: a call's code is a `call` event's, a return's a `returned`'s.
    static func kindCode(of code: Int) -> Int {
        if code < kinds { return code }
        return code < kinds + calls ? EventKind.Tag.call.rawValue : EventKind.Tag.returned.rawValue
    }
    // Counted once: `allCases` builds a new array on every use.
    private static let kinds = EventKind.Tag.allCases.count
    private static let calls = Call.Tag.allCases.count
}

extension EventKind {
    /// The case of an event kind, without its payload.
    public enum Tag: Int, Sendable, CaseIterable {
        case threadStarted, stepIssued, stepDone, triggerMissed, call, returned, threw
        case mainBegan, mainEnded, blockBegan, blockEnded, completionBegan, completionEnded
        case willChange, didChange, read, set, operationCount, work, signal, awaited
        case invocationResult, crash, hang, unsupported, cut, end
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
        case .work: return .work
        case .signal: return .signal
        case .awaited: return .awaited
        case .invocationResult: return .invocationResult
        case .crash: return .crash
        case .hang: return .hang
        case .unsupported: return .unsupported
        case .cut: return .cut
        case .end: return .end
        }
    }
}

extension Call {
    /// The case of a call, without its arguments.
    public enum Tag: Int, Sendable, CaseIterable {
        case start, superStart, cancel, addOperation, addOperations, addDependency, removeDependency
        case setCompletionBlock, addExecutionBlock, setQueuePriority, setThreadPriority, cancelAll
        case setSuspended, setMaxConcurrent, waitUntilFinished, waitUntilAllFinished, result
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
        }
    }
}
