import Foundation

/// The bench's table and JSON.
public enum BenchReport {
    public static func table(_ rows: [Benchmark.Row]) -> String {
        var out = "measurement".padding(62) + "seconds".leftPadded(9) + "scen/s".leftPadded(10) + "ops/s".leftPadded(12) + "events/s".leftPadded(13) + "peak MB".leftPadded(9) + "  note\n"
        for r in rows {
            out += r.name.padding(62) + String(format: "%.3f", r.seconds).leftPadded(9)
            out += (r.scenarios > 1 ? String(Int(r.scenariosPerSecond)) : "").leftPadded(10)
            out += (r.operations > 0 ? String(Int(r.operationsPerSecond)) : "").leftPadded(12)
            out += (r.events > 0 ? String(Int(r.eventsPerSecond)) : "").leftPadded(13)
            out += (r.peakKB.map { String($0 / 1024) } ?? "").leftPadded(9)
            out += (r.note.map { "  " + $0 } ?? "") + "\n"
        }
        return out
    }

    struct Entry: Codable {
        var name: String
        var seconds: Double
        var scenarios: Int
        var operations: Int
        var events: Int
        var scenariosPerSecond: Double
        var operationsPerSecond: Double
        var eventsPerSecond: Double
        var peakKB: Int?
        var note: String?
    }

    public static func json(_ rows: [Benchmark.Row]) -> String {
        JSONCodec.encodeString(rows.map {
            Entry(name: $0.name, seconds: $0.seconds, scenarios: $0.scenarios, operations: $0.operations, events: $0.events,
                  scenariosPerSecond: $0.scenariosPerSecond, operationsPerSecond: $0.operationsPerSecond, eventsPerSecond: $0.eventsPerSecond,
                  peakKB: $0.peakKB, note: $0.note)
        })
    }
}
