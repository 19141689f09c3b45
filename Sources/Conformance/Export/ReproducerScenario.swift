import Foundation
import OperationSpec

/// What both reproducer writers (`ObjCReproducer`, `SwiftReproducer`) ask of a scenario, in one
/// place so the two languages cannot drift apart.
enum ReproducerScenario {
    /// Whether operation `i` only names the block of an `addBlock` step (it has no object).
    static func isBlockAdded(_ s: Scenario, _ i: Int) -> Bool {
        s.driver.contains { if case .addBlock(let op, _) = $0.action { return op == i }; return false }
    }

    /// The method a routine of an asynchronous subclass becomes: its name made an identifier.
    static func routineName(_ name: String) -> String {
        "routine_" + String(name.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }

    /// The operations added to queue `q` by driver steps before step `k`, in order of adding.
    static func addedTo(_ s: Scenario, _ q: Int, before k: Int) -> [Int] {
        var list: [Int] = []
        for step in s.driver.prefix(k) {
            switch step.action {
            case .add(let op, let queue) where queue == q: if !list.contains(op) { list.append(op) }
            case .addBatch(let ops, let queue, _) where queue == q: for op in ops where !list.contains(op) { list.append(op) }
            default: break
            }
        }
        return list
    }

    /// A driver step as one line of scenario JSON, for the comment above its code.
    static func describe(_ step: DriverStep) -> String {
        String(decoding: JSONValue.oneLine(ScenarioEncoder.driverStep(step)).text, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
