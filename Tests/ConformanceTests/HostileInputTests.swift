@testable import Conformance
@testable import ConformanceFormats
@testable import ConformanceGeneration
@testable import ConformanceRunning
@testable import ConformanceShrinking
@testable import ConformanceReports
import Foundation
import OperationSpec
import Testing

/// Inputs from elsewhere read as strictly as a finding (issue 43): a shard's record whose counts
/// are negative, exceed its cases or could overflow a merge, or whose endings are not endings,
/// or that ran fewer cases than its place in the run holds without saying it was cut;
/// an expectations rate near Int.max; a reason that would forge console lines; control
/// characters on their way into XML.
@Suite("Hostile inputs")
struct HostileInputTests {
    /// A real shard's folder (a run of 60 cases with a planted fault), and its record as JSON.
    static func shard() throws -> (String, [String: Any]) {
        let dir = NSTemporaryDirectory() + "opconform-hostile-\(UUID().uuidString)"
        let run = opconform("run", "--impl", "reference", "--fault", "priority-ignored", "--count", "60", "--seed", "1",
                            "--shard", "1/1", "--no-shrink", "--out", dir)
        #expect(run.status == 0 || run.status == 1, "\(run.err)")
        let record = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/run-record.json")))
                                  as? [String: Any])
        return (dir, record)
    }

    static func merged(_ dir: String, _ record: [String: Any]) throws -> (status: Int32, out: String, err: String) {
        try JSONSerialization.data(withJSONObject: record, options: .sortedKeys).write(to: URL(fileURLWithPath: dir + "/run-record.json"))
        return opconform("merge", dir, "--out", dir + "-merged")
    }

    @Test("a record's counts, endings and times are checked before a merge adds them")
    func strictRecord() throws {
        let (dir, record) = try Self.shard()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try Self.merged(dir, record).status != 2, "the record as written merges")
        var negative = record
        negative["endings"] = ["complete": -5]
        let a = try Self.merged(dir, negative)
        #expect(a.status == 2 && a.err.contains("must be a count of this shard's cases"), "\(a.err)")
        var script = record
        script["endings"] = ["<script>alert(1)</script>": 1]
        let b = try Self.merged(dir, script)
        #expect(b.status == 2 && b.err.contains("an ending is one of"), "\(b.err)")
        var huge = record
        huge["count"] = Int.max
        huge["cases"] = Int.max
        let c = try Self.merged(dir, huge)
        #expect(c.status == 2 && c.err.contains("a run has at most"), "\(c.err)")
        var fifo = record
        fifo["seconds"] = -1
        let d = try Self.merged(dir, fifo)
        #expect(d.status == 2 && d.err.contains("finite, not negative"), "\(d.err)")
        // A shard's cases follow from the count and its place: fewer is a cut run, which must say so.
        var short = record
        short["cases"] = 21
        short["endings"] = ["complete": 21]
        func clamp(_ list: Any?, _ keys: [String]) -> [[String: Any]] {
            ((list as? [[String: Any]]) ?? []).map { item in
                var item = item
                for key in keys { if let n = item[key] as? Int { item[key] = min(n, 21) } }
                return item
            }
        }
        short["statistics"] = clamp(record["statistics"], ["cases", "violations", "known", "unconfirmed"])
        for list in ["known", "unconfirmed", "otherCauses"] { short[list] = clamp(record[list], ["cases"]) }
        short["deathCases"] = ((record["deathCases"] as? [String: Int]) ?? [:]).mapValues { min($0, 21) }
        let e = try Self.merged(dir, short)
        #expect(e.status == 2 && e.err.contains("holds 60, and a shard that ran fewer must be marked interrupted"), "\(e.err)")
        short["interrupted"] = true
        let f = try Self.merged(dir, short)
        #expect(f.status == 130 && f.out.contains("INTERRUPTED"), "\(f.status) \(f.out) \(f.err)")
        var more = record
        more["count"] = 80
        more["shard"] = "2/2"
        let g = try Self.merged(dir, more)
        #expect(g.status == 2 && g.err.contains("shard 2/2 of 80 cases holds 40"), "\(g.err)")
    }

    @Test("a record that is not a regular file is named for what it is, never read")
    func recordNotAFile() throws {
        let dir = NSTemporaryDirectory() + "opconform-hostile-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/run-record.json", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = opconform("merge", dir)
        #expect(r.status == 2 && r.err.contains("is not a regular file"), "\(r.err)")
    }

    @Test("an expectations rate near Int.max and a reason with control characters are refused")
    func strictExpectations() throws {
        func load(_ rate: String, reason: String) -> String? {
            let text = #"{"expected":[{"finding":"f.json","kind":"bug","rate":\#(rate),"reason":"\#(reason)","rule":"PRIORITY-ORDER"}],"#
                + #""format":3,"impl":"foundation","profile":"guide"}"#
            do { _ = try JSONCodec.decode(Expectations.self, from: Data(text.utf8), source: "e.json"); return nil } catch {
                return error.message
            }
        }
        #expect(load(#"{"cases":1,"of":9223372036854775807}"#, reason: "r")?.contains("0 < of <= ") == true)
        #expect(load(#"{"cases":1,"of":300}"#, reason: #"ok\u001b[2J\nFAIL FAKE"#)?.contains("holds a control character") == true)
        #expect(load(#"{"cases":1,"of":300}"#, reason: "one line") == nil)
    }

    @Test("control characters never reach XML raw")
    func markup() {
        #expect(Markup.escape("a\u{1B}[2Jb\u{0}c\nd") == "a\u{FFFD}[2Jb\u{FFFD}c\nd")
        #expect(Markup.escape("<x & \"y\">") == "&lt;x &amp; &quot;y&quot;&gt;")
    }

    @Test("merge refuses to write its record over a shard's, and a finding's case index is never negative")
    func mergeOverShardAndNegativeIndex() throws {
        let (dir, record) = try Self.shard()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let before = FileManager.default.contents(atPath: dir + "/run-record.json")
        let r = opconform("merge", dir, "--out", dir)
        #expect(r.status == 2 && r.err.contains("would be replaced by the merged one"), "\(r.err)")
        #expect(FileManager.default.contents(atPath: dir + "/run-record.json") == before, "the shard's record is untouched")

        let findings = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("PRIORITY-ORDER-") }
        let file = dir + "/" + (try #require(findings.first, "\(record["findings"] ?? "")"))
        var finding = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
        finding["caseIndex"] = -1
        try JSONSerialization.data(withJSONObject: finding, options: .sortedKeys).write(to: URL(fileURLWithPath: file))
        let e = opconform("export", file, "--as", "swift-testing", "--out", dir + "/x.swift")
        #expect(e.status == 2 && e.err.contains("caseIndex"), "\(e.err)")
    }

    @Test("the sanitizer probe of a driver that never answers, or floods, ends on time with nothing kept")
    func sanitizerProbeBounded() throws {
        for body in ["exec sleep 100", "exec yes flood"] {
            let path = ExternalDriverTests.script(body)
            let started = Date()
            #expect(!Sanitizer.thread.instruments(executableAt: path, within: 1), "\(body)")
            // A liveness bound, generous for a loaded machine: before, the probe never returned.
            #expect(Date().timeIntervalSince(started) < 60, "\(body)")
        }
    }
}
