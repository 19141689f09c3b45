import Conformance
import ConformanceTesting
import Foundation
import OperationSpec
import Testing

/// A user's own queue through the shared driver (`OperationDriver`, `QueueUnderTest`), and
/// `expectConformance(driver:)`, which runs a package's driver executable from Swift Testing.
/// Here the driver is `opconform driver` (Foundation's OperationQueue through the same code),
/// found next to the test bundle as a user's would be; `Examples/alternative-queue` is a
/// package that tests a queue of its own this way.
@Suite("A queue under test")
struct QueueUnderTestTests {
    /// A queue of another type, written with OperationQueue's names: one empty extension makes
    /// it a `QueueUnderTest`, and it cannot tell which threads are its own.
    final class Forwarding: @unchecked Sendable {   // sound: `inner` is a `let` and thread-safe
        let inner = OperationQueue()
        func addOperation(_ op: Operation) { inner.addOperation(op) }
        func addOperations(_ ops: [Operation], waitUntilFinished wait: Bool) { inner.addOperations(ops, waitUntilFinished: wait) }
        func cancelAllOperations() { inner.cancelAllOperations() }
        var isSuspended: Bool { get { inner.isSuspended } set { inner.isSuspended = newValue } }
        var maxConcurrentOperationCount: Int { get { inner.maxConcurrentOperationCount } set { inner.maxConcurrentOperationCount = newValue } }
        func waitUntilAllOperationsAreFinished() { inner.waitUntilAllOperationsAreFinished() }
        var operationCount: Int { inner.operationCount }
        var name: String? { get { inner.name } set { inner.name = newValue } }
    }

    static var opconform: String? { try? DriverExecutable.locate("opconform") }

    @Test("OperationQueue knows its own threads; a queue that does not say is 'cannot tell'")
    func attribution() {
        let queue = OperationQueue()
        #expect(queue.ownsCurrentThread == false)
        let inside = OwnedAnswer()
        queue.addOperation { inside.set(queue.ownsCurrentThread) }
        queue.waitUntilAllOperationsAreFinished()
        #expect(inside.value == true)
        let other: any QueueUnderTest = Forwarding()
        #expect(other.ownsCurrentThread == nil)
    }

    @Test("the driver answers the probe with its own name, and refuses a request for another")
    func names() throws {
        let driver = OperationDriver(name: "forwarding", queue: { Forwarding() })
        let lines = Lines()
        let wrong = DriverProtocol.Request(impl: "foundation", scenario: Scenario(name: "x"), scheduleSeed: 1, unitMicroseconds: 1000)
        #expect(driver.serve(requestLine: JSONCodec.line(wrong), write: lines.append) == 2)
        #expect(lines.all == [JSONCodec.line(DriverProtocol.Message.error("this driver runs forwarding, not 'foundation'"))])
    }

    @Test("opconform is found next to the test bundle, as a package's driver executable is",
          .enabled(if: opconform != nil, "swift test builds the executable targets next to the tests"))
    func found() throws {
        let path = try DriverExecutable.locate("opconform")
        #expect(path.hasPrefix("/") && FileManager.default.isExecutableFile(atPath: path))
        #expect(throws: InputError.self) { try DriverExecutable.locate("no-such-driver-\(getpid())") }
    }

    @Test("Foundation through the driver route: its known divergences are known issues, nothing else fails",
          .enabled(if: opconform != nil, "needs opconform next to the tests"))
    func foundationConforms() throws {
        // Seed 1: case 1 shows BLOCK-CONCURRENT, case 2 traps (RUN-CRASH), case 7 hangs (RUN-HANG).
        let outcome = expectConformance(driver: "opconform", arguments: ["driver"], count: 10, seed: 1, jobs: 2)
        #expect(outcome.conforms && outcome.run?.cases == 10)
        #expect(outcome.expectations?.impl == "foundation" && outcome.run?.configuration.profile == .classReference)
        #expect(outcome.known.contains { $0.finding.rule == Finding.crashRule })
        #expect(outcome.unexpected.isEmpty)
    }

