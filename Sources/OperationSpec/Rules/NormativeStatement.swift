/// One normative sentence (or clause) of the five documents, and how the catalog accounts for it
/// (issue 34): the rules that state it, or why it is not a rule, or the rule it still lacks.
///
/// `words` are the document's own, copied exactly (a test finds them in the seed with its runs
/// of whitespace made single spaces); `line` is where they start in the seed file; `section` is
/// spelled as the catalog's citations spell it.
public struct NormativeStatement: Sendable {
    /// How the catalog accounts for a statement.
    public enum Coverage: Sendable {
        /// Stated by these rules. `inferred`: rules that cite the statement but claim more than
        /// its words (their strength says so); `note`: what the reader should know.
        case rules([String], inferred: [String] = [], note: String? = nil)
        /// Not a rule, and why (an entry of Specs/not-rules.md, or the reason in its words).
        case notRule(String)
        /// A testable duty no rule states yet: the rule it needs.
        case gap(rule: String, sentence: String)
    }

    public let id: String
    public let document: Document
    public let section: String
    public let line: Int
    public let words: String
    public let coverage: Coverage

    public init(_ id: String, _ document: Document, _ section: String, line: Int, _ words: String, _ coverage: Coverage)
    {
        self.id = id
        self.document = document
        self.section = section
        self.line = line
        self.words = words
        self.coverage = coverage
    }
}
