import ConformanceFormats
import Foundation
import OperationDriverKit
import OperationSpec

/// The `gnustep` implementation: GNUstep Base's NSOperation and NSOperationQueue, driven by an
/// Objective-C program (`Drivers/gnustep/`) that speaks the driver protocol. SwiftPM never builds
/// it: `Drivers/gnustep/build.sh` does, with gcc and gnustep-config, on first use.
package enum GNUstepDriver {
    /// What the driver observes: real KVO (observers with the Prior option), NSExceptions caught
    /// around every call, thread identity, names and priorities; and it performs API surfaces 2
    /// to 4 (`apiSurface2`, `apiSurface3`, `apiSurface4`; not `dispatchQueues`: GNUstep Base
    /// has no Dispatch queues). The driver's `hello` is what counts; this list is
    /// what it is expected to say.
    public static let capabilities: [Observation] = [
        .kvo, .thrownErrors, .threadIdentity, .threadNames, .threadPriority,
        .superStart, .finishing, .apiSurface2, .apiSurface3, .apiSurface4,
        .undefinedQueuePriorities
    ]

    /// Held while looking for and building the driver, so that two callers in one process do
    /// not build it at once (tests run in parallel). `build.sh` itself moves the finished
    /// executable into place, so other processes never see half of one.
    private static let building = NSLock()

    /// The driver's sources, found by climbing from the current directory, then from this
    /// executable's real folder (`OwnExecutable.packageFile`).
    static func sourceDirectory() -> String? {
        OwnExecutable.packageFile("Drivers/gnustep/build.sh").map(PathText.parent)
    }

    /// The name of a built driver copied beside an installed `opconform`.
    package static let installedName = "opconform-gnustep-driver"

    /// The driver executable: the one `OPCONFORM_GNUSTEP_DRIVER` names; else a built driver
    /// beside this executable (an installed copy: `opconform` and `opconform-gnustep-driver`
    /// copied into one folder on PATH); else the one built from the package's sources, built
    /// first if it is missing or older than its sources.
    public static func executable() throws(InputError) -> String {
        building.lock()
        defer { building.unlock() }
        if let path = ProcessInfo.processInfo.environment["OPCONFORM_GNUSTEP_DRIVER"] {
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw InputError("OPCONFORM_GNUSTEP_DRIVER names \(path), which is not an executable")
            }
            return path
        }
        let beside = PathText.join(OwnExecutable.folder, installedName)
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        guard let dir = sourceDirectory() else {
            throw InputError("gnustep: no GNUstep driver here: \(OwnExecutable.path) is not inside the package's "
                             + "checkout and has no \(installedName) beside it; copy .build/gnustep-driver/"
                             + "\(installedName) next to it, set OPCONFORM_GNUSTEP_DRIVER to a built driver, "
                             + "or run from the checkout")
        }
        let output = PathText.normalized(PathText.join(dir, "../../.build/gnustep-driver/" + installedName))
        if isCurrent(output, sources: dir) { return output }
        let ending: SpawnedProcess.Ending, text: String
        do {
            (ending, text) = try SpawnedProcess.run(["/bin/sh", PathText.join(dir, "build.sh"), output],
                                                    environment: ProcessInfo.processInfo.environment)
        } catch {
            throw InputError("gnustep: cannot run Drivers/gnustep/build.sh: \(error.message)")
        }
        guard ending == .exited(0) else {
            let last = text.split(separator: "\n").suffix(3).joined(separator: " | ")
            throw InputError(
                "gnustep: building the driver failed (\(last)); it needs gcc and GNUstep Base: apt-get install -y "
                    + "--no-install-recommends gobjc libgnustep-base-dev"
            )
        }
        return output
    }

    /// Whether `output` exists and is newer than every file in `sources`.
    static func isCurrent(_ output: String, sources: String) -> Bool {
        let fm = FileManager.default
        guard let built = (try? fm.attributesOfItem(atPath: output))?[.modificationDate] as? Date,
              let files = try? fm.contentsOfDirectory(atPath: sources) else { return false }
        return files.allSatisfy { name in
            let date = (try? fm.attributesOfItem(atPath: PathText.join(sources, name)))?[.modificationDate] as? Date
            return (date ?? .distantFuture) <= built
        }
    }
}
