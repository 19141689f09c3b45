import Foundation
import OperationSpec

/// The `gnustep` implementation: GNUstep Base's NSOperation and NSOperationQueue, driven by an
/// Objective-C program (`Drivers/gnustep/`) that speaks the driver protocol. SwiftPM never builds
/// it: `Drivers/gnustep/build.sh` does, with gcc and gnustep-config, on first use.
public enum GNUstepDriver {
    /// What the driver observes: real KVO (observers with the Prior option), NSExceptions caught
    /// around every call, thread identity, names and priorities; and it performs API surface 2
    /// (`apiSurface2`). The driver's `hello` is what counts; this list is what it is expected
    /// to say.
    public static let capabilities: [Observation] = [.kvo, .thrownErrors, .threadIdentity, .threadNames, .threadPriority, .superStart, .finishing, .apiSurface2, .undefinedQueuePriorities]

    /// Held while looking for and building the driver, so that two callers in one process do
    /// not build it at once (tests run in parallel). `build.sh` itself moves the finished
    /// executable into place, so other processes never see half of one.
    private static let building = NSLock()

    /// The driver's sources, found by climbing from the current directory, then from this
    /// executable's folder (`.build/debug/opconform` and the test bundle sit a few levels below
    /// the package).
    static func sourceDirectory() -> String? {
        let me = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        for base in [URL(fileURLWithPath: FileManager.default.currentDirectoryPath), me.deletingLastPathComponent()] {
            var dir = base
            for _ in 0..<6 {
                let path = dir.appendingPathComponent("Drivers/gnustep/build.sh").path
                if FileManager.default.fileExists(atPath: path) { return dir.appendingPathComponent("Drivers/gnustep").path }
                dir = dir.deletingLastPathComponent()
            }
        }
        return nil
    }

    /// The driver executable, built first if it is missing or older than its sources.
    /// `OPCONFORM_GNUSTEP_DRIVER` names a driver built elsewhere.
    public static func executable() throws(InputError) -> String {
        building.lock()
        defer { building.unlock() }
        if let path = ProcessInfo.processInfo.environment["OPCONFORM_GNUSTEP_DRIVER"] {
            guard FileManager.default.isExecutableFile(atPath: path) else { throw InputError("OPCONFORM_GNUSTEP_DRIVER names \(path), which is not an executable") }
            return path
        }
        guard let dir = sourceDirectory() else {
            throw InputError("gnustep: cannot find Drivers/gnustep/ (run from the package, or set OPCONFORM_GNUSTEP_DRIVER to a built driver)")
        }
        let output = (dir as NSString).appendingPathComponent("../../.build/gnustep-driver/opconform-gnustep-driver")
        if isCurrent(output, sources: dir) { return (output as NSString).standardizingPath }
        let ending: SpawnedProcess.Ending, text: String
        do {
            (ending, text) = try SpawnedProcess.run(["/bin/sh", (dir as NSString).appendingPathComponent("build.sh"), output],
                                                    environment: ProcessInfo.processInfo.environment)
        } catch {
            throw InputError("gnustep: cannot run Drivers/gnustep/build.sh: \(error.message)")
        }
        guard ending == .exited(0) else {
            let last = text.split(separator: "\n").suffix(3).joined(separator: " | ")
            throw InputError("gnustep: building the driver failed (\(last)); it needs gcc and GNUstep Base: apt-get install -y --no-install-recommends gobjc libgnustep-base-dev")
        }
        return (output as NSString).standardizingPath
    }

    /// Whether `output` exists and is newer than every file in `sources`.
    static func isCurrent(_ output: String, sources: String) -> Bool {
        let fm = FileManager.default
        guard let built = (try? fm.attributesOfItem(atPath: output))?[.modificationDate] as? Date,
              let files = try? fm.contentsOfDirectory(atPath: sources) else { return false }
        return files.allSatisfy { name in
            let date = (try? fm.attributesOfItem(atPath: (sources as NSString).appendingPathComponent(name)))?[.modificationDate] as? Date
            return (date ?? .distantFuture) <= built
        }
    }
}
