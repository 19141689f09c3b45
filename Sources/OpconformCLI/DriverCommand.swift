import Conformance
import Foundation

/// `opconform driver`: driver-protocol mode. Reads request lines from standard input, runs each
/// on Foundation in this process, writes the traces as JSON lines (Specs/driver-protocol.md):
/// one case for a request of protocol 2, case after case for protocol 3 (Sessions). The harness
/// starts it as a child process for `--impl foundation`. The code path is a user's driver
/// executable's (`OperationDriver.main`), with `OperationQueue`.
enum DriverCommand {
    static func run(_ input: Arguments, _ console: Console) throws -> Int32 {
        var input = input
        let args = try input.parse()
        if args.flags.contains("--help") { console.out(Help.driver + "\n"); return 0 }
        FoundationDriver.driver.main()
    }
}
