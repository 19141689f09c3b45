@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
import Foundation
@testable import OperationDriverKit
import OperationSpec
import ReferenceEngine
import Synchronization
import Testing

/// Issue 31, item 4: the harness reads event lines with its own reader (`EventLine`) instead of
/// `JSONDecoder`, which took half of its CPU. The reader must never change what a line means:
/// on every event the protocol's encoder writes it gives the same event, and on any other line
/// it gives either nothing (the strict decoder then decides) or what `JSONDecoder` gives.
@Suite("The fast event-line reader")
struct EventLineTests {
    /// One event of every kind and every call, each value form, optional fields both ways.
    /// The switch below fails to compile when a kind is added, so the list stays whole.
    static let everyKind: [EventKind] = {
        let calls: [Call] = [
            .start(1, by: .driver), .start(2, by: .queue), .start(0, by: .program), .superStart(3), .cancel(4),
            .addOperation(1, queue: 0), .addOperations([1, 2, 3], queue: 1, wait: true),
            .addOperations([], queue: 0, wait: false),
            .addDependency(1, on: 2), .removeDependency(2, on: 1), .setCompletionBlock(5), .addExecutionBlock(6),
            .setQueuePriority(1, -8), .setThreadPriority(1, 0.25), .setThreadPriority(2, 1), .cancelAll(queue: 2),
            .setSuspended(queue: 0, true), .setMaxConcurrent(queue: 1, -1), .waitUntilFinished(7),
            .waitUntilAllFinished(queue: 3), .result(8), .addBlock(9, queue: 0), .releaseQueue(queue: 1),
            .setUnderlyingQueue(queue: 0, dispatchQueue: 2), .setUnderlyingQueue(queue: 1, dispatchQueue: nil),
        ]
        var kinds: [EventKind] = [
            .threadStarted(name: "opconform", queue: nil),
            .threadStarted(name: "NSOperationQueue 0x1 (QOS: UTILITY)", queue: 2),
            .threadStarted(name: "ünïcode ⌘ name", queue: 0),
            .stepIssued(0), .stepDone(12), .triggerMissed(3),
            .mainBegan(op: 1, threadPriority: 0.5), .mainBegan(op: 2, threadPriority: 1), .mainEnded(op: 1),
            .blockBegan(op: 1, block: 0), .blockEnded(op: 1, block: 2),
            .completionBegan(op: 3, threadPriority: 0.123456789), .completionEnded(op: 3),
            .willChange(op: 1, .isExecuting, .bool(true)), .didChange(op: 1, .isFinished, .bool(false)),
            .read(op: 2, .queuePriority, .int(-4)), .read(op: 2, .threadPriority, .double(0.75)),
            .read(op: 3, .dependencies, .ops([0, 1])), .read(op: 3, .dependencies, .ops([])),
            .read(op: 4, .executionBlocks, .int(2)), .set(op: 1, .isExecuting, true),
            .operationCount(queue: 0, 3), .operations(queue: 1, ops: [2, -1, 0]), .operations(queue: 0, ops: []),
            .suspended(queue: 1, false), .currentQueue(op: 1, queue: nil),
            .mainQueue(same: true, suspended: false, current: true), .mainQueue(same: false, suspended: true, current: false),
            .queueDeallocated(queue: 1, deallocated: true), .queueDeallocated(queue: 0, deallocated: false),
            .underlyingQueue(op: 2, dispatchQueue: 3), .underlyingQueue(op: 0, dispatchQueue: nil),
            .currentQueue(op: 1, queue: 0), .work(op: 1, units: 4), .signal(token: 2),
            .awaited(token: 2, satisfied: true),
            .invocationResult(op: 5), .crash(signal: 4, message: "Fatal error: receiver is not yet ready"),
            .crash(signal: 11, message: "a \"quoted\" word\nand a second line"),
            .hang("waitUntilFinished(1) never returned"),
            .unsupported("no addBarrierBlock"), .cut("step budget"), .breach("a line that is not a message"), .end,
            .threw(.start(1, by: .driver), .notReady, "not ready"),
            .announced(op: 1, key: "state", affects: [.isFinished, .isExecuting]),
            .announced(op: 2, key: "isis\"Finished\u{1}", affects: nil), .announced(op: 0, key: "isFinished", affects: []),
        ]
        for call in calls { kinds += [.call(call), .returned(call)] }
        for misuse in MisuseKind.allCases {
            kinds.append(.threw(.addDependency(1, on: 1), misuse, "refused: \(misuse)"))
        }
        for key in StateKey.allCases { kinds.append(.read(op: 0, key, .bool(true))) }
        // Every case named, so that a new one cannot be left out of the list above.
        for kind in kinds {
            switch kind {
            case .threadStarted, .stepIssued, .stepDone, .triggerMissed, .call, .returned, .threw, .mainBegan,
                 .mainEnded,
                 .blockBegan, .blockEnded, .completionBegan, .completionEnded, .willChange, .didChange, .read, .set,
                 .operationCount, .operations, .suspended, .currentQueue, .work, .signal, .awaited, .invocationResult, .crash, .hang,
                 .unsupported, .cut, .breach, .announced, .end, .mainQueue, .queueDeallocated, .underlyingQueue:
                break
            }
        }
        return kinds
    }()

