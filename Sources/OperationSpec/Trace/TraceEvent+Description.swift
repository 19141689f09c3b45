extension TraceEvent: CustomStringConvertible {
    /// One line: `#seq t<thread> what happened`, the form witnesses and replays print.
    public var description: String { "#\(seq) t\(thread) \(kind)" }
}

extension EventKind: CustomStringConvertible {
    public var description: String {
        switch self {
        case .threadStarted(let name, let q): return "thread \"\(name)\" starts" + (q.map { " for queue \($0)" } ?? "")
        case .stepIssued(let i): return "driver step \(i) issued"
        case .stepDone(let i): return "driver step \(i) done"
        case .triggerMissed(let i): return "driver step \(i): its trigger never happened"
        case .call(let c): return "\(c) called"
        case .returned(let c): return "\(c) returned"
        case .threw(let c, let k, let m): return "\(c) threw \(k.rawValue): \(m)"
        case .mainBegan(let op, let p): return "op \(op) main began (thread priority \(p))"
        case .mainEnded(let op): return "op \(op) main ended"
        case .blockBegan(let op, let b): return "op \(op) block \(b) began"
        case .blockEnded(let op, let b): return "op \(op) block \(b) ended"
        case .completionBegan(let op, let p): return "op \(op) completion block began (thread priority \(p))"
        case .completionEnded(let op): return "op \(op) completion block ended"
        case .willChange(let op, let k, let v): return "op \(op) will change \(k.rawValue) (now \(v))"
        case .didChange(let op, let k, let v): return "op \(op) did change \(k.rawValue) (now \(v))"
        case .read(let op, let k, let v): return "op \(op) \(k.rawValue) read \(v)"
        case .set(let op, let k, let v): return "op \(op) sets its \(k.rawValue) ivar to \(v ? "YES" : "NO")"
        case .operationCount(let q, let n): return "queue \(q) operationCount read \(n)"
        case .operations(let q, let ops): return "queue \(q) operations read \(ops.map { $0 < 0 ? "?" : "op \($0)" })"
        case .suspended(let q, let b): return "queue \(q) isSuspended read \(b ? "YES" : "NO")"
        case .announced(let op, let key, let affects):
            let declared = affects.map { $0.isEmpty ? " (declared as affecting nothing)"
                : " (declared as affecting " + $0.map(\.rawValue).joined(separator: ", ") + ")" } ?? ""
            return "op \(op) announced a change of \"\(key)\"" + declared
        case .currentQueue(let op, let q):
            return "op \(op) read currentQueue: " + (q.map { "queue \($0)" } ?? "none of the scenario's queues")
        case .mainQueue(let same, let suspended, let current):
            return "mainQueue read: "
                + (same ? "the same object as the first read" : "another object than the first read")
                + (suspended ? ", suspended" : ", not suspended")
                + (current ? ", and currentQueue here" : ", not currentQueue here")
        case .queueDeallocated(let q, let gone):
            return "queue \(q) " + (gone ? "was deallocated" : "was not deallocated yet")
        case .underlyingQueue(let op, let d):
            return "op \(op) read currentQueue's underlyingQueue: "
                + (d.map { "dispatch queue \($0)" } ?? "none of the scenario's")
        case .work(let op, let n): return "op \(op) works \(n) unit" + (n == 1 ? "" : "s")
        case .signal(let t): return "token \(t) signalled"
        case .awaited(let t, let ok): return "token \(t) " + (ok ? "received" : "timed out")
        case .invocationResult(let op): return "op \(op) result returned"
        case .crash(let sig, let m): return "crash (signal \(sig)): \(m)"
        case .hang(let what): return "hang: \(what)"
        case .unsupported(let why): return "step not supported: \(why)"
        case .cut(let why): return "run cut short: \(why)"
        case .breach(let what): return "the driver broke the protocol: \(what)"
        case .end: return "end of run"
        }
    }
}

extension Call: CustomStringConvertible {
    public var description: String {
        switch self {
        case .start(let op, let by): return "start(op \(op)) by \(by.rawValue)"
        case .superStart(let op): return "[super start](op \(op))"
        case .cancel(let op): return "cancel(op \(op))"
        case .addOperation(let op, let q): return "addOperation(op \(op), queue \(q))"
        case .addOperations(let ops, let q, let w): return "addOperations(\(ops), queue \(q), wait: \(w))"
        case .addDependency(let op, let on): return "addDependency(op \(op) on \(on))"
        case .removeDependency(let op, let on): return "removeDependency(op \(op) on \(on))"
        case .setCompletionBlock(let op): return "setCompletionBlock(op \(op))"
        case .addExecutionBlock(let op): return "addExecutionBlock(op \(op))"
        case .setQueuePriority(let op, let p): return "setQueuePriority(op \(op), \(p))"
        case .setThreadPriority(let op, let p): return "setThreadPriority(op \(op), \(p))"
        case .cancelAll(let q): return "cancelAllOperations(queue \(q))"
        case .setSuspended(let q, let s): return "setSuspended(queue \(q), \(s))"
        case .setMaxConcurrent(let q, let n): return "setMaxConcurrentOperationCount(queue \(q), \(n))"
        case .waitUntilFinished(let op): return "waitUntilFinished(op \(op))"
        case .waitUntilAllFinished(let q): return "waitUntilAllOperationsAreFinished(queue \(q))"
        case .result(let op): return "result(op \(op))"
        case .addBlock(let op, let q): return "addOperationWithBlock(block of op \(op), queue \(q))"
        case .releaseQueue(let q): return "release(queue \(q)): the driver let go of it"
        case .setUnderlyingQueue(let q, let d):
            return "setUnderlyingQueue(queue \(q), " + (d.map { "dispatch queue \($0)" } ?? "nil") + ")"
        }
    }
}
