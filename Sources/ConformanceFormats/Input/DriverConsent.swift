import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether the harness may start a driver that a file names, without asking the user.
///
/// Findings and expectations files are shared (attached to bug reports, kept as CI artifacts),
/// and each may name the command that starts its driver. Starting it because a file said so
/// would let whoever wrote the file run anything on the reader's machine (`/bin/sh -c …`).
/// So a command read from a file runs only with the user's consent, which is one of:
/// - its program lies inside the current folder (the project the user runs the harness in),
///   symbolic links resolved; for an interpreter (a program outside the folder whose first
///   argument is a file), that file lies inside the current folder;
/// - the user named a driver on the command line (`--impl exec:PATH`), which then replaces
///   the file's;
/// - the user said `--trust-driver`.
/// Otherwise the command is refused in one sentence that quotes it and says how to allow it.
/// Replays of a project's own findings from the project's folder need no flag.
package enum DriverConsent {
    /// The option that allows a driver named in a file, wherever it lies.
    package static let trustOption = "--trust-driver"

    /// Throws unless `launch`, read from `file` (a finding or an expectations file), may start
    /// without a question: see the type's comment. `directory` is the current folder.
    public static func check(_ launch: DriverLaunch, namedIn file: String, trusted: Bool,
                             directory: String = FileManager.default.currentDirectoryPath) throws(InputError) {
        if trusted || isAllowed(launch, directory: directory) { return }
        let command = ShellWords.join(launch.command)
        throw InputError(
            "\(JSONDiagnosis.oneLine(file)) asks to run the driver command "
                + "`\(JSONDiagnosis.oneLine(command, limit: 300))`, "
                + "which lies outside this folder (\(JSONDiagnosis.oneLine(directory))); a file "
                + "from elsewhere could run "
                + "anything this way, so nothing was run: if you trust the file, add "
                + "\(trustOption), or name the driver "
                + "yourself with --impl exec:PATH")
    }

    /// Whether the command's program, or an interpreter's script, is a file inside `directory`.
    package static func isAllowed(_ launch: DriverLaunch, directory: String) -> Bool {
        guard let folder = realPath(directory) else { return false }
        if let program = realPath(launch.executable), isInside(program, folder) { return true }
        // An interpreter from the system (python3, sh) running the project's own script.
        if let script = launch.arguments.first, !script.hasPrefix("-") {
            let path = script.hasPrefix("/") ? script : directory + "/" + script
            var info = stat()
            if let real = realPath(path), stat(real, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
                isInside(real, folder)
            {
                return true
            }
        }
        return false
    }

    /// Whether `path` is `folder` or lies below it (both already free of links and dots).
    static func isInside(_ path: String, _ folder: String) -> Bool {
        folder == "/" || path == folder || path.hasPrefix(folder + "/")
    }

    /// The path with every symbolic link, `.` and `..` resolved (`realpath`), or nil when it
    /// does not exist. (Not Foundation's `resolvingSymlinksInPath`, whose result for a path
    /// that does not exist is the path itself, and which can trap on short names.)
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
