import Conformance
import Foundation
import OperationSpec

/// `opconform check FILE`: judges a stored trace file again, offline (issue 17; Specs/trace-format.md).
/// A trace recorded once (by `replay --trace`, or by a user's own tooling on a machine this
/// harness never ran on) can be checked against every rule of this build, under any profile,
/// without running anything.
enum CheckCommand {
    static let help = """
    opconform check FILE [--profile P] [--rules GLOB] [--strict] [--json] [--html DIR]

    Judges the trace in FILE against the rules, offline: nothing is run. FILE is a trace file
    (Specs/trace-format.md, format 2: the scenario and the events of one run), as
    'opconform replay ... --trace FILE' writes it, or a replay report ('replay --json'), or the
    older replay JSON (format 1). It is read strictly: an unknown key, case or value is refused
    in one sentence with its place and the valid choices.

    Prints every event, then each violated rule with the events that witness it, as replay does.

      --profile P   the profile the rules are judged under (default guide; opconform rules)
      --rules GLOB  only the rules whose id matches, e.g. 'DEP-*'
      --strict      a broken example, advice or observed-only rule fails too
      --json        print the replay report: {format, profile, trace, violations} (sorted keys)
      --html DIR    also draw the trace as an HTML page (DIR/index.html): its violations and a
                    timeline, one lane per thread, the witnesses ringed (a trace recorded on
                    another machine, drawn here)

    Exit status 0 when no rule fails, 1 when one does or the trace ends in a crash or a hang,
    2 for bad usage or input, 4 when the trace ends in a breach (the driver broke the protocol:
    no verdict).
    Example: opconform replay --seed 7 --trace t.json && opconform check t.json --profile class-reference
    """

    static func run(_ input: Arguments, _ console: Console) throws -> Int32 {
        var input = input
        let args = try input.parse()
        if args.flags.contains("--help") { console.out(help + "\n"); return 0 }
        let profile = try args.profile()
        let checks = try args.rules()
        guard args.positionals.count == 1 else {
            throw InputError(
                args.positionals.isEmpty
                    ? "check needs a trace file: opconform check FILE (write one with "
                        + "opconform replay ... --trace FILE)"
                    : "check takes one trace file, but was given \(args.positionals.count): "
                        + "\(args.positionals.joined(separator: " "))"
            )
        }
        let path = args.positionals[0]
        let data = try JSONCodec.readFile(at: path)
        if !TraceFormat.looksLikeTrace(data) {
            let what =
                JSONCodec.looksLikeFinding(data)
                ? "a finding" : JSONCodec.looksLikeExpectations(data) ? "an expectations file" : "not a trace file"
            throw InputError(
                "check: \(path) is \(what): check judges a stored trace (a top-level \"events\" list); 'opconform "
                    + "replay FILE' runs a scenario or a finding, and 'replay FILE --trace OUT' stores its trace"
            )
        }
        let file = try TraceFormat.decode(data, source: path)
        let label =
            "\(file.trace.impl) (stored trace \(path)), schedule seed \(file.trace.scheduleSeed), profile "
                + "\(profile.rawValue)"
        let html = args.options["--html"].map {
            ReplayCommand.HTMLTarget(dir: $0, source: "stored trace \(path)", input: input)
        }
        // With no finding recorded, the only note is where the page went: on standard error.
        return try ReplayCommand.verdict(
            on: file, label: label, profile: profile, checks: checks, json: args.flags.contains("--json"),
            strict: args.flags.contains("--strict"), recorded: nil, html: html,
            note: { console.err($0 + "\n") }, console: console)
    }
}
