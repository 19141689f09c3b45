import Conformance
import Foundation
import OperationSpec
import Testing

/// The harness's side of the driver protocol, against drivers that misbehave on purpose, and the
/// GNUstep driver's side against requests that are wrong on purpose.
@Suite("The driver protocol")
struct DriverProtocolTests {
    /// A driver written as a shell script that prints `lines` and exits with `status`.
    static func scripted(_ lines: [String], status: Int = 0, then tail: String = "", timeout: TimeInterval = 3) -> ChildProcessImplementation {
        let body = lines.map { "printf '%s\\n' '\($0)'" }.joined(separator: "\n")
        let path = temporaryFile("cat > /dev/null\n\(body)\n\(tail)\nexit \(status)\n")
        return ChildProcessImplementation(name: "scripted", capabilities: [], command: ["/bin/sh", path], timeout: timeout)
    }

    static let hello = #"{"hello":{"capabilities":["threadIdentity"],"impl":"scripted","protocol":2}}"#
    static let started = #"{"event":{"_0":{"kind":{"threadStarted":{"name":"main","queue":null}},"seq":0,"thread":0}}}"#
    static let scenario = Scenario(operations: [OperationConfig(kind: .main([]))], driver: [DriverStep(.start(0))])

    /// An exit with a failure status mid-trace is the implementation's (an uncaught error, an
    /// `exit(1)` in its code); a normal exit there is the driver forgetting its last event.
    @Test("a trace that ends before its end marker keeps what came: a crash on a failure status, a breach on status 0")
    func endsEarly() {
        let t = Self.scripted([Self.hello, Self.started], status: 3).run(Self.scenario, scheduleSeed: 1)
        #expect(t.events.count == 2 && t.events[0].kind == .threadStarted(name: "main", queue: nil))
        guard case .crash(_, let message)? = t.events.last?.kind else { Issue.record("\(t.events)"); return }
        #expect(message.contains("exited with status 3 before the end of the trace"), "\(message)")
        #expect(t.capabilities == [.threadIdentity], "the hello's capabilities count")
        let u = Self.scripted([Self.hello, Self.started], status: 0).run(Self.scenario, scheduleSeed: 1)
        #expect(u.events.count == 2)
        guard case .breach(let m)? = u.events.last?.kind else { Issue.record("\(u.events)"); return }
        #expect(m == "the driver exited with status 0 before the trace's last event (end, hang or crash)", "\(m)")
    }

    @Test("a line that is not a protocol message is reported, not trusted")
    func garbage() {
        let t = Self.scripted([Self.hello, "hello world"]).run(Self.scenario, scheduleSeed: 1)
        guard case .breach(let message)? = t.events.last?.kind else { Issue.record("\(t.events)"); return }
        #expect(message.contains("not a protocol message") && message.contains("debug output belongs on standard error") && message.contains("hello world"))
        #expect(t.ending == .breach)
    }