    @Test("without expectations every failure is an issue, with its finding file and a replay line that runs from anywhere",
          .enabled(if: opconform != nil, "needs opconform next to the tests"))
    func unexpectedFailures() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opconform-queue-tests-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var outcome: DriverConformance?
        withKnownIssue("Foundation traps in case 2 of seed 1; with no expectations that is an issue") {
            outcome = expectConformance(driver: "opconform", arguments: ["driver"], count: 3, seed: 1, expectations: .none,
                                        shrink: false, jobs: 2, findings: folder)
        }
        let crash = try #require(outcome?.unexpected.first { $0.finding.rule == Finding.crashRule })
        #expect(crash.finding.caseIndex == 2 && crash.finding.driver?.arguments == ["driver"])
        let file = try #require(crash.file)
        #expect(file.hasPrefix(folder) && FileManager.default.fileExists(atPath: file))
        #expect(crash.replay == "swift run --package-path \(HarnessCheckout.path) opconform replay \(file)")
        #expect(outcome?.known.isEmpty == true)
    }

    @Test("without a findings folder, findings go to opconform-findings/ in the current folder (the package under swift test)",
          .enabled(if: opconform != nil, "needs opconform next to the tests"))
    func findingsStayInThePackage() throws {
        var outcome: DriverConformance?
        withKnownIssue("Foundation traps in case 2 of seed 1; with no expectations that is an issue") {
            outcome = expectConformance(driver: "opconform", arguments: ["driver"], count: 3, seed: 1, expectations: .none,
                                        shrink: false, jobs: 2)
        }
        let crash = try #require(outcome?.unexpected.first { $0.finding.rule == Finding.crashRule })
        let file = try #require(crash.file)
        let here = FileManager.default.currentDirectoryPath
        #expect(file.hasPrefix(PathText.join(here, "opconform-findings/")), "\(file) is not under \(here)")
        #expect(FileManager.default.fileExists(atPath: file))
        // The run's own folder, not the shared one: remove it (the folder is in .gitignore anyway).
        try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent)
    }

    @Test("a driver that is not there is one issue saying what to do, and nothing is run")
    func missingDriver() {
        var outcome: DriverConformance?
        withKnownIssue("no such driver") {
            outcome = expectConformance(driver: "no-such-driver-\(getpid())", count: 1)
        }
        #expect(outcome?.run == nil && outcome?.problem?.contains("executableTarget") == true)
    }

    @Test("the minimum strength keeps the rules at least that strong")
    func strength() {
        #expect(Strength.documentedMust.isAtLeast(.documentedAdvice))
        #expect(!Strength.observedOnly.isAtLeast(.documentedMust))
        #expect(Strength.allCases.allSatisfy { $0.isAtLeast($0) && $0.isAtLeast(.observedOnly) })
    }

    @Test("the platform's known divergences are read from this checkout")
    func platformFile() throws {
        #if os(Linux)
        let e = try #require(try KnownDivergences.platform.load())
        #expect(e.impl == "foundation" && e.expected.contains { $0.rule == "BLOCK-CONCURRENT" })
        #else
        #expect(try KnownDivergences.platform.load() == nil)
        #endif
        #expect(try KnownDivergences.none.load() == nil)
    }
}

extension QueueUnderTestTests.Forwarding: QueueUnderTest {}

/// What an operation saw, handed back to the test. `@unchecked Sendable` is sound: `answer` is
/// read and written only under `lock`.
private final class OwnedAnswer: @unchecked Sendable {
    private let lock = NSLock()
    private var answer: Bool??
    func set(_ value: Bool?) { lock.withLock { answer = .some(value) } }
    var value: Bool? { lock.withLock { answer ?? nil } }
}

/// The lines a driver wrote. `@unchecked Sendable` is sound: `lines` is read and written only
/// under `lock`.
private final class Lines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
