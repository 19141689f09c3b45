import OperationSpec
import ReferenceEngine
import Testing

/// API surface 2 on the reference engine (`Specs/reference-engine.md`), each construct on a
/// hand-written scenario under many schedule seeds, with the events that matter asserted.
@Suite("API surface 2 on the reference engine")
struct Surface2EngineTests {
    static let seeds: ClosedRange<UInt64> = 1...25

    func run(_ s: Scenario, seed: UInt64, faults: [Fault] = []) -> Trace {
        #expect(s.problems().isEmpty, "\(s.problems())")
        return ReferenceEngine(options: EngineOptions(faults: faults)).run(s, scheduleSeed: seed)
    }

    func index(_ t: Trace, _ kind: EventKind) -> Int? { t.events.firstIndex { $0.kind == kind } }

    /// Whether any event names `op` as an operation object would: KVO, reads, calls, main.
    func objectEvents(_ t: Trace, _ op: Int) -> [EventKind] {
        t.events.map(\.kind).filter { kind in
            switch kind {
            case .willChange(let o, _, _), .didChange(let o, _, _), .read(let o, _, _), .mainBegan(let o, _), .mainEnded(let o),
                 .completionBegan(let o, _), .completionEnded(let o):
                return o == op
            case .call(let c), .returned(let c): if case .addBlock = c { return false }; return c.op == op
            default: return false
            }
        }
    }

    // MARK: addBlock

