import OperationSpec

/// The driver protocol (`Specs/driver-protocol.md`): how a scenario reaches a driver process and
/// how the trace comes back. JSON lines, one object per line, keys sorted.
public enum DriverProtocol {
    /// Protocol 2: a driver process serves one case and exits. 2 since the harness can start
    /// any driver by command (`--impl exec:PATH`): `impl` may be absent from a request (the
    /// probe that learns a driver's name from its `hello`).
    public static let oneCaseVersion = 2
    /// Protocol 3: a driver process may serve case after case ("Sessions"): standard input
    /// stays open, and `done` says whether the driver takes the next request.
    public static let sessionVersion = 3
    /// The versions this harness speaks, oldest first.
    public static let versions = [oneCaseVersion, sessionVersion]
    /// The levels a request's `noise` may take (Specs/driver-protocol.md, "Timing noise").
    public static let noiseLevels = 0...3
    /// The levels a request's `patience` may take ("Patience").
    public static let patienceLevels = 1...16

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
        /// The timing noise the driver makes at its instrumented points, 1 to 3
        /// (Specs/driver-protocol.md, "Timing noise"); nil for none. Written only when above 0,
        /// so a request without noise has the bytes it always had, and drivers that know
        /// nothing of noise keep working.
        public var noise: Int?
        /// How many times longer than usual the driver waits before it calls something stuck
        /// or a rendezvous missed (Specs/driver-protocol.md, "Patience"): the harness runs a
        /// case again with patience to tell a slow case from a stuck one. Written only above
        /// 1; a driver that knows nothing of it still gets the harness's own limits stretched.
        public var patience: Int?
        public init(
            impl: String?, scenario: Scenario, scheduleSeed: UInt64, unitMicroseconds: Int,
            protocol version: Int = DriverProtocol.oneCaseVersion,
            noise: Int = 0, patience: Int = 1
        ) {
            self.protocol = version
            self.impl = impl
            self.scenario = scenario
            self.scheduleSeed = scheduleSeed
            self.unitMicroseconds = unitMicroseconds
            self.noise = noise > 0 ? noise : nil
            self.patience = patience > 1 ? patience : nil
        }
    }

    /// What a driver builds on: the platform whose classes run the parts of the model the
    /// tested code does not provide (`foundation-linux`), and the parts it does provide
    /// (`queue`: the driver's queues are the tested code's; `subclass`: its asynchronous
    /// operations are). `OperationDriver` says this by itself.
    public struct Platform: Codable, Sendable, Equatable {
        public var name: String
        public var owns: [String]
        public init(name: String, owns: [String]) {
            self.name = name
            self.owns = owns
        }
        /// The parts a driver may say it provides.
        public static let parts = ["queue", "subclass"]
    }

    /// The lines a driver writes to standard output: `hello` first, then one `event` per trace
    /// event as it happens, then `done`. A driver that cannot run the request writes `error` and
    /// exits with status 2. In protocol 3, `done(next: true)` says the case left nothing behind
    /// and the driver reads its next request; otherwise it exits after `done`.
    public enum Message: Codable, Sendable, Equatable {
        /// `subclass`: the name of the implementation's own asynchronous `Operation` subclass,
        /// when the driver runs one: the harness then generates `subclass` operations for it.
        /// `platform`: what the driver builds on, when it runs some of the model on a platform's
        /// classes (`Platform`): the harness then tells that platform's known divergences
        /// apart from the tested code's failures. `harness`: the release of OperationDriverKit
        /// the driver was built with (`HarnessVersion.current`), so that a run can say when the
        /// driver and the harness are of different releases; optional.
        case hello(
            protocol: Int, impl: String, capabilities: [Observation], subclass: String? = nil,
            platform: Platform? = nil,
            harness: String? = nil)
        case event(TraceEvent)
        case done(next: Bool? = nil)
        case error(String)
    }
}
