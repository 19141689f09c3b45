@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
@testable import OperationDriverKit
import Foundation
import OperationSpec
import Testing

/// Timing noise (issue 18; Specs/driver-protocol.md, "Timing noise"): the request's `noise`, the
/// draws the drivers make from it, and noisy runs that still keep the protocol.
@Suite("Timing noise in the drivers")
struct TimingNoiseTests {
    /// This build's opconform (its `driver` mode is the Foundation driver).
    static let executable = OrphanedDriverTests.built("opconform")
    static var foundationAvailable: Bool { executable != nil }
    static var gnustepAvailable: Bool { GNUstepDriverTests.available }

    /// Listing 2-6's start racing Listing 2-7's completion, and a queue around them.
    static func listings() throws -> Scenario {
        try JSONCodec.loadScenario(at: SpecsDriftTests.root.appendingPathComponent("Fixtures/samples/guide-listings-2-5-to-2-7.json").path)
    }

    static func limits(noise: Int) -> DriverLimits {
        var limits = DriverLimits.standard
        limits.noise = noise
        return limits
    }

    static func foundation(noise: Int) throws -> ChildProcessImplementation {
        ChildProcessImplementation(name: "foundation", capabilities: FoundationDriver.capabilities, command: [try #require(executable), "driver"],
                                   limits: limits(noise: noise), protocolVersion: DriverProtocol.sessionVersion)
    }

    static func gnustep(noise: Int) throws -> ChildProcessImplementation {
        ChildProcessImplementation(name: "gnustep", capabilities: GNUstepDriver.capabilities, command: [try GNUstepDriver.executable()],
                                   limits: limits(noise: noise), protocolVersion: DriverProtocol.sessionVersion)
    }

    // MARK: The request

    @Test("a request carries noise only above 0: without it, its keys and bytes are those of a request before noise")
    func requestField() throws {
        let scenario = try Self.listings()
        let quiet = DriverProtocol.Request(impl: "foundation", scenario: scenario, scheduleSeed: 7, unitMicroseconds: 1000, protocol: 3)
        let zero = DriverProtocol.Request(impl: "foundation", scenario: scenario, scheduleSeed: 7, unitMicroseconds: 1000, protocol: 3, noise: 0)
        #expect(JSONCodec.line(quiet) == JSONCodec.line(zero))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(JSONCodec.line(zero).utf8)) as? [String: Any])
        #expect(object.keys.sorted() == ["impl", "protocol", "scenario", "scheduleSeed", "unitMicroseconds"])
        let noisy = DriverProtocol.Request(impl: "foundation", scenario: scenario, scheduleSeed: 7, unitMicroseconds: 1000, protocol: 3, noise: 2)
        let line = JSONCodec.line(noisy)
        #expect(line.contains(#""noise":2"#), "\(line.prefix(200))")
        // The rest of the line is the quiet request's, the one key aside.
        #expect(line.replacingOccurrences(of: #""noise":2,"#, with: "") == JSONCodec.line(zero))
        let back = try JSONCodec.decode(DriverProtocol.Request.self, from: Data(line.utf8), source: "the request")
        #expect(back == noisy && back.noise == 2)
    }

    @Test("the harness writes noise into the request only when --noise is above 0")
    func harnessWritesNoise() throws {
        // A driver that keeps its request and answers with an empty trace.
        let saved = NSTemporaryDirectory() + "opconform-noise-request-\(UUID().uuidString)"
        let hello = #"{"hello":{"capabilities":["threadIdentity"],"impl":"scripted","protocol":2}}"#
        let started = #"{"event":{"_0":{"kind":{"threadStarted":{"name":"main","queue":null}},"seq":0,"thread":0}}}"#
        let end = #"{"event":{"_0":{"kind":{"end":{}},"seq":1,"thread":0}}}"#
        let script = temporaryFile("cat > '\(saved)'\n" + [hello, started, end, #"{"done":{}}"#].map { "printf '%s\\n' '\($0)'" }.joined(separator: "\n") + "\n")
        defer { try? FileManager.default.removeItem(atPath: saved) }
        let scenario = DriverProtocolTests.scenario
        for noise in [0, 1, 3] {
            let impl = ChildProcessImplementation(name: "scripted", capabilities: [], command: ["/bin/sh", script], limits: Self.limits(noise: noise))
            let trace = impl.run(scenario, scheduleSeed: 5)
            #expect(trace.ending == .complete, "\(trace.events)")
            let sent = try String(contentsOfFile: saved, encoding: .utf8).trimmingCharacters(in: .newlines)
            let request = try JSONCodec.decode(DriverProtocol.Request.self, from: Data(sent.utf8), source: "the request")
            #expect(request.noise == (noise > 0 ? noise : nil))
            #expect(sent.contains(#""noise""#) == (noise > 0), "\(sent.prefix(200))")
        }
    }

    @Test("--noise reaches the limits, replay arguments carry it, and a level outside 0-3 is refused")
    func commandLine() throws {
        #expect(DriverLimits.standard.noise == 0 && !DriverLimits.standard.replayArguments.contains("--noise"))
        #expect(Self.limits(noise: 2).replayArguments == ["--noise", "2"])
        let impl = try Implementations.make("foundation", profile: .guide, faults: [], driver: ["/bin/true"], limits: Self.limits(noise: 3))
        #expect(impl.replayArguments == ["--impl", "foundation", "--noise", "3"])
        let sample = SpecsDriftTests.root.appendingPathComponent("Fixtures/samples/guide-listings-2-5-to-2-7.json").path
        let refused = opconform("sweep", sample, "--noise", "4")
        #expect(refused.status == 2 && refused.err.contains("--noise must be a whole number in 0...3"), "\(refused.err)")
    }

    // MARK: The draws

    @Test("a thread's draws are a function of the schedule seed and its thread number")
    func drawsAreDeterministic() throws {
        func sequence(level: Int, seed: UInt64, thread: Int, count: Int = 256) throws -> [TimingNoise.Action] {
            var draws = try #require(TimingNoise(level: level, scheduleSeed: seed)).draws(thread: thread)
            return (0..<count).map { _ in draws.next() }
        }
        #expect(TimingNoise(level: 0, scheduleSeed: 1) == nil, "level 0 makes no draws at all")
        let a = try sequence(level: 2, seed: 42, thread: 1)
        #expect(try sequence(level: 2, seed: 42, thread: 1) == a)
        #expect(try sequence(level: 2, seed: 42, thread: 2) != a, "another thread, another stream")
        #expect(try sequence(level: 2, seed: 43, thread: 1) != a, "another seed, another stream")
        // The drawn actions keep to the level: about L of 8 points perturbed, sleeps of 1 to 20·L µs.
        for level in 1...3 {
            let draws = try sequence(level: level, seed: 9, thread: 0, count: 8000)
            let perturbed = draws.filter { $0 != .none }.count
            let expected = 8000 * level / 8
            #expect(abs(perturbed - expected) < 8000 / 40, "level \(level): \(perturbed) of 8000 perturbed, about \(expected) expected")
            #expect(draws.contains(.yield))
            for case .sleep(let us) in draws { #expect((1...(20 * level)).contains(us), "\(us) µs at level \(level)") }
        }
    }

    @Test("the recorder draws per thread: two threads' points in one case follow their own streams")
    func recorderDrawsPerThread() throws {
        // Events recorded on the calling thread (thread 0 of the recorder): its draws are the
        // stream of (seed, 0), whatever another recorder with another seed does.
        var events: [TraceEvent] = []
        let noise = try #require(TimingNoise(level: 3, scheduleSeed: 11))
        let recorder = DriverRecorder(noise: noise, sink: { events.append($0) }, queueOfCurrentThread: { nil })
        for i in 0..<20 { recorder.record(.stepIssued(i)) }
        #expect(events.count == 21 && events.allSatisfy { $0.thread == 0 }, "threadStarted, then the 20 events")
        #expect(recorder.noise == noise)
        let plain = DriverRecorder(recording: false, noise: noise, sink: { _ in }, queueOfCurrentThread: { nil })
        #expect(plain.noise == nil, "a plain run makes no noise: it keeps no thread numbers")
    }

    // MARK: Noisy runs

    /// Two queues, a dependency across them, a block operation with two blocks, a completion
    /// block and waits: no subclass of ours (Listing 2-6's, under noise, meets GNUstep's queue
    /// lock in its finish notification: the lock-order deadlock that
    /// Fixtures/expectations/gnustep.json lists under RUN-HANG). GNUstep's queue still hung on it
    /// once under noise 3 (a start by the queue that never returned), so its runs may hang.
    static let plain = Scenario(queues: [QueueConfig(maxConcurrent: 1), QueueConfig()],
                                operations: [OperationConfig(kind: .main([.work(1)]), completion: [.work(1)]),
                                             OperationConfig(kind: .block([[.work(1)], [.read(.isCancelled, .this)]])),
                                             OperationConfig(kind: .main([.returnIfCancelled, .work(1)]))],
                                dependencies: [Edge(2, on: 0)],
                                driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.add(op: 1, queue: 1)), DriverStep(.add(op: 2, queue: 1)),
                                         DriverStep(.waitUntilAllFinished(queue: 1)), DriverStep(.waitUntilAllFinished(queue: 0))])

    /// Runs `scenario` under the implementation's noise for `seeds` schedule seeds; every trace
    /// must end complete, pass the driver-check trace checks and say in its capabilities
    /// whether noise was made. With `mayHang`, a run may end in a hang instead: GNUstep's queue
    /// can deadlock on its own locks (the RUN-HANG of Fixtures/expectations/gnustep.json), which
    /// noise makes likelier; such a trace is the implementation's outcome, not a broken
    /// protocol, and at least one run must still end complete.
    static func noisyRuns(_ impl: ChildProcessImplementation, _ scenario: Scenario, seeds: ClosedRange<UInt64>, mayHang: Bool = false) throws {
        var complete = 0
        for seed in seeds {
            let trace = impl.run(scenario, scheduleSeed: seed)
            #expect(!trace.events.contains { if case .breach = $0.kind { return true }; return false })
            #expect(trace.capabilities.contains(.timingNoise) == (impl.limits.noise > 0), "seed \(seed): \(trace.capabilities)")
            if mayHang && trace.ending == .hang { continue }
            #expect(trace.ending == .complete, "seed \(seed): \(trace.events.suffix(3))")
            #expect(DriverCheck.traceFailure(trace.events, in: scenario) == nil, "seed \(seed): \(DriverCheck.traceFailure(trace.events, in: scenario) ?? "")")
            complete += 1
        }
        #expect(complete > 0, "no run ended complete")
        impl.endSessions()
    }

    @Test("Foundation: noisy runs end complete, keep the protocol's form, and declare timingNoise; quiet ones do not",
          .enabled(if: foundationAvailable, "build opconform first (swift build)"))
    func foundationNoisyRuns() throws {
        for scenario in [try Self.listings(), Self.plain] {
            try Self.noisyRuns(try Self.foundation(noise: 3), scenario, seeds: 1...12)
            try Self.noisyRuns(try Self.foundation(noise: 0), scenario, seeds: 1...3)
        }
    }

    @Test("GNUstep: noisy runs keep the protocol's form and declare timingNoise, ending complete or in GNUstep's own deadlock; quiet ones do not declare it",
          .enabled(if: gnustepAvailable, "needs gobjc and libgnustep-base-dev"))
    func gnustepNoisyRuns() throws {
        try Self.noisyRuns(try Self.gnustep(noise: 3), Self.plain, seeds: 1...12, mayHang: true)
        try Self.noisyRuns(try Self.gnustep(noise: 0), Self.plain, seeds: 1...3, mayHang: true)
    }

    /// Runs a driver on one raw request line; its output lines and exit status.
    static func raw(_ command: [String], _ line: String) throws -> (lines: [String], status: Int32) {
        try driverAnswer(command, line)
    }

    /// What each built-in driver says to a request: its hello's capabilities, or its refusal.
    static func answers(_ command: [String], impl: String) throws {
        let scenario = DriverProtocolTests.scenario
        func line(noise: Int) -> String {
            JSONCodec.line(DriverProtocol.Request(impl: impl, scenario: scenario, scheduleSeed: 3, unitMicroseconds: 1000, noise: noise))
                .trimmingCharacters(in: .newlines)
        }
        func hello(_ lines: [String]) throws -> [Observation]? {
            let first = try #require(lines.first)
            guard case .hello(_, _, let capabilities, _, _, _) = try JSONCodec.decode(DriverProtocol.Message.self, from: Data(first.utf8), source: "hello") else { return nil }
            return capabilities
        }
        let quiet = try raw(command, line(noise: 0))
        let quietCapabilities = try hello(quiet.lines)
        #expect(quiet.status == 0 && quietCapabilities?.contains(.timingNoise) == false, "\(quiet.lines.prefix(1))")
        let noisy = try raw(command, line(noise: 2))
        let noisyCapabilities = try hello(noisy.lines)
        #expect(noisy.status == 0 && noisyCapabilities?.contains(.timingNoise) == true, "\(noisy.lines.prefix(1))")
        // Level 7 does not exist: one error line, status 2, no hello.
        let wrong = line(noise: 2).replacingOccurrences(of: #""noise":2"#, with: #""noise":7"#)
        let refused = try raw(command, wrong)
        #expect(refused.status == 2 && refused.lines.count == 1 && refused.lines[0].contains("noise is 7"), "\(refused.lines)")
    }

    @Test("Foundation's hello declares timingNoise exactly when asked for noise, and level 7 is refused",
          .enabled(if: foundationAvailable, "build opconform first (swift build)"))
    func foundationHello() throws {
        try Self.answers([try #require(Self.executable), "driver"], impl: "foundation")
    }

    @Test("GNUstep's hello declares timingNoise exactly when asked for noise, and level 7 is refused",
          .enabled(if: gnustepAvailable, "needs gobjc and libgnustep-base-dev"))
    func gnustepHello() throws {
        try Self.answers([try GNUstepDriver.executable()], impl: "gnustep")
    }

    @Test("A finding records the noise it was found under: written only when set, read back, refused outside 1-3, and said in its --seed line")
    func findingRecordsNoise() throws {
        var f = Surface2FormatTests.finding(GeneratorOptions())
        #expect(!String(decoding: f.fileData, as: UTF8.self).contains("noise"))
        #expect(!f.replayLine(file: nil).contains("--noise"))
        f.noise = 2
        let text = String(decoding: f.fileData, as: UTF8.self)
        #expect(text.contains("\"noise\": 2"), "\(text)")
        #expect(try FindingFile.decode(f.fileData, source: "f.json").noise == 2)
        #expect(f.replayLine(file: nil).contains("--impl reference --noise 2"), "\(f.replayLine(file: nil))")
        let bad = text.replacing("\"noise\": 2", with: "\"noise\": 5")
        #expect(throws: InputError.self) { try FindingFile.decode(Data(bad.utf8), source: "f.json") }
    }
}
