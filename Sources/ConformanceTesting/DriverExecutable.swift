import Conformance
import Foundation

/// Finds a driver executable of the package under test: `swift test` builds a package's
/// executable targets into the same folder as its test bundle (`.build/<triple>/debug/`), so
/// a target named `my-queue-driver` is found next to the running tests.
public enum DriverExecutable {
    /// The absolute path of `name`: a path (with a `/`) is taken as given, relative to the
    /// current folder; a bare name is looked for in each folder of `searchFolders`, in order.
    /// Throws one sentence saying where it looked and what to do.
    public static func locate(_ name: String, in folders: [String] = searchFolders) throws(InputError) -> String {
        if name.contains("/") {
            let launch = try DriverLaunch.resolve(name)
            return launch.executable
        }
        for folder in folders {
            let candidate = PathText.join(folder, name)
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isFolder), !isFolder.boolValue,
               FileManager.default.isExecutableFile(atPath: candidate) {
                return candidate
            }
        }
        throw InputError(
            "no driver executable named '\(name)' next to the tests (looked in \(folders.joined(separator: ", "))): "
                + "add `.executableTarget(name: \"\(name)\", dependencies: [.product(name: "
                + "\"Conformance\", package: ...), ...])` "
                + "to Package.swift, whose main.swift calls OperationDriver(name:queue:).main(); `swift test` builds it"
        )
    }

    /// The folders a bare driver name is looked for in: the folder of the running test
    /// executable (`CommandLine.arguments[0]` and the process's own executable, `OwnExecutable`,
    /// resolved to absolute paths; on Linux both are `.build/<triple>/debug/`), and the folder
    /// holding each loaded `.xctest` bundle (on macOS, where `xctest` from Xcode runs the bundle).
    /// In this order, without duplicates.
    public static var searchFolders: [String] {
        var folders: [String] = []
        func add(_ executable: String?) {
            guard let executable, !executable.isEmpty else { return }
            let folder = PathText.folder(of: PathText.resolvingLinks(PathText.absolute(executable)))
            if !folders.contains(folder) { folders.append(folder) }
        }
        // A bare argument 0 was found on PATH, not in the current folder.
        if let zero = CommandLine.arguments.first, zero.contains("/") { add(zero) }
        add(OwnExecutable.path)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            add(bundle.bundlePath)
        }
        return folders
    }
}
