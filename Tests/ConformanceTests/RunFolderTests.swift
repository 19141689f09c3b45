import Conformance
import ConformanceReports
import Foundation
import Testing

/// Separate runs never overwrite each other's findings (issue 32): without `--out`, each run
/// writes into a folder of its own under `opconform-findings/`, and `latest` points at the newest.
@Suite("One folder per run")
struct RunFolderTests {
    /// The built opconform, run in `folder` as a user runs it there: its exit status.
    static func run(_ arguments: [String], in folder: String) throws -> Int32 {
        try builtOpconform(arguments, in: folder).status
    }

    @Test("two runs with findings keep two folders, latest is the second; a clean run leaves nothing and latest as it was")
    func separateRuns() throws {
        let work = NSTemporaryDirectory() + "opconform-runfolders-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let root = work + "/" + RunFolder.defaultRoot
        #expect(try Self.run(["run", "--count", "30"], in: work) == 0)
        #expect(!FileManager.default.fileExists(atPath: root), "a clean run leaves no findings folder")
        #expect(try Self.run(["run", "--fault", "priority-ignored", "--count", "60", "--seed", "1"], in: work) == 1)
        #expect(try Self.run(["run", "--fault", "priority-ignored", "--count", "60", "--seed", "1"], in: work) == 1)
        let folders = try FileManager.default.contentsOfDirectory(atPath: root).filter { $0 != RunFolder.latestName }.sorted()
        #expect(folders.count == 2 && folders.allSatisfy { $0.contains("-seed1") }, "\(folders)")
        for folder in folders {
            let files = try FileManager.default.contentsOfDirectory(atPath: root + "/" + folder)
            #expect(files.contains { $0.hasPrefix("PRIORITY-ORDER-") }, "\(folder): \(files)")
        }
        let latest = try FileManager.default.destinationOfSymbolicLink(atPath: root + "/latest")
        #expect(latest == folders.last, "latest is \(latest)")
        #expect(try Self.run(["run", "--count", "30", "--seed", "2"], in: work) == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: root + "/latest") == latest)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root).count == 3)
    }

    @Test("a folder's name says the time, the seed and the shard")
    func names() {
        let date = Date(timeIntervalSince1970: 1_795_815_621)  // 2026-11-27 21:40:21 UTC
        #expect(RunFolder.name(seed: 7, date: date) == "20261127-214021-seed7")
        #expect(RunFolder.name(seed: 7, shard: Shard(index: 1, count: 4), date: date) == "20261127-214021-seed7-shard2of4")
    }
}

/// The built opconform run as a user runs it (in `folder`, or here): its exit status and what it
/// printed, standard error after standard output. Foundation's driver is that same executable.
func builtOpconform(_ arguments: [String], in folder: String? = nil) throws -> (status: Int32, output: String) {
    let executable = try #require(DriverCheckTests.executable, "no opconform built beside the tests")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
