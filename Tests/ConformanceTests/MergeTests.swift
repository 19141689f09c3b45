import Conformance
import Foundation
import OpconformCLI
import OperationSpec
import Testing

/// `opconform merge` (issue 31, item 5): the shards of a run, joined, give the verdict of the
/// run not split; shards of different runs are refused.
@Suite("Merging a run's shards")
struct MergeTests {
    static func folder(_ name: String) -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("opconform-merge-\(getpid())-\(name)").path
        try? FileManager.default.removeItem(atPath: dir)
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A run's JSON report as written, with the fields that depend on where and how fast it ran
    /// set aside: times, and the folders in replay lines and file names.
    static func comparable(_ path: String) throws -> [String: Any] {
        let data = try #require(FileManager.default.contents(atPath: path))
        var json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        for key in ["seconds", "shrinkSeconds", "cpuSeconds"] { json[key] = nil }
        func clean(_ entries: Any?) -> [[String: Any]]? {
            (entries as? [[String: Any]])?.map { e in
                var e = e
                for key in ["replay", "scenarioFile", "shrinkMilliseconds"] { e[key] = nil }
                return e
            }
        }
        json["findings"] = clean(json["findings"])
        json["otherCauses"] = clean(json["otherCauses"])
        return json
    }

    @Test("four shards of a run with failures merge to the run's verdict: the same counts, findings, causes and exit",
          arguments: [("priority-ignored", UInt64(7)), ("wait-returns-early", UInt64(1)), ("added-twice", UInt64(3))])
    func mergedEqualsWhole(fault: String, seed: UInt64) throws {
        let base = Self.folder("\(fault)-\(seed)")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let common = ["--impl", "reference", "--fault", fault, "--count", "300", "--seed", "\(seed)"]
        let whole = opconform(["run"] + common + ["--out", base + "/whole", "--json", base + "/whole.json"])
        var folders: [String] = []
        for i in 1...4 {
            let shard = opconform(["run"] + common + ["--shard", "\(i)/4", "--out", base + "/s\(i)"])
            #expect([0, 1].contains(shard.status), "\(shard.err)")
            folders.append(base + "/s\(i)")
        }
        let merged = opconform(["merge"] + folders.reversed() + ["--json", base + "/merged.json"])
        #expect(merged.status == whole.status, "\(merged.out)\(merged.err)")
        #expect(merged.out.contains("seed \(seed): shards 1, 2, 3, 4 of 4, 300 of 300 cases"))
        let a = try Self.comparable(base + "/whole.json"), b = try Self.comparable(base + "/merged.json")
        func text(_ v: Any?) -> String {
            guard let v else { return "absent" }
            let data = (try? JSONSerialization.data(withJSONObject: v, options: [.sortedKeys, .fragmentsAllowed])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
        for key in Set(a.keys).union(b.keys).sorted() {
            #expect(text(a[key]) == text(b[key]), "\(key): whole \(text(a[key]).prefix(600)) merged \(text(b[key]).prefix(600))")
        }
    }

    @Test("a clean run's shards merge to a pass, and a shard left out is refused unless allowed, and then said")
    func cleanAndMissing() throws {
        let base = Self.folder("clean")
        defer { try? FileManager.default.removeItem(atPath: base) }
        for i in 1...3 {
            #expect(opconform("run", "--count", "90", "--seed", "5", "--shard", "\(i)/3", "--out", base + "/s\(i)").status == 0)
        }
        let all = opconform("merge", base + "/s1", base + "/s2", base + "/s3")
        #expect(all.status == 0 && all.out.contains("90 of 90 cases") && all.out.contains("rules:"), "\(all.out)\(all.err)")
        let missing = opconform("merge", base + "/s1", base + "/s3")
        #expect(missing.status == 2 && missing.err.contains("shards 1, 3 of 3") && missing.err.contains("(missing: 2)")
                && missing.err.contains("--allow-missing"), "\(missing.err)")
        let allowed = opconform("merge", base + "/s1", base + "/s3", "--allow-missing")
        #expect(allowed.status == 0 && allowed.out.contains("INCOMPLETE") && allowed.out.contains("60 of 90 cases"), "\(allowed.out)")
        let twice = opconform("merge", base + "/s1", base + "/s1", base + "/s2", base + "/s3")
        #expect(twice.status == 2 && twice.err.contains("given twice"), "\(twice.err)")
    }

    @Test("shards of different runs are refused, each with what differs")
    func differentRunsRefused() throws {
        let base = Self.folder("different")
        defer { try? FileManager.default.removeItem(atPath: base) }
        #expect(opconform("run", "--count", "20", "--shard", "1/2", "--out", base + "/a").status == 0)
        #expect(opconform("run", "--count", "20", "--shard", "2/2", "--out", base + "/b", "--profile", "gnustep").status == 0)
        #expect(opconform("run", "--count", "20", "--shard", "2/2", "--out", base + "/c", "--size", "4").status == 0)
        #expect(opconform("run", "--count", "30", "--shard", "2/2", "--out", base + "/d").status == 0)
        let profile = opconform("merge", base + "/a", base + "/b")
        #expect(profile.status == 2 && profile.err.contains("the profile gnustep"), "\(profile.err)")
        let generator = opconform("merge", base + "/a", base + "/c")
        #expect(generator.status == 2 && generator.err.contains("the generator"), "\(generator.err)")
        let count = opconform("merge", base + "/a", base + "/d")
        #expect(count.status == 2 && count.err.contains("must split one run"), "\(count.err)")
        // A record from a newer harness, or with a field this build does not know, is refused by name.
        let record = base + "/a/" + RunRecord.fileName
        let text = try String(contentsOfFile: record, encoding: .utf8)
        try text.replacingOccurrences(of: "\"format\" : 2", with: "\"format\" : 3").write(toFile: record, atomically: true, encoding: .utf8)
        let newer = opconform("merge", base + "/a")
        #expect(newer.status == 2 && newer.err.contains("run records of format 2"), "\(newer.err)")
        try text.replacingOccurrences(of: "\"format\" : 2", with: "\"formt\" : 2").write(toFile: record, atomically: true, encoding: .utf8)
        let misspelt = opconform("merge", base + "/a")
        #expect(misspelt.status == 2 && misspelt.err.contains("formt") && misspelt.err.contains("format"), "\(misspelt.err)")
        let none = opconform("merge", base + "/nowhere")
        #expect(none.status == 2 && none.err.contains("not a folder"), "\(none.err)")
    }
}
