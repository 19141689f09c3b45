import Conformance
import Foundation
import OperationSpec

/// A trace drawn as a timeline: one lane per thread, named as the trace names it (the driver,
/// queue workers, detached threads); each event a mark in trace order; each call a span from
/// call to return; each will/did-change pair a bracket with its values; a violation's witnessing
/// events ringed, with a line across the lanes, and the view scrolled to them. Hovering a mark
/// shows the event and its operation's queue and dependencies; clicking it finds the event in
/// the table below. Large traces stay usable: marks shrink, lanes without a witness start
/// collapsed when there are many, and the zoom buttons widen or narrow the spacing.
///
/// The page script (`HTMLPage.script`) draws it from the JSON model built here, so a browser
/// test checks what a reader sees: one `g.lane` per thread, the witnesses ringed.
struct TimelineView {
    let scenario: Scenario
    let trace: Trace
    let violations: [Violation]

    struct Lane: Encodable { var thread: Int; var label: String; var witness: Bool }
    struct Mark: Encodable { var seq: Int; var lane: Int; var kind: String; var op: Int?; var text: String }
    /// `depth`: for a bracket, how many brackets were open on its thread when it opened, so
    /// nested pairs (Listing 2-7's will isFinished, will isExecuting, ...) are drawn apart.
    struct Interval: Encodable { var lane: Int; var from: Int; var to: Int; var label: String; var depth = 0 }
    struct Op: Encodable { var kind: String; var queue: Int?; var deps: [Int]; var dependents: [Int] }
    struct ViolationModel: Encodable { var rule: String; var witnesses: [Int] }
    struct Model: Encodable {
        var lanes: [Lane]; var events: [Mark]; var spans: [Interval]; var brackets: [Interval]
        var ops: [Op]; var violations: [ViolationModel]
    }

    /// The threads of the trace, in number order.
    var threads: [Int] {
        var seen: [Int] = []
        for e in trace.events where !seen.contains(e.thread) { seen.append(e.thread) }
        return seen.sorted()
    }

    var witnessSeqs: [Int] { violations.flatMap { $0.witnesses.map(\.seq) } }

    func model() -> Model {
        let threads = self.threads
        let laneOf = Dictionary(uniqueKeysWithValues: threads.enumerated().map { ($1, $0) })
        var names: [Int: String] = [:]
        for e in trace.events {
            if case .threadStarted(let name, let queue) = e.kind, names[e.thread] == nil {
                // GNUstep's workers of an unnamed queue have no name: say what they are.
                let shown = name.isEmpty ? (queue == nil ? "thread" : "worker") : name
                names[e.thread] = shown + (queue.map { " (queue \($0))" } ?? "")
            }
        }
        let witnesses = witnessSeqs
        let lanes = threads.map { t in
            Lane(thread: t, label: "t\(t) " + (names[t] ?? (t == 0 ? "driver" : "thread")),
                 witness: trace.events.contains { $0.thread == t && witnesses.contains($0.seq) })
        }
        var marks: [Mark] = []
        var spans: [Interval] = []
        var brackets: [Interval] = []
        // Open calls per thread (a call and its return or throw are on the same thread), and
        // open will-changes per (thread, op, key).
        var openCalls: [Int: [(seq: Int, call: Call)]] = [:]
        var openWills: [(thread: Int, op: Int, key: StateKey, seq: Int, value: Value, depth: Int)] = []
        for e in trace.events {
            let lane = laneOf[e.thread] ?? 0
            let (kind, op) = Self.describe(e.kind)
            marks.append(Mark(seq: e.seq, lane: lane, kind: kind, op: op, text: e.description))
            switch e.kind {
            case .call(let c):
                openCalls[e.thread, default: []].append((e.seq, c))
            case .returned(let c), .threw(let c, _, _):
                if let k = openCalls[e.thread]?.lastIndex(where: { $0.call == c }) {
                    let open = openCalls[e.thread]!.remove(at: k)
                    spans.append(Interval(lane: lane, from: open.seq, to: e.seq, label: "\(c)"))
                }
            case .willChange(let o, let key, let v):
                // Its depth: the pairs open on the thread when it opened (crossed pairs, as in
                // will X, will F, did X, did F, are drawn apart too).
                openWills.append((e.thread, o, key, e.seq, v, openWills.filter { $0.thread == e.thread }.count))
            case .didChange(let o, let key, let v):
                if let k = openWills.lastIndex(where: { $0.thread == e.thread && $0.op == o && $0.key == key }) {
                    let will = openWills.remove(at: k)
                    brackets.append(
                        Interval(
                            lane: lane, from: will.seq, to: e.seq,
                            label: "op \(o) \(key.rawValue) \(will.value)→\(v)",
                            depth: will.depth))
                }
            default: break
            }
        }
        // Calls that never returned (a hang) run to the end of the trace.
        let last = trace.events.last?.seq ?? 0
        for (thread, open) in openCalls.sorted(by: { $0.key < $1.key }) {
            for o in open {
                spans.append(
                    Interval(lane: laneOf[thread] ?? 0, from: o.seq, to: last, label: "\(o.call) (never returned)"))
            }
        }
        let ops = scenario.operations.indices.map { i in
            Op(kind: scenario.operations[i].kind.label, queue: Self.queue(of: i, in: scenario),
               deps: scenario.dependencies.filter { $0.op == i }.map(\.on),
               dependents: scenario.dependencies.filter { $0.on == i }.map(\.op))
        }
        return Model(lanes: lanes, events: marks, spans: spans, brackets: brackets, ops: ops,
                     violations: violations.map { ViolationModel(rule: $0.rule, witnesses: $0.witnesses.map(\.seq)) })
    }

