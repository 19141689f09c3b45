import OperationSpec

/// Which paths through the API a set of cases took: for every entry point and getter, the state
/// of the operation it targets, the operation's kind and who called it, how many cases reached
/// it (issue 44; `opconform reach`, Specs/reach.md).
///
/// A green run says nothing about a path no case took, so the table is how a user sees what a
/// run has checked. It is counted from traces, the way the rules read them (`TraceFacts`): the
/// state at a call is what the events before it show, so a cell is reached only when the
/// implementation really was in that state, not when the scenario meant it to be.
package struct ReachTable: Sendable {
    /// A call or a getter the table counts.
    public enum Entry: String, Sendable, CaseIterable, Comparable, DeclarationOrdered {
        case start, cancel, add, addDependency, removeDependency, setCompletionBlock, setQueuePriority
        case waitUntilFinished, isReady, isExecuting, isFinished, isCancelled, isConcurrent, queuePriority
        case dependencies
    }

    /// The state of the operation a call targets, from the events before the call.
    public enum State: String, Sendable, CaseIterable, Comparable, DeclarationOrdered {
        /// Not started, not cancelled, a dependency in force not finished.
        case pending
        /// Not started, not cancelled, nothing in force holding it back.
        case ready
        /// Started (or its task began), not finished, not cancelled.
        case executing
        /// Began finishing (cancelled or not).
        case finished
        /// Cancelled before anything started it.
        case cancelledBeforeStart = "cancelled-before-start"
        /// Cancelled once started, not finished yet.
        case cancelledWhileRunning = "cancelled-while-running"
    }

    /// The operation's kind, as the route provides it.
    public enum Kind: String, Sendable, CaseIterable, Comparable, DeclarationOrdered {
        /// A block operation.
        case block
        /// A subclass that overrides main, and an invocation operation: the default start.
        case main
        /// An asynchronous subclass written as a step program (the generator's own).
        case concurrent
        /// The implementation's own subclass (a user's class under test).
        case subclass

        init(_ kind: OperationKind) {
            switch kind {
            case .block: self = .block
            case .main, .invocation: self = .main
            case .concurrent: self = .concurrent
            case .subclass: self = .subclass
            }
        }
    }

    /// Who made the call.
    public enum Caller: String, Sendable, CaseIterable, Comparable, DeclarationOrdered {
        /// The driving thread (a step of the driver, or code it performs).
        case driver
        /// The operation's own code (its main, a block, its start).
        case ownCode = "own-code"
        /// Another operation's code, or a completion block.
        case otherCode = "other-code"
        /// A queue: its start of the operation, or a worker thread between tasks.
        case queue
        /// A thread that is none of these (a subclass's own thread, say).
        case otherThread = "other-thread"
    }

    /// One cell of the table.
    package struct Cell: Sendable, Hashable, Comparable {
        public var entry: Entry
        public var state: State
        public var kind: Kind
        public init(_ entry: Entry, _ state: State, _ kind: Kind) {
            self.entry = entry
            self.state = state
            self.kind = kind
        }
        public static func < (a: Cell, b: Cell) -> Bool {
            (a.entry, a.state, a.kind) < (b.entry, b.state, b.kind)
        }
    }

    /// Cases counted.
    public private(set) var cases = 0
    /// Per cell, the cases that reached it (each case counts once).
    public private(set) var reached: [Cell: Int] = [:]
    /// Per cell, the callers seen, by how many cases.
    public private(set) var callers: [Cell: [Caller: Int]] = [:]
    /// Per cell, the first case (its index) that reached it.
    package private(set) var firstCase: [Cell: Int] = [:]
    /// The kinds the cases had.
    public private(set) var kinds: [Kind: Int] = [:]

    public init() {}

    /// Adds case `index`: the cells its trace reached.
    public mutating func add(case index: Int, scenario: Scenario, trace: Trace) {
        cases += 1
        let seen = Self.cells(scenario: scenario, trace: trace)
        var kindsHere: [Kind: Bool] = [:]
        for op in scenario.operations { kindsHere[Kind(op.kind)] = true }
        for kind in kindsHere.keys { kinds[kind, default: 0] += 1 }
        var counted: [Cell: Bool] = [:]
        for (cell, caller) in seen {
            if counted[cell] == nil {
                counted[cell] = true
                reached[cell, default: 0] += 1
                if firstCase[cell] == nil || firstCase[cell]! > index { firstCase[cell] = index }
            }
            callers[cell, default: [:]][caller, default: 0] += 1
        }
    }

    /// The cells one trace reached, with who called, in trace order.
    public static func cells(scenario: Scenario, trace: Trace) -> [(Cell, Caller)] {
        let facts = TraceFacts(scenario: scenario, trace: trace)
        let n = scenario.operations.count
        var codeOn: [Int: [Int]] = [:]     // thread → operations whose code runs on it, innermost last
        var completionOn: [Int: Int] = [:] // thread → completion blocks running on it
        var workerThreads: [Int: Bool] = [:]
        var out: [(Cell, Caller)] = []
        func state(_ op: Int, at i: Int) -> State {
            if facts.finishing(op, before: i) { return .finished }
            // Started: a start call, or evidence it executes, whichever came first.
            let start = [facts.firstStart[op], facts.executingAt[op]].compactMap { $0 }.min()
            if let cancel = facts.cancelCalledAt[op], cancel < i {
                return start.map { $0 < cancel } ?? false ? .cancelledWhileRunning : .cancelledBeforeStart
            }
            if let s = start, s < i { return .executing }
            let holding = facts.edges.contains { edge in
                guard edge.op == op, edge.active(at: i) else { return false }
                return edge.on < 0 || edge.on >= n || !facts.finishing(edge.on, before: i)
            }
            return holding ? .pending : .ready
        }
        func caller(thread: Int, op: Int) -> Caller {
            if thread == 0 { return .driver }
            if let running = codeOn[thread], let inner = running.last { return inner == op ? .ownCode : .otherCode }
            if completionOn[thread, default: 0] > 0 { return .otherCode }
            return workerThreads[thread] == true ? .queue : .otherThread
        }
        func note(_ entry: Entry, _ op: Int, _ i: Int, _ who: Caller) {
            guard op >= 0 && op < n else { return }
            out.append((Cell(entry, state(op, at: i), Kind(scenario.operations[op].kind)), who))
        }
        for (i, event) in trace.events.enumerated() {
            let t = event.thread
            switch event.kind {
            case .threadStarted(_, let queue): if queue != nil { workerThreads[t] = true }
            case .mainBegan(let op, _), .blockBegan(let op, _): codeOn[t, default: []].append(op)
            case .mainEnded(let op), .blockEnded(let op, _):
                if let k = codeOn[t]?.lastIndex(of: op) { codeOn[t]!.remove(at: k) }
            case .completionBegan: completionOn[t, default: 0] += 1
            case .completionEnded: completionOn[t, default: 0] -= 1
            case .read(let op, let key, _):
                if let entry = Self.getter(key) { note(entry, op, i, caller(thread: t, op: op)) }
            case .call(let call):
                switch call {
                case .start(let op, let by):
                    let who: Caller = by == .queue ? .queue : by == .driver ? .driver : caller(thread: t, op: op)
                    note(.start, op, i, who)
                case .cancel(let op): note(.cancel, op, i, caller(thread: t, op: op))
                case .addOperation(let op, _), .addBlock(let op, _): note(.add, op, i, caller(thread: t, op: op))
                case .addOperations(let ops, _, _): for op in ops { note(.add, op, i, caller(thread: t, op: op)) }
                case .addDependency(let op, _): note(.addDependency, op, i, caller(thread: t, op: op))
                case .removeDependency(let op, _): note(.removeDependency, op, i, caller(thread: t, op: op))
                case .setCompletionBlock(let op): note(.setCompletionBlock, op, i, caller(thread: t, op: op))
                case .setQueuePriority(let op, _): note(.setQueuePriority, op, i, caller(thread: t, op: op))
                case .waitUntilFinished(let op): note(.waitUntilFinished, op, i, caller(thread: t, op: op))
                default: break
                }
            default: break
            }
        }
        return out
    }

    static func getter(_ key: StateKey) -> Entry? {
        switch key {
        case .isReady: return .isReady
        case .isExecuting: return .isExecuting
        case .isFinished: return .isFinished
        case .isCancelled: return .isCancelled
        case .isConcurrent: return .isConcurrent
        case .queuePriority: return .queuePriority
        case .dependencies: return .dependencies
        default: return nil
        }
    }
}

/// Cases ordered as they are declared: the table's rows and columns, in a fixed order.
package protocol DeclarationOrdered: CaseIterable, Comparable where AllCases.Index == Int {}

extension DeclarationOrdered {
    var order: Int { Self.allCases.firstIndex(of: self)! }
    public static func < (a: Self, b: Self) -> Bool { a.order < b.order }
}
