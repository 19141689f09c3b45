import OperationSpec
import Testing

/// What `Scenario.problems()` refuses in the constructs of API surface 2: a block handed to
/// `addOperationWithBlock:` has no operation object, so nothing else may reach it; reads of
/// `executionBlocks` need a block operation; queue names become thread names.
@Suite("API surface 2: what a scenario may not say")
struct Surface2ValidationTests {
    static func scenario(_ operations: [OperationConfig], _ driver: [DriverStep], queues: [QueueConfig] = [QueueConfig()],
                         dependencies: [Edge] = []) -> Scenario {
        Scenario(queues: queues, operations: operations, dependencies: dependencies, driver: driver)
    }
    static let block = OperationConfig(kind: .block([[.work(1)]]))

    @Test("the example of every construct is valid, and names what it uses")
    func valid() {
        let s = Self.scenario([Self.block, OperationConfig(kind: .main([.readCurrentQueue]), readyAfterSignal: 3)],
                              [DriverStep(.addBlock(op: 0, queue: 0)), DriverStep(.add(op: 1, queue: 0)), DriverStep(.readSuspended(queue: 0)),
                               DriverStep(.sleep(2)), DriverStep(.perform(op: 1, [.signal(3)])), DriverStep(after: .signaled(3), .waitUntilAllFinished(queue: 0))],
                              queues: [QueueConfig(name: "fetch")])
        #expect(s.problems() == [])
        #expect(s.surface2Constructs == ["queue name", "readyAfterSignal", "addBlock", "readSuspended", "sleep", "signaled trigger", "readCurrentQueue"])
        #expect(Scenario(queues: [QueueConfig()], operations: [Self.block], driver: [DriverStep(.add(op: 0, queue: 0))]).surface2Constructs.isEmpty)
    }

    @Test("a block given to addBlock is reached by nothing else", arguments: [
        DriverStep(.cancel(0)), DriverStep(.read(.isFinished, op: 0)), DriverStep(.add(op: 0, queue: 0)),
        DriverStep(.addExecutionBlock(op: 0, [.work(1)])), DriverStep(after: .finished(0), .sleep(1)),
        DriverStep(.perform(op: 1, [.cancel(.op(0))])),
    ])
    func isolated(step: DriverStep) {
        let s = Self.scenario([Self.block, OperationConfig(kind: .main([]))], [DriverStep(.addBlock(op: 0, queue: 0)), step])
        #expect(s.problems().contains { $0.contains("names operation 0, which is added with addBlock") }, "\(s.problems())")
    }

    @Test("addBlock takes one block operation with one block, unconfigured, once")
    func shape() {
        let two = Self.scenario([OperationConfig(kind: .block([[.work(1)], [.work(1)]]))], [DriverStep(.addBlock(op: 0, queue: 0))])
        #expect(two.problems() == ["addBlock adds operation 0, which must be a block operation with exactly one block (it is block×2)"])
        let configured = Self.scenario([OperationConfig(kind: .block([[.work(1)]]), queuePriority: 4)], [DriverStep(.addBlock(op: 0, queue: 0))])
        #expect(configured.problems().first?.contains("cannot be configured") == true)
        let twice = Self.scenario([Self.block], [DriverStep(.addBlock(op: 0, queue: 0)), DriverStep(.addBlock(op: 0, queue: 0))])
        #expect(twice.problems() == ["operation 0 is added with addBlock 2 times; a block is handed to a queue once"])
        let dependent = Self.scenario([Self.block, Self.block], [DriverStep(.addBlock(op: 0, queue: 0))], dependencies: [Edge(1, on: 0)])
        #expect(dependent.problems().contains { $0.hasPrefix("dependency 0 names operation 0") })
        let selfish = Self.scenario([OperationConfig(kind: .block([[.returnIfCancelled]]))], [DriverStep(.addBlock(op: 0, queue: 0))])
        #expect(selfish.problems() == ["operation 0's block is added with addBlock, so it has no self for returnIfCancelled (work, signal, await, repeat, readCurrentQueue, readUnderlyingQueue and cancelAll are allowed)"])
    }

    @Test("executionBlocks is read of block operations only, and never notified")
    func executionBlocks() {
        let s = Self.scenario([OperationConfig(kind: .main([.read(.executionBlocks, .this), .willChange(.executionBlocks)]))],
                              [DriverStep(.read(.executionBlocks, op: 0))])
        #expect(s.problems() == ["operation 0 reads executionBlocks of operation 0, which is not a block operation",
                                 "operation 0 notifies executionBlocks, which is read only (it is not one of the observable key paths)",
                                 "driver step 0 reads executionBlocks of operation 0, which is not a block operation"])
    }

    @Test("queue names, sleeps and the implementation's own subclass are checked")
    func limits() {
        let s = Self.scenario([OperationConfig(kind: .subclass([.work(1)]), readyAfterSignal: 1)], [DriverStep(.sleep(-1))],
                              queues: [QueueConfig(name: ""), QueueConfig(name: "a\u{7}b"), QueueConfig(name: String(repeating: "x", count: 65))])
        #expect(s.problems() == [
            "queue 0's name \"\" is empty; leave name out for the implementation's default",
            "queue 1's name \"a\\u{7}b\" holds a control character",
            "queue 2's name \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…\" has 65 characters; allowed is 1 to 64",
            "operation 0 is an instance of the implementation's own subclass, which cannot be given an isReady override (readyAfterSignal)",
            "driver step 0 sleeps -1 units; allowed is 0...1000000",
        ])
    }
}
