extension Scenario {
    /// The constructs of API surface 2 (`Specs/api-surface.md`) this scenario uses, named as the
    /// scenario format names them, each once, in a fixed order. A driver that does not declare
    /// `apiSurface2` cannot run a scenario for which this is not empty: the harness says which
    /// constructs stand in the way instead of sending it.
    public var surface2Constructs: [String] {
        var used: [String] = []
        func note(_ name: String) { if !used.contains(name) { used.append(name) } }
        if queues.contains(where: { $0.name != nil }) { note("queue name") }
        if operations.contains(where: { $0.readyAfterSignal != nil }) { note("readyAfterSignal") }
        for step in driver {
            if case .signaled? = step.after { note("signaled trigger") }
            switch step.action {
            case .addBlock: note("addBlock")
            case .readSuspended: note("readSuspended")
            case .sleep: note("sleep")
            case .read(.executionBlocks, _): note("executionBlocks read")
            default: break
            }
        }
        func scan(_ steps: [Step]) {
            for step in steps {
                switch step {
                case .readCurrentQueue: note("readCurrentQueue")
                case .read(.executionBlocks, _): note("executionBlocks read")
                case .if(_, let a, let b): scan(a); scan(b)
                case .repeat(_, let a): scan(a)
                default: break
                }
            }
        }
        stepLists.forEach(scan)
        return used
    }

    /// The constructs of API surface 3 (`Specs/api-surface.md`) this scenario uses, as
    /// `surface2Constructs` names those of surface 2: a driver that does not declare
    /// `apiSurface3` is not sent a scenario for which this is not empty.
    public var surface3Constructs: [String] {
        var used = stepLists.contains { !Self.cancelledQueues($0).isEmpty } ? ["cancelAll step"] : []
        if driver.contains(where: {
            if case .releaseQueue = $0.action { return true }; return false
        }) {
            used.append("releaseQueue")
        }
        if driver.contains(where: {
            if case .readOperations = $0.action { return true }; return false
        }) {
            used.append("readOperations")
        }
        return used
    }

    /// The constructs of API surface 4 (`Specs/api-surface.md`) this scenario uses: a driver
    /// that does not declare `apiSurface4` is not sent a scenario for which this is not empty.
    public var surface4Constructs: [String] {
        var used: [String] = []
        for step in driver {
            switch step.action {
            case .readMainQueue where !used.contains("readMainQueue"): used.append("readMainQueue")
            case .readQueueDeallocated where !used.contains("readQueueDeallocated"): used.append("readQueueDeallocated")
            default: break
            }
        }
        return used
    }

    /// The Dispatch constructs this scenario uses (`setUnderlyingQueue`, `readUnderlyingQueue`,
    /// `onDispatchQueue`): a driver that does not declare `dispatchQueues` is not sent it.
    public var dispatchConstructs: [String] {
        var used: [String] = []
        if driver.contains(where: { if case .setUnderlyingQueue = $0.action { return true }; return false }) {
            used.append("setUnderlyingQueue")
        }
        if stepLists.contains(where: Self.readsUnderlyingQueue) { used.append("readUnderlyingQueue") }
        if driver.contains(where: { $0.onDispatchQueue != nil }) { used.append("onDispatchQueue") }
        return used
    }

    /// How many dispatch queues the scenario names: one more than the highest number a
    /// `setUnderlyingQueue` or an `onDispatchQueue` gives, 0 for none.
    public var dispatchQueueCount: Int {
        driver.reduce(0) { count, step in
            var most = step.onDispatchQueue ?? -1
            if case .setUnderlyingQueue(_, let d?) = step.action { most = max(most, d) }
            return max(count, most + 1)
        }
    }

    /// Whether `steps` hold a `readUnderlyingQueue` step at any depth.
    static func readsUnderlyingQueue(_ steps: [Step]) -> Bool {
        steps.contains { step in
            switch step {
            case .readUnderlyingQueue: return true
            case .if(_, let a, let b): return readsUnderlyingQueue(a) || readsUnderlyingQueue(b)
            case .repeat(_, let a): return readsUnderlyingQueue(a)
            default: return false
            }
        }
    }

    /// The queues the `cancelAll` steps of `steps` name, at any depth, in order.
    static func cancelledQueues(_ steps: [Step]) -> [Int] {
        steps.flatMap { step -> [Int] in
            switch step {
            case .cancelAll(let q): return [q]
            case .if(_, let a, let b): return cancelledQueues(a) + cancelledQueues(b)
            case .repeat(_, let a): return cancelledQueues(a)
            default: return []
            }
        }
    }
}
