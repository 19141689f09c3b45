import OperationSpec

/// The state of one operation in the simulation.
///
/// For a concurrent subclass, `executing` and `finished` are the subclass's own ivars (its
/// getters return them); for the other kinds the base class owns them. `ready` is the value the
/// operation reports, kept up to date the way the documents describe: by observing its
/// dependencies' isFinished notifications (004 2.6.1, 2.5.3), so a dependency that never sends
/// one never releases its dependents.
struct SimulatedOperation {
    let kind: OperationKind
    /// Made by a queue for a block handed to `addOperationWithBlock:` (API surface 2): the
    /// scenario cannot reach the object, so nothing about it is logged but its block's
    /// `blockBegan` / `blockEnded` (no KVO, no start or cancel call).
    let hidden: Bool
    /// The token its class's `isReady` override waits for (API surface 2, `readyAfterSignal`).
    let readyAfterSignal: Int?
    var cancelled = false
    var executing = false
    var finished = false
    /// A did-change for isFinished with isFinished true has been delivered.
    var finishSeen = false
    var ready = true
    /// What `[super isReady]` would say: `ready` before the override is applied. The same as
    /// `ready` for an operation without `readyAfterSignal`.
    var baseReady = true
    var deps: [Int] = []
    var dependents: [Int] = []
    var queue: Int?
    /// Started by its queue (holds one of the queue's slots until its finish is seen).
    var dispatched = false
    var priority = QueuePriority.normal
    var threadPriority = 0.5
    var completion: [Step]?
    var completionSpawned = false
    var blocks: [[Step]]
    var blocksLeft = 0

    init(kind: OperationKind, hidden: Bool = false, readyAfterSignal: Int? = nil) {
        self.kind = kind
        self.hidden = hidden
        self.readyAfterSignal = readyAfterSignal
        // No token is signalled before the run, so an override starts out saying NO.
        self.ready = readyAfterSignal == nil
        if case .block(let b) = kind { blocks = b } else { blocks = [] }
    }

    func value(_ key: StateKey) -> Value {
        switch key {
        case .isCancelled: return .bool(cancelled)
        case .isConcurrent: return .bool(kind.reportsConcurrent)
        case .isExecuting: return .bool(executing)
        case .isFinished: return .bool(finished)
        case .isReady: return .bool(ready)
        case .dependencies: return .ops(deps)
        case .queuePriority: return .int(priority)
        case .completionBlock: return .bool(completion != nil)
        case .threadPriority: return .double(threadPriority)
        case .executionBlocks: return .int(blocks.count)
        }
    }

    /// The body `main` runs for this kind (block operations run their blocks instead).
    var mainBody: [Step] {
        switch kind {
        case .main(let b), .invocation(let b): return b
        case .concurrent, .subclass: return kind.program!.main
        case .block: return []
        }
    }
}
