import Conformance
import Foundation
import OperationSpec
import ReferenceEngine
import Testing

/// A user's own asynchronous `Operation` subclass under test: the scenario kind that stands for
/// it, the generator that makes it, the reference engine that runs it as the correct subclass,
/// and the driver that makes instances of the user's class (`OperationDriver(name:subclass:)`,
/// `SubclassProbe`). `Examples/async-operation` is a package that tests two classes this way.
@Suite("A subclass under test")
struct SubclassUnderTestTests {
    /// A careful asynchronous base class, as a user would write one, and its probed form.
    class Careful: Operation, @unchecked Sendable {   // sound: the flags are read and written under `lock`
        private let lock = NSLock()
        private var executing = false, finished = false
        override var isAsynchronous: Bool { true }
        override var isExecuting: Bool { lock.withLock { executing } }
        override var isFinished: Bool { lock.withLock { finished } }
        override func start() {
            if isCancelled { finish(); return }
            willChangeValue(forKey: "isExecuting"); lock.withLock { executing = true }; didChangeValue(forKey: "isExecuting")
            execute()
        }
        func execute() { finish() }
        func finish() {
            guard lock.withLock({ !finished }) else { return }
            willChangeValue(forKey: "isFinished"); willChangeValue(forKey: "isExecuting")
            lock.withLock { executing = false; finished = true }
            didChangeValue(forKey: "isExecuting"); didChangeValue(forKey: "isFinished")
        }
    }
    final class Probed: Careful, @unchecked Sendable {   // sound: `probe` is a `let`
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

    @Test("the same seed makes the same scenario with the implementation's subclass in place of the step programs")
    func generation() {
        var found = 0
        for seed in UInt64(1)...200 {
            let plain = ScenarioGenerator(options: GeneratorOptions()).generate(seed: seed)
            let own = ScenarioGenerator(options: GeneratorOptions(subclass: true)).generate(seed: seed)
            #expect(own.driver == plain.driver && own.dependencies == plain.dependencies && own.queues == plain.queues)
            for (a, b) in zip(plain.operations, own.operations) {
                if case .concurrent(let p) = a.kind {
                    found += 1
                    #expect(b.kind == .subclass(p.main.filter { if case .call = $0 { return false }; return true }))
                } else {
                    #expect(a == b)
                }
            }
        }
        #expect(found > 50)
        // Options without the subclass are written as before (finding files keep their bytes).
        #expect(!String(decoding: JSONCodec.encode(GeneratorOptions()), as: UTF8.self).contains("subclass"))
        let back = try? JSONCodec.decode(GeneratorOptions.self, from: JSONCodec.encode(GeneratorOptions(subclass: true)), source: "t")
        #expect(back?.subclass == true)
    }

    @Test("the reference engine runs the implementation's subclass as the correct one: no rule breaks")
    func reference() {
        let r = Runner(RunConfiguration(impl: ReferenceImplementation(), seed: 3, count: 300,
                                        generator: GeneratorOptions(subclass: true), shrink: false)).run()
        #expect(r.findings.isEmpty, "\(r.findings.map(\.rule))")
    }

    @Test("a subclass's work cannot change its state: only the subclass's own code does")
    func validation() {
        let s = Scenario(operations: [OperationConfig(kind: .subclass([.work(1), .set(.isFinished, true)]))])
        #expect(s.problems().first?.contains("an instance of the implementation's own subclass") == true, "\(s.problems())")
    }

    @Test("the driver makes the user's instances, sees their calls, getters and work, and names the class in its hello")
    func driver() throws {
        let driver = OperationDriver(name: "careful", subclass: { Probed($0) })
        let scenario = Scenario(queues: [QueueConfig()],
                                operations: [OperationConfig(kind: .subclass([.work(1)])), OperationConfig(kind: .subclass([.work(1)]))],
                                dependencies: [Edge(1, on: 0)],
                                driver: [DriverStep(.addBatch(ops: [0, 1], queue: 0, wait: false)), DriverStep(.waitUntilAllFinished(queue: 0))])
        let lines = Lines()
        let request = DriverProtocol.Request(impl: "careful", scenario: scenario, scheduleSeed: 1, unitMicroseconds: 1000)
        #expect(driver.serve(requestLine: JSONCodec.line(request), write: lines.append) == 0)
        let messages = try lines.all.map { try JSONCodec.decode(DriverProtocol.Message.self, from: Data($0.utf8), source: "driver") }
        guard case .hello(_, _, let capabilities, let subclass)? = messages.first else { Issue.record("no hello"); return }
        #expect(subclass == "Probed" && !capabilities.contains(.superStart) && capabilities.contains(.finishing))
        let events = messages.compactMap { if case .event(let e) = $0 { return e }; return nil }
        let trace = Trace(impl: "careful", scheduleSeed: 1, capabilities: capabilities, events: events)
        #expect(trace.ending == .complete, "\(events.suffix(3))")
        for op in 0..<2 {
            #expect(events.contains { $0.kind == .call(.start(op, by: .queue)) })
            #expect(events.contains { $0.kind == .mainBegan(op: op, threadPriority: -1) })
            #expect(events.contains { $0.kind == .read(op: op, .isFinished, .bool(true)) })
        }
        let broken = RuleBook.verdicts(scenario: scenario, trace: trace, profile: .classReference).flatMap { v -> [String] in
            if case .checked(let r) = v.verdict { return r.violations.map(\.rule) }; return []
        }
        #expect(broken.isEmpty, "\(broken)")

        // A driver without a subclass refuses such a scenario in one sentence.
        let plain = Lines()
        #expect(OperationDriver(name: "careful", queue: { OperationQueue() }).serve(requestLine: JSONCodec.line(request), write: plain.append) == 2)
        #expect(plain.all.first?.contains("has none (OperationDriver(name:subclass:) makes a driver that has)") == true)
    }

    /// Lines a driver writes. `@unchecked Sendable` is sound: `lines` is read and written only
    /// under `lock`.
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ s: String) { lock.withLock { lines.append(s.hasSuffix("\n") ? String(s.dropLast()) : s) } }
        var all: [String] { lock.withLock { lines } }
    }
}