    /// Lines as a driver built with the kit writes them: every kind above, and the events of
    /// generated cases on the reference engine (misuse, flawed subclasses, API surface 2).
    static func lines() -> [String] {
        var events = everyKind.enumerated().map { TraceEvent(seq: $0.offset, thread: $0.offset % 5, $0.element) }
        let engine = ReferenceEngine()
        for (seed, options) in [(UInt64(1), GeneratorOptions(size: 8, misuseRate: 40)),
                                (2, GeneratorOptions(size: 6, misuseRate: 30, flawRate: 50, surface2: true)),
                                (3, GeneratorOptions(size: 12, misuseRate: 10, surface2: true))] {
            let generator = ScenarioGenerator(options: options)
            for index in 0..<12 {
                let scenario = generator.generate(seed: seed &* 1_000 &+ UInt64(index))
                events += engine.run(scenario, scheduleSeed: UInt64(index)).events
            }
        }
        return events.map { ProtocolLines.line(DriverProtocol.Message.event($0)).dropLast().description }
    }

    static func slow(_ line: String) -> TraceEvent? {
        let message = try? JSONDecoder().decode(DriverProtocol.Message.self, from: Data(line.utf8))
        guard case .event(let e)? = message else { return nil }
        return e
    }

    @Test("every line the protocol's encoder writes reads fast, as the same event")
    func encodedLinesReadTheSame() throws {
        let lines = Self.lines()
        #expect(lines.count > 1_000)
        for line in lines {
            let fast = EventLine.event(line[...])
            let slow = try #require(Self.slow(line), "JSONDecoder refused \(line)")
            #expect(fast == slow, "\(line)")
        }
    }

    @Test("keys in another order and spaces between tokens read the same; what it is unsure of, it leaves")
    func otherSpellings() {
        let reordered = #"{ "event" : { "_0" : { "thread" : 1, "seq" : 4, "kind" : { "read" : "#
            + #"{ "_2" : { "bool" : { "_0" : true } }, "_1" : "isReady", "op" : 2 } } } } }"#
        #expect(EventLine.event(reordered[...]) == TraceEvent(seq: 4, thread: 1, .read(op: 2, .isReady, .bool(true))))
        #expect(EventLine.event(reordered[...]) == Self.slow(reordered))
        let nullQueue = #"{"event":{"_0":{"kind":{"threadStarted":{"name":"w","queue":null}},"seq":0,"thread":0}}}"#
        #expect(EventLine.event(nullQueue[...]) == TraceEvent(seq: 0, thread: 0, .threadStarted(name: "w", queue: nil)))
        #expect(EventLine.event(nullQueue[...]) == Self.slow(nullQueue))
        let escaped = #"{"event":{"_0":{"kind":{"hang":{"_0":"a \"b\" \u00e9\ud83d\ude00\/\t"}},"seq":0,"thread":0}}}"#
        #expect(EventLine.event(escaped[...]) == TraceEvent(seq: 0, thread: 0, .hang("a \"b\" é😀/\t")))
        #expect(EventLine.event(escaped[...]) == Self.slow(escaped))
        // Left to the strict decoder: an extra key, a lone surrogate, a fraction where an integer goes,
        // another message, a repeated key, trailing bytes.
        for line in [
            #"{"event":{"_0":{"kind":{"end":{}},"seq":0,"thread":0,"extra":1}}}"#,
            #"{"event":{"_0":{"kind":{"hang":{"_0":"half a pair \ud800"}},"seq":0,"thread":0}}}"#,
            #"{"event":{"_0":{"kind":{"stepDone":{"_0":1.0}},"seq":0,"thread":0}}}"#,
            #"{"done":{"next":true}}"#,
            #"{"event":{"_0":{"kind":{"end":{}},"seq":0,"seq":1,"thread":0}}}"#,
            #"{"event":{"_0":{"kind":{"end":{}},"seq":0,"thread":0}}} x"#,
            #"{"event":{"_0":{"kind":{"stepDone":{"_0":01}},"seq":0,"thread":0}}}"#,
        ] {
            #expect(EventLine.event(line[...]) == nil, "\(line)")
        }
    }

