import OperationSpec

extension ReachTable {
    /// What a cell is to the generator: one it must reach within 100 default cases, or one it
    /// need not, and why.
    package enum Aim: Sendable, Equatable {
        /// A legal path the generator aims at: a route that leaves it empty is a gap (issue 44).
        case required
        /// A misuse: drawn at the misuse rate, judged by the profile, never required.
        case misuse(String)
        /// Legal, but not aimed at: reached by chance, or by the cases that need it.
        case incidental(String)
        /// Not a path at all: the call cannot target an operation in that state.
        case impossible(String)

        package var isRequired: Bool { self == .required }
        public var reason: String? {
            switch self {
            case .required: return nil
            case .misuse(let why), .incidental(let why), .impossible(let why): return why
            }
        }
    }

    static let secondStart = "a second start: misuse, drawn at the misuse rate (the default start's while it"
        + " runs or once finished; a start-overriding class's once finished:"
        + " START-FINISHED-OWN, a class-reference warning)"
    static let startUnready = "a start of an operation that is not ready: misuse, drawn at the misuse rate"
    static let addStarted = "an add of a started operation: misuse, drawn at the misuse rate"

    /// What cell (`entry`, `state`) is, for any kind.
    package static func aim(_ entry: Entry, _ state: State) -> Aim {
        switch (entry, state) {
        case (.start, .ready), (.start, .cancelledBeforeStart): return .required
        case (.start, .pending): return .misuse(startUnready)
        case (.start, _): return .misuse(secondStart)
        case (.cancel, .ready), (.cancel, .executing), (.cancel, .finished): return .required
        case (.cancel, _):
            return .incidental("a cancel of a pending or already cancelled operation:"
                + " reached by the cases that need it")
        case (.add, .ready), (.add, .pending): return .required
        case (.add, .cancelledBeforeStart):
            return .incidental("an add of an operation cancelled first: phase A's cancel-before-add")
        case (.add, _): return .misuse(addStarted)
        case (.addDependency, .ready): return .required
        case (.addDependency, _):
            return .incidental("a dependency added to a held or started operation: late, no effect (004 2.6.1)")
        case (.removeDependency, .pending): return .required
        case (.removeDependency, _):
            return .incidental("a removal once the dependency finished or the operation started")
        case (.setCompletionBlock, _):
            return .incidental("completion blocks are set when the operation is made;"
                + " a set call is a late set (misuse)")
        case (.setQueuePriority, .ready), (.setQueuePriority, .pending): return .required
        case (.setQueuePriority, _): return .incidental("a priority set once the operation started has no effect on it")
        case (.waitUntilFinished, .executing), (.waitUntilFinished, .finished): return .required
        case (.waitUntilFinished, _):
            return .incidental("a wait before the operation runs: reached by the cases that need it")
        case (.isReady, .pending), (.isReady, .ready), (.isReady, .executing), (.isReady, .finished),
             (.isReady, .cancelledBeforeStart): return .required
        case (.isExecuting, .ready), (.isExecuting, .executing), (.isExecuting, .finished),
             (.isExecuting, .cancelledWhileRunning): return .required
        case (.isFinished, .ready), (.isFinished, .executing), (.isFinished, .finished),
             (.isFinished, .cancelledBeforeStart): return .required
        case (.isCancelled, .ready), (.isCancelled, .executing), (.isCancelled, .finished),
             (.isCancelled, .cancelledBeforeStart), (.isCancelled, .cancelledWhileRunning): return .required
        case (.isConcurrent, .ready), (.queuePriority, .ready), (.dependencies, .ready): return .required
        case (.isReady, _), (.isExecuting, _), (.isFinished, _), (.isCancelled, _):
            return .incidental("a read in this state: reached by chance, no rule needs it more than the others")
        case (.isConcurrent, _), (.queuePriority, _), (.dependencies, _):
            return .incidental("a property that does not change with the state")
        }
    }

    /// The required cells of `kind`. The user's queue route reaches the kinds its driver runs;
    /// an asynchronous kind's getter reads during the task are its own code's, the heart of a
    /// subclass test.
    public static func required(for kind: Kind) -> [Cell] {
        var cells: [Cell] = []
        for entry in Entry.allCases {
            for state in State.allCases where aim(entry, state).isRequired { cells.append(Cell(entry, state, kind)) }
        }
        return cells
    }

