import Conformance
import ConformanceReports
import OperationSpec

/// `opconform rules [--json | --markdown | --entry-points | --coverage [--markdown]] [--rules GLOB]`: the catalog, with
/// citations, or which rules read each entry point of the API.
enum RulesCommand {
    static func run(_ input: Arguments, _ console: Console) throws -> Int32 {
        func print(_ s: String, terminator: String = "\n") { console.out(s + terminator) }
        var input = input
        let args = try input.parse()
        if args.flags.contains("--help") { print(Help.rules); return 0 }
        if !args.positionals.isEmpty {
            throw InputError("rules takes no argument, but was given '\(args.positionals[0])'")
        }
        var rules = RuleBook.rules
        if let glob = args.options["--rules"] {
            rules = RuleBook.matching(glob).map(\.rule)
            if rules.isEmpty { throw InputError("no rule matches '\(glob)'; 'opconform rules' lists them") }
        }
        if args.flags.contains("--coverage") {
            if args.flags.contains("--markdown") { print(CoverageReport.markdown(), terminator: "") }
            else { print(CoverageReport.figure()) }
            return 0
        }
        if args.flags.contains("--entry-points") {
            print(EntryPointTable.markdown(EntryPointTable.measure()), terminator: "")
            return 0
        }
        if args.flags.contains("--json") { print(RuleCatalogReport.json(rules), terminator: "") }
        else if args.flags.contains("--markdown") { print(RuleCatalogReport.markdown(rules), terminator: "") }
        else { print(RuleCatalogReport.text(rules), terminator: "") }
        return 0
    }
}