    @Test("addBlock: call and return on the driving thread, the block between blockBegan and blockEnded on a worker, and no object events")
    func addBlock() throws {
        let s = Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .block([[.work(2), .readCurrentQueue]]))],
                         driver: [DriverStep(.addBlock(op: 0, queue: 0)), DriverStep(.waitUntilAllFinished(queue: 0))])
        for seed in Self.seeds {
            let t = run(s, seed: seed)
            #expect(t.ending == .complete)
            let call = try #require(index(t, .call(.addBlock(0, queue: 0))))
            let returned = try #require(index(t, .returned(.addBlock(0, queue: 0))))
            #expect(call < returned && t.events[call].thread == 0 && t.events[returned].thread == 0)
            let began = try #require(index(t, .blockBegan(op: 0, block: 0)))
            let ended = try #require(index(t, .blockEnded(op: 0, block: 0)))
            let current = try #require(index(t, .currentQueue(op: 0, queue: 0)))
            #expect(began < current && current < ended && t.events[began].thread != 0)
            #expect(t.events[began].thread == t.events[ended].thread)
            #expect(objectEvents(t, 0).isEmpty, "seed \(seed): \(objectEvents(t, 0))")
            // The wait after it reads nothing of an operation the driver cannot reach.
            let waited = try #require(index(t, .returned(.waitUntilAllFinished(queue: 0))))
            #expect(ended < waited)
            #expect(t.events.contains { $0.kind == .operationCount(queue: 0, 0) })
        }
    }

    @Test("addBlock: the block's operation is counted by the queue, limited by its width, and waited for")
    func addBlockCounted() throws {
        let s = Scenario(queues: [QueueConfig(maxConcurrent: 1, suspended: true)],
                         operations: [OperationConfig(kind: .block([[.work(3)]])), OperationConfig(kind: .block([[.work(1)]]))],
                         driver: [DriverStep(.addBlock(op: 0, queue: 0)), DriverStep(.addBlock(op: 1, queue: 0)), DriverStep(.readOperationCount(queue: 0)),
                                  DriverStep(.resume(queue: 0)), DriverStep(.waitUntilAllFinished(queue: 0)), DriverStep(.readOperationCount(queue: 0))])
        for seed in Self.seeds {
            let t = run(s, seed: seed)
            #expect(t.ending == .complete)
            let counts = t.events.compactMap { if case .operationCount(0, let n) = $0.kind { return n }; return nil }
            #expect(counts == [2, 0, 0], "seed \(seed): \(counts)")
            // Width 1: the second block begins only after the first ended, before the wait returns.
            let end0 = try #require(index(t, .blockEnded(op: 0, block: 0)))
            let begin1 = try #require(index(t, .blockBegan(op: 1, block: 0)))
            let end1 = try #require(index(t, .blockEnded(op: 1, block: 0)))
            let waited = try #require(index(t, .returned(.waitUntilAllFinished(queue: 0))))
            #expect(end0 < begin1 && end1 < waited)
        }
    }

    @Test("addBlock: cancelAllOperations cancels the block's operation, unseen, and its block never runs")
    func addBlockCancelled() {
        let s = Scenario(queues: [QueueConfig(suspended: true)], operations: [OperationConfig(kind: .block([[.work(1)]]))],
                         driver: [DriverStep(.addBlock(op: 0, queue: 0)), DriverStep(.cancelAll(queue: 0)), DriverStep(.resume(queue: 0)),
                                  DriverStep(.waitUntilAllFinished(queue: 0)), DriverStep(.readOperationCount(queue: 0))])
        for seed in Self.seeds {
            let t = run(s, seed: seed)
            #expect(t.ending == .complete)
            #expect(index(t, .returned(.cancelAll(queue: 0))) != nil)
            #expect(!t.events.contains { if case .blockBegan = $0.kind { return true }; return false }, "seed \(seed)")
            #expect(objectEvents(t, 0).isEmpty, "seed \(seed): \(objectEvents(t, 0))")
            #expect(t.events.last { if case .operationCount = $0.kind { return true }; return false }?.kind == .operationCount(queue: 0, 0))
        }
    }

    @Test("addBlock: the block runs for its queue (and the engine notes it so)")
    func addBlockCurrentQueue() {
        let s = Scenario(queues: [QueueConfig(), QueueConfig()], operations: [OperationConfig(kind: .block([[.readCurrentQueue]]))],
                         driver: [DriverStep(.addBlock(op: 0, queue: 1)), DriverStep(.waitUntilAllFinished(queue: 1))])
        for seed in Self.seeds {
            let (t, current) = ReferenceEngine().runNotingCurrentQueues(s, scheduleSeed: seed)
            guard let e = t.events.first(where: { if case .currentQueue = $0.kind { return true }; return false }) else {
                Issue.record("seed \(seed): no currentQueue event"); continue
            }
            #expect(e.kind == .currentQueue(op: 0, queue: 1) && current[e.thread] == 1)
        }
    }

    // MARK: readSuspended, sleep, the signaled trigger

    @Test("readSuspended: what isSuspended returns, on the driving thread, with no call")
    func readSuspended() {
        let s = Scenario(queues: [QueueConfig(suspended: true)], operations: [],
                         driver: [DriverStep(.readSuspended(queue: 0)), DriverStep(.resume(queue: 0)), DriverStep(.readSuspended(queue: 0)),
                                  DriverStep(.suspend(queue: 0)), DriverStep(.readSuspended(queue: 0))])
        let t = run(s, seed: 1)
        let reads = t.events.filter { if case .suspended = $0.kind { return true }; return false }
        #expect(reads.map(\.kind) == [.suspended(queue: 0, true), .suspended(queue: 0, false), .suspended(queue: 0, true)])
        #expect(reads.allSatisfy { $0.thread == 0 })
        // Nothing but the read between the step's stepIssued and stepDone.
        let first = t.events.firstIndex { $0.kind == .stepIssued(0) }!
        #expect(t.events[first + 1].kind == .suspended(queue: 0, true) && t.events[first + 2].kind == .stepDone(0))
    }

    @Test("sleep: the driving thread idles as long as the work it names, and logs nothing")
    func sleep() throws {
        let s = Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .main([.work(3)]))],
                         driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.sleep(10)), DriverStep(.read(.isFinished, op: 0)),
                                  DriverStep(.waitUntilAllFinished(queue: 0))])
        var withoutSleep = 0
        for seed in Self.seeds {
            let t = run(s, seed: seed)
            #expect(t.ending == .complete)
            let issued = try #require(index(t, .stepIssued(1)))
            let done = try #require(index(t, .stepDone(1)))
            #expect(t.events[issued...done].filter { $0.thread == 0 }.map(\.kind) == [.stepIssued(1), .stepDone(1)])
            // Ten units are enough for three units of work: the operation has finished.
            #expect(t.events.contains { $0.kind == .read(op: 0, .isFinished, .bool(true)) }, "seed \(seed)")
            var quick = s
            quick.driver.remove(at: 1)
            if run(quick, seed: seed).events.contains(where: { $0.kind == .read(op: 0, .isFinished, .bool(false)) }) { withoutSleep += 1 }
        }
        #expect(withoutSleep == Self.seeds.count, "without the sleep the read comes before the finish")
    }

    @Test("the signaled trigger: the step waits until the token is signalled; with no one left to signal it, it is missed and runs")
    func signaledTrigger() throws {
        let s = Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .main([.work(2), .signal(4), .work(1)]))],
                         driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(after: .signaled(4), .readOperationCount(queue: 0)),
                                  DriverStep(after: .signaled(5), .waitUntilAllFinished(queue: 0))])
        for seed in Self.seeds {
            let t = run(s, seed: seed)
            #expect(t.ending == .complete)
            let signal = try #require(index(t, .signal(token: 4)))
            let issued = try #require(index(t, .stepIssued(1)))
            #expect(signal < issued, "seed \(seed)")
            #expect(index(t, .triggerMissed(1)) == nil)
            // Token 5 never comes: once nothing else can run, the step is missed and runs anyway.
            let missed = try #require(index(t, .triggerMissed(2)))
            #expect(index(t, .mainEnded(op: 0))! < missed && missed < index(t, .stepIssued(2))!)
        }
    }

    // MARK: readCurrentQueue, executionBlocks, names

    @Test("readCurrentQueue: the queue for code a queue runs (main, blocks), none for the driver, completion blocks and detached threads")
    func readCurrentQueue() {
        let detachedMain = ConcurrentProgram.correct(work: [])
        var program = detachedMain
        program.main = [.readCurrentQueue] + program.main
        let s = Scenario(queues: [QueueConfig(), QueueConfig()],
                         operations: [OperationConfig(kind: .main([.readCurrentQueue]), completion: [.readCurrentQueue]),
                                      OperationConfig(kind: .main([.readCurrentQueue])),
                                      OperationConfig(kind: .block([[.readCurrentQueue], [.readCurrentQueue]])),
                                      OperationConfig(kind: .concurrent(program)),
                                      OperationConfig(kind: .invocation([.readCurrentQueue]))],
                         driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.start(1)), DriverStep(.add(op: 2, queue: 1)),
                                  DriverStep(.add(op: 3, queue: 1)), DriverStep(.add(op: 4, queue: 0)), DriverStep(.perform(op: 4, [.readCurrentQueue])),
                                  DriverStep(.waitUntilAllFinished(queue: 0)), DriverStep(.waitUntilAllFinished(queue: 1)), DriverStep(.sleep(3))])
        for seed in Self.seeds {
            let t = run(s, seed: seed)
            #expect(t.ending == .complete)
            let reads = t.events.filter { if case .currentQueue = $0.kind { return true }; return false }
            func values(_ op: Int) -> [Int?] { reads.compactMap { if case .currentQueue(op, let q) = $0.kind { return q }; return nil } }
            // Op 0: main on queue 0's worker, then its completion block (none).
            #expect(values(0) == [0, nil], "seed \(seed)")
            #expect(values(1) == [nil], "started by hand from the driving thread")
            #expect(values(2) == [1, 1], "both blocks run for the queue main runs for")
            #expect(values(3) == [nil], "a concurrent subclass's main on a detached thread")
            // Op 4: main on queue 0, and code the driver performs (none), in either order.
            #expect(values(4).sorted { ($0 ?? -1) < ($1 ?? -1) } == [nil, 0], "seed \(seed)")
            // Op 1's main, started by hand, and the performed code both run on the driving thread.
            #expect(reads.filter { $0.thread == 0 }.map(\.kind) == [.currentQueue(op: 1, queue: nil), .currentQueue(op: 4, queue: nil)])
        }
    }

    @Test("executionBlocks: the number of blocks, after addExecutionBlock too, read by the driver and by a block; never notified")
    func executionBlocks() {
        let s = Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .block([[.read(.executionBlocks, .this)]]))],
                         driver: [DriverStep(.read(.executionBlocks, op: 0)), DriverStep(.addExecutionBlock(op: 0, [.work(1)])),
                                  DriverStep(.read(.executionBlocks, op: 0)), DriverStep(.add(op: 0, queue: 0)),
                                  DriverStep(.waitUntilAllFinished(queue: 0)), DriverStep(.read(.executionBlocks, op: 0))])
        for seed in Self.seeds {
            let t = run(s, seed: seed)
            #expect(t.ending == .complete)
            let driverReads = t.events.filter { $0.thread == 0 }.compactMap { if case .read(0, .executionBlocks, let v) = $0.kind { return v }; return nil }
            #expect(driverReads == [.int(1), .int(2), .int(2)])
            #expect(t.events.contains { $0.thread != 0 && $0.kind == .read(op: 0, .executionBlocks, .int(2)) })
            #expect(!t.events.contains {
                switch $0.kind { case .willChange(_, .executionBlocks, _), .didChange(_, .executionBlocks, _): return true; default: return false }
            })
        }
    }

    @Test("a named queue's workers are <name>_<n>; an unnamed queue's NSOperationQ_<n>; the name is no call")
    func queueNames() {
        let s = Scenario(queues: [QueueConfig(name: "fetch"), QueueConfig()], operations: [OperationConfig(kind: .main([])), OperationConfig(kind: .main([]))],
                         driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.waitUntilAllFinished(queue: 0)),
                                  DriverStep(.add(op: 1, queue: 1)), DriverStep(.waitUntilAllFinished(queue: 1))])
        for seed in Self.seeds {
            let t = run(s, seed: seed)
            let workers = t.events.compactMap { if case .threadStarted(let name, let q?) = $0.kind { return "\(q) \(name)" }; return nil }
            #expect(workers == ["0 fetch_1", "1 NSOperationQ_2"], "seed \(seed): \(workers)")
            // Setting the name is configuration: nothing is logged before the first step.
            #expect(t.events.prefix(2).map(\.kind) == [.threadStarted(name: "main", queue: nil), .stepIssued(0)])
        }
    }

    // MARK: readyAfterSignal

    /// Op 0 waits for token 7 in its isReady override; the driver adds it, sleeps, then signals.
    static func override(cancelFirst: Bool = false) -> Scenario {
        Scenario(queues: [QueueConfig()], operations: [OperationConfig(kind: .main([.work(1)]), readyAfterSignal: 7)],
                 driver: (cancelFirst ? [DriverStep(.cancel(0))] : []) + [
                    DriverStep(.read(.isReady, op: 0)), DriverStep(.add(op: 0, queue: 0)), DriverStep(.sleep(5)),
                    DriverStep(.read(.isReady, op: 0)), DriverStep(.perform(op: 0, [.signal(7)])),
                    DriverStep(.read(.isReady, op: 0)), DriverStep(.waitUntilAllFinished(queue: 0))])
    }

    @Test("readyAfterSignal: isReady NO until the token, no start before the signal, will/did isReady right after it")
    func readyAfterSignal() throws {
        let s = Self.override()
        for seed in Self.seeds {
            let t = run(s, seed: seed)
            #expect(t.ending == .complete)
            let ready = t.events.compactMap { if case .read(0, .isReady, let v) = $0.kind { return v }; return nil }
            #expect(ready == [.bool(false), .bool(false), .bool(true)], "seed \(seed)")
            let signal = try #require(index(t, .signal(token: 7)))
            #expect(t.events[signal + 1].kind == .willChange(op: 0, .isReady, .bool(true)))
            #expect(t.events[signal + 2].kind == .didChange(op: 0, .isReady, .bool(true)))
            #expect(t.events[signal].thread == t.events[signal + 1].thread && t.events[signal + 1].thread == t.events[signal + 2].thread)
            let start = try #require(index(t, .call(.start(0, by: .queue))))
            #expect(signal < start, "seed \(seed)")
            #expect(RuleBook.violations(scenario: s, trace: t, profile: .guide).isEmpty, "seed \(seed)")
        }
    }

    @Test("readyAfterSignal: a cancelled operation still waits for its token")
    func cancelledWaitsForToken() throws {
        let s = Self.override(cancelFirst: true)
        for seed in Self.seeds {
            let t = run(s, seed: seed)
            #expect(t.ending == .complete)
            let ready = t.events.compactMap { if case .read(0, .isReady, let v) = $0.kind { return v }; return nil }
            #expect(ready == [.bool(false), .bool(false), .bool(true)], "seed \(seed)")
            let start = try #require(index(t, .call(.start(0, by: .queue))))
            #expect(try #require(index(t, .signal(token: 7))) < start)
            #expect(index(t, .mainBegan(op: 0, threadPriority: 0.5)) == nil, "a cancelled operation's main does not run")
        }
    }

    @Test("readyAfterSignal with a dependency: the token first leaves it unready (will/did NO), the dependency's finish then makes it ready")
    func overrideAndDependency() throws {
        let s = Scenario(queues: [QueueConfig(suspended: true), QueueConfig()],
                         operations: [OperationConfig(kind: .main([])), OperationConfig(kind: .main([]), readyAfterSignal: 2),
                                      OperationConfig(kind: .main([]), readyAfterSignal: 2)],
                         dependencies: [Edge(1, on: 0)],
                         driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.add(op: 1, queue: 1)), DriverStep(.add(op: 2, queue: 1)),
                                  DriverStep(.perform(op: 0, [.signal(2)])), DriverStep(.read(.isReady, op: 1)),
                                  DriverStep(.resume(queue: 0)), DriverStep(.waitUntilAllFinished(queue: 1))])
        for seed in Self.seeds {
            let t = run(s, seed: seed)
            #expect(t.ending == .complete)
            let signal = try #require(index(t, .signal(token: 2)))
            // Both operations waiting for the token, in operation-number order.
            #expect(t.events[(signal + 1)...(signal + 4)].map(\.kind) == [
                .willChange(op: 1, .isReady, .bool(false)), .didChange(op: 1, .isReady, .bool(false)),
                .willChange(op: 2, .isReady, .bool(true)), .didChange(op: 2, .isReady, .bool(true))])
            #expect(t.events.contains { $0.kind == .read(op: 1, .isReady, .bool(false)) })
            let finished0 = try #require(index(t, .didChange(op: 0, .isFinished, .bool(true))))
            let ready1 = try #require(t.events.lastIndex { $0.kind == .didChange(op: 1, .isReady, .bool(true)) })
            #expect(finished0 < ready1 && ready1 < index(t, .call(.start(1, by: .queue)))!)
            #expect(RuleBook.violations(scenario: s, trace: t, profile: .guide).isEmpty, "seed \(seed)")
        }
    }

    @Test("the ready-override-ignored fault starts the operation before its token comes, and READY-OVERRIDE sees it")
    func readyOverrideIgnored() throws {
        let s = Self.override()
        let check = try #require(RuleBook.check(id: "READY-OVERRIDE"))
        for seed in Self.seeds {
            let t = run(s, seed: seed, faults: [.readyOverrideIgnored])
            #expect(t.ending == .complete)
            let start = try #require(index(t, .call(.start(0, by: .queue))))
            let signal = try #require(index(t, .signal(token: 7)))
            #expect(start < signal, "seed \(seed)")
            // The override itself still says NO: only the queue ignores it.
            #expect(t.events.contains { $0.kind == .read(op: 0, .isReady, .bool(false)) })
            #expect(!check.check(CheckContext(scenario: s, trace: t, profile: .guide)).violations.isEmpty, "seed \(seed)")
            #expect(check.check(CheckContext(scenario: s, trace: run(s, seed: seed), profile: .guide)).violations.isEmpty)
        }
        #expect(Fault(rawValue: "ready-override-ignored") == .readyOverrideIgnored && Fault.readyOverrideIgnored.family == .READY)
    }

    @Test("the same scenario and schedule seed give the same trace")
    func deterministic() {
        let s = Scenario(queues: [QueueConfig(maxConcurrent: 2, name: "io2")],
                         operations: [OperationConfig(kind: .block([[.work(1), .readCurrentQueue, .signal(1)]])),
                                      OperationConfig(kind: .main([.work(2)]), readyAfterSignal: 3)],
                         driver: [DriverStep(.addBlock(op: 0, queue: 0)), DriverStep(.add(op: 1, queue: 0)), DriverStep(after: .signaled(1), .sleep(2)),
                                  DriverStep(.readSuspended(queue: 0)), DriverStep(.perform(op: 1, [.signal(3)])), DriverStep(.waitUntilAllFinished(queue: 0))])
        for seed in Self.seeds { #expect(run(s, seed: seed).events == run(s, seed: seed).events) }
    }
}
