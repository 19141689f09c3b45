import Conformance
import ConformanceReports
import Foundation

/// The bench's table and JSON.
package enum BenchReport {
    package static func table(_ rows: [Benchmark.Row]) -> String {
        var out =
            "measurement".padding(62) + "seconds".leftPadded(9) + "scen/s".leftPadded(10) + "ops/s".leftPadded(12)
            + "events/s".leftPadded(13) + "peak MB".leftPadded(9) + "  note\n"
        for r in rows {
            // A time-to-detect entry not seen in most seeds has no median time: its note says so.
            let seconds = r.detect.map { $0.medianSeconds == nil } == true ? "-" : String(format: "%.3f", r.seconds)
            out += r.name.padding(62) + seconds.leftPadded(9)
            out += (r.scenarios > 1 ? String(Int(r.scenariosPerSecond)) : "").leftPadded(10)
            out += (r.operations > 0 ? String(Int(r.operationsPerSecond)) : "").leftPadded(12)
            out += (r.events > 0 ? String(Int(r.eventsPerSecond)) : "").leftPadded(13)
            out += (r.peakKB.map { String($0 / 1024) } ?? "").leftPadded(9)
            out += (r.note.map { "  " + $0 } ?? "") + "\n"
        }
        return out
    }

    /// CPU split into the harness's process and its reaped drivers (`CPUTime`).
    struct CPU: Codable {
        var harness: Double
        var drivers: Double
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
        /// Jobs scaling and time to detect: the jobs the run used.
        var jobs: Int?
        /// Jobs scaling: the smallest jobs' seconds over this row's.
        var speedUp: Double?
        /// The CPU the run used, user plus system: the harness's process and its reaped drivers.
        var cpuSeconds: CPU?
        /// The same per case, in milliseconds.
        var cpuMillisecondsPerCase: CPU?
        /// Time to detect: one expectations entry (`TimeToDetect.Entry`).
        var detect: TimeToDetect.Entry?
    }

    static func cpuPerCase(_ row: Benchmark.Row) -> CPU? {
        guard let cpu = row.cpu, row.scenarios > 0 else { return nil }
        let n = Double(row.scenarios)
        return CPU(harness: (Double(cpu.harnessMicroseconds) / n).rounded() / 1000,
                   drivers: (Double(cpu.driversMicroseconds) / n).rounded() / 1000)
    }

    package static func json(_ rows: [Benchmark.Row]) -> String {
        JSONCodec.encodeString(rows.map {
                Entry(
                    name: $0.name, seconds: $0.seconds, scenarios: $0.scenarios, operations: $0.operations,
                    events: $0.events,
                    scenariosPerSecond: $0.scenariosPerSecond, operationsPerSecond: $0.operationsPerSecond,
                    eventsPerSecond: $0.eventsPerSecond,
                    peakKB: $0.peakKB, note: $0.note, jobs: $0.jobs, speedUp: $0.speedUp,
                    cpuSeconds: $0.cpu.map { CPU(harness: $0.harnessSeconds, drivers: $0.driversSeconds) },
                    cpuMillisecondsPerCase: cpuPerCase($0), detect: $0.detect)
        })
    }
}
