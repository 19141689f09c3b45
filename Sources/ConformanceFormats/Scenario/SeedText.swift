/// A seed as the harness's outputs write it: a string of decimal digits, `"10043205694874202455"`.
///
/// A seed is a 64-bit unsigned number, and most are above 2^53: written as a JSON number, jq and
/// JavaScript read `10043205694874202455` as `10043205694874202000`, and a CI script that
/// replays that seed replays another case (issue 45). So finding files (format 4), run records
/// (format 2), the JSON report (format 2) and the case log (format 2) write every seed as a
/// string, and read one only as a string. A scenario's own `seed` (provenance, in the scenario
/// format drivers read) and a request's `scheduleSeed` (the driver protocol) stay numbers.
@propertyWrapper
public struct SeedText: Codable, Sendable, Equatable, Hashable {
    public var wrappedValue: UInt64

    public init(wrappedValue: UInt64) { self.wrappedValue = wrappedValue }

    /// What a seed must be, in the words of a reading error.
    static let requirement = "must be a seed written as a string of decimal digits, 0 to 18446744073709551615 "
        + "(\"10043205694874202455\": a JSON number above 2^53 is rounded by jq and JavaScript)"

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let text = try? container.decode(String.self), let seed = Self.parse(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: Self.requirement)
        }
        wrappedValue = seed
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(String(wrappedValue))
    }

    /// The seed a string spells: decimal digits only (no sign, no space, no leading zero but
    /// in "0"), and no more than `UInt64.max`.
    public static func parse(_ text: String) -> UInt64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }), text == "0" || !text.hasPrefix("0")
        else { return nil }
        return UInt64(text)
    }
}
