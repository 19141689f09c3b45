import ConformanceFormats
import Foundation
import OperationDriverKit
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A mark put in the environment of every process the harness starts, so that everything that
/// process starts in turn can be found and ended with it.
///
/// A driver's own process group is killed with its case, but a child that leaves the group
/// (`setsid`, or a double fork into a new session) is in no group of ours and was left running
/// after every case. Its environment still holds the mark it inherited, which the kernel shows
/// in `/proc/PID/environ`, so `kill` looks there for every process that carries a child's mark
/// (`HARNESS_PID.N`) and kills it (`end`). A process that rewrites its environment before it forks
/// escapes; nothing a driver does by accident does. Where `/proc` is missing (not Linux) only
/// the process group is killed, as before.
enum ProcessMark {
    /// The environment variable that carries the mark.
    static let key = "OPCONFORM_PROCESS_MARK"

    /// The count of marks handed out by this process.
    private static let counter = Atomic<Int>(0)

    /// A mark no other child of this harness carries: this process's id, then a count.
    static func next() -> String {
        "\(getpid()).\(counter.add(1, ordering: .relaxed).newValue)"
    }

    /// Kills every process that carries `mark`, or with `everyChild` every mark of this harness
    /// (an interrupted run); returns how many it killed. (A process that exits between the read
    /// of its environment and the kill frees its pid; the kernel hands pids out in increasing
    /// order, so that pid going to another process within those microseconds is not a case we
    /// guard against.)
    @discardableResult
    static func end(_ mark: String, everyChild: Bool = false) -> Int {
        let wanted = Array((key + "=" + mark + (everyChild ? "" : "\0")).utf8)
        guard let folder = opendir("/proc") else { return 0 }
        defer { closedir(folder) }
        let me = getpid()
        var killed = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let pid = pid_t(name), pid != me else { continue }
            let descriptor = open("/proc/\(pid)/environ", O_RDONLY)
            guard descriptor >= 0 else { continue }
            // Read whole, up to 4 MB (the kernel's limit on arguments and environment together):
            // a mark past the first read once hid a driver's grandchild (issue 43).
            var count = 0
            while count < 4 << 20 {
                if count == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
                let n = buffer[count...].withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                count += n
            }
            close(descriptor)
            guard count > 0, contains(buffer[0..<count], wanted) else { continue }
            if kill(pid, SIGKILL) == 0 { killed += 1 }
        }
        return killed
    }

    /// Whether `haystack` holds `needle` at the start of one of its NUL-separated entries.
    private static func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        var start = haystack.startIndex
        while start < haystack.endIndex {
            let end = haystack[start...].firstIndex(of: 0) ?? haystack.endIndex
            // The needle ends with the entry's NUL unless it is a prefix match (`everyChild`).
            let entry = haystack[start..<min(haystack.endIndex, end + 1)]
            if entry.starts(with: needle) { return true }
            start = end + 1
        }
        return false
    }
}
