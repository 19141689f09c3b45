@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
import ConformanceTesting
import Foundation
import OperationSpec
import Testing

/// The sanitizer routes (issue 30): a report on a driver's standard error becomes DATA-RACE or
/// MEMORY-ERROR, with a sentence that is the same from run to run. The reports below are what
/// ThreadSanitizer and AddressSanitizer printed here (Swift 6.3.1, Linux) for two small
/// programs of ours: a counter raced by two threads, and a read of freed memory.
@Suite("Sanitizer reports are findings of their own")
struct SanitizerTests {
    static let race = """
        ==================
        WARNING: ThreadSanitizer: Swift access race (pid=6589)
          Modifying access of Swift variable at 0x720800000030 by thread T2:
            #0 $s5race2yyYbcfU0_ race2-1.o (race2+0xfc8cb) (BuildId: a2ce325e580bc181d4c21d40eaee08b1ca49a24b)
            #1 $s10Foundation6ThreadC4mainyyF <null> (libFoundation.so+0x3795f8) (BuildId: bbe2057ad9a7c4b7122ec47d2500ff98e0395cef)

          Previous write of size 1 at 0x720800000030 by thread T1:
            #0 $s5race2yyYbcfU_ race2-1.o (race2+0xfc73f) (BuildId: a2ce325e580bc181d4c21d40eaee08b1ca49a24b)
            #1 $s10Foundation6ThreadC4mainyyF <null> (libFoundation.so+0x3795f8) (BuildId: bbe2057ad9a7c4b7122ec47d2500ff98e0395cef)

          Location is heap block of size 24 at 0x720800000020 allocated by main thread:
            #0 malloc /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:686:5 (race2+0x79c70)

          Thread T2 'race2' (tid=6743, running) created by main thread at:
            #0 pthread_create /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:1094:3 (race2+0x7b85a)

        SUMMARY: ThreadSanitizer: Swift access race race2-1.o in $s5race2yyYbcfU0_
        ==================

        """
    static let useAfterFree = """
        =================================================================
        ==23795==ERROR: AddressSanitizer: heap-use-after-free on address 0x7c23029e0098 at pc 0x55ba0406fcca bp 0x7ffd4e0e3d10 sp 0x7ffd4e0e3d08
        READ of size 8 at 0x7c23029e0098 thread T0
            #0 0x55ba0406fcc9 in main (/tmp/tsan/uaf+0x125cc9) (BuildId: d8be748c0c66a98864ed28ac35764bc8e88eb6e4)

        0x7c23029e0098 is located 8 bytes inside of 32-byte region [0x7c23029e0090,0x7c23029e00b0)
        freed by thread T0 here:
            #0 0x55ba0402f8e6 in free /home/build-user/llvm-project/compiler-rt/lib/asan/asan_malloc_linux.cpp:51:3
            #1 0x55ba0406fc8e in main (/tmp/tsan/uaf+0x125c8e) (BuildId: d8be748c0c66a98864ed28ac35764bc8e88eb6e4)

        SUMMARY: AddressSanitizer: heap-use-after-free (/tmp/tsan/uaf+0x125cc9) (BuildId: d8be748c0c66a98864ed28ac35764bc8e88eb6e4) in main
        Shadow bytes around the buggy address:
          0x7c23029dfe00: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00

        """

    /// A freed operation's lock read by a timer that held it unretained: what AddressSanitizer
    /// printed here for Examples/async-operation's TimeoutAsyncOperation (the memory had been
    /// given out again, so it is a SEGV, not a use-after-free), shortened.
    static let deadlySignal = """
        AddressSanitizer:DEADLYSIGNAL
        =================================================================
        ==12243==ERROR: AddressSanitizer: SEGV on unknown address 0x000000004173 (pc 0x7f218e2cdadf bp 0x7b21835d69e0 sp 0x7b21835d69d0 T5)
        ==12243==The signal is caused by a READ memory access.
        ==12243==Hint: address points to the zero page.
            #0 0x7f218e2cdadf  (/opt/swift/usr/lib/swift/linux/libFoundation.so+0x2cdadf) (BuildId: bbe2057ad9a7c4b7122ec47d2500ff98e0395cef)
            #1 0x55e6079e10e6 in $s10Foundation9NSLockingPAAE8withLockyqd__qd__yKXEKlF /<compiler-generated>
            #2 0x55e6079e6e72 in $s15AsyncOperations07TimeoutA9OperationC12timeoutFired33_92CD4ADBA96E8A3D8A70A72B4AE4A035LLyyF /work/main/Examples/async-operation/Sources/AsyncOperations/TimeoutAsyncOperation.swift:73:14
            #3 0x55e6079e3b04 in $s15AsyncOperations07TimeoutA9OperationC03armC0yyFyyYbcfU_ /work/main/Examples/async-operation/Sources/AsyncOperations/TimeoutAsyncOperation.swift:68:23

        ==12243==Register values:
        rax = 0x000000000000406b  rbx = 0x0000000000000110  rcx = 0x0000000000000000  rdx = 0x00007f218e517070
        AddressSanitizer can not provide additional info.
        SUMMARY: AddressSanitizer: SEGV (/opt/swift/usr/lib/swift/linux/libFoundation.so+0x2cdadf) (BuildId: bbe2057ad9a7c4b7122ec47d2500ff98e0395cef)
        Thread T5 created by T0 here:
            #0 0x55e607986311 in pthread_create /home/build-user/llvm-project/compiler-rt/lib/asan/asan_interceptors.cpp:250:3

        ==12243==ABORTING

        """

