import Conformance
import OperationSpec

/// The catalog as data (`opconform rules --json`) and as the normative Markdown of
/// `Specs/rules.md` (`opconform rules --markdown`). A test keeps `Specs/rules.md` equal to
/// `markdown()`, so the specification and the code cannot drift apart.
public enum RuleCatalogReport {
    public struct Entry: Codable, Sendable, Equatable {
        public var id: String
        public var family: String
        public var statement: String
        public var citations: [CitationEntry]
        public var strength: String
        public var needs: [String]
        public var profiles: [String]
        public var variants: [VariantEntry]
        public var subject: String
    }
    public struct CitationEntry: Codable, Sendable, Equatable {
        public var document: String
        public var file: String
        public var section: String
    }
    public struct VariantEntry: Codable, Sendable, Equatable {
        public var profile: String
        public var statement: String
    }

    public static func entries(_ rules: [Rule] = RuleBook.rules) -> [Entry] {
        rules.map { r in
            Entry(id: r.id, family: r.family.rawValue, statement: r.statement,
                citations: r.citations.map {
                    CitationEntry(document: $0.document.rawValue, file: $0.document.file, section: $0.section)
                },
                  strength: r.strength.rawValue, needs: r.needs.map(\.rawValue), profiles: r.profiles.map(\.rawValue),
                  variants: r.variants.map { VariantEntry(profile: $0.profile.rawValue, statement: $0.statement) },
                  subject: r.subject.rawValue)
        }
    }

    public static func json(_ rules: [Rule] = RuleBook.rules) -> String { JSONCodec.encodeString(entries(rules)) }

    /// Plain text for a terminal: one rule per paragraph.
    public static func text(_ rules: [Rule] = RuleBook.rules) -> String {
        var out = ""
        for family in Family.allCases {
            let these = rules.filter { $0.family == family }
            guard !these.isEmpty else { continue }
            out += "\(family.title) (\(family.rawValue), \(these.count))\n"
            for r in these {
                out +=
                    "  \(r.id)  [\(r.strength.rawValue)\(r.subject == .subclass ? ", subclass's duty" : "")]\n    "
                        + "\(r.statement)\n    cites: \(r.citations.map(\.description).joined(separator: "; "))\n"
                if !r.needs.isEmpty { out += "    needs: \(r.needs.map(\.rawValue).joined(separator: ", "))\n" }
                if !r.profiles.isEmpty {
                    out += "    profiles: \(r.profiles.map(\.rawValue).joined(separator: ", "))\n"
                }
                for v in r.variants { out += "    under \(v.profile.rawValue): \(v.statement)\n" }
            }
            out += "\n"
        }
        out +=
            "\(rules.count) rules. Documents: "
            + Document.allCases.map { "\($0.rawValue) = \($0.file)" }.joined(separator: ", ") + "\n"
        return out
    }

    public static func markdown(_ rules: [Rule] = RuleBook.rules) -> String {
        var out = """
        # The rules

        Generated from the catalog in `Sources/OperationSpec` by `swift run opconform rules --markdown`;
        a test fails when this file and the code differ. Each rule: its id, one sentence, the places
        in `../shared/seeds/` it rests on, its strength, what an implementation must observe for it to
        be checked, and its profile variants. Documents: 000 Russian article, 001 English article,
        002 Chinese article, 003 GNUstep's NSOperation.h, 004 Apple's guide (section numbers 2.x).
        Sentences of the documents that are not rules, and why, are in `not-rules.md`.

        Strengths: *documented must* (the documents require it), *documented example* (a listing
        shows it and the text relies on it), *documented advice* (the documents recommend it; a
        violation is a warning about the subclass, not the runtime), *observed only* (not in the
        seed documents; what real implementations do).


        """
        for family in Family.allCases {
            let these = rules.filter { $0.family == family }
            guard !these.isEmpty else { continue }
            out += "## \(family.title) (`\(family.rawValue)`, \(these.count))\n\n"
            for r in these {
                out += "### \(r.id)\n\n\(r.statement)\n\n"
                out +=
                    "- cites: " + r.citations.map { "\($0.document.rawValue) \($0.section)" }.joined(separator: "; ")
                    + "\n"
                out += "- strength: \(r.strength.rawValue)\n"
                if r.subject == .subclass {
                    out += "- subject: the subclass author (judges the scenario's own operation code)\n"
                }
                out +=
                    "- needs: "
                    + (r.needs.isEmpty ? "nothing beyond the trace" : r.needs.map(\.rawValue).joined(separator: ", "))
                    + "\n"
                if !r.profiles.isEmpty {
                    out += "- profiles: " + r.profiles.map(\.rawValue).joined(separator: ", ") + " only\n"
                }
                for v in r.variants { out += "- under profile `\(v.profile.rawValue)`: \(v.statement)\n" }
                out += "\n"
            }
        }
        let counts = Family.allCases.map { f in "\(f.rawValue) \(rules.filter { $0.family == f }.count)" }
        out += "---\n\n\(rules.count) rules: " + counts.joined(separator: ", ") + ".\n"
        return out
    }
}
