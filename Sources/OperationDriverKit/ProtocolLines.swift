import Foundation
import OperationSpec

/// The driver protocol's lines as a driver reads and writes them: one JSON object per line, keys
/// sorted. The kit's own small codec, so that a driver links none of the harness's file formats;
/// the harness writes its requests with it too (`JSONCodec.line`).
public enum ProtocolLines {
    /// One message as a line, newline included.
    public static func line<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding the protocol's own Codable types cannot fail: no float is NaN, no custom throws.
        do { return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n" } catch {
            preconditionFailure("encoding \(T.self) failed: \(error)")
        }
    }

    /// The request in `line`, or one sentence saying what is wrong with it: the field, by its
    /// path, and what it holds or lacks.
    static func request(_ line: String) -> Result<DriverProtocol.Request, RequestProblem> {
        do {
            return .success(try JSONDecoder().decode(DriverProtocol.Request.self, from: Data(line.utf8)))
        } catch let error as DecodingError {
            return .failure(RequestProblem(message: "the request: " + describe(error)))
        } catch {
            return .failure(RequestProblem(message: "the request: \(error)"))
        }
    }

    struct RequestProblem: Error { var message: String }

    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [CodingKey]) -> String {
            keys.isEmpty
                ? "the top level"
                : keys.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined().trimmingCharacters(in: [
                    "."
                ])
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is missing, but is required"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        case .dataCorrupted(let context):
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return context.codingPath.isEmpty ? "not valid JSON" + (underlying.map { " (\($0))" } ?? "")
                : "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
