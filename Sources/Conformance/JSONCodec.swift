import Foundation
import OperationSpec

/// The one place JSON is written and read. Keys are sorted and output is pretty-printed, so the
/// same value is the same bytes in every process: scenarios and traces can be diffed and hashed.
public enum JSONCodec {
    public static func encode<T: Encodable>(_ value: T) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        // Encoding our own Codable types cannot fail: no floats are NaN (validated), no custom throws.
        do { return try encoder.encode(value) } catch { preconditionFailure("encoding \(T.self) failed: \(error)") }
    }

    /// One line of JSON (sorted keys, no newlines inside): the unit of the driver protocol.
    public static func line<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do { return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n" } catch { preconditionFailure("encoding \(T.self) failed: \(error)") }
    }

    public static func encodeString<T: Encodable>(_ value: T) -> String {
        String(decoding: encode(value), as: UTF8.self) + "\n"
    }

    public static func decode<T: Decodable>(_ type: T.Type, from data: Data, source: String) throws(InputError) -> T {
        do { return try JSONDecoder().decode(T.self, from: data) } catch { throw InputError.decoding(error, source: source) }
    }

    /// Reads a scenario file and checks it can be run; every problem is one sentence.
    public static func loadScenario(at path: String) throws(InputError) -> Scenario {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError("\(path) cannot be read: no such file, or no permission")
        }
        let scenario = try decode(Scenario.self, from: data, source: path)
        if let problem = scenario.problems().first {
            throw InputError("\(path): \(problem)")
        }
        return scenario
    }
}
