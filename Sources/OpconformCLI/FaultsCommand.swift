import Conformance
import ConformanceReports
import Foundation
import OperationSpec
import ReferenceEngine

/// `opconform faults [--json]`: the reference engine's injectable faults.
enum FaultsCommand {
    struct Entry: Codable { var name: String; var family: String; var summary: String }

    static func run(_ input: Arguments, _ console: Console) throws -> Int32 {
        var input = input
        let args = try input.parse()
        if args.flags.contains("--help") { console.out(Help.faults + "\n"); return 0 }
        if let dir = args.options["--write-fixtures"] {
            // A folder that cannot be made is the user's input, not an internal error.
            do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
                throw InputError("faults: cannot create the folder '\(dir)' for --write-fixtures")
            }
            for fault in Fault.allCases {
                guard let finding = FaultProbe.firstFinding(fault) else {
                    throw InputError("fault \(fault.rawValue) was not caught within \(FaultProbe.bound) cases")
                }
                let path = PathText.join(dir, fault.rawValue + ".json")
                try OutputFile.write(finding.fileData, to: path)
                console.out(
                    "\(fault.rawValue): \(finding.rule), case \(finding.caseIndex), \(finding.operations) operations "
                        + "-> \(path)\n"
                )
            }
            return 0
        }
        if args.flags.contains("--json") {
            console.out(
                JSONCodec.encodeString(
                    Fault.allCases.map { Entry(name: $0.rawValue, family: $0.family.rawValue, summary: $0.summary) }))
        } else {
            for f in Fault.allCases {
                let options = FaultProbe.generator(for: f)
                let reach =
                    options.flawRate == 0
                    ? ""
                    : " (reached only by flawed subclasses: run with --flaw-rate \(options.flawRate) --flaws "
                    + (options.flaws ?? []).map(\.rawValue).joined(separator: ",") + ")"
                console.out(f.rawValue.padding(33) + f.family.rawValue.padding(11) + f.summary + reach + "\n")
            }
            console.out("\n\(Fault.allCases.count) faults. Run one: opconform run --impl reference --fault NAME\n")
        }
        return 0
    }
}
