import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The running program's own executable file, however it was started.
///
/// Argument 0 is what the user typed, not where the file is: a bare name that the shell found
/// on PATH (`opconform`, after the README's `cp .build/release/opconform /usr/local/bin/`), a
/// symlink, or a path relative to the folder it was started from. Taken relative to the current
/// folder it named `./opconform`, so with an installed copy every case of `--impl foundation` was
/// "cannot start ./opconform" (issue 28). Everything that starts this executable again (the
/// Foundation driver, `bench`'s plain driver) or looks for files beside it or above it (the
/// GNUstep driver, the expectations files) asks here.
public enum OwnExecutable {
    /// The absolute path of the running executable, with symlinks resolved. In a test process
    /// it is the test bundle's executable.
    public static let path: String = locate()

    /// The executable's path: on Linux, what /proc/self/exe links to (the kernel's record of
    /// the file it started); else Foundation's idea of the main executable; else argument 0
    /// found the way a shell finds a command (`resolve(argument0:)`).
    static func locate() -> String {
        if let linked = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
           PathText.isAbsolute(linked), FileManager.default.isExecutableFile(atPath: linked) {
            return linked
        }
        if let main = Bundle.main.executablePath, PathText.isAbsolute(main),
           FileManager.default.isExecutableFile(atPath: main) {
            return PathText.resolvingLinks(main)
        }
        return PathText.resolvingLinks(resolve(argument0: CommandLine.arguments.first ?? ""))
    }

    /// Argument 0 as an absolute path: relative to `directory` when it has a slash, else the
    /// first executable of that name in a folder of `searchPath` (an empty entry is the current
    /// folder), else as given.
    static func resolve(argument0: String, directory: String = FileManager.default.currentDirectoryPath,
                        searchPath: String? = ProcessInfo.processInfo.environment["PATH"]) -> String {
        if argument0.unicodeScalars.contains("/") { return PathText.absolute(argument0, in: directory) }
        for folder in (searchPath ?? "").split(separator: ":", omittingEmptySubsequences: false) {
            let folder = folder.isEmpty ? "." : String(folder)
            let candidate = PathText.absolute(PathText.join(folder, argument0), in: directory)
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return argument0
    }

    /// The folder holding the executable.
    public static var folder: String { PathText.folder(of: path) }

    /// A file of this package's checkout, by its path in the checkout (`Drivers/gnustep/build.sh`):
    /// looked for in the current folder and the five above it, then in the executable's folder
    /// and the five above it (`.build/debug/opconform` and the test bundle sit a few levels below
    /// the package). Nil when neither is inside a checkout (an installed copy run elsewhere).
    public static func packageFile(_ relative: String) -> String? {
        for base in [PathText.absolute(FileManager.default.currentDirectoryPath), folder] {
            var dir = base
            for _ in 0..<6 {
                let candidate = PathText.join(dir, relative)
                if FileManager.default.fileExists(atPath: candidate) { return candidate }
                if dir == "/" { break }
                dir = PathText.folder(of: dir)
            }
        }
        return nil
    }
}

extension PathText {
    /// `path` with every symlink in it resolved (realpath(3), which asks the file system), or
    /// `path` as it is when that fails (a file that is not there).
    public static func resolvingLinks(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
