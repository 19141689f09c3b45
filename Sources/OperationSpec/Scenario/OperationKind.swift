/// The four shapes an operation takes in the documents.
public enum OperationKind: Codable, Sendable, Equatable {
    /// A plain subclass that overrides `main` only (004 2.5.1). Its `start` is the default one.
    case main([Step])
    /// An `NSBlockOperation` with one or more blocks (004 2.4).
    case block([[Step]])
    /// An asynchronous ("concurrent") subclass whose `start`, `main` and helper routines are
    /// step programs (004 2.5.3, Listings 2-5 to 2-7). Both correct and wrong programs exist.
    case concurrent(ConcurrentProgram)
    /// An `NSInvocationOperation` whose invoked method is the given body (004 2.3).
    case invocation([Step])
    /// An instance of the implementation's own asynchronous subclass (a user's `AsyncOperation`:
    /// the subject of a subclass test), whose unit of work is the given body. Its `start`, state
    /// and notifications are the subclass's own code, not steps; the rules judge that code. The
    /// reference engine runs it as the correct asynchronous subclass (`ConcurrentProgram.correct`).
    case subclass([Step])

    public var isBlock: Bool { if case .block = self { return true }; return false }
    public var isSubclass: Bool { if case .subclass = self { return true }; return false }
    /// The step program of an asynchronous subclass: the scenario's own, or for the
    /// implementation's own subclass the correct program around its work, which is what it
    /// should behave like.
    public var program: ConcurrentProgram? {
        switch self {
        case .concurrent(let p): return p
        case .subclass(let work): return .correct(work: work)
        default: return nil
        }
    }
    public var overridesStart: Bool { program != nil }
    /// What `isConcurrent` returns for this kind.
    public var reportsConcurrent: Bool { program?.overridesIsConcurrent ?? false }
    public var blockCount: Int { if case .block(let b) = self { return b.count }; return 0 }
    public var label: String {
        switch self {
        case .main: return "main"
        case .block(let b): return "block×\(b.count)"
        case .concurrent: return "concurrent"
        case .invocation: return "invocation"
        case .subclass: return "subclass"
        }
    }
}

/// A concurrent subclass as a program: it owns `executing` and `finished` ivars that its
/// `isExecuting` / `isFinished` getters return, and it must send the KVO itself.
public struct ConcurrentProgram: Codable, Sendable, Equatable {
    /// Whether `isConcurrent` (and `isAsynchronous`) is overridden to return YES.
    public var overridesIsConcurrent: Bool
    public var start: [Step]
    public var main: [Step]
    /// Helper methods such as `completeOperation`, called by name with `.call`.
    public var routines: [Routine]

    public init(overridesIsConcurrent: Bool = true, start: [Step], main: [Step], routines: [Routine] = []) {
        self.overridesIsConcurrent = overridesIsConcurrent
        self.start = start
        self.main = main
        self.routines = routines
    }

    public func routine(named name: String) -> [Step]? {
        routines.first { $0.name == name }?.body
    }

    /// The correct asynchronous subclass around a unit of work (004 Listings 2-5 to 2-7, with
    /// `executing` set before `main` is detached): a cancelled operation finishes at once;
    /// otherwise it becomes executing, runs `work` on a thread of its own, and finishes with
    /// the notifications of Listing 2-7. `work` is a routine, so a `return` in it ends the work,
    /// not the operation.
    public static func correct(work: [Step]) -> ConcurrentProgram {
        ConcurrentProgram(
            overridesIsConcurrent: true,
            start: [
                .if(
                    .isCancelled(.this),
                    then: [.willChange(.isFinished), .set(.isFinished, true), .didChange(.isFinished), .return],
                    else: []),
                .willChange(.isExecuting), .set(.isExecuting, true), .didChange(.isExecuting), .spawn(.main, .this)
            ],
            main: [.call("work"), .call("completeOperation")],
            routines: [Routine("work", work), Routine("completeOperation", completeOperation)])
    }

    /// Listing 2-7's `completeOperation`.
    public static let completeOperation: [Step] = [
        .willChange(.isFinished), .willChange(.isExecuting), .set(.isExecuting, false),
        .set(.isFinished, true), .didChange(.isExecuting), .didChange(.isFinished)
    ]
}

public struct Routine: Codable, Sendable, Equatable {
    public var name: String
    public var body: [Step]
    public init(_ name: String, _ body: [Step]) { self.name = name; self.body = body }
}
