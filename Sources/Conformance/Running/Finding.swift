import OperationSpec
import ReferenceEngine

/// A rule broken by a generated case, minimised, with everything needed to reproduce it months
/// later on another machine. Written as JSON next to the run (`--out`), read by `replay FILE`.
public struct Finding: Sendable, Codable, Equatable {
    public static let formatVersion = 1
    /// Pseudo-rules for runs that died or stalled: not in the catalog, reported like rules.
    public static let crashRule = "RUN-CRASH", hangRule = "RUN-HANG"
    public var format = Finding.formatVersion
    public var rule: String
    /// The violation on the minimised scenario.
    public var message: String
    public var impl: String
    public var profile: Profile
    public var faults: [Fault]
    public var runSeed: UInt64
    public var caseIndex: Int
    public var identity: CaseIdentity
    /// The generated scenario's hash: if the generator no longer rebuilds it, replay says so.
    public var originalHash: String
    public var originalOperations: Int
    /// The minimised scenario and the schedule seed under which it breaks the rule.
    public var scenario: Scenario
    public var scheduleSeed: UInt64
    /// For a nondeterministic implementation: in how many of `attempts` runs the minimised
    /// scenario broke the rule (1 of 1 on the reference engine).
    public var reproduced: Int
    public var attempts: Int
    public var shrinkSteps: Int
    /// The shrinker's budget ran out: a smaller case may exist.
    public var shrinkExhausted: Bool
    /// A measurement, so not part of the file: finding files are the same bytes on every run.
    public var shrinkMilliseconds: Int = 0

    enum CodingKeys: String, CodingKey {
        case format, rule, message, impl, profile, faults, runSeed, caseIndex, identity, originalHash, originalOperations
        case scenario, scheduleSeed, reproduced, attempts, shrinkSteps, shrinkExhausted
    }

    public var operations: Int { scenario.operations.count }

    /// The line to paste.
    public func replayLine(file: String?) -> String {
        if let file { return "swift run opconform replay \(file)" }
        return Self.replayLine(identity: identity, impl: impl, profile: profile, faults: faults)
    }

    /// The line that regenerates a case from its seed and replays it.
    public static func replayLine(identity: CaseIdentity, impl: String, profile: Profile, faults: [Fault]) -> String {
        var line = "swift run opconform replay --seed \(identity.caseSeed) --impl \(impl) --size \(identity.options.size)"
        if identity.options.misuseRate != GeneratorOptions().misuseRate { line += " --misuse-rate \(identity.options.misuseRate)" }
        if identity.options.flawRate != GeneratorOptions().flawRate { line += " --flaw-rate \(identity.options.flawRate)" }
        if profile != .guide { line += " --profile \(profile.rawValue)" }
        for f in faults { line += " --fault \(f.rawValue)" }
        return line
    }

    /// A file name that says what is in it (faults included, so runs with different faults do
    /// not overwrite each other's findings).
    public var fileName: String {
        "\(rule)-\(identity.caseSeed)" + (faults.isEmpty ? "" : "-" + faults.map(\.rawValue).joined(separator: "+")) + ".json"
    }
}
