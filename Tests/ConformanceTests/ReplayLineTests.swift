@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
import Foundation
import Testing

/// A replay line from a package's tests runs opconform from that package (issue 45: from the
/// harness's checkout it built the whole harness again inside `.build/checkouts/`).
@Suite("Replay lines from Swift Testing")
struct TestReplayLineTests {
    @Test("from the package whose tests run; from the harness's checkout when that is the package, or no package is here")
    func fromTheUsersPackage() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("replay-line-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let checkout = SpecsDriftTests.root.path
        #expect(ReplayProgram.forTests(directory: folder, checkout: checkout) == "swift run --package-path \(checkout) opconform")
        try Data("// swift-tools-version: 6.0\n".utf8).write(to: URL(fileURLWithPath: folder + "/Package.swift"))
        #expect(ReplayProgram.forTests(directory: folder, checkout: checkout) == "swift run --package-path \(folder) opconform")
        #expect(ReplayProgram.forTests(directory: checkout, checkout: checkout) == "swift run --package-path \(checkout) opconform")
    }
}
