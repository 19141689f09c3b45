import Foundation
import OperationSpec

/// Scenario files as people write them (issue 17; Specs/scenario-format.md). Format 2 names
/// every field (no `_0`), leaves defaults out, and is read strictly: an unknown key anywhere is
/// refused with the nearest known one, a wrong case with the valid ones, and each refusal is
/// one sentence with its path, line and column. Format 1, Swift's synthesized form, is still
/// read, now as strictly about keys; `opconform convert` rewrites it.
///
/// Files only: a driver's request carries the scenario in format 1 (protocol 3), through the
/// synthesized `Codable`, so drivers written against it keep working.
public enum ScenarioFormat {
    /// The format this build writes.
    public static let newest = 2

    /// Format-2 bytes: sorted keys, pretty-printed, trailing newline, like JSONCodec.encode.
    /// (The style is `JSONValue`'s: `"key": value` and `[]`, not Foundation's `"key" : value`.)
    public static func encode(_ scenario: Scenario) -> Data {
        ScenarioEncoder.value(scenario).text
    }

    /// A driver step as one line of format-2 JSON (a reproducer's comment above its code).
    package static func oneLine(_ step: DriverStep) -> String {
        String(decoding: JSONValue.oneLine(ScenarioEncoder.driverStep(step)).text, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Reads format 1 (the old synthesized form, now also strict about unknown keys) or 2.
    /// The scenario must also be one that can run (`Scenario.problems()`); every refusal is
    /// one sentence that names `source`.
    public static func decode(_ data: Data, source: String) throws(InputError) -> Scenario {
        let scenario = try read(data, source: source)
        if let problem = scenario.problems().first {
            throw InputError(JSONDiagnosis.oneLine("\(JSONDiagnosis.oneLine(source)): \(problem)", limit: 1000))
        }
        return scenario
    }

    /// The format a scenario or finding document says it is in: its top-level `format`, when
    /// that is a whole number (nil for anything else, which reading refuses in its own words).
    package static func declaredFormat(_ data: Data) -> Int? {
        guard case .object(let members)? = JSONDiagnosis(data).root?.value,
              case .number(let text)? = members.first(where: { $0.key == "format" })?.node.value else { return nil }
        return Int(text)
    }

    /// The scenario `data` holds, in format 1 or 2, before the checks of `problems()`.
    package static func read(_ data: Data, source: String) throws(InputError) -> Scenario {
        let diagnosis = JSONDiagnosis(data)
        guard let root = diagnosis.root else {
            throw InputError.unreadable(source: JSONDiagnosis.oneLine(source), diagnosis, retry: nil)
        }
        if case .object(let members) = root.value,
            case .number("1")? = members.first(where: { $0.key == "format" })?.node.value
        {
            // The old form: Foundation's decoder, with its sentences, then its keys (`StrictlyKeyed`).
            return try JSONCodec.decode(Scenario.self, from: data, source: source)
        }
        return try ScenarioDecoder(source: source, diagnosis: diagnosis)
            .scenario(root, [], formats: "this build reads scenario formats 1 and \(newest) (\(newest) is current)")
    }
}
