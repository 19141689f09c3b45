import Foundation

/// A document read with Foundation's synthesized decoder (a format-1 scenario, a finding's
/// fields, an expectations file): that decoder passes over keys it does not know, so a misspelt
/// key used to be ignored and the file quietly meant something else. A conforming type's reader
/// (`JSONCodec.decode`) refuses such a key instead: the value it decoded is written again, and a
/// key of the document that the writing lacks, and that `optionalKeys` does not allow at its
/// place, had no meaning there.
protocol StrictlyKeyed: Encodable {
    /// The keys that may stand at `path` (from the document's top) though writing the value
    /// again leaves them out: its optional fields, absent or null in the document.
    func optionalKeys(at path: [JSONPathSegment]) -> [String]
}

extension StrictlyKeyed {
    /// The sentence refusing the first key of `data`, in the order of the text, that the decoded
    /// value has no place for; nil when there is none.
    func unknownKey(in data: Data, source: String) -> InputError? {
        let input = JSONDiagnosis(data)
        guard let root = input.root else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let again = try? encoder.encode(self), let written = JSONDiagnosis(again).root else { return nil }
        guard let found = Self.firstUnknown(root, written, [], optionalKeys) else { return nil }
        return InputError.unknownKey(
            found.member.key, in: found.path, at: input.at(found.member.keyOffset), allowed: found.allowed,
            clause: "the keys there are: " + found.allowed.joined(separator: ", "),
            source: JSONDiagnosis.oneLine(source))
    }

    /// The first member of `input` that `written` (at the same place) lacks and `optional`
    /// does not allow, with the keys that are allowed there, sorted.
    static func firstUnknown(_ input: JSONDiagnosis.Node, _ written: JSONDiagnosis.Node, _ path: [JSONPathSegment],
        _ optional: ([JSONPathSegment]) -> [String]
    ) -> (path: [JSONPathSegment], member: JSONDiagnosis.Node.Member, allowed: [String])? {
        switch (input.value, written.value) {
        case (.object(let members), .object(let known)):
            for m in members {
                if let w = known.first(where: { $0.key == m.key }) {
                    if let found = firstUnknown(m.node, w.node, path + [.key(m.key)], optional) { return found }
                    continue
                }
                let extra = optional(path)
                if extra.contains(m.key) { continue }
                var allowed = known.map(\.key)
                for k in extra where !allowed.contains(k) { allowed.append(k) }
                return (path, m, allowed.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
            }
        case (.array(let items), .array(let known)):
            for (i, pair) in zip(items, known).enumerated() {
                if let found = firstUnknown(pair.0, pair.1, path + [.index(i)], optional) { return found }
            }
        default: break
        }
        return nil
    }
}