    /// Hostile lines, from a fixed seed: each valid line is cut, has bytes deleted, inserted or
    /// replaced with the bytes JSON is made of. The fast reader may leave a line (nil) but never
    /// give an event the strict decoder would not give.
    @Test("on mutated lines it gives nothing or what JSONDecoder gives")
    func mutatedLines() {
        let lines = Self.lines()
        var rng = Xoshiro256(seed: 31)
        let alphabet = Array(#"{}[]":,-.0123456789eE+ truefalsnl_\aé"#.utf8)
        var read = 0, left = 0
        for round in 0..<20_000 {
            var bytes = Array(lines[Int(rng.next() % UInt64(lines.count))].utf8)
            for _ in 0...(round % 3) where !bytes.isEmpty {
                let at = Int(rng.next() % UInt64(bytes.count))
                switch rng.next() % 4 {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(alphabet[Int(rng.next() % UInt64(alphabet.count))], at: at)
                case 2: bytes[at] = alphabet[Int(rng.next() % UInt64(alphabet.count))]
                default: bytes.removeSubrange(at...)
                }
            }
            let line = String(decoding: bytes, as: UTF8.self)
            if let fast = EventLine.event(line[...]) {
                read += 1
                #expect(fast == Self.slow(line), "\(line)")
            } else {
                left += 1
            }
        }
        // The mutations must exercise both sides: some still read, most are left.
        #expect(read > 100 && left > 10_000, "read \(read), left \(left)")
    }
}

/// The kit's event writer (`EventLineWriter`) must write each event's line byte for byte as
/// `JSONEncoder` writes it (`ProtocolLines.line`), so that a driver's output did not change
/// when it stopped using `JSONEncoder` for events.
@Suite("The kit's event-line writer")
struct EventLineWriterTests {
    static let awkwardStrings: [String] = {
        var strings = (0..<0x20).map { "control \(String(UnicodeScalar(UInt8($0))))." }
        strings += ["\u{7F}", "a/b\\c\"d", "é ⌘ 😀 \u{2028}\u{2029}", "", "</script>", "\u{FEFF}bom"]
        return strings
    }()
    static let awkwardDoubles: [Double] = [
        0, -0.0, 1, -1, 0.5, 0.25, 0.123456789, 1e-7, 1e21, 123456.789, -3.5, 0.1 + 0.2,
        9_007_199_254_740_992, 4_503_599_627_370_497.5, 1e300, .leastNonzeroMagnitude, 0.001, 1e16,
    ]

    static func events() -> [TraceEvent] {
        var kinds = EventLineTests.everyKind
        for s in awkwardStrings {
            kinds += [.threadStarted(name: s, queue: nil), .hang(s), .crash(signal: 1, message: s)]
        }
        for d in awkwardDoubles {
            kinds += [.mainBegan(op: 0, threadPriority: d), .read(op: 0, .threadPriority, .double(d)),
                      .call(.setThreadPriority(0, d))]
        }
        kinds += [.operationCount(queue: Int.max, Int.min), .read(op: -1, .queuePriority, .int(-8))]
        var events = kinds.enumerated().map { TraceEvent(seq: $0.offset, thread: $0.offset % 5, $0.element) }
        let engine = ReferenceEngine()
        let options = GeneratorOptions(size: 8, misuseRate: 40, flawRate: 30, surface2: true)
        let generator = ScenarioGenerator(options: options)
        for seed: UInt64 in 0..<24 { events += engine.run(generator.generate(seed: seed), scheduleSeed: seed).events }
        return events
    }

    @Test("every event's line is JSONEncoder's, byte for byte")
    func sameBytes() {
        let events = Self.events()
        #expect(events.count > 1_000)
        var differ = 0, unsure = 0
        for event in events {
            let fast = EventLineWriter.line(event)
            if EventLineWriter.written(event) == nil { unsure += 1 }
            let slow = ProtocolLines.line(DriverProtocol.Message.event(event))
            if fast != slow { differ += 1 }
            #expect(fast == slow)
            // And the harness's reader takes the line back as the event.
            #expect(EventLine.event(fast.dropLast()) == event, "\(fast)")
        }
        #expect(differ == 0)
        // Only the five doubles whose shortest form has an exponent (1e-07, 1e+21, 1e+300,
        // 5e-324, 1e+16), in three events each, go to JSONEncoder.
        #expect(unsure == 15)
    }
}

/// Issue 31: each case's recorder used to start a heartbeat clock whose thread never ended, so a
/// session driver gained a thread per case. The process has one clock now, however many cases.
@Suite("The kit's clock")
struct ActiveClockTests {
    @Test("ten cases' recorders share one clock, and so one heartbeat thread")
    func oneClockPerProcess() {
        var recorders: [DriverRecorder] = []
        for _ in 0..<10 { recorders.append(DriverRecorder(sink: { _ in }, queueOfCurrentThread: { nil })) }
        #expect(ActiveClock.made.load(ordering: .relaxed) == 1, "\(recorders.count) recorders")
    }
}
