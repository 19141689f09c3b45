import Conformance
import ConformanceExport
import ConformanceReports
import Foundation
import OperationSpec

/// `opconform export FINDING --as swift-testing|xctest|objc [--out FILE] [--runs N] [--queue INIT --import MODULE]`:
/// a finding as a reproducer the implementation's maintainers can run without this tool (`Reproducer`).
enum ExportCommand {
    static let help = """
    opconform export FINDING --as swift-testing|xctest|objc [--out FILE] [--runs N]
                     [--queue INIT --import MODULE[,MODULE]]

    Writes a minimised finding as a standalone reproducer for the implementation it was found on,
    needing nothing of OperationConformance: the finding's operations, queues, dependencies and
    driver steps with the implementation's own API, bounded waits, and an assertion of the rule's
    sentence about the objects the finding names.

      --as swift-testing  a Swift Testing test for Foundation (no import but Foundation, Testing)
      --as xctest         the same as an XCTestCase, in the style of swift-corelibs-foundation's
                          TestOperationQueue.swift
      --as objc           an Objective-C program for GNUstep Base: build it with
                          gcc `gnustep-config --objc-flags` -o repro FILE.m `gnustep-config --base-libs`
                          and run it: exit 1 when the bug shows, 0 when every run held
      --out FILE          write it there (default: standard output)
      --runs N            how many times it runs the scenario (default: from the finding's measured
                          replay rate, enough to show a bug of that rate with probability 99.9%)
      --queue INIT        your own queue, built as your driver's factory builds it, in place of
                          OperationQueue(): e.g. --queue 'MyQueue()' or --queue 'MyQueue(width: 4)'
                          (a type and simple arguments). A finding whose driver said the queue is
                          yours (OperationDriver(name:queue:)) is refused without it: a test of
                          OperationQueue() would test the platform, not your queue
      --import MODULE     the module(s) that define it, comma-separated; put the test in a target
                          that depends on them

    The top of the file says the rule, its citations, what the harness saw, what is asserted and
    the harness's replay line. Key-value rules cannot be exported for Foundation on Linux (it sends
    no notifications), nor invocation operations (it has none), nor a finding on your own
    asynchronous subclass (its code is yours).

    The finding is read as strictly as replay reads it, and one whose impl replay could not run is
    refused. What the finding and the command line supply (message, impl, driver, queue names, the
    finding's path) reaches the file only inside comments and string literals, escaped: a comment
    keeps printable ASCII and writes anything else as \\u{…}, so nothing in it can end the comment
    or splice lines in C; a literal holds exactly the text, escaped, and is never a format string.

      opconform export Fixtures/expectations/gnustep/COMPLETION-ONCE.json --as objc --out repro.m
      opconform export Fixtures/expectations/foundation-linux/DEP-REMOVE-RESTORES.json --as swift-testing
    """

    static func run(_ input: Arguments, _ console: Console) throws -> Int32 {
        var input = input
        let args = try input.parse()
        if args.flags.contains("--help") { console.out(help + "\n"); return 0 }
        guard args.positionals.count == 1 else {
            throw InputError(
                "export takes one finding file (a minimised finding: opconform-findings/*.json, or one named by an "
                    + "expectations file); got \(args.positionals.count)"
            )
        }
        let path = args.positionals[0]
        guard let text = args.options["--as"] else {
            throw InputError(
                "export needs --as swift-testing, --as xctest or --as objc: the kind of reproducer to write")
        }
        guard let style = Reproducer.Style(rawValue: text) else {
            throw InputError(
                "export: --as \(text) is not a reproducer kind; the kinds are: "
                    + Reproducer.Style.allCases.map(\.rawValue).joined(separator: ", "))
        }
        let runs = try args.options["--runs"].map { _ in try args.int("--runs", default: 1, range: 1...100_000) }
        guard let finding = try ReplayCommand.loadFinding(path) else {
            throw InputError(
                "\(path) is a scenario, not a finding: export needs a finding (it says which rule to "
                    + "assert, and about which objects)"
            )
        }
        var queue: Reproducer.UserQueue?
        if let factory = args.options["--queue"] {
            let modules = (args.options["--import"] ?? "").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            do { queue = try Reproducer.UserQueue(factory: factory, modules: modules.filter { !$0.isEmpty }) } catch {
                throw InputError("export: \(error.description)")
            }
        } else if args.options["--import"] != nil {
            throw InputError("export: --import goes with --queue INIT (the modules your queue needs)")
        }
        let export: Reproducer.Export
        do { export = try Reproducer.export(finding, as: style, runs: runs, file: path, queue: queue) } catch {
            throw InputError("\(path): cannot export \(finding.rule) --as \(style.rawValue): \(error.description)")
        }
        if let out = args.options["--out"] {
            do { try OutputFile.write(Data(export.text.utf8), to: out) } catch {
                throw InputError("export: " + error.message)
            }
            let lines = export.text.split(separator: "\n", omittingEmptySubsequences: false).count - 1
            console.err(
                "wrote \(out): \(lines) lines, \(export.runs) run\(export.runs == 1 ? "" : "s"); asserts: "
                    + export.claims.joined(separator: "; ") + "\n")
        } else {
            console.out(export.text)
        }
        return 0
    }
}
