extension Scenario {
    /// Every step list of the scenario, in a fixed order: operation bodies (blocks, programs'
    /// start, main and routines, completion blocks), then the bodies the driver carries.
    public var stepLists: [[Step]] {
        var out: [[Step]] = []
        for o in operations {
            switch o.kind {
            case .main(let body), .invocation(let body): out.append(body)
            case .block(let blocks): out += blocks
            case .concurrent(let p): out += [p.start, p.main] + p.routines.map(\.body)
            case .subclass(let work): out.append(work)
            }
            if let c = o.completion { out.append(c) }
        }
        for step in driver {
            switch step.action {
            case .perform(_, let body), .setCompletionBlock(_, let body), .addExecutionBlock(_, let body):
                out.append(body)
            default: break
            }
        }
        return out
    }

    /// All the work units, and rendezvous timeouts, of the scenario's step lists (and the
    /// driver's sleeps), repeats
    /// multiplied out and both branches of every `if` counted: more than a correct run can spend
    /// working and waiting, even with everything done one after another.
    public var totalWork: Int {
        // A helper call counts as the costliest helper's work (routines call no routines in
        // the generator's programs; a hand-written one that does is bounded by the 5 s floor
        // the drivers add).
        let routines = operations.flatMap { $0.kind.program?.routines ?? [] }
        let costliestRoutine =
            routines.map { r in
                r.body.reduce(0) {
                    if case .work(let n) = $1 { return $0 + max(0, n) }; return $0
                }
            }.max() ?? 0
        func total(_ steps: [Step]) -> Int {
            steps.reduce(0) { sum, step in
                switch step {
                case .call: return sum + costliestRoutine
                case .work(let n): return sum + max(0, n)
                case .await(_, let timeout): return sum + max(0, timeout)
                case .if(_, let then, let otherwise): return sum + total(then) + total(otherwise)
                case .repeat(let n, let body): return sum + max(0, n) * total(body)
                default: return sum
                }
            }
        }
        return stepLists.reduce(0) { $0 + total($1) } + driverSleeps.reduce(0, +)
    }

    /// The units of every driver `sleep` step, in driver order.
    public var driverSleeps: [Int] {
        driver.compactMap { if case .sleep(let n) = $0.action { return max(0, n) }; return nil }
    }

    /// The longest stretch, in work units, that a correct run of one step may spend without
    /// recording anything: the largest `work`, rendezvous timeout or driver `sleep` anywhere. A real
    /// implementation's harness scales its "nothing is happening" windows by it.
    public var longestSilentStep: Int {
        func longest(_ steps: [Step]) -> Int {
            steps.reduce(0) { m, step in
                switch step {
                case .work(let n): return max(m, n)
                case .await(_, let timeout): return max(m, timeout)
                case .if(_, let then, let otherwise): return max(m, longest(then), longest(otherwise))
                case .repeat(_, let body): return max(m, longest(body))
                default: return m
                }
            }
        }
        return max(stepLists.map(longest).max() ?? 0, driverSleeps.max() ?? 0)
    }
}
