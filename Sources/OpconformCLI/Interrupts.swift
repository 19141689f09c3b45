import Conformance
import Dispatch
import Foundation
import Synchronization

/// SIGINT (Ctrl-C), SIGTERM and SIGHUP (a closed terminal, a CI runner's cancel) during a run:
/// the first asks the run to stop (`StopRequest`) and kills every driver at once; the run then
/// returns what it had decided, and the command writes the findings (marked when not fully
/// shrunk), the summary and the reports as usual, and exits 130. A second signal ends the
/// process at once, for a user who will not wait; the files already written are whole (each is
/// written to a temporary file and renamed).
///
/// Signals are taken through dispatch sources, not a C handler: the work is ordinary Swift on
/// a queue, not code restricted to what is safe inside a signal handler.
final class Interrupts {
    private var sources: [DispatchSourceSignal] = []
    private static let signals = [SIGINT, SIGTERM, SIGHUP]

    init(stop: StopRequest, console: Console) {
        let queue = DispatchQueue(label: "opconform.interrupts")
        for number in Self.signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            let said = SignalConsole(console)
            source.setEventHandler {
                if stop.isRequested { _exit(130) }
                stop.request()
                let killed = LiveChildren.killAll()
                said.say(
                    "\nopconform: interrupted; stopping (\(killed) driver\(killed == 1 ? "" : "s") killed) and writing "
                        + "what was decided; interrupt again to quit at once\n"
                )
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Whether `uninstall` leaves the handlers in place: set by the `opconform` program, which
    /// exits right after its command. Put back, the default disposition let a signal that came
    /// as a finished command was exiting kill the process (status by signal, not 1 or 130: one
    /// fresh-clone CI run of the merge interrupt test). Tests that run commands in process leave
    /// it unset and get their dispositions back.
    static let keptUntilExit = Atomic<Bool>(false)

    /// Puts the default dispositions back, unless the process is about to exit anyway.
    func uninstall() {
        if Self.keptUntilExit.load(ordering: .relaxed) { return }
        for s in sources { s.cancel() }
        sources = []
        for number in Self.signals { signal(number, SIG_DFL) }
    }
}

/// The console, written once from the signal queue. `@unchecked Sendable` is sound: the console
/// is only written to (`err`), and only from the one serial queue of the signal sources.
private final class SignalConsole: @unchecked Sendable {
    private let console: Console
    init(_ console: Console) { self.console = console }
    func say(_ text: String) { console.err(text) }
}
