// The corpus of real-world asynchronous Operation base classes (StyleCorpus in Conformance
// labels them): one class per file, each wired to the harness's probe the way the sample
// driver is. Not a product: a fixture of `opconform flaws --corpus` and CorpusTests, built by
// `swift build`. `--class NAME` chooses the class; `--list` prints the names.
import Conformance
import Foundation

/// Serves the harness's cases with the class `make` builds, as driver `corpus-NAME`.
func serve<S: Operation>(_ name: String, _ make: @escaping (SubclassProbe) -> S) -> Never {
    OperationDriver(name: "corpus-" + name, subclass: make).main()
}

let arguments = CommandLine.arguments
if arguments.contains("--list") {
    print(StyleCorpus.entries.map(\.name).joined(separator: "\n"))
    exit(0)
}
guard let at = arguments.firstIndex(of: "--class"), at + 1 < arguments.count else {
    FileHandle.standardError.write(Data("corpus-driver: --class NAME is required (--list lists them)\n".utf8))
    exit(2)
}
switch arguments[at + 1] {
case "state-kvo": serve("state-kvo") { ProbedStateKVO($0) }
case "dependent-keys": serve("dependent-keys") { ProbedDependentKeys($0) }
case "undeclared-keys": serve("undeclared-keys") { ProbedUndeclaredKeys($0) }
case "no-kvo": serve("no-kvo") { ProbedNoKVO($0) }
case "misspelled-key": serve("misspelled-key") { ProbedMisspelledKey($0) }
case "atomic-wrapper": serve("atomic-wrapper") { ProbedAtomicWrapper($0) }
case "serial-queue": serve("serial-queue") { ProbedSerialQueue($0) }
case "unfair-lock": serve("unfair-lock") { ProbedUnfairLock($0) }
case "no-start": serve("no-start") { ProbedNoStart($0) }
case "cancel-finishes": serve("cancel-finishes") { ProbedCancelFinishes($0) }
case "ready-state": serve("ready-state") { ProbedReadyState($0) }
case "block-handler": serve("block-handler") { ProbedBlockHandler($0) }
case "deinit-token": serve("deinit-token") { ProbedDeinitToken($0) }
case "ready-writes": serve("ready-writes") { ProbedReadyWrites($0) }
case "unsynchronised": serve("unsynchronised") { ProbedUnsynchronised($0) }
case "flag-only": serve("flag-only") { ProbedFlagOnly($0) }
case "finish-order": serve("finish-order") { ProbedFinishOrder($0) }
case "finish-twice": serve("finish-twice") { ProbedFinishTwice($0) }
case "careful-lock": serve("careful-lock") { ProbedCarefulLock($0) }
case "careful-mutex": serve("careful-mutex") { ProbedCarefulMutex($0) }
case "two-step-finish": serve("two-step-finish") { ProbedTwoStepFinish($0) }
case "cancel-unfinishes": serve("cancel-unfinishes") { ProbedCancelUnfinishes($0) }
case "cancel-flag": serve("cancel-flag") { ProbedCancelFlag($0) }
case "main-first": serve("main-first") { ProbedMainFirst($0) }
default:
    FileHandle.standardError.write(Data("corpus-driver: no class '\(arguments[at + 1])' (--list lists them)\n".utf8))
    exit(2)
}
