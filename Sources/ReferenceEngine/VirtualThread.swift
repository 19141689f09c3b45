import OperationSpec

/// A thread of the simulation: a stack of frames interpreted one instruction at a time.
/// Nothing here is a real thread; the scheduler decides which virtual thread steps next.
struct VirtualThread {
    let id: Int
    let name: String
    let queue: Int?
    var frames: [Frame]
    var state: State = .runnable
    /// The thread priority in effect (004 2.6.3: 0.5 unless the default start set the operation's).
    var priority: Double = 0.5
    var announced = false

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
    var code: [Instr]
    var pc = 0
    /// The operation the code belongs to (`self`), or -1 for the driver's own code.
    var this: Int
    var exit: Exit?

    init(_ code: [Instr], this: Int = -1, exit: Exit? = nil) {
        self.code = code
        self.this = this
        self.exit = exit
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
    case beginCompletion(Int)
    /// After a blocking wait resolved: record the return and what the driver reads to confirm it.
    case afterWait(Call, reads: [Int], countOf: Int?)
    case afterAwait(Int)
    case afterTrigger(step: Int, Trigger)
}
