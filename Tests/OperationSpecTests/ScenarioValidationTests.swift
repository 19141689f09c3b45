import OperationSpec
import Testing

@Suite("Scenario validation: every problem is one sentence")
struct ScenarioValidationTests {
    @Test("valid scenarios have no problem")
    func valid() {
        for s in ExampleScenarios.all { #expect(s.problems().isEmpty, "\(s.name): \(s.problems())") }
    }

    @Test("bad references are named", arguments: [
        (Scenario(operations: [OperationConfig(kind: .main([]))], driver: [DriverStep(.start(3))]), "names operation 3"),
        (Scenario(operations: [OperationConfig(kind: .main([]))], driver: [DriverStep(.add(op: 0, queue: 2))]), "names queue 2"),
        (Scenario(operations: [OperationConfig(kind: .main([]))], dependencies: [Edge(0, on: 5)]), "dependency 0 names operation 5"),
        (Scenario(operations: [OperationConfig(kind: .main([.set(.isFinished, true)]))]), "only a concurrent subclass"),
        (Scenario(operations: [OperationConfig(kind: .main([]))], driver: [DriverStep(.addExecutionBlock(op: 0, []))]), "not a block operation"),
        (Scenario(operations: [OperationConfig(kind: .block([]))]), "no block"),
        (Scenario(operations: [OperationConfig(kind: .main([.call("nope")]))]), "routine \"nope\""),
        (Scenario(operations: [OperationConfig(kind: .main([.work(-1)]))]), "works -1 units"),
        (Scenario(queues: [QueueConfig(maxConcurrent: -3)]), "maxConcurrent -3"),
        (Scenario(operations: [OperationConfig(kind: .main([]))], driver: [DriverStep(.result(0))]), "only invocation operations"),
        // No operations at all, and code for operation 0 that reads its kind: named, not a trap.
        (Scenario(driver: [DriverStep(.setCompletionBlock(op: 0, [.set(.isFinished, true), .call("x"), .callSuperStart]))]), "names operation 0"),
        (Scenario(driver: [DriverStep(.addExecutionBlock(op: 0, [.call("x")]))]), "names operation 0"),
        (Scenario(operations: [OperationConfig(kind: .subclass([.work(1), .set(.isFinished, true)]))]), "an instance of the implementation's own subclass"),
    ])
    func problems(scenario: Scenario, fragment: String) {
        let problems = scenario.problems()
        #expect(problems.contains { $0.contains(fragment) }, "\(problems)")
        for p in problems { #expect(!p.contains("\n")) }
    }
}
