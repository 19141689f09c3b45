import Conformance
import Foundation

// opconform: the command line. Exit status: 0 conformant, 1 violations, 2 bad usage or input,
// 3 internal error. Every message for bad input is one sentence on standard error.
var arguments = Array(CommandLine.arguments.dropFirst())
let status: Int32
do {
    status = try CLI.run(arguments)
} catch let error as InputError {
    FileHandle.standardError.write(Data("opconform: \(error.message)\nRun 'opconform --help' for usage.\n".utf8))
    status = 2
} catch {
    FileHandle.standardError.write(Data("opconform: internal error: \(error)\n".utf8))
    status = 3
}
exit(status)
