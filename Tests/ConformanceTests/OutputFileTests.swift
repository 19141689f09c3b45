@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
@testable import ConformanceReports
import Foundation
import Testing

/// Outputs never replace what is not a regular file (issue 43): a FIFO or a character device
/// is written into as a stream, a regular file is replaced whole by a rename, and anything
/// else is refused with one sentence. Before, `--json /dev/null` run as root replaced the
/// system's /dev/null with a regular file.
@Suite("Output files")
struct OutputFileTests {
    static func folder() -> String {
        let path = NSTemporaryDirectory() + "opconform-output-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func isCharacterDevice(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFCHR
    }

    @Test("a report to /dev/null leaves the device a device")
    func deviceStaysADevice() {
        #expect(Self.isCharacterDevice("/dev/null"))
        let run = opconform("run", "--impl", "reference", "--count", "3", "--json", "/dev/null", "--junit", "/dev/null",
                            "--out", Self.folder())
        #expect(run.status == 0, "\(run.err)")
        #expect(Self.isCharacterDevice("/dev/null"), "/dev/null was replaced")
    }

    @Test("a report to a FIFO is streamed into it, and the FIFO stays a FIFO")
    func fifoIsAStream() throws {
        let dir = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fifo = dir + "/report"
        #expect(mkfifo(fifo, 0o600) == 0)
        let got = Got()
        let reader = Thread {
            // Read to the end by hand: FileManager reads a FIFO's size (0), not its bytes.
            var data = Data()
            let descriptor = open(fifo, O_RDONLY)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while descriptor >= 0 {
                let n = read(descriptor, &buffer, buffer.count)
                if n <= 0 { break }
                data.append(contentsOf: buffer[0..<n])
            }
            if descriptor >= 0 { close(descriptor) }
            got.set(data)
        }
        reader.start()
        try OutputFile.write(Data("{\"a\": 1}\n".utf8), to: fifo)
        #expect(got.wait() == Data("{\"a\": 1}\n".utf8))
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "the FIFO was replaced")
    }

    @Test("a regular file is replaced whole through a link; a folder is refused in one sentence")
    func regularAndRefused() throws {
        let dir = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("old".utf8).write(to: URL(fileURLWithPath: dir + "/target"))
        #expect(symlink(dir + "/target", dir + "/link") == 0)
        try OutputFile.write(Data("new".utf8), to: dir + "/link")
        #expect(FileManager.default.contents(atPath: dir + "/target") == Data("new".utf8))
        var info = stat()
        #expect(lstat(dir + "/link", &info) == 0 && info.st_mode & S_IFMT == S_IFLNK, "the link was kept, its target written")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["link", "target"], "no temporary file is left")
        #expect(throws: InputError("cannot write \(dir): it is a folder; name a file in it")) {
            try OutputFile.write(Data(), to: dir)
        }
    }

    /// What the FIFO's reader read. `@unchecked Sendable` is sound: `data` is written once,
    /// before `done` is signalled, and read after it is waited for.
    final class Got: @unchecked Sendable {
        private var data = Data()
        private let done = DispatchSemaphore(value: 0)
        func set(_ d: Data) { data = d; done.signal() }
        func wait() -> Data? { done.wait(timeout: .now() + 30) == .success ? data : nil }
    }
}
