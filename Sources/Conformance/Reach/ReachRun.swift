import Dispatch
import OperationSpec
import Synchronization

extension ReachTable {
    /// The table of the cases `configuration` names (the run's seed, count and generator
    /// options, as `opconform run` would make them), run on its implementation `jobs` at a time.
    /// Nothing is judged: a case counts for the cells its trace shows, whatever it broke.
    public static func measure(_ configuration: RunConfiguration, jobs: Int) -> ReachTable {
        let c = configuration
        // The table, shared by the workers: each adds a whole case under the lock, and the sums,
        // minima and counts it keeps do not depend on the order the cases end in.
        let shared = Mutex(ReachTable())
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, c.count))) { _ in
            while true {
                let k = next.add(1, ordering: .relaxed).oldValue
                guard k < c.count, c.stop?.isRequested != true else { return }
                let identity = CaseIdentity.of(run: c.seed, index: k, options: c.generator)
                let scenario = identity.scenario()
                let trace = c.impl.run(scenario, scheduleSeed: identity.scheduleSeed)
                shared.withLock { $0.add(case: k, scenario: scenario, trace: trace) }
            }
        }
        c.impl.endSessions()
        return shared.withLock { $0 }
    }
}
