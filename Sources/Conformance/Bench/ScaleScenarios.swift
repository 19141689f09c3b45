import OperationSpec
import ReferenceEngine

/// Large scenarios of one shape, for measuring how the engine and the checkers grow with size:
/// plain operations added in one batch to one default-width queue, then a wait for all of them.
public enum ScaleScenarios {
    public enum Shape: String, CaseIterable, Sendable {
        /// Each operation depends on the one before it.
        case chain
        /// Every operation depends on operation 0.
        case fanOut = "fan-out"
        /// Each operation depends on up to two earlier ones, chosen by a seeded generator.
        case randomDAG = "random-dag"
    }

    public static func make(_ shape: Shape, operations n: Int, seed: UInt64 = 1) -> Scenario {
        var rng = Xoshiro256(seed: seed)
        var edges: [Edge] = []
        for op in 1..<max(1, n) {
            switch shape {
            case .chain: edges.append(Edge(op, on: op - 1))
            case .fanOut: edges.append(Edge(op, on: 0))
            case .randomDAG:
                let a = rng.below(op)
                edges.append(Edge(op, on: a))
                let b = rng.below(op)
                if b != a { edges.append(Edge(op, on: b)) }
            }
        }
        return Scenario(name: "\(shape.rawValue) of \(n)", queues: [QueueConfig()],
                        operations: Array(repeating: OperationConfig(kind: .main([.work(1)])), count: n),
                        dependencies: edges,
                        driver: [DriverStep(.addBatch(ops: Array(0..<n), queue: 0, wait: false)), DriverStep(.waitUntilAllFinished(queue: 0))])
    }
}
