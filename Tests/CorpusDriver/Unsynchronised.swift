import OperationDriverKit
import Foundation

/// Plain stored flags with will/did-change pairs in Listing 2-7's order: written from the task's
/// thread, read from the queue's, with no lock (labelled `data-race`).
///
/// `@unchecked Sendable` is unsound on purpose: `executing` and `finished` are shared between
/// threads with no synchronisation, the defect this class stands for.
class UnsynchronisedOperation: Operation, @unchecked Sendable {
    private var executing = false
    private var finished = false

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { executing }
    override var isFinished: Bool { finished }

    override func start() {
        if isCancelled {
            willChangeValue(forKey: "isFinished")
            finished = true
            didChangeValue(forKey: "isFinished")
            return
        }
        willChangeValue(forKey: "isExecuting")
        executing = true
        didChangeValue(forKey: "isExecuting")
        execute()
    }

    func execute() { finish() }

    func finish() {
        willChangeValue(forKey: "isFinished")
        willChangeValue(forKey: "isExecuting")
        executing = false
        finished = true
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
    }
}

/// The class as the harness sees it. `@unchecked Sendable` is sound for what it adds: `probe`
/// is a `let`.
final class ProbedUnsynchronised: UnsynchronisedOperation, @unchecked Sendable {
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
