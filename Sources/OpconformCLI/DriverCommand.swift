import Conformance
import Foundation

/// `opconform driver`: driver-protocol mode. Reads one request line from standard input, runs it
/// on Foundation in this process, writes the trace as JSON lines (Specs/driver-protocol.md).
/// The harness starts it in a child process for every case of `--impl foundation`. The code
/// path is a user's driver executable's (`OperationDriver`), with `OperationQueue`.
enum DriverCommand {
    static func run(_ input: Arguments, _ console: Console) throws -> Int32 {
        var input = input
        let args = try input.parse(flags: ["--plain"], options: [])
        if args.flags.contains("--help") { console.out(Help.driver + "\n"); return 0 }
        guard let line = readLine(strippingNewline: true) else {
            console.out(JSONCodec.line(DriverProtocol.Message.error("no request on standard input")))
            return 2
        }
        return FoundationDriver.serve(requestLine: line, plain: args.flags.contains("--plain")) { text in FileHandle.standardOutput.write(Data(text.utf8)) }
    }
}
