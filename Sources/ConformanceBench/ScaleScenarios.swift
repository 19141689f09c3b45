import Conformance
import OperationSpec
import ReferenceEngine

/// Large scenarios of one shape, for measuring how the engine and the checkers grow with size:
/// plain operations added in one batch to one default-width queue, then a wait for all of them.
package enum ScaleScenarios {
    package enum Shape: String, CaseIterable, Sendable {
        /// Each operation depends on the one before it.
        case chain
        /// Every operation depends on operation 0.
        case fanOut = "fan-out"
        /// Each operation depends on up to two earlier ones, chosen by a seeded generator.
        case randomDAG = "random-dag"
    }

    package static func make(_ shape: Shape, operations n: Int, seed: UInt64 = 1) -> Scenario {
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
        return Scenario(
            name: "\(shape.rawValue) of \(n)", queues: [QueueConfig()],
            operations: Array(repeating: OperationConfig(kind: .main([.work(1)])), count: n),
            dependencies: edges,
            driver: [
                DriverStep(.addBatch(ops: Array(0..<n), queue: 0, wait: false)),
                DriverStep(.waitUntilAllFinished(queue: 0))
            ])
    }
}

/// A scenario of few operations and very many driver steps, the shape of a long hand-written
/// or machine-made scenario file: reading it, running it and checking it must each take time
/// linear in its steps (issue 28 found 20,000 steps took 22 s to read and 200,000 over five
/// minutes; `bench` shows the figure).
package enum LongScenario {
    /// `steps` driver steps on eight operations of one queue, chosen by a seeded generator:
    /// cancels, reads of isReady and isFinished, suspends and resumes, width changes, between an
    /// add of all eight and a wait for the queue.
    package static func make(steps: Int, seed: UInt64 = 1) -> Scenario {
        var rng = Xoshiro256(seed: seed)
        let ops = 8
        var driver = [DriverStep(.addBatch(ops: Array(0..<ops), queue: 0, wait: false))]
        for _ in 0..<max(0, steps - 3) {
            let op = Int(rng.next() % UInt64(ops))
            switch rng.next() % 10 {
            case 0, 1, 2: driver.append(DriverStep(.cancel(op)))
            case 3, 4: driver.append(DriverStep(.read(.isReady, op: op)))
            case 5: driver.append(DriverStep(.suspend(queue: 0)))
            case 6: driver.append(DriverStep(.resume(queue: 0)))
            case 7: driver.append(DriverStep(.setMaxConcurrent(queue: 0, 2)))
            default: driver.append(DriverStep(.read(.isFinished, op: op)))
            }
        }
        driver += [DriverStep(.resume(queue: 0)), DriverStep(.waitUntilAllFinished(queue: 0))]
        return Scenario(
            name: "\(steps) driver steps", queues: [QueueConfig()],
            operations: (0..<ops).map { _ in OperationConfig(kind: .main([.work(1)])) }, dependencies: [],
            driver: driver)
    }
}
