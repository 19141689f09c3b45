import OperationSpec

/// A format-1 scenario (the synthesized form) is read strictly too: a key its decoder passed
/// over is refused with the nearest known one (`StrictlyKeyed`). Its optional fields are a
/// queue's name, an operation's priorities, completion block and readiness token, and a driver
/// step's trigger: the synthesized encoder leaves each out when it is nil.
extension Scenario: StrictlyKeyed {
    func optionalKeys(at path: [JSONPathSegment]) -> [String] {
        guard path.count == 2, case .index = path[1] else { return [] }
        switch path[0] {
        case .key("queues"): return ["name"]
        case .key("operations"): return ["completion", "queuePriority", "readyAfterSignal", "threadPriority"]
        case .key("driver"): return ["after"]
        default: return []
        }
    }
}
