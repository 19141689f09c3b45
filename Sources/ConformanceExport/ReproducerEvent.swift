import Conformance
import OperationSpec

/// What an exported reproducer records while it runs, in the same words in every language it is
/// written in: a kind, the operation (or queue) it is about, and two small numbers whose meaning
/// depends on the kind. The reproducer's assertions (`Claim`) are patterns over this log.
///
/// The log is the reproducer's own, not the harness's trace: it holds only what the program can
/// see with the implementation's public API (its own overrides, key-value observing where the
/// implementation has it, the calls it makes), so a maintainer can read every line of it.
enum ReproducerEvent: String, CaseIterable, Sendable {
    /// `start` was called on the operation (its override, before the inherited one).
    case start
    /// `main` (or the invoked method, or an asynchronous subclass's `main`) began / ended.
    case mainBegan, mainEnded
    /// Block `a` of a block operation began / ended.
    case blockBegan, blockEnded
    /// The operation's completion block began / ended.
    case completionBegan, completionEnded
    /// A key-value notification was heard: `a` the key (`ReproducerEvent.key`), `b` the value
    /// read right after a did-change (1 YES, 0 NO, -1 not a Boolean).
    case will, did
    /// An asynchronous subclass stored `b` into its `a` ivar (isExecuting or isFinished).
    case set
    /// A getter of the operation returned `b` for key `a`, whoever called it (a queue too).
    case read
    /// Token `a` was signalled / an await of token `a` received it (`b` 1) or timed out (0).
    case signal, awaited
    /// A call of kind `a` (`ReproducerCall`) on operation or queue `op` began / returned / threw /
    /// did not return within the reproducer's bound.
    case call, returned, threw, stuck
    /// The name of the thread a task began on (the text of the event).
    case thread
    /// Not recorded: matched by the events that show the operation finished (a did-change of
    /// isFinished to YES, or a getter answering isFinished YES).
    case finished
    /// Not recorded: matched by the first sign that the operation began finishing: a will- or
    /// did-change of isFinished, a getter answering isFinished YES, or its completion block.
    case finishing
    /// Not recorded: matched by the signs that the operation had begun executing or finished:
    /// its task began, isExecuting YES (a getter or a did-change), or `finished`.
    case active
    /// Not recorded: matched by the beginning (end) of the operation's task: main or a block.
    case taskBegan, taskEnded

    /// The name of the constant in the generated program.
    var constant: String {
        var out = ""
        for c in rawValue { if c.isUppercase { out += "_" }; out += c.uppercased() }
        return "EV_" + out
    }

    /// The key numbers the reproducers use (`StateKey.index`).
    static func key(_ k: StateKey) -> Int { k.index }
}

/// The calls a reproducer brackets with `call` and `returned` / `threw` / `stuck` events.
enum ReproducerCall: Int, CaseIterable, Sendable {
    case cancel, add, addBatch, setCompletionBlock, addExecutionBlock, result, waitUntilFinished,
         waitUntilAllFinished, addDependency, removeDependency, start

    var constant: String {
        var out = ""
        for c in String(describing: self) { if c.isUppercase { out += "_" }; out += c.uppercased() }
        return "CALL_" + out
    }
}

/// One pattern of the log: a kind, and the operation and numbers it must carry (-1: any).
struct EventPattern: Sendable, Equatable {
    var kind: ReproducerEvent
    var op: Int = -1
    var a: Int = -1
    var b: Int = -1

    static func call(_ c: ReproducerCall, _ op: Int) -> EventPattern {
        EventPattern(kind: .call, op: op, a: c.rawValue)
    }
    static func returned(_ c: ReproducerCall, _ op: Int) -> EventPattern {
        EventPattern(kind: .returned, op: op, a: c.rawValue)
    }
    static func stuck(_ c: ReproducerCall? = nil, _ op: Int = -1) -> EventPattern {
        EventPattern(kind: .stuck, op: op, a: c?.rawValue ?? -1)
    }
    static func read(_ op: Int, _ key: StateKey, _ value: Int = -1) -> EventPattern {
        EventPattern(kind: .read, op: op, a: key.index, b: value)
    }
    static func did(_ op: Int, _ key: StateKey, _ value: Int = -1) -> EventPattern {
        EventPattern(kind: .did, op: op, a: key.index, b: value)
    }
    static func will(_ op: Int, _ key: StateKey) -> EventPattern { EventPattern(kind: .will, op: op, a: key.index) }
}
