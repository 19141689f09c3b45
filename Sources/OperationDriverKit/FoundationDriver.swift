import Foundation
import OperationSpec

/// The `foundation` implementation's driver: `OperationDriver` on Foundation's own
/// `OperationQueue`. `opconform driver` serves a request with it; the harness runs it in a child
/// process for every case of `--impl foundation`. A user's queue goes through the same code:
/// only the queue differs.
public enum FoundationDriver {
    /// The shared driver's capabilities, the API surfaces and `dispatchQueues`: it performs
    /// every construct of API surfaces 2 to 4 and the Dispatch constructs on `OperationQueue`
    /// (Specs/api-surface.md).
    public static let capabilities: [Observation] = OperationDriver.capabilities
        + [.apiSurface2, .apiSurface3, .apiSurface4, .dispatchQueues]
    public static var driver: OperationDriver {
        OperationDriver(name: "foundation", queue: { OperationQueue() }, apiSurface2: true)
    }

    /// Runs the request; `write` receives each protocol line. Returns the exit status.
    /// `plain`: run the same scenario without recording (no events but the last; the bench's
    /// measure of what Foundation costs without the harness).
    public static func serve(
        requestLine: String, plain: Bool = false, write: @escaping @Sendable (String) -> Void
    ) -> Int32 {
        driver.serve(requestLine: requestLine, plain: plain, write: write)
    }
}
