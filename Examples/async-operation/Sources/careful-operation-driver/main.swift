import AsyncOperations
import OperationDriverKit
import Foundation

/// CarefulAsyncOperation as the harness sees it: its task is the case's work, and every call and
/// getter goes through the probe.
final class Probed: CarefulAsyncOperation, @unchecked Sendable {
    let probe: SubclassProbe
    init(_ probe: SubclassProbe) { self.probe = probe; super.init() }
    override func execute() { probe.work(then: finish) }
    override func start() { probe.start { super.start() } }
    override func cancel() { probe.cancel { super.cancel() } }
    override var isReady: Bool { probe.isReady { super.isReady } }
    override var isExecuting: Bool { probe.isExecuting { super.isExecuting } }
    override var isFinished: Bool { probe.isFinished { super.isFinished } }
    override var isCancelled: Bool { probe.isCancelled { super.isCancelled } }
}

OperationDriver(name: "careful-operation", subclass: { Probed($0) }).main()
