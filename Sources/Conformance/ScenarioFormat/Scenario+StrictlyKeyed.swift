import OperationSpec

/// A format-1 scenario (the synthesized form) is read strictly too: a key its decoder passed
/// over is refused with the nearest known one (`StrictlyKeyed`). Its optional fields are an
/// operation's priorities and completion block, and a driver step's trigger.
extension Scenario: StrictlyKeyed {
    func optionalKeys(at path: [JSONPathSegment]) -> [String] {
        guard path.count == 2, case .index = path[1] else { return [] }
        switch path[0] {
        case .key("operations"): return ["completion", "queuePriority", "threadPriority"]
        case .key("driver"): return ["after"]
        default: return []
        }
    }
}