    /// The queue a driver step adds the operation to, if any.
    static func queue(of op: Int, in scenario: Scenario) -> Int? {
        for step in scenario.driver {
            switch step.action {
            case .add(op, let q): return q
            case .addBatch(let ops, let q, _) where ops.contains(op): return q
            case .addBlock(op, let q): return q
            default: continue
            }
        }
        return nil
    }

    /// The kind's case name (the mark's colour class) and the operation it is about.
    static func describe(_ kind: EventKind) -> (String, Int?) {
        switch kind {
        case .threadStarted: return ("threadStarted", nil)
        case .stepIssued: return ("stepIssued", nil)
        case .stepDone: return ("stepDone", nil)
        case .triggerMissed: return ("triggerMissed", nil)
        case .call(let c): return ("call", c.op)
        case .returned(let c): return ("returned", c.op)
        case .threw(let c, _, _): return ("threw", c.op)
        case .mainBegan(let o, _): return ("mainBegan", o)
        case .mainEnded(let o): return ("mainEnded", o)
        case .blockBegan(let o, _): return ("blockBegan", o)
        case .blockEnded(let o, _): return ("blockEnded", o)
        case .completionBegan(let o, _): return ("completionBegan", o)
        case .completionEnded(let o): return ("completionEnded", o)
        case .willChange(let o, _, _): return ("willChange", o)
        case .didChange(let o, _, _): return ("didChange", o)
        case .read(let o, _, _): return ("read", o)
        case .set(let o, _, _): return ("set", o)
        case .operationCount: return ("operationCount", nil)
        case .operations: return ("operations", nil)
        case .suspended: return ("suspended", nil)
        case .currentQueue(let o, _): return ("currentQueue", o)
        case .underlyingQueue(let o, _): return ("underlyingQueue", o)
        case .mainQueue: return ("mainQueue", nil)
        case .queueDeallocated: return ("queueDeallocated", nil)
        case .work(let o, _): return ("work", o)
        case .announced(let o, _, _): return ("announced", o)
        case .signal: return ("signal", nil)
        case .awaited: return ("awaited", nil)
        case .invocationResult(let o): return ("invocationResult", o)
        case .crash: return ("crash", nil)
        case .hang: return ("hang", nil)
        case .unsupported: return ("unsupported", nil)
        case .cut: return ("cut", nil)
        case .breach: return ("breach", nil)
        case .end: return ("end", nil)
        }
    }

    /// The timeline, its tools and the table of every event, as one HTML block.
    func html() -> String {
        let json = String(decoding: JSONCodec.encode(model()), as: UTF8.self)
        let witnesses = witnessSeqs
        var rows = ""
        for e in trace.events {
            rows +=
                "<tr id=\"e\(e.seq)\"\(witnesses.contains(e.seq) ? " class=\"witness\"" : "")><td "
                    + "class=\"n\">#\(e.seq)</td><td>t\(e.thread)</td>"
                    + "<td><code>\(HTMLPage.escape("\(e.kind)"))</code></td></tr>\n"
        }
        return """
        <div class="timeline-box">
        <script type="application/json">\(HTMLPage.embed(json))</script>
        <div class="tools"><button type="button" class="zoom-in">zoom in</button><button type="button" \
        class="zoom-out">zoom out</button>
        <span class="meta">\(threads.count) threads, \(trace.events.count) events, ended \(trace.ending.rawValue). \
        Click a lane's name to collapse it; hover a mark for its operation; click it to find it below.</span></div>
        <div class="meta legend">marks: <b style="color:#2f6fdb">call / return</b> (spans: call to return), <b \
        style="color:#d33">threw</b>, <b style="color:#4b9b5b">read</b>, <b style="color:#8a6cc8">will / did \
        change</b> (brackets: will to did, with the values), <b style="color:#e08a1e">ivar store</b>, <b \
        style="color:#8a90a0">work</b>, black: threads, driver steps, task begin and end; <b \
        style="color:#d00">ringed</b>: the violation's witnesses</div>
        <div id="info"></div>
        <div class="timeline"><div class="lanes"></div><div class="scroller"></div></div>
        </div>
        <h3>Every event</h3>
        <table class="events"><tr><th>seq</th><th>thread</th><th>event</th></tr>
        \(rows)</table>
        """
    }
}