    @Test("a driver's refusal reaches the report with its sentence")
    func refusal() {
        let t = Self.scripted([#"{"error":{"_0":"unknown driver action frobnicate"}}"#], status: 2).run(Self.scenario, scheduleSeed: 1)
        guard case .breach(let message)? = t.events.last?.kind else { Issue.record("\(t.events)"); return }
        #expect(message == "the driver refused the case: unknown driver action frobnicate")
    }

    @Test("a gap in the numbering ends the trace with a crash that says so, before any bogus event")
    func numbering() {
        let skipped = #"{"event":{"_0":{"kind":{"end":{}},"seq":2,"thread":0}}}"#
        let t = Self.scripted([Self.hello, Self.started, skipped, #"{"done":{}}"#]).run(Self.scenario, scheduleSeed: 1)
        #expect(t.events.count == 2 && t.events.map(\.seq) == [0, 1], "\(t.events)")
        guard case .breach(let message)? = t.events.last?.kind else { Issue.record("\(t.events)"); return }
        #expect(message == "the driver numbered its event 1 as 2 (seq counts from 0 without gaps)")
        for seq in [0, -1] {
            let again = #"{"event":{"_0":{"kind":{"end":{}},"seq":\#(seq),"thread":0}}}"#
            let u = Self.scripted([Self.hello, Self.started, again]).run(Self.scenario, scheduleSeed: 1)
            guard case .breach(let m)? = u.events.last?.kind else { Issue.record("seq \(seq): \(u.events)"); continue }
            #expect(m == "the driver numbered its event 1 as \(seq) (seq counts from 0 without gaps)")
        }
    }

    @Test("a driver that lies about itself or its threads ends its trace with a breach that says how")
    func lies() {
        let other = #"{"hello":{"capabilities":["threadIdentity"],"impl":"someone-else","protocol":99}}"#
        let t = Self.scripted([other, Self.started]).run(Self.scenario, scheduleSeed: 1)
        guard case .breach(let m)? = t.events.last?.kind, t.events.count == 1 else { Issue.record("\(t.events)"); return }
        #expect(m == "the driver said hello as someone-else in protocol 99, not as scripted in protocol 2")
        for thread in [-7, 5, Int.max] {
            let odd = #"{"event":{"_0":{"kind":{"end":{}},"seq":1,"thread":\#(thread)}}}"#
            let u = Self.scripted([Self.hello, Self.started, odd, #"{"done":{}}"#]).run(Self.scenario, scheduleSeed: 1)
            guard case .breach(let n)? = u.events.last?.kind else { Issue.record("thread \(thread): \(u.events)"); continue }
            #expect(n.hasPrefix("the driver put event 1 on thread \(thread), but threads are numbered from 0"), "\(n)")
        }
    }

    @Test("a trace that has its last event is whole: nothing is appended, and nothing after it is read")
    func lastEventIsLast() {
        let hang = #"{"event":{"_0":{"kind":{"hang":{"_0":"queue 0 still holds 1 operations"}},"seq":1,"thread":0}}}"#
        let late = #"{"event":{"_0":{"kind":{"end":{}},"seq":2,"thread":0}}}"#
        // No done, and an event after the hang: the hang stays the last event.
        let t = Self.scripted([Self.hello, Self.started, hang, late], status: 0).run(Self.scenario, scheduleSeed: 1)
        #expect(t.events.map(\.kind) == [.threadStarted(name: "main", queue: nil), .hang("queue 0 still holds 1 operations")], "\(t.events)")
        // A refusal after hello stops the reading too: the events after it are not kept.
        let r = Self.scripted([Self.hello, Self.started, #"{"error":{"_0":"out of memory"}}"#, late]).run(Self.scenario, scheduleSeed: 1)
        #expect(r.events.count == 2 && r.ending == .breach, "\(r.events)")
    }

    /// The parent's deadline is on progress: a driver that is slow to start or slow between
    /// events is waited for, one that falls silent mid-trace is killed and its case is a hang.
    @Test("a driver that goes silent is a hang; one that is slow but talking is not")
    func silence() {
        let silent = Self.scripted([Self.hello, Self.started], then: "exec sleep 30", timeout: 1).run(Self.scenario, scheduleSeed: 1)
        #expect(silent.events.count == 2 && silent.events[0].kind == .threadStarted(name: "main", queue: nil))
        guard case .hang(let what)? = silent.events.last?.kind else { Issue.record("\(silent.events)"); return }
        #expect(what.hasPrefix("no progress within 1 s"), "\(what)")

        // Slow to start (1.5 s before its first word) and 0.6 s between lines, 2.1 s in all,
        // against a 1 s deadline: a whole-run deadline would call this a hang.
        let ended = #"{"event":{"_0":{"kind":{"end":{}},"seq":1,"thread":0}}}"#
        let slow = ChildProcessImplementation(name: "scripted", capabilities: [], command: ["/bin/sh", temporaryFile("""
            cat > /dev/null
            sleep 1.5
            printf '%s\\n' '\(Self.hello)' '\(Self.started)'
            sleep 0.6
            printf '%s\\n' '\(ended)' '{"done":{}}'
            """)], timeout: 1).run(Self.scenario, scheduleSeed: 1)
        #expect(slow.events.map(\.kind) == [.threadStarted(name: "main", queue: nil), .end], "\(slow.events)")
    }
}
