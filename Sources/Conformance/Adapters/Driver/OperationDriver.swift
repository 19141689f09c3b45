import Foundation
import OperationSpec

/// The driver side of the `foundation` implementation: runs one request in this process and
/// streams the trace to standard output. `opconform driver` calls it; the harness runs it in a
/// child process because Foundation traps (SIGILL) on misuse and can deadlock.
public enum FoundationDriver {
    public static let capabilities: [Observation] = [.threadIdentity, .superStart, .finishing]

    /// Runs the request; `write` receives each protocol line. Returns the exit status.
    /// `plain`: run the same scenario without recording (no events but the last; the bench's
    /// measure of what Foundation costs without the harness).
    public static func serve(requestLine: String, plain: Bool = false, write: @escaping @Sendable (String) -> Void) -> Int32 {
        let request: DriverProtocol.Request
        do {
            request = try JSONCodec.decode(DriverProtocol.Request.self, from: Data(requestLine.utf8), source: "the request")
        } catch {
            write(JSONCodec.line(DriverProtocol.Message.error(error.message)))
            return 2
        }
        guard request.protocol == DriverProtocol.version else {
            write(JSONCodec.line(DriverProtocol.Message.error("protocol \(request.protocol) requested; this driver speaks \(DriverProtocol.version)")))
            return 2
        }
        if let impl = request.impl, impl != "foundation" {
            write(JSONCodec.line(DriverProtocol.Message.error("this driver runs foundation, not '\(impl)'")))
            return 2
        }
        if let problem = request.scenario.problems().first {
            write(JSONCodec.line(DriverProtocol.Message.error(problem)))
            return 2
        }
        write(JSONCodec.line(DriverProtocol.Message.hello(protocol: DriverProtocol.version, impl: "foundation", capabilities: capabilities)))
        let context = FoundationContext(scenario: request.scenario, unit: Double(request.unitMicroseconds) / 1_000_000, recording: !plain) { event in
            write(JSONCodec.line(DriverProtocol.Message.event(event)))
        }
        watch(context, write: write)
        if context.recorder.close(with: context.drive(), onCallingThread: true) { write(JSONCodec.line(DriverProtocol.Message.done)) }
        return 0
    }

    /// The watchdog: a driver call that has not returned while nothing happened for the
    /// context's stall window is stuck (a deadlock, or a wait for something that never comes).
    /// It ends the trace with a `hang` naming the call and exits, in a fraction of a second
    /// instead of the harness's 5 s of silence. The driving thread is stuck and cannot end the
    /// process itself; `_exit` skips exit handlers that could wait for it.
    private static func watch(_ context: FoundationContext, write: @escaping @Sendable (String) -> Void) {
        let quiet = context.stallQuiet
        let thread = Thread {
            while true {
                Thread.sleep(forTimeInterval: 0.02)
                guard let call = context.recorder.stalled(quiet: quiet) else { continue }
                let silence = String(format: "%.2f", quiet)
                if context.recorder.close(with: .hang("\(call) never returned; nothing happened for \(silence) s"), onCallingThread: false) {
                    write(JSONCodec.line(DriverProtocol.Message.done))
                    _exit(0)
                }
                return
            }
        }
        thread.start()
    }
}
