import Foundation

/// The operations of a case, each held by the driver only until its last use
/// (`Scenario.lastDriverUses`), and reachable after that for as long as something else holds
/// it: the queue, a dependent operation, a running thread.
///
/// A driver that held every operation to the end of the case kept each alive, so a queue that
/// goes on using an operation it has let go of never touched freed memory (issue 30, item 2).
///
/// `@unchecked Sendable` is sound: `boxes` is a `let`, filled before any operation can run,
/// and each box's `weak` reference is written once, in its initializer (the runtime loads weak
/// references atomically, from any thread); `held` is read and written by the driving thread
/// only (`letGo`, called between driver steps).
final class OperationTable: @unchecked Sendable {
    private final class Box: @unchecked Sendable {
        // Sound: written once in `init`, then only loaded (see the table's comment).
        weak var operation: Operation?
        init(_ operation: Operation) { self.operation = operation }
    }

    private let boxes: [Box]
    private var held: [Operation?]

    init(_ operations: [Operation]) {
        boxes = operations.map { Box($0) }
        held = operations
    }

    /// An empty table, before `prepare`.
    static let none = OperationTable([])

    var count: Int { boxes.count }
    var indices: Range<Int> { boxes.indices }

    /// Operation `i`, which a step that names it may use: it is held until its last use.
    subscript(i: Int) -> Operation {
        guard let operation = boxes[i].operation else {
            preconditionFailure("operation \(i) was let go of before a step that names it (Scenario.lastDriverUses)")
        }
        return operation
    }

    /// Operation `i` if anything still holds it: what code that may run after its last use
    /// asks for (the probe's read-back, the end of the case).
    func live(_ i: Int) -> Operation? { boxes[i].operation }

    /// The number of the operation `operation` is, if it is one of the case's.
    func index(of operation: Operation) -> Int? { boxes.firstIndex { $0.operation === operation } }

    /// Drops the driver's reference to operation `i`. Driving thread only.
    func letGo(_ i: Int) { held[i] = nil }
}
