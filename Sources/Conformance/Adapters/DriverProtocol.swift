import OperationSpec

/// The driver protocol (`Specs/driver-protocol.md`): how a scenario reaches a driver process and
/// how the trace comes back. JSON lines, one object per line, keys sorted.
public enum DriverProtocol {
    /// 2 since the harness can start any driver by command (`--impl exec:PATH`): `impl` may be
    /// absent from a request (the probe that learns a driver's name from its `hello`).
    public static let version = 2

    /// The one line the harness writes to the driver's standard input.
    public struct Request: Codable, Sendable, Equatable {
        public var `protocol`: Int
        /// The implementation the harness expects; absent in the probe, which asks a driver
        /// known only by its command for its `hello`.
        public var impl: String?
        public var scenario: Scenario
        public var scheduleSeed: UInt64
        /// Microseconds per unit of `work`.
        public var unitMicroseconds: Int
        public init(impl: String?, scenario: Scenario, scheduleSeed: UInt64, unitMicroseconds: Int) {
            self.protocol = DriverProtocol.version
            self.impl = impl
            self.scenario = scenario
            self.scheduleSeed = scheduleSeed
            self.unitMicroseconds = unitMicroseconds
        }
    }

    /// The lines a driver writes to standard output: `hello` first, then one `event` per trace
    /// event as it happens, then `done`. A driver that cannot run the request writes `error` and
    /// exits with status 2.
    public enum Message: Codable, Sendable, Equatable {
        /// `subclass`: the name of the implementation's own asynchronous `Operation` subclass,
        /// when the driver runs one: the harness then generates `subclass` operations for it.
        case hello(protocol: Int, impl: String, capabilities: [Observation], subclass: String? = nil)
        case event(TraceEvent)
        case done
        case error(String)
    }
}