    /// The kinds a run must fill: each kind at least a tenth of the cases had.
    package var routeKinds: [Kind] {
        Kind.allCases.filter { kinds[$0, default: 0] * 10 >= max(cases, 1) }
    }

    /// The required cells of the route's kinds that no case reached.
    public var gaps: [Cell] {
        routeKinds.flatMap { Self.required(for: $0) }.filter { reached[$0, default: 0] == 0 }
    }

    /// The table as text: one block per kind, entries down, states across, each cell the number
    /// of cases that reached it ("-" for none; "·" where the cell is not aimed at), then the gaps
    /// and what the unaimed cells are.
    public func text() -> String {
        let states = State.allCases
        let short = ["pending", "ready", "executing", "finished", "cancelled-before", "cancelled-while"]
        var out = "\(cases) cases; cells: cases that reached them (\"-\" none; \"·\" a cell not aimed at, see below)\n"
        for kind in Kind.allCases where kinds[kind, default: 0] > 0 {
            let route = routeKinds.contains(kind) ? "" : " (under a tenth of the cases: not required)"
            out += "\n\(kind.rawValue) operations, in \(kinds[kind]!) cases\(route)\n"
            out += "  " + "entry".padding(toLength: 20, withPad: " ", startingAt: 0)
                + short.map { $0.leftPadded(to: 17) }.joined() + "\n"
            for entry in Entry.allCases {
                var line = "  " + entry.rawValue.padding(toLength: 20, withPad: " ", startingAt: 0)
                for state in states {
                    let n = reached[Cell(entry, state, kind), default: 0]
                    let mark = n > 0 ? String(n) : Self.aim(entry, state).isRequired ? "-" : "·"
                    line += mark.leftPadded(to: 17)
                }
                out += line + "\n"
            }
        }
        out += keyPaths()
        let missing = gaps
        out += "\n" + (missing.isEmpty ? "every required cell reached\n"
            : "\(missing.count) required \(missing.count == 1 ? "cell" : "cells") not reached:\n"
                + missing.map { cell in
                    "  \(cell.entry.rawValue) of \(Self.article(cell.state.rawValue)) \(cell.kind.rawValue) operation\n"
                }.joined())
        return out
    }
}

extension ReachTable {
    /// The paths the defects of public asynchronous classes sat on, which a first run of 30
    /// version 2 cases did not take (issue 44), for the asynchronous kinds present.
    package static let keyCells: [(entry: Entry, state: State, what: String)] = [
        (.cancel, .finished, "a cancel of a finished operation"),
        (.isReady, .executing, "isReady read while the task runs"),
        (.isExecuting, .executing, "isExecuting read while the task runs"),
        (.start, .cancelledBeforeStart, "a start of a cancelled operation"),
        (.cancel, .executing, "a cancel while it runs"),
    ]

    /// `keyCells`, each with the cases that reached it and the first of them.
    func keyPaths() -> String {
        var out = ""
        for kind in [Kind.subclass, .concurrent] where kinds[kind, default: 0] > 0 {
            out += "\nthe paths where asynchronous classes' defects sat (\(kind.rawValue) operations):\n"
            for key in Self.keyCells {
                let cell = Cell(key.entry, key.state, kind)
                let n = reached[cell, default: 0]
                let who = (callers[cell] ?? [:]).keys.sorted().map(\.rawValue).joined(separator: ", ")
                out += "  \(key.what): " + (n == 0 ? "not reached\n"
                    : "\(n) of \(cases) cases, first in case \(firstCase[cell]!) (by \(who))\n")
            }
        }
        return out
    }

    static func article(_ word: String) -> String {
        ("aeiou".contains(word.first ?? "x") ? "an " : "a ") + word
    }
}

extension String {
    /// Right-aligned in `width` columns (a space before a longer string), for tables.
    package func leftPadded(to width: Int) -> String {
        count >= width ? " " + self : String(repeating: " ", count: width - count) + self
    }
}
