import Foundation
import OpconformCLI

// opconform: the command line. Everything lives in OpconformCLI so tests can run it in process.
CLI.keepSignalHandlersUntilExit()
exit(CLI.main(Array(CommandLine.arguments.dropFirst()), console: StandardConsole()))
