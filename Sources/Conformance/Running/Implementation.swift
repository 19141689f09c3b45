import OperationSpec
import ReferenceEngine

/// An implementation under test: it says what it can observe and turns a scenario into a trace.
/// A rule whose needs it cannot meet is reported "not observable" for it, never "pass".
public protocol Implementation: Sendable {
    var name: String { get }
    var capabilities: [Observation] { get }
    /// Whether one run decides: the same scenario and schedule seed always give the same trace.
    /// The shrinker tries each candidate several times on a nondeterministic implementation.
    var isDeterministic: Bool { get }
    func run(_ scenario: Scenario, scheduleSeed: UInt64) -> Trace
}

/// The reference engine as an implementation under test, with any injected faults.
public struct ReferenceImplementation: Implementation {
    public let engine: ReferenceEngine
    public init(options: EngineOptions = EngineOptions()) { engine = ReferenceEngine(options: options) }
    public var name: String { "reference" }
    public var capabilities: [Observation] { ReferenceEngine.capabilities }
    public var isDeterministic: Bool { true }
    public func run(_ scenario: Scenario, scheduleSeed: UInt64) -> Trace { engine.run(scenario, scheduleSeed: scheduleSeed) }
}

/// The implementations this build can run, by name.
public enum Implementations {
    public static let names = ["reference", "foundation", "gnustep"]

    /// `driver` is the command that starts a driver process (`opconform driver`); implementations
    /// run through the driver protocol need it.
    public static func make(_ name: String, profile: Profile, faults: [Fault], driver: [String]? = nil) throws(InputError) -> any Implementation {
        switch name {
        case "reference": return ReferenceImplementation(options: EngineOptions(profile: profile, faults: faults))
        case "foundation":
            guard let driver else { throw InputError("the foundation implementation needs the opconform executable to start its driver") }
            return ChildProcessImplementation(name: "foundation", capabilities: FoundationDriver.capabilities, command: driver)
        case "gnustep":
            return ChildProcessImplementation(name: "gnustep", capabilities: GNUstepDriver.capabilities, command: [try GNUstepDriver.executable()])
        default: throw InputError("unknown implementation '\(name)'; this build has: " + names.joined(separator: ", "))
        }
    }
}
