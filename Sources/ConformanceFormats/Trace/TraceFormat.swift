import Foundation
import OperationSpec

/// Trace files as people and tools in other languages read them (issue 17; Specs/trace-format.md
/// and Specs/trace.schema.json). Format 2 is written in the style of scenario format 2: every
/// field named (no `_0`), every enumeration value an object whose one key is its case, sorted
/// keys, and one event per line so a long trace can be searched and compared with line tools.
/// It is read strictly: an unknown key, a wrong case or a value of the wrong type is refused in
/// one sentence with its path, line and column and the valid choices.
///
/// Before format 2 a trace was written only inside `replay --json`, in Swift's synthesized form
/// (`{"scenario", "trace", "violations"}`); that document is format 1 here, still read (its
/// scenario as scenario format 1 is, its keys checked the same way) and rewritten by `convert`.
package enum TraceFormat {
    /// The newest format this build writes. Format 3 adds what the driver kit sees a tested
    /// subclass announce (the `announced` event and the `announcements` capability); format 4
    /// API surface 3 (the `releaseQueue` call, the `operations` event, and the `apiSurface3`
    /// capability, which the harness leaves out of the traces it writes: it says what a driver
    /// performs, not what a trace shows); format 5 API surface 4 and the Dispatch constructs (the
    /// `mainQueue`, `queueDeallocated` and `underlyingQueue` events, the `setUnderlyingQueue`
    /// call). A trace without them is written in the oldest format that holds it, so its bytes
    /// do not move (`format(of:)`).
    public static let newest = 5

    /// The format a trace is written in: the oldest that holds what it has.
    public static func format(of trace: Trace) -> Int {
        if trace.capabilities.contains(.apiSurface4) || trace.capabilities.contains(.dispatchQueues)
            || trace.events.contains(where: {
                switch $0.kind {
                case .call(.setUnderlyingQueue), .mainQueue, .queueDeallocated, .underlyingQueue: return true
                default: return false
                }
            }) { return 5 }
        if trace.capabilities.contains(.apiSurface3)
            || trace.events.contains(where: {
                switch $0.kind { case .call(.releaseQueue), .operations: return true; default: return false }
            }) { return 4 }
        let announces = trace.capabilities.contains(.announcements)
            || trace.events.contains { if case .announced = $0.kind { return true }; return false }
        return announces ? 3 : 2
    }

    /// Format-2 bytes: sorted keys, two-space indentation, each event on one line, trailing newline.
    public static func encode(_ file: TraceFile) -> Data { TraceEncoder.value(file).text }

    /// The tree of a trace file, for documents that hold one (`replay --json`).
    static func value(_ file: TraceFile) -> JSONValue { TraceEncoder.value(file) }

    /// Reads a trace file of format 2, a replay report (`replay --json`) for its trace, or the
    /// format-1 `replay --json` document. The scenario
    /// must be one that can run (`Scenario.problems()`), and the events a trace the checkers can
    /// read (`TraceFile.problems`): `seq` counting from 0, every operation, queue and block named
    /// one the scenario has, nothing after the last event.
    public static func decode(_ data: Data, source: String) throws(InputError) -> TraceFile {
        let shown = JSONDiagnosis.oneLine(source)
        let file = try read(data, source: source)
        if let problem = file.scenario.problems().first {
            throw InputError(JSONDiagnosis.oneLine("\(shown): the scenario: \(problem)", limit: 1000))
        }
        if let problem = file.problems().first {
            throw InputError(JSONDiagnosis.oneLine("\(shown): \(problem)", limit: 1000))
        }
        return file
    }

    /// The trace file `data` holds, before the checks of `problems()`: what a schema can say
    /// of a document is what this reads (the schema's test holds the two together).
    package static func read(_ data: Data, source: String) throws(InputError) -> TraceFile {
        let diagnosis = JSONDiagnosis(data)
        guard let root = diagnosis.root else {
            throw InputError.unreadable(source: JSONDiagnosis.oneLine(source), diagnosis, retry: nil)
        }
        let keys: [String] = if case .object(let members) = root.value { members.map(\.key) } else { [] }
        if keys.contains("trace") && !keys.contains("format") {
            return try JSONCodec.decode(LegacyReplay.self, from: data, source: source).file
        } else if keys.contains("trace") {
            return try TraceDecoder(source: source, diagnosis: diagnosis).report(root)
        }
        return try TraceDecoder(source: source, diagnosis: diagnosis).file(root, [])
    }

    /// The format a trace document is in: its `format` when it says one, 1 for the old
    /// `replay --json` document, nil for anything else.
    package static func declaredFormat(_ data: Data) -> Int? {
        guard case .object(let members)? = JSONDiagnosis(data).root?.value else { return nil }
        if case .number(let text)? = members.first(where: { $0.key == "format" })?.node.value { return Int(text) }
        return members.contains { $0.key == "trace" } ? 1 : nil
    }

    /// Whether `data` is a trace document rather than a scenario or a finding: a top-level
    /// `events` (format 2) or `trace` (format 1) field.
    package static func looksLikeTrace(_ data: Data) -> Bool {
        guard case .object(let members)? = JSONDiagnosis(data).root?.value else { return false }
        return members.contains { $0.key == "events" || $0.key == "trace" }
    }

    /// The format-1 document: what `replay --json` printed before format 2, Swift's synthesized
    /// coding of the scenario and the trace. Its violations are the replay's verdict, not part of
    /// the trace: they are read (so the document's keys are all known) and left.
    struct LegacyReplay: Decodable, CheckedInput, StrictlyKeyed {
        var scenario: Scenario
        var trace: Trace
        var violations: [Violation]
        var file: TraceFile { TraceFile(scenario: scenario, trace: trace) }

        private enum CodingKeys: String, CodingKey { case scenario, trace, violations }

        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            scenario = try c.decode(Scenario.self, forKey: .scenario)
            trace = try c.decode(Trace.self, forKey: .trace)
            violations = try c.decode([Violation].self, forKey: .violations)
        }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(scenario, forKey: .scenario)
            try c.encode(trace, forKey: .trace)
            try c.encode(violations, forKey: .violations)
        }

        func inputProblem() -> InputError.FieldProblem? { nil }

        func optionalKeys(at path: [JSONPathSegment]) -> [String] {
            if path.first == .key("scenario") { return scenario.optionalKeys(at: Array(path.dropFirst())) }
            // A thread's queue and currentQueue's answer are left out when nil, in an event of
            // the trace as in a violation's witness.
            return path.last == .key("threadStarted") || path.last == .key("currentQueue") ? ["queue"] : []
        }
    }
}
