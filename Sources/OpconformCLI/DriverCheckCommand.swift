import Conformance
import Foundation

/// `opconform driver-check`: a driver author's test suite. Starts the driver once per check and
/// prints what it did wrong against the driver protocol, before a `run --impl exec:PATH` turns
/// the same mistakes into crashes and odd findings.
enum DriverCheckCommand {
    static let help = """
    opconform driver-check [--driver-arg ARG]... [--json] PATH

    Tests a driver (Specs/driver-protocol.md) before the harness uses it: starts PATH (or
    exec:PATH; relative to this folder, or looked up on PATH when it has no slash) with the
    --driver-arg words, once per check, each run limited to 10 s, and prints one line per check,
    'ok   CHECK' or 'FAIL CHECK: what the driver did; what the protocol requires', then
    'N passed, M failed'. The checks, in order:

      probe                      an empty scenario and no impl: hello (protocol 2, a name, known
                                 capabilities), events ending in end, done, exit status 0
      refuse-empty-line          each of these is answered with exactly one error line (no
      refuse-not-json            hello) and exit status 2: an empty line, a line that is not
      refuse-no-scenario         JSON, a request without a scenario, protocols 1 and 99,
      refuse-protocol-1          impl naming another implementation, a dependency on an
      refuse-protocol-99         operation that does not exist, a step of an unknown kind
      refuse-other-impl
      refuse-missing-operation
      refuse-unknown-step
      smoke                      a serial queue running op 0, then op 1 that depends on it:
                                 seq counts from 0, each thread starts with threadStarted, every
                                 call returns or throws on its thread, end, done, exit 0, and
                                 the trace keeps every rule
      streaming                  an operation working 0.4 s: the hello and the first events
                                 arrive before the trace's end (every line written and flushed
                                 as it happens)
      json-lines                 every line of every run is one JSON object that decodes as a
                                 protocol message
      exits                      every run exits by itself once its request is answered and
                                 standard input is closed

      --driver-arg ARG   an argument for the driver (repeat for several)
      --json             print {driver, checks:[{check, status, failure, fix, section}], passed, failed}

    Exit status 0 when every check passes, 1 when any fails, 2 for bad usage.
    Example: opconform driver-check --driver-arg driver .build/debug/opconform
    """

    static func run(_ input: Arguments, _ console: Console) throws -> Int32 {
        var input = input
        let args = try input.parse()
        if args.flags.contains("--help") { console.out(help + "\n"); return 0 }
        guard let path = args.positionals.first else {
            throw InputError("driver-check needs the driver's path, e.g. opconform driver-check ./my-driver")
        }
        guard args.positionals.count == 1 else {
            throw InputError(
                "driver-check takes one driver, but was given '\(args.positionals[1])' too; arguments for the driver "
                    + "go with --driver-arg"
            )
        }
        let launch = try DriverLaunch.resolve(path, arguments: args.values("--driver-arg"))
        let json = args.flags.contains("--json")
        let results = DriverCheck(command: launch.command).run { result in
            if !json { console.out(result.line + "\n") }
        }
        let failed = results.filter { !$0.passed }.count
        if json {
            console.out(JSONCodec.encodeString(Report(driver: launch.command, checks: results.map(Report.Check.init),
                                                      passed: results.count - failed, failed: failed)))
        } else {
            console.out("\(results.count - failed) passed, \(failed) failed\n")
        }
        return failed == 0 ? 0 : 1
    }

    /// `--json`: the same results as the text, for a driver's CI.
    struct Report: Encodable {
        struct Check: Encodable {
            var check: String
            var status: String
            var failure: String?
            /// What to change, and the section of Specs/driver-protocol.md that says so.
            var fix: String?
            var section: String?
            init(_ r: DriverCheck.Result) {
                check = r.check; status = r.passed ? "ok" : "fail"; failure = r.failure
                fix = r.guidance?.change; section = r.guidance?.section
            }
        }
        var driver: [String]
        var checks: [Check]
        var passed: Int
        var failed: Int
    }
}
