import ConformanceFormats
import OperationDriverKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many threads a process runs, read from outside it.
///
/// On Linux the kernel says it in /proc/PID/status ("Threads:"); the file is small and read
/// with one system call, cheap enough for every tick of a case's watch (20 a second). Elsewhere
/// the count is not known (nil), and the limit it serves (`DriverLimits.maxThreads`) does not
/// apply (Darwin is not verified by this project).
enum ProcessThreads {
    static func count(_ pid: pid_t) -> Int? {
        #if os(Linux)
        let fd = open("/proc/\(pid)/status", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        return threads(in: buffer[..<n])
        #else
        return nil
        #endif
    }

    /// The number on the "Threads:" line of a status file's text.
    static func threads(in status: ArraySlice<UInt8>) -> Int? {
        let text = String(decoding: status, as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix("Threads:") {
            return Int(String(line.dropFirst("Threads:".count).filter { $0 != " " && $0 != "\t" }))
        }
        return nil
    }
}
