import Conformance
import Foundation
import OpconformCLI
import OperationSpec
import ReferenceEngine
import Testing

@Suite("Findings replay")
struct ReplayTests {
    static func findingFile(_ fault: Fault) throws -> (Finding, String) {
        let finding = try #require(FaultProbe.firstFinding(fault))
        return (finding, temporaryFile(String(decoding: finding.fileData, as: UTF8.self)))
    }

    @Test("a finding file replays: its case seed still rebuilds the case, and the rule still breaks")
    func replayFinding() throws {
        let (finding, path) = try Self.findingFile(.oneTooMany)
        let r = opconform("replay", path)
        #expect(r.status == 1)
        #expect(r.out.contains("still regenerates the original case"))
        #expect(r.out.contains(finding.rule))
        #expect(r.out.contains("faults one-too-many"))
        #expect(r.out.contains("\(finding.rule) broke again"))
        let clean = opconform("replay", path, "--no-faults")
        #expect(clean.status == 0)
        #expect(clean.out.contains("\(finding.rule) did not break on this run"))
    }

    @Test("when the generator no longer rebuilds the case, replay says so and runs the stored one")
    func generatorChanged() throws {
        var (finding, _) = try Self.findingFile(.oneTooMany)
        finding.originalHash = "0000000000000000"
        let path = temporaryFile(JSONCodec.encodeString(finding))
        let r = opconform("replay", path)
        #expect(r.out.contains("no longer regenerates the stored case"))
        #expect(r.status == 1)
    }

    @Test("the seed line rebuilds the same case as the finding's original")
    func seedLine() throws {
        let (finding, path) = try Self.findingFile(.suspensionIgnored)
        let bySeed = opconform("replay", "--seed", String(finding.identity.caseSeed), "--fault", "suspension-ignored", "--json")
        let byFile = opconform("replay", path, "--original", "--json")
        #expect(bySeed.status == 1)
        #expect(bySeed.out == byFile.out)
    }

    @Test("run writes a finding per broken rule and prints a line that replays it")
    func runWritesFindings() throws {
        let dir = NSTemporaryDirectory() + "opconform-findings-\(UUID().uuidString)"
        let json = dir + ".json"
        let r = opconform("run", "--impl", "reference", "--fault", "priority-not-normalised", "--count", "40", "--out", dir, "--json", json)
        #expect(r.status == 1)
        let line = try #require(r.out.split(separator: "\n").first { $0.contains("replay: opconform replay \(dir)") })
        let file = String(line.split(separator: " ").last!)
        #expect(opconform("replay", file).status == 1)
        #expect(FileManager.default.fileExists(atPath: json))
        // The case log: the run first, then one line per case, broken ones with their replay line.
        let log = try String(contentsOfFile: dir + "/cases.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(log.count == 41 && log[0].hasPrefix("{\"run\":{"))
        let broken = try log.dropFirst().map { try JSONCodec.decode(CaseRecord.self, from: Data($0.utf8), source: "log") }.filter { !$0.broken.isEmpty }
        #expect(!broken.isEmpty && broken.allSatisfy { $0.replay?.contains("--fault priority-not-normalised") == true })
        // The witness: the first failing case's trace as the run saw it, in a folder of its own
        // (a glob of *.json still finds only findings), judged again by check to the same rule.
        let witnessLine = try #require(r.out.split(separator: "\n").first { $0.hasPrefix("  witness: ") })
        let witness = String(witnessLine.dropFirst("  witness: ".count).split(separator: " ").first!)
        #expect(witness.hasPrefix(dir + "/witnesses/") && witness.hasSuffix(PathText.lastComponent(file)))
        let finding = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
        let rule = try #require(finding["rule"] as? String)
        let judged = opconform("check", witness)
        #expect(judged.status == 1 && judged.out.contains("\(rule): "), "\(judged.out.suffix(400))")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".json") && $0 != "run-record.json" }
        for name in names {
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/" + name))) as? [String: Any]
            #expect(object?["rule"] != nil, "\(name) is not a finding")
        }
    }

    @Test("a run without violations exits 0; bad options exit 2")
    func exitStatus() {
        let dir = NSTemporaryDirectory() + "opconform-findings-\(UUID().uuidString)"
        #expect(opconform("run", "--impl", "reference", "--count", "20", "--out", dir).status == 0)
        #expect(opconform("run", "--shard", "3/2").err.contains("--shard takes I/N"))
        #expect(opconform("run", "--jobs", "0").status == 2)
        #expect(opconform("run", "--impl", "nope").status == 2)
        #expect(opconform("run", "--fault", "nope").status == 2)
        #expect(opconform("run", "--count", "0").status == 2)
        #expect(opconform("run", "--seed", "-1").status == 2)
        #expect(opconform("run", "--count", "5", "--json", "/nonexistent-dir/r.json").status == 2)
        #expect(opconform("replay", "x.json", "--size", "4").status == 2)
    }
}

@Suite("Regression fixtures")
struct RegressionFixtureTests {
    static let dir = SpecsDriftTests.root.appendingPathComponent("Fixtures/regressions")
    static var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
    }

    @Test("there is one per fault")
    func onePerFault() {
        #expect(Self.files == Fault.allCases.map { $0.rawValue + ".json" }.sorted())
    }

    @Test("each breaks its rule with its fault, and runs clean to the end without", arguments: files)
    func replays(file: String) throws {
        let data = try #require(FileManager.default.contents(atPath: Self.dir.appendingPathComponent(file).path))
        let finding = try JSONCodec.decode(Finding.self, from: data, source: file)
        // Converted to format 3 (`opconform convert`), in the bytes a run writes today.
        #expect(finding.format == Finding.newestFormat && data == finding.fileData)
        let check = try #require(RuleBook.check(id: finding.rule))
        let with = ReferenceEngine(options: EngineOptions(profile: finding.profile, faults: finding.faults)).run(finding.scenario, scheduleSeed: finding.scheduleSeed)
        #expect(!check.check(CheckContext(scenario: finding.scenario, trace: with, profile: finding.profile)).violations.isEmpty)
        let without = ReferenceEngine(options: EngineOptions(profile: finding.profile)).run(finding.scenario, scheduleSeed: finding.scheduleSeed)
        // The rules its probe judged: for a fault reached through flawed subclasses, the runtime's.
        let judged = Set(finding.faults.flatMap { FaultProbe.rules(for: $0) }.map(\.rule.id))
        #expect(RuleBook.violations(scenario: finding.scenario, trace: without, profile: finding.profile).filter { judged.contains($0.rule) }.isEmpty)
        #expect(without.ending == .complete)
    }

    /// `run` counts a crash or a hang as a failure (RUN-CRASH, RUN-HANG); so does `replay`.
    @Test("replay of a case that hangs exits 1, like the run that found it")
    func hangFails() {
        // Waiting for an operation nobody starts can never return.
        let s = Scenario(name: "waits for ever", operations: [OperationConfig(kind: .main([]))], driver: [DriverStep(.waitUntilFinished(0))])
        let path = temporaryFile(JSONCodec.encodeString(s))
        let r = opconform("replay", path)
        #expect(r.status == 1 && r.out.contains("the run hung"), "\(r.status) \(r.out.suffix(300))")
    }
}
