import ConformanceFormats
import Foundation
import OperationDriverKit

extension Sanitizer {
    /// Whether the executable at `path` runs with this sanitizer: started with the sanitizer's
    /// `help=1` option and nothing on standard input, its runtime lists its flags before main
    /// runs ("Available flags for ThreadSanitizer:"); an executable without the runtime ignores
    /// the option. Asked of the running program, not of its bytes: any program that links this
    /// package holds the sanitizers' names as text.
    public func instruments(executableAt path: String, within seconds: TimeInterval = 30) -> Bool {
        var environment = ProcessInfo.processInfo.environment
        environment[optionsVariable] = "help=1"
        environment["SWIFT_BACKTRACE"] = "enable=no"
        // Bounded (issue 43): a driver that never answers, or floods, is not instrumented.
        guard
            let (_, output) = try? SpawnedProcess.run(
                [path], environment: environment, seconds: seconds, maxBytes: 1 << 20)
        else {
            return false
        }
        return output.contains("Available flags for \(reporter):")
    }
}
