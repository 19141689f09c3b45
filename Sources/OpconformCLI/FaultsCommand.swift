import Conformance
import ReferenceEngine

/// `opconform faults [--json]`: the reference engine's injectable faults.
enum FaultsCommand {
    struct Entry: Codable { var name: String; var family: String; var summary: String }

    static func run(_ input: Arguments, _ console: Console) throws -> Int32 {
        var input = input
        let args = try input.parse(flags: ["--json"], options: [])
        if args.flags.contains("--help") { console.out(Help.faults + "\n"); return 0 }
        if args.flags.contains("--json") {
            console.out(JSONCodec.encodeString(Fault.allCases.map { Entry(name: $0.rawValue, family: $0.family.rawValue, summary: $0.summary) }))
        } else {
            for f in Fault.allCases { console.out(f.rawValue.padding(33) + f.family.rawValue.padding(11) + f.summary + "\n") }
            console.out("\n\(Fault.allCases.count) faults. Run one: opconform run --impl reference --fault NAME\n")
        }
        return 0
    }
}
