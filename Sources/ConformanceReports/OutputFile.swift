import Conformance
import Foundation

/// A file the harness writes where a user said: a report, a finding, a trace, the case log.
///
/// A regular file (or none yet) is written whole or not at all: into a temporary file beside it,
/// then renamed over it, so that a run killed while writing leaves the old file or the new one,
/// never half of one. A FIFO or a character device (`/dev/stdout`, `/dev/null`, a named pipe a CI
/// script reads) is written into as a stream, never replaced: a rename over `/dev/null` would
/// replace the system's own (issue 43). Anything else (a folder, a socket, a block device) is
/// refused with one sentence. A link is followed to what it names.
public enum OutputFile {
    /// What is at a path, following links.
    enum Kind: Equatable {
        case absent, regular, stream
        case other(String)
    }

    static func kind(of path: String) -> Kind {
        var info = stat()
        guard stat(path, &info) == 0 else { return .absent }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFIFO, S_IFCHR: return .stream
        case S_IFDIR: return .other("a folder; name a file in it")
        case S_IFSOCK: return .other("a socket")
        case S_IFBLK: return .other("a block device")
        default: return .other("not a regular file")
        }
    }

    /// Writes `data` to `path` (see the type's comment for what it does with what is there).
    public static func write(_ data: Data, to path: String) throws(InputError) {
        switch kind(of: path) {
        case .stream:
            let descriptor = open(path, O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw InputError("cannot write \(path): \(String(cString: strerror(errno)))") }
            defer { close(descriptor) }
            guard writeAll(descriptor, data) else {
                throw InputError("cannot write \(path): \(String(cString: strerror(errno)))")
            }
        case .other(let what):
            throw InputError("cannot write \(path): it is \(what)")
        case .absent, .regular:
            let target = PathText.resolvingLinks(path)
            let temporary = target + ".opconform-\(getpid())-\(counter.next())"
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw InputError("cannot write \(path): \(String(cString: strerror(errno)))") }
            let written = writeAll(descriptor, data)
            let error = errno
            close(descriptor)
            guard written, rename(temporary, target) == 0 else {
                unlink(temporary)
                throw InputError("cannot write \(path): \(String(cString: strerror(written ? errno : error)))")
            }
        }
    }

    /// A handle to write `path` in pieces (the case log): a stream as it is, anything regular
    /// made empty first (a log is written as it happens, so it cannot be renamed into place).
    public static func handle(_ path: String) throws(InputError) -> FileHandle {
        let kind = kind(of: path)
        if case .other(let what) = kind { throw InputError("cannot write \(path): it is \(what)") }
        let flags = kind == .stream ? O_WRONLY | O_CLOEXEC : O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC
        let descriptor = open(path, flags, 0o644)
        guard descriptor >= 0 else { throw InputError("cannot write \(path): \(String(cString: strerror(errno)))") }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// Writes all of `data`; false (with errno set) when it could not.
    static func writeAll(_ descriptor: Int32, _ data: Data) -> Bool {
        var rest = data[...]
        while !rest.isEmpty {
            let n = rest.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            rest = rest.dropFirst(n)
        }
        return true
    }

    /// Numbers the temporary files of one process, so that two writers never share one.
    private static let counter = Counter()

    /// `@unchecked Sendable` is sound: `value` is read and written only under `lock`.
    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func next() -> Int { lock.withLock { value += 1; return value } }
    }
}
