import ConformanceFormats
import OperationSpec

extension Scenario {
    /// Whether queue `q` can start operations just before step `p` of `driver`, as far as the
    /// queue's configuration and the steps before say (suspension and width 0): what the
    /// decorators check before placing a step that waits for an operation of `q` to run.
    func isOpen(queue q: Int, before p: Int, in driver: [DriverStep]) -> Bool {
        var suspended = queues[q].suspended, zero = queues[q].maxConcurrent == 0
        for step in driver.prefix(p) {
            switch step.action {
            case .suspend(q): suspended = true
            case .resume(q): suspended = false
            case .setMaxConcurrent(q, let n): zero = n == 0
            default: break
            }
        }
        return !suspended && !zero
    }
}
