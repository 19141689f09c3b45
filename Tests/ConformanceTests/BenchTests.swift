import Conformance
import Testing

/// The bench measures; nothing here asserts a speed. What is asserted: every measurement is
/// there, and the scale scenarios run to their end on the reference engine with no violation.
@Suite("The bench")
struct BenchTests {
    @Test("a small bench has every row, and the scale scenarios keep every rule")
    func small() {
        let rows = Benchmark(options: Self.options(cases: 5, scale: 60)).run()
        // Four throughput rows, then shared facts and the five slowest rules on those traces;
        // per shape two scale rows, then shared facts and the five slowest rules.
        #expect(rows.count == 4 + 6 + 3 * 2 + 3 * 6)
        #expect(rows.allSatisfy { $0.seconds >= 0 })
        for row in rows where row.name.hasPrefix("scale:") {
            #expect(row.note == "ended complete" || row.note == "no violation", "\(row.name): \(row.note ?? "")")
        }
        #expect(BenchReport.table(rows).split(separator: "\n").count == rows.count + 1)
    }

    @Test("--shapes measures only the shapes asked for")
    func oneShape() {
        var options = Self.options(cases: 2, scale: 40)
        options.shapes = [.randomDAG]
        let rows = Benchmark(options: options).run()
        #expect(rows.count == 4 + 6 + 2 + 6)
        let scale = rows.filter { $0.name.hasPrefix("scale:") || $0.name.hasPrefix("  random-dag") || $0.name.hasPrefix("  chain") || $0.name.hasPrefix("  fan-out") }
        #expect(scale.count == 2 + 6)
        #expect(scale.allSatisfy { $0.name.contains("random-dag of 40") }, "\(scale.map(\.name))")
    }

    /// A bench small enough for a test: no real implementation, no shrinking, one scale size.
    static func options(cases: Int, scale: Int) -> Benchmark.Options {
        var options = Benchmark.Options()
        options.cases = cases
        options.realCases = 0
        options.scale = [scale]
        options.shrinking = false
        return options
    }
}
