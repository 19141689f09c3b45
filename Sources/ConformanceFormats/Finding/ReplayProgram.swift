import Foundation

/// How a printed replay line starts opconform, so that it runs where the user is: not
/// `swift run opconform`, which works only inside this package's checkout.
public enum ReplayProgram {
    /// The tool on PATH (after `swift build -c release` and copying `.build/release/opconform`
    /// onto PATH, as the README says).
    public static let `default` = "opconform"

    /// How this process was started, as a command that starts it again from any folder: its
    /// bare name when it was found on PATH (or PATH finds the same file), else its absolute path
    /// (`swift run opconform` runs `.../.build/<triple>/debug/opconform`).
    public static func invoked(as argument0: String = CommandLine.arguments.first ?? OwnExecutable.path,
                               directory: String = FileManager.default.currentDirectoryPath,
                               searchPath: String? = ProcessInfo.processInfo.environment["PATH"]) -> String {
        guard argument0.contains("/") else { return argument0 }
        let absolute = PathText.absolute(argument0, in: directory)
        let name = PathText.lastComponent(absolute)
        if let found = try? DriverLaunch.resolve(name, directory: directory, searchPath: searchPath),
           realPath(found.executable) == realPath(absolute) {
            return name
        }
        return ShellWords.quote(absolute)
    }

    /// The command that runs opconform from this package's checkout wherever the user is: the
    /// test library's replay lines use it (the library knows where its sources are).
    package static func swiftRun(packageAt checkout: String) -> String {
        "swift run --package-path \(ShellWords.quote(checkout)) opconform"
    }

    /// The command a test's replay line starts opconform with: from the package whose tests
    /// run (`swift test` runs them in its root), when `directory` holds a Package.swift that is
    /// not the harness's own; else from the harness's checkout.
    ///
    /// Issue 45: run from the harness's checkout, a replay line built the whole harness again in
    /// that checkout's own `.build` (inside the user's `.build/checkouts/` when the harness is
    /// fetched). opconform is an executable product of a dependency, which SwiftPM runs from the
    /// user's package too, with the modules the tests already built: only the command-line
    /// target is compiled (24 s on 2 cores for the async-operation example after its tests,
    /// then 0.5 s a replay).
    public static func forTests(
        directory: String = FileManager.default.currentDirectoryPath, checkout: String
    ) -> String {
        let manifest = PathText.join(directory, "Package.swift")
        guard FileManager.default.fileExists(atPath: manifest), realPath(directory) != realPath(checkout) else {
            return swiftRun(packageAt: checkout)
        }
        return swiftRun(packageAt: directory)
    }

    static func realPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
