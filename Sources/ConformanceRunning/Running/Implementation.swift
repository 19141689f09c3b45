import ConformanceFormats
import Foundation
import OperationDriverKit
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
    /// The command-line words that name this implementation again in a replay line
    /// (`--impl NAME`, or `--impl exec:PATH --driver-arg ...` for a driver started by path).
    var replayArguments: [String] { get }
    /// The driver the user named by path, if any: findings record it so a replay starts it.
    var launch: DriverLaunch? { get }
    /// The implementation's own asynchronous `Operation` subclass, by name, when it has one to
    /// test: generated asynchronous operations are then instances of it (`OperationKind.subclass`).
    var subclass: String? { get }
    /// Ends what serves cases between them (driver processes waiting for their next case) and
    /// returns when it is gone: a run calls it after its last case, so that its drivers' CPU
    /// is counted and nothing of the run outlives it.
    func endSessions()
    /// The timing noise its driver is asked for (`--noise`; 0 for none, and for the reference
    /// engine, which has its own scheduler): a finding records it.
    var noise: Int { get }
    /// What the tested code provides and the platform it builds on (`Attribution`): a driver
    /// built on Foundation says so in its hello, and a run then tells Foundation's known
    /// divergences apart from the tested code's failures.
    var setting: Attribution.Setting { get }
    /// The same implementation, waiting `patience` times longer before it calls a case stuck
    /// or a rendezvous missed (`Confirmation`); itself when time cannot mislead it (the
    /// reference engine's time is virtual).
    func patient(_ patience: Int) -> any Implementation
}

extension Implementation {
    public var replayArguments: [String] { ["--impl", name] }
    public var launch: DriverLaunch? { nil }
    public var subclass: String? { nil }
    public func endSessions() {}
    public var noise: Int { 0 }
    public var setting: Attribution.Setting { .ownEverything }
    public func patient(_ patience: Int) -> any Implementation { self }
}

extension Implementation {
    /// Why this implementation cannot run `scenario`, in one sentence, or nil when it can: a
    /// scenario that uses API surface 2 needs a driver that declares `apiSurface2`, one that uses
    /// surface 3 one that declares `apiSurface3`, and so on (a driver written before it would
    /// refuse the request, or worse, misread it).
    public func refusal(of scenario: Scenario) -> String? {
        for (capability, used) in [(Observation.apiSurface2, scenario.surface2Constructs),
                                   (.apiSurface3, scenario.surface3Constructs),
                                   (.apiSurface4, scenario.surface4Constructs),
                                   (.dispatchQueues, scenario.dispatchConstructs)] {
            guard !used.isEmpty, !capabilities.contains(capability) else { continue }
            return "\(name) does not declare the capability \(capability.rawValue), so it cannot run this scenario's "
                + used.joined(separator: ", ")
                + " (Specs/api-surface.md); run it on an implementation that does, such as --impl reference"
        }
        return nil
    }
}

/// The reference engine as an implementation under test, with any injected faults.
package struct ReferenceImplementation: Implementation {
    public let engine: ReferenceEngine
    public init(options: EngineOptions = EngineOptions()) { engine = ReferenceEngine(options: options) }
    public var name: String { "reference" }
    /// The engine's, and those it performs but leaves out of its traces (so they keep trace
    /// format 2): `Observation.performedOnly`.
    public var capabilities: [Observation] { ReferenceEngine.capabilities + Observation.performedOnly }
    public var isDeterministic: Bool { true }
    public func run(_ scenario: Scenario, scheduleSeed: UInt64) -> Trace {
        engine.run(scenario, scheduleSeed: scheduleSeed)
    }
}

/// The implementations this build can run, by name.
public enum Implementations {
    public static let names = ["reference", "foundation", "gnustep"]

    /// `driver` is the command that starts a driver process (`opconform driver`); implementations
    /// run through the driver protocol need it. `exec:PATH` names any driver by path (with
    /// `driverArguments`): it is probed for its name and capabilities before it is returned.
    public static func make(_ name: String, profile: Profile, faults: [Fault], driver: [String]? = nil,
        driverArguments: [String] = [], limits: DriverLimits = .standard
    ) throws(InputError) -> any Implementation {
        if name.hasPrefix(DriverLaunch.scheme) {
            return try external(DriverLaunch.resolve(name, arguments: driverArguments), limits: limits)
        }
        if !driverArguments.isEmpty {
            throw InputError("--driver-arg goes with --impl exec:PATH, not with the built-in '\(name)'")
        }
        switch name {
        case "reference": return ReferenceImplementation(options: EngineOptions(profile: profile, faults: faults))
        case "foundation":
            guard let driver else {
                throw InputError("the foundation implementation needs the opconform executable to start its driver")
            }
            return ChildProcessImplementation(
                name: "foundation", capabilities: FoundationDriver.capabilities, command: driver, limits: limits,
                protocolVersion: DriverProtocol.sessionVersion)
        case "gnustep":
            return ChildProcessImplementation(
                name: "gnustep", capabilities: GNUstepDriver.capabilities, command: [try GNUstepDriver.executable()],
                limits: limits,
                protocolVersion: DriverProtocol.sessionVersion)
        default:
            throw InputError("unknown implementation '\(name)'; this build has: " + names.joined(separator: ", ")
                             + "; a driver of your own is named by path: --impl exec:PATH (Specs/driver-protocol.md)")
        }
    }

    /// A driver the user named by path, probed for its `hello` (its name and capabilities).
    public static func external(
        _ launch: DriverLaunch, limits: DriverLimits = .standard
    ) throws(InputError) -> any Implementation {
        try ChildProcessImplementation.probing(launch, limits: limits)
    }

    /// The same, from a command (`[executable, arguments...]`; the executable resolved like
    /// `--impl exec:PATH`).
    public static func external(
        command: [String], limits: DriverLimits = .standard
    ) throws(InputError) -> any Implementation {
        guard let executable = command.first else { throw InputError("a driver command needs at least the executable") }
        return try external(DriverLaunch.resolve(executable, arguments: Array(command.dropFirst())), limits: limits)
    }

    /// The same, with the limits one by one.
    public static func external(
        command: [String], timeout: TimeInterval, caseDeadline: TimeInterval = DriverLimits.standard.caseDeadline,
        unitMicroseconds: Int = DriverLimits.standard.unitMicroseconds
    ) throws(InputError) -> any Implementation {
        try external(
            command: command,
            limits: DriverLimits(timeout: timeout, caseDeadline: caseDeadline, unitMicroseconds: unitMicroseconds))
    }
}
