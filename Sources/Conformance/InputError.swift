import Foundation

/// Bad input from a user: one sentence that says what is wrong and where. The command line
/// prints it and exits with status 2; it never traps.
public struct InputError: Error, CustomStringConvertible, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }

    /// Turns a decoding failure into one sentence naming the place in the file.
    static func decoding(_ error: Error, source: String) -> InputError {
        func path(_ keys: [CodingKey]) -> String {
            let p = keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return p.isEmpty ? "the top level" : String(p.drop { $0 == "." })
        }
        switch error {
        case DecodingError.dataCorrupted(let ctx):
            if let underlying = ctx.underlyingError as NSError?, ctx.codingPath.isEmpty {
                let detail = (underlying.userInfo[NSDebugDescriptionErrorKey] as? String) ?? "it is not valid JSON"
                return InputError("\(source) is not valid JSON: \(detail)")
            }
            return InputError("\(source): at \(path(ctx.codingPath)): \(ctx.debugDescription)")
        case DecodingError.keyNotFound(let key, let ctx):
            return InputError("\(source): at \(path(ctx.codingPath)): the field \"\(key.stringValue)\" is missing")
        case DecodingError.typeMismatch(let type, let ctx):
            return InputError("\(source): at \(path(ctx.codingPath)): expected \(type)")
        case DecodingError.valueNotFound(let type, let ctx):
            return InputError("\(source): at \(path(ctx.codingPath)): expected \(type), found null")
        default:
            return InputError("\(source) could not be read: \(error)")
        }
    }
}