    /// The last words the harness keeps of a driver that printed `text` and died.
    static func lastWords(_ text: String) -> String? {
        let tail = ChildProcess.ErrorTail()
        tail.append(Data(("some output first\n" + text).utf8))
        return tail.lastWords
    }

    static func death(_ text: String) -> Violation? {
        let words = lastWords(text) ?? ""
        let trace = Trace(impl: "x", scheduleSeed: 1, capabilities: [], events: [
            TraceEvent(seq: 0, thread: 0, .crash(signal: 0, message: "the driver exited with status 66 before the end of the trace: " + words)),
        ])
        return ShrinkTarget.death(of: trace).first
    }

    @Test("a ThreadSanitizer report is DATA-RACE, with both accesses and the summary")
    func dataRace() throws {
        let v = try #require(Self.death(Self.race))
        #expect(v.rule == Finding.dataRaceRule)
        #expect(v.observed.hasPrefix("WARNING: ThreadSanitizer: Swift access race | Modifying access of Swift variable: | #0 $s5race2yyYbcfU0_ race2-1.o"),
                "\(v.observed)")
        #expect(v.observed.contains("Previous write of size 1: | #0 $s5race2yyYbcfU_"))
        #expect(v.observed.hasSuffix("SUMMARY: ThreadSanitizer: Swift access race race2-1.o in $s5race2yyYbcfU0_"))
        #expect(!v.observed.contains("0x") && !v.observed.contains("pid") && !v.observed.contains("BuildId") && !v.observed.contains("tid="),
                "what differs from run to run is left out: \(v.observed)")
        #expect(!v.observed.contains("Location is") && !v.observed.contains("pthread_create"))
    }

    @Test("an AddressSanitizer report is MEMORY-ERROR, with the use and the free")
    func memoryError() throws {
        let v = try #require(Self.death(Self.useAfterFree))
        #expect(v.rule == Finding.memoryErrorRule)
        #expect(v.observed.hasPrefix("ERROR: AddressSanitizer: heap-use-after-free |"), "\(v.observed)")
        #expect(v.observed.contains("READ of size 8 | #0 main |"), "\(v.observed)")
        #expect(v.observed.contains("freed here: | #0 free | #1 main"), "\(v.observed)")
        #expect(!v.observed.contains("0x") && !v.observed.contains("23795"), "\(v.observed)")
    }

    @Test("a deadly signal under AddressSanitizer is MEMORY-ERROR, with the stack that names the class's method")
    func deadlySignal() throws {
        let v = try #require(Self.death(Self.deadlySignal))
        #expect(v.rule == Finding.memoryErrorRule)
        #expect(v.observed.hasPrefix("ERROR: AddressSanitizer: SEGV | The signal is caused by a READ memory access. | #0 |"), "\(v.observed)")
        #expect(v.observed.contains("timeoutFired"), "\(v.observed)")
        #expect(v.observed.hasSuffix("SUMMARY: AddressSanitizer: SEGV"), "\(v.observed)")
        #expect(!v.observed.contains("0x") && !v.observed.contains("12243") && !v.observed.contains("Register"), "\(v.observed)")
    }

    @Test("a report that began before a case began, in the process that serves it, is that case's last words")
    func reportAcrossCases() throws {
        // Written between cases (a late timer of the case before), the report's last line after
        // the next case began: the tail a new case would start from must keep it.
        let lines = Self.deadlySignal.components(separatedBy: "\n")
        let tail = ChildProcess.ErrorTail()
        tail.append(Data((lines.dropLast(3).joined(separator: "\n") + "\n").utf8))
        #expect(tail.holdsSanitizerReport)
        tail.append(Data("==12243==ABORTING\n".utf8))
        #expect(tail.lastWords?.hasPrefix("ERROR: AddressSanitizer: SEGV") == true, "\(tail.lastWords ?? "nil")")
        // A tail with no report is not kept from one case to the next.
        let plain = ChildProcess.ErrorTail()
        plain.append(Data("Foundation/Operation.swift:343: Fatal error: not ready\n".utf8))
        #expect(!plain.holdsSanitizerReport)
    }

    @Test("the same race in another run says the same; a trap stays RUN-CRASH")
    func stable() throws {
        let again = Self.race.replacingOccurrences(of: "0x720800000030", with: "0x7208000000f0")
            .replacingOccurrences(of: "pid=6589", with: "pid=77").replacingOccurrences(of: "T2", with: "T5")
        #expect(Self.death(again)?.observed == Self.death(Self.race)?.observed)
        #expect(Self.death("Foundation/Operation.swift:343: Fatal error: not ready\n")?.rule == Finding.crashRule)
        // A driver the sanitizer did not stop went on after a report, then trapped: a crash.
        #expect(Self.lastWords(Self.race + "Foundation/Operation.swift:343: Fatal error: not ready\n")
                == "Foundation/Operation.swift:343: Fatal error: not ready")
        // Killed by a signal after a report: the report is not what stopped it.
        let signalled = Trace(impl: "x", scheduleSeed: 1, capabilities: [], events: [
            TraceEvent(seq: 0, thread: 0, .crash(signal: 11, message: Self.lastWords(Self.race) ?? "")),
        ])
        #expect(ShrinkTarget.death(of: signalled).first?.rule == Finding.crashRule)
    }

    @Test("--sanitize refuses what it cannot use, in one sentence")
    func refusals() {
        let built = opconform("run", "--impl", "reference", "--sanitize", "thread", "--count", "1")
        #expect(built.status == 2 && built.err.contains("--sanitize thread needs a driver started by path (--impl exec:PATH)"), "\(built.err)")
        if let driver = OrphanedDriverTests.sampleSubclassDriver {
            let plain = opconform("run", "--impl", "exec:" + driver, "--sanitize", "address", "--count", "1")
            #expect(plain.status == 2 && plain.err.contains("sample-subclass-driver was not built with the address sanitizer: build it with"),
                    "\(plain.err)")
            #expect(!Sanitizer.address.instruments(executableAt: driver))
        }
        let unknown = opconform("run", "--impl", "exec:/bin/true", "--sanitize", "memory", "--count", "1")
        #expect(unknown.status == 2 && unknown.err.contains("--sanitize takes thread or address"), "\(unknown.err)")
        #expect(!Sanitizer.thread.instruments(executableAt: "/bin/true"))
        // Where it cannot apply, it is refused, never ignored.
        let matrix = opconform("matrix", "--impls", "reference,foundation", "--sanitize", "thread", "--count", "1")
        #expect(matrix.status == 2 && matrix.err.contains("reference is not one"), "\(matrix.err)")
        let corpus = opconform("flaws", "--corpus", "--sanitize", "thread", "--count", "1")
        #expect(corpus.status == 2 && corpus.err.contains("--corpus does not measure a sanitized corpus driver yet"), "\(corpus.err)")
    }

    @Test("expectConformance(driver:sanitize:) refuses a driver not built with the sanitizer, and runs nothing",
          .enabled(if: OrphanedDriverTests.sampleSubclassDriver != nil, "build the sample driver first (swift build)"))
    func expectConformanceRefusesUninstrumented() throws {
        let driver = try #require(OrphanedDriverTests.sampleSubclassDriver)
        var outcome: DriverConformance?
        withKnownIssue("the driver was not built with ThreadSanitizer") {
            outcome = expectConformance(driver: driver, count: 1, sanitize: .thread)
        }
        #expect(outcome?.run == nil)
        #expect(outcome?.problem?.contains("was not built with the thread sanitizer: build it with the sanitizer") == true,
                "\(outcome?.problem ?? "no problem said")")
    }

    @Test("a sanitizer's options reach only the drivers given them, after the user's own")
    func environmentIsPerDriver() throws {
        var impl = ChildProcessImplementation(name: "t", capabilities: [], command: ["/bin/true"])
        #expect(impl.environment.isEmpty)
        impl.environment = Sanitizer.thread.environment
        #expect(impl.environment["TSAN_OPTIONS"]?.contains("halt_on_error=1") == true)
        #expect(ProcessInfo.processInfo.environment["TSAN_OPTIONS"]?.contains("exitcode=66") != true,
                "the test process itself is not given the options")
    }
}
