/// The KVO-compliant key paths of an operation (004 2.5.4), plus `threadPriority` and (API
/// surface 2) a block operation's `executionBlocks`, as a count, for reads.
public enum StateKey: String, Codable, Sendable, Equatable, CaseIterable {
    case isCancelled, isConcurrent, isExecuting, isFinished, isReady
    case dependencies, queuePriority, completionBlock
    case threadPriority
    /// `[blockOperation executionBlocks]`, read as the number of blocks (`Value.int`): only
    /// for block operations, only in reads.
    case executionBlocks

    /// Position among `allCases`, for arrays indexed by key.
    public var index: Int {
        switch self {
        case .isCancelled: return 0
        case .isConcurrent: return 1
        case .isExecuting: return 2
        case .isFinished: return 3
        case .isReady: return 4
        case .dependencies: return 5
        case .queuePriority: return 6
        case .completionBlock: return 7
        case .threadPriority: return 8
        case .executionBlocks: return 9
        }
    }

    /// The key's name without its `is` prefix (`isFinished` → `finished`), for the five keys
    /// that have one; nil for the others. What a subclass with the `unprefixed-keys` flaw sends.
    public var unprefixedName: String? {
        guard rawValue.hasPrefix("is") else { return nil }
        return rawValue.dropFirst(2).prefix(1).lowercased() + rawValue.dropFirst(3)
    }

    /// The eight key paths for which the guide promises KVO compliance (004 2.5.4).
    public static let observable: [StateKey] = [.isCancelled, .isConcurrent, .isExecuting, .isFinished,
                                                .isReady, .dependencies, .queuePriority, .completionBlock]
}

/// A value carried by a read or a KVO notification.
public enum Value: Codable, Sendable, Equatable, CustomStringConvertible {
    case bool(Bool)
    case int(Int)
    case double(Double)
    case ops([Int])

    public var bool: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var int: Int? { if case .int(let i) = self { return i }; return nil }
    public var double: Double? { if case .double(let d) = self { return d }; return nil }
    public var description: String {
        switch self {
        case .bool(let b): return b ? "YES" : "NO"
        case .int(let i): return String(i)
        case .double(let d): return String(d)
        case .ops(let o): return "[" + o.map(String.init).joined(separator: ",") + "]"
        }
    }
}
