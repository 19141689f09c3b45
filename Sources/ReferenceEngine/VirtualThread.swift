import OperationSpec

/// A thread of the simulation: a stack of frames interpreted one instruction at a time.
/// Nothing here is a real thread; the scheduler decides which virtual thread steps next.
struct VirtualThread {
    let id: Int
    let name: String
    /// The queue a worker thread serves, published in its `threadStarted` event; nil for every
    /// other thread (the trace format: "worker threads carry their queue").
    let queue: Int?
    /// The queue whose operation this thread's code runs for: what `OperationQueue.current`
    /// would name here. A worker's own queue; for a block (or execution block) of a block
    /// operation, that of the thread that ran the operation's main, as main itself has it (so
    /// nil when the operation was started by hand from the driving thread); nil for the driving
    /// thread, completion blocks and detached threads. Kept apart from `queue` so that traces and
    /// the rules that read worker threads are unchanged. A `readCurrentQueue` step reads it.
    let currentQueue: Int?
    var frames: [Frame]
    var state: State = .runnable
    /// The thread priority in effect (004 2.6.3: 0.5 unless the default start set the operation's).
    var priority: Double = 0.5
    var announced = false
    /// Counts the thread's sleeps and waits: a timer or a registration for a wait made under
    /// another number is stale (the thread woke since), and the scheduler drops it.
    var epoch = 0

    enum State: Equatable {
        case runnable
        case sleeping(until: Int)
        case blocked(Wait, deadline: Int?)
        case done
    }
}

/// What a blocked thread waits for.
enum Wait: Equatable {
    case finished(Int)
    case allFinished([Int])
    case queueEmpty(Int)
    case token(Int)
    case trigger(step: Int, Trigger)
    case blocks(Int)
}

/// A run of code with its own program counter. A frame with an `exit` is a routine boundary:
/// `return` unwinds to it, and its exit action records how the routine ended.
struct Frame {
    var code: Code
    var pc = 0
    /// Passes still to make after this one (a `repeat`): the frame runs its code again instead
    /// of ending. Going round takes no step of its own, as the unrolled copies of the body this
    /// replaces had none between them, so the steps, and the trace, are the same.
    var passesLeft = 0
    /// The operation the code belongs to (`self`), or -1 for the driver's own code.
    var this: Int
    var exit: Exit?

    init(_ code: [Instr], this: Int = -1, exit: Exit? = nil) {
        self.code = .instrs(code)
        self.this = this
        self.exit = exit
    }

    /// Steps of the scenario, after the `opening` instruction if any (a block's or a completion
    /// block's first event).
    init(steps: [Step], opening: Instr? = nil, this: Int, exit: Exit? = nil) {
        self.code = .steps(steps, opening: opening)
        self.this = this
        self.exit = exit
    }

    /// `repeat(n, steps)`: the steps `n` times (none when `n` is 0 or less).
    init(repeating steps: [Step], times n: Int, this: Int) {
        self.code = .steps(n > 0 ? steps : [], opening: nil)
        self.passesLeft = max(0, n - 1)
        self.this = this
    }

    /// What a frame runs: the engine's own instructions, or the scenario's steps held as the
    /// scenario's own arrays. Converting the steps at every call, and unrolling a `repeat`, had
    /// copied a body per frame: a routine of 10,000 steps that calls itself first, or
    /// `repeat(10000)` of a long body, filled gigabytes within the step budget.
    enum Code {
        case instrs([Instr])
        case steps([Step], opening: Instr?)

        var count: Int {
            switch self {
            case .instrs(let code): return code.count
            case .steps(let steps, let opening): return steps.count + (opening == nil ? 0 : 1)
            }
        }

        subscript(i: Int) -> Instr {
            switch self {
            case .instrs(let code): return code[i]
            case .steps(let steps, nil): return .step(steps[i])
            case .steps(let steps, let opening?): return i == 0 ? opening : .step(steps[i - 1])
            }
        }
    }
}

enum Exit: Equatable {
    /// A public call returns: record `returned` (or `threw` when unwound by an error).
    case returned(Call)
    case mainEnded(Int)
    case blockEnded(Int, Int)
    case completionEnded(Int)
    /// A routine with nothing to record when it ends.
    case plain
}

/// The engine's instruction set: the scenario's steps, plus the base class's own machinery.
enum Instr: Equatable {
    case step(Step)
    case action(DriverAction)
    case stepIssued(Int)
    case stepDone(Int)
    case awaitTrigger(step: Int, Trigger)
    /// Call `start` on an operation (base or overridden).
    case callStart(Int, Caller)
    /// The default `start`: checks, then moves to executing (or straight to finished if cancelled).
    case defaultStart(Int, checkReady: Bool)
    case invokeMain(Int)
    case runBlocks(Int)
    case joinBlocks(Int)
    case baseFinish(Int)
    case beginBlock(Int, Int)
    /// A queue starts the operation it made for a block (`addOperationWithBlock:`), unseen.
    case runHandedBlock(Int)
    /// That operation's block ended: it finishes, unseen.
    case finishHandedBlock(Int)
    case beginCompletion(Int)
    /// After a blocking wait resolved: record the return and what the driver reads to confirm it.
    case afterWait(Call, reads: [Int], countOf: Int?)
    case afterAwait(Int)
    case afterTrigger(step: Int, Trigger)
}
