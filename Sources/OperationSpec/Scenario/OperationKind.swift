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

    public var isBlock: Bool { if case .block = self { return true }; return false }
    public var program: ConcurrentProgram? { if case .concurrent(let p) = self { return p }; return nil }
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
}

public struct Routine: Codable, Sendable, Equatable {
    public var name: String
    public var body: [Step]
    public init(_ name: String, _ body: [Step]) { self.name = name; self.body = body }
}
