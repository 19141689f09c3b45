import Foundation
import OperationDriverKit
import OperationSpec
import ReferenceEngine

/// Finding files (Specs/run-output.md). Written in format 4: the fields, seeds as strings, the
/// minimised scenario in scenario format 2, in the style of scenario files. Read in formats 1
/// to 4, each strictly: a key with no meaning where it stands is refused with the nearest known
/// one, in the fields (`StrictlyKeyed`) as in the scenario (`ScenarioDecoder`, or for formats 1
/// and 2 the synthesized form checked the same way).
public enum FindingFile {
    /// The bytes of a finding file. The fields hold no double, so Foundation's encoder writes
    /// them exactly; the scenario's tree goes in as `ScenarioEncoder` makes it, so its thread
    /// priorities are written as `ScenarioFormat.encode` writes them.
    public static func encode(_ finding: Finding) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding our own Encodable types cannot fail (as in JSONCodec.encode).
        guard let fields = try? encoder.encode(Omitting(finding: finding)), let root = JSONDiagnosis(fields).root,
              case .object(let members) = JSONValue(root) else { preconditionFailure("encoding a finding failed") }
        return JSONValue.object(members + [("scenario", ScenarioEncoder.value(finding.scenario))]).text
    }

    /// Reads a finding file of format 1 to 4; every problem is one sentence naming the
    /// source, the field, its line and column, what it holds and what is allowed.
    public static func decode(_ data: Data, source: String) throws(InputError) -> Finding {
        let shown = JSONDiagnosis.oneLine(source)
        let diagnosis = JSONDiagnosis(data)
        guard let root = diagnosis.root else { throw InputError.unreadable(source: shown, diagnosis, retry: nil) }
        guard case .object(let members) = root.value else {
            throw InputError(
                "\(shown): the top level is \(JSONDiagnosis.describe(root)) at \(diagnosis.at(root.offset)), but must "
                    + "be an object: a finding"
            )
        }
        // A key given twice (a second `rule`, say) is refused, not read one way or the other.
        if let twice = diagnosis.duplicateKey(source: source) { throw InputError(twice) }
        // The format first: it says how the rest is read.
        if let node = members.first(where: { $0.key == "format" })?.node {
            guard case .number(let text) = node.value, let format = Int(text),
                (1...Finding.newestFormat).contains(format)
            else {
                throw InputError(
                    JSONDiagnosis.oneLine(
                        "\(shown): format is \(JSONDiagnosis.describe(node)) at \(diagnosis.at(node.offset)), but this "
                            + "build reads finding formats 1 to \(Finding.newestFormat)",
                        limit: 1000))
            }
        }
        // Its own keys before Foundation's decoder reads it: a misspelt required key is named as
        // a misspelling, not only as a field that is missing.
        let keys = Finding.CodingKeys.allCases.map(\.stringValue).sorted()
        if let unknown = members.first(where: { !keys.contains($0.key) }) {
            throw InputError.unknownKey(
                unknown.key, in: [], at: diagnosis.at(unknown.keyOffset), allowed: keys,
                clause: "the keys of a finding are: " + keys.joined(separator: ", "), source: shown)
        }
        var finding = try JSONCodec.decode(Fields.self, from: data, source: source).finding
        if finding.format >= 3 {
            guard let node = members.first(where: { $0.key == "scenario" })?.node else {
                throw InputError(
                    "\(shown): the top-level object at \(diagnosis.at(root.offset)) has no field "
                        + "\"scenario\", which is required"
                )
            }
            finding.scenario = try ScenarioDecoder(source: source, diagnosis: diagnosis)
                .scenario(
                    node, [.key("scenario")],
                    formats:
                        "a finding of format \(finding.format) holds its scenario in format \(ScenarioFormat.newest)")
        }
        return finding
    }

    /// A finding's fields without its scenario, for `encode`.
    private struct Omitting: Encodable {
        var finding: Finding
        func encode(to encoder: Encoder) throws { try finding.encode(to: encoder, scenarioAs: .omitted) }
    }

    /// Every field of a finding as Foundation's decoder reads it, in the order the synthesized
    /// decoder read them (so the first problem named is the same): the scenario too in formats 1
    /// and 2 (its synthesized form), not in 3, whose scenario `ScenarioDecoder` reads.
    struct Fields: Decodable, CheckedInput, StrictlyKeyed {
        var finding: Finding

        init(from decoder: Decoder) throws {
            typealias Key = Finding.CodingKeys
            let c = try decoder.container(keyedBy: Key.self)
            let format = try c.decode(Int.self, forKey: .format)
            let rule = try c.decode(String.self, forKey: .rule)
            let message = try c.decode(String.self, forKey: .message)
            let impl = try c.decode(String.self, forKey: .impl)
            let driver = try c.decodeIfPresent(DriverLaunch.self, forKey: .driver)
            let profile = try c.decode(Profile.self, forKey: .profile)
            let faults = try c.decode([Fault].self, forKey: .faults)
            // Seeds are strings from format 4 on, numbers before (`SeedText`).
            func seed(_ key: Key) throws -> UInt64 {
                format >= 4
                    ? try c.decode(SeedText.self, forKey: key).wrappedValue : try c.decode(UInt64.self, forKey: key)
            }
            let runSeed = try seed(.runSeed)
            let caseIndex = try c.decode(Int.self, forKey: .caseIndex)
            let identity = format >= 4 ? try c.decode(CaseIdentity.self, forKey: .identity)
                : try c.decode(NumericIdentity.self, forKey: .identity).identity
            let originalHash = try c.decode(String.self, forKey: .originalHash)
            let originalOperations = try c.decode(Int.self, forKey: .originalOperations)
            var scenario = Scenario()
            if format < 3 { scenario = try c.decode(Scenario.self, forKey: .scenario) }
            let scheduleSeed = try seed(.scheduleSeed)
            let reproduced = try c.decode(Int.self, forKey: .reproduced)
            let attempts = try c.decode(Int.self, forKey: .attempts)
            let originalReproduced = try c.decodeIfPresent(Int.self, forKey: .originalReproduced)
            let shrinkSteps = try c.decode(Int.self, forKey: .shrinkSteps)
            let shrinkExhausted = try c.decode(Bool.self, forKey: .shrinkExhausted)
            let interrupted = try c.decodeIfPresent(Bool.self, forKey: .interrupted)
            let noise = try c.decodeIfPresent(Int.self, forKey: .noise)
            finding = Finding(
                format: format, rule: rule, message: message, impl: impl, driver: driver, profile: profile,
                faults: faults,
                runSeed: runSeed, caseIndex: caseIndex, identity: identity, originalHash: originalHash,
                originalOperations: originalOperations, scenario: scenario, scheduleSeed: scheduleSeed,
                reproduced: reproduced, attempts: attempts, shrinkSteps: shrinkSteps, shrinkExhausted: shrinkExhausted,
                interrupted: interrupted, originalReproduced: originalReproduced)
            finding.noise = noise
            finding.harness = try c.decodeIfPresent(String.self, forKey: .harness)
            finding.platform = try c.decodeIfPresent(DriverProtocol.Platform.self, forKey: .platform)
        }

        /// A case identity as formats 1 to 3 wrote it: its seed a number.
        struct NumericIdentity: Decodable {
            var identity: CaseIdentity
            enum Keys: String, CodingKey { case caseSeed, generatorVersion, options }
            init(from decoder: Decoder) throws {
                let c = try decoder.container(keyedBy: Keys.self)
                identity = CaseIdentity(caseSeed: try c.decode(UInt64.self, forKey: .caseSeed),
                                        generatorVersion: try c.decode(Int.self, forKey: .generatorVersion),
                                        options: try c.decode(GeneratorOptions.self, forKey: .options))
            }
        }

        /// Written again to compare keys with: the scenario in the form the file holds it,
        /// or not at all in format 3 (its keys are `ScenarioDecoder`'s to judge).
        func encode(to encoder: Encoder) throws {
            try finding.encode(to: encoder, scenarioAs: finding.format < 3 ? .synthesized : .omitted)
        }

        func inputProblem() -> InputError.FieldProblem? { finding.inputProblem() }

        func optionalKeys(at path: [JSONPathSegment]) -> [String] {
            switch path {
            // `originalReproduced` is written only for a nondeterministic implementation (issue 18).
            case []:
                return ["driver", "interrupted", "noise", "originalReproduced"]
                    + (finding.format < 3 ? [] : ["scenario"])
            // Written only when true (`GeneratorOptions.encode`), so `false` in a file is not re-written.
            case [.key("identity"), .key("options")]: return ["focus", "reach", "splitMisuse", "subclass", "surface2"]
            default:
                guard path.first == .key("scenario") else { return [] }
                return finding.scenario.optionalKeys(at: Array(path.dropFirst()))
            }
        }
    }
}
