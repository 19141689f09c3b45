import Conformance
import ConformanceExport
import Foundation
import OperationSpec
import Testing

/// `opconform export` (issue 20): a finding as a reproducer that needs nothing of this project.
/// The committed reproducers under `Fixtures/reproducers/` are what `.ci/reproducers.sh` builds
/// and runs on GNUstep and Foundation; these tests hold them to their findings and hold the
/// writer to its contract (deterministic, nothing of ours imported, clear refusals).
@Suite("Standalone reproducers")
struct ReproducerExportTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func finding(_ relative: String) throws -> Finding {
        try FindingFile.decode(try Data(contentsOf: root.appendingPathComponent(relative)), source: relative)
    }

    /// The bug-kind entries of an expectations file: rule and finding path, in file order, one
    /// a rule (a rule with an entry for each of its causes has one finding and one report).
    static func bugEntries(_ impl: String) throws -> [(rule: String, finding: String)] {
        let data = try Data(contentsOf: root.appendingPathComponent("Fixtures/expectations/\(impl).json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let entries = try #require(object["expected"] as? [[String: Any]])
        var out: [(rule: String, finding: String)] = []
        for entry in entries where entry["kind"] as? String == "bug" {
            guard let rule = entry["rule"] as? String, let finding = entry["finding"] as? String,
                  !out.contains(where: { $0.rule == rule }) else { continue }
            out.append((rule, finding))
        }
        return out
    }

    static func bugs(_ impl: String) throws -> [String] { try bugEntries(impl).map(\.rule) }

    /// What regenerate.sh writes, and the committed file.
    static func committed(_ finding: String, as style: Reproducer.Style, to file: String) throws -> (fresh: String, committed: String) {
        let fresh = try Reproducer.export(try Self.finding(finding), as: style, file: finding).text
        let committed = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
        return (fresh, committed)
    }

    /// Bug-kind entries whose finding export refuses, because no claim about it would be one
    /// every faithful implementation keeps: they have no committed reproducer, and their report
    /// says why (BugReportTests). GNUstep's PRIORITY-ORDER needs a cancelled operation (ready
    /// whatever it waits for) chosen over one made ready by a dependency's finish an instant
    /// before: whether a faithful queue must see the second as ready when it chooses is the
    /// timing the rule's checker weighs and a standalone program cannot. READY-AFTER-DEPS and
    /// CANCEL-SETS-FLAG have no reproducer assertion written yet; QUEUE-MAX-CONCURRENT's operation
    /// is in two queues, so a program could not tell one queue's runs from the other's.
    static let unexportable: [String: [String]] = [
        "gnustep": ["PRIORITY-ORDER", "READY-AFTER-DEPS", "CANCEL-SETS-FLAG", "QUEUE-MAX-CONCURRENT"],
    ]

    @Test("every bug-kind divergence of GNUstep has its reproducer committed, as export writes it today, or is refused")
    func gnustepReproducersAreCurrent() throws {
        let rules = try Self.bugs("gnustep")
        #expect(rules.count >= 20)
        for rule in rules {
            let file = Self.root.appendingPathComponent("Fixtures/reproducers/gnustep/\(rule).m").path
            if Self.unexportable["gnustep", default: []].contains(rule) {
                #expect(throws: Reproducer.Refusal.self) { try Reproducer.export(try Self.finding("Fixtures/expectations/gnustep/\(rule).json"), as: .objc) }
                #expect(!FileManager.default.fileExists(atPath: file), "\(file) is committed, though export refuses its finding")
                continue
            }
            let (fresh, committed) = try Self.committed("Fixtures/expectations/gnustep/\(rule).json", as: .objc, to: "Fixtures/reproducers/gnustep/\(rule).m")
            #expect(fresh == committed, "Fixtures/reproducers/gnustep/\(rule).m is out of date: run Fixtures/reproducers/regenerate.sh")
        }
    }

    @Test("every bug-kind divergence of Foundation has its Swift Testing and XCTest reproducers committed, as export writes them today")
    func foundationReproducersAreCurrent() throws {
        let rules = try Self.bugs("foundation-linux")
        #expect(rules.count == 5)
        for rule in rules {
            for (style, suffix) in [(Reproducer.Style.swiftTesting, ""), (.xctest, "+XCTest")] {
                let (fresh, committed) = try Self.committed("Fixtures/expectations/foundation-linux/\(rule).json", as: style,
                                                            to: "Fixtures/reproducers/foundation-linux/\(rule)\(suffix).swift")
                #expect(fresh == committed, "Fixtures/reproducers/foundation-linux/\(rule)\(suffix).swift is out of date: run Fixtures/reproducers/regenerate.sh")
            }
        }
    }

    @Test("every reference-engine fault finding under Fixtures/reproducers/faults has its reproducer committed, as export writes it today")
    func faultReproducersAreCurrent() throws {
        let folder = Self.root.appendingPathComponent("Fixtures/reproducers/faults")
        let findings = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(findings.count == 8)
        for name in findings {
            let stem = String(name.dropLast(5))
            let (fresh, committed) = try Self.committed("Fixtures/reproducers/faults/\(name)", as: .swiftTesting, to: "Fixtures/reproducers/faults/\(stem).swift")
            #expect(fresh == committed, "Fixtures/reproducers/faults/\(stem).swift is out of date: run Fixtures/reproducers/regenerate.sh")
        }
    }

    @Test("a reproducer imports nothing but the implementation and its test library, and says how to run it and what it asserts")
    func selfContained() throws {
        let objc = try Reproducer.export(try Self.finding("Fixtures/expectations/gnustep/COMPLETION-ONCE.json"), as: .objc)
        let imports = objc.text.split(separator: "\n").filter { $0.hasPrefix("#import") || $0.hasPrefix("#include") }
        #expect(imports == ["#import <Foundation/Foundation.h>", "#include <stdio.h>", "#include <unistd.h>"])
        #expect(objc.text.contains("COMPLETION-ONCE on gnustep: A completion block set before its operation finished runs exactly once"))
        #expect(objc.text.contains("gnustep-config --objc-flags") && objc.text.contains("Documents: 004"))
        for style in [Reproducer.Style.swiftTesting, .xctest] {
            let swift = try Reproducer.export(try Self.finding("Fixtures/expectations/foundation-linux/DEP-REMOVE-RESTORES.json"), as: style)
            let imports = swift.text.split(separator: "\n").filter { $0.hasPrefix("import ") }
            #expect(imports == ["import Foundation", style == .xctest ? "import XCTest" : "import Testing"])
            #expect(swift.claims == ["op 1 reports isReady YES once removeDependency removed its last unfinished dependency, op 0"])
            #expect(swift.text.contains("// op 1 reports isReady YES once removeDependency"))
            #expect(swift.text.contains("run.valuesAfter(P(.returned, 1, 9, -1), P(.read, 1, 4, -1), 1)"), "the claim is the check: every isReady read after the removal is YES")
        }
    }

    @Test("the same finding is written to the same bytes")
    func deterministic() throws {
        let f = try Self.finding("Fixtures/expectations/gnustep/QUEUE-WAIT-ALL.json")
        #expect(try Reproducer.export(f, as: .objc).text == Reproducer.export(f, as: .objc).text)
    }

    @Test("runs: enough to show a bug of the finding's measured rate with probability 99.9%")
    func runCount() {
        #expect(Reproducer.runs(reproduced: 3, attempts: 3) == 5)      // rate taken as 3/4
        #expect(Reproducer.runs(reproduced: 1, attempts: 1) == 10)     // 1/2
        #expect(Reproducer.runs(reproduced: 1, attempts: 9) == 66)     // 1/10
        #expect(Reproducer.runs(reproduced: 0, attempts: 5) == 1000)   // never reproduced: the cap
    }

    @Test("what cannot be exported is refused with the reason")
    func refusals() throws {
        // A key-value rule: Foundation on Linux sends no notifications.
        let kvo = try Self.finding("Fixtures/expectations/gnustep/START-KVO.json")
        #expect(throws: Reproducer.Refusal.self) { try Reproducer.export(kvo, as: .swiftTesting) }
        do { _ = try Reproducer.export(kvo, as: .xctest) } catch { #expect(error.description.contains("key-value notifications")) }
        // An invocation operation: Foundation on Linux has none.
        let invocation = try Self.finding("Fixtures/expectations/gnustep/INVOCATION-CANCELLED-RESULT.json")
        do { _ = try Reproducer.export(invocation, as: .swiftTesting); Issue.record("exported an invocation operation for Foundation") } catch {
            #expect(error.description.contains("invocation operation"))
        }
        // A rule with no assertion written: says which can be exported.
        var other = kvo
        other.rule = "PRIORITY-NORMALIZE"
        do { _ = try Reproducer.export(other, as: .objc); Issue.record("exported a rule with no assertion") } catch {
            #expect(error.description.contains("no reproducer assertion is written for PRIORITY-NORMALIZE") && error.description.contains("DEP-ORDER"))
        }
        // The user's own subclass: its code is not in the scenario.
        var own = kvo
        own.scenario.operations[0].kind = .subclass([.work(1)])
        do { _ = try Reproducer.export(own, as: .objc); Issue.record("exported a subclass operation") } catch {
            #expect(error.description.contains("your driver"))
        }
    }

    @Test("a finding of the user's own queue is exported to build that queue, and refused without it")
    func usersQueue() throws {
        var finding = try Self.finding("Fixtures/reproducers/faults/QUEUE-MAX-CONCURRENT-5206558337466748783-one-too-many.json")
        // Without a platform that the driver says it builds on, the platform's queue is the one tested.
        let platform = try Reproducer.export(finding, as: .swiftTesting).text
        #expect(platform.contains("run.queues.append(OperationQueue())") && !platform.contains("ReproducerQueue"))
        #expect(platform.contains("run.atMostRunning([0, 1], 1)"), "\(platform)")
        finding.platform = DriverProtocol.Platform(name: "foundation-linux", owns: ["queue"])
        do { _ = try Reproducer.export(finding, as: .swiftTesting); Issue.record("exported a user's queue as OperationQueue()") } catch {
            #expect(error.description.contains("the finding is of your own queue") && error.description.contains("--queue"), "\(error)")
        }
        let queue = try Reproducer.UserQueue(factory: "AltQueue(bug: .widthOffByOne)", modules: ["AltQueue"])
        let text = try Reproducer.export(finding, as: .swiftTesting, queue: queue).text
        #expect(text.contains("\nimport AltQueue\n") && text.contains("extension AltQueue: ReproducerQueue {}"))
        #expect(text.contains("run.queues.append(AltQueue(bug: .widthOffByOne))") && !text.contains("run.queues.append(OperationQueue())"))
        #expect(text.contains("    var queues: [any ReproducerQueue] = []") && !text.contains("    var queues: [OperationQueue] = []"))
        #expect(text.contains("// Builds your queue as your driver does, with AltQueue(bug: .widthOffByOne)"))
        #expect(throws: Reproducer.Refusal.self) { try Reproducer.export(finding, as: .objc, queue: queue) }
        // What reaches the file as code is held to a grammar that cannot hold a string, comment or statement.
        for bad in ["AltQueue", "AltQueue(); exit(1)", "AltQueue(\"x\")", "AltQueue() // x", "AltQueue({ })", "Alt Queue()", "AltQueue()\nexit(1)"] {
            #expect(throws: Reproducer.Refusal.self, "\(bad)") { try Reproducer.UserQueue(factory: bad, modules: ["AltQueue"]) }
        }
        #expect(throws: Reproducer.Refusal.self) { try Reproducer.UserQueue(factory: "AltQueue()", modules: ["Alt;Queue"]) }
        #expect(throws: Reproducer.Refusal.self) { try Reproducer.UserQueue(factory: "AltQueue()", modules: []) }
        #expect(try Reproducer.UserQueue(factory: "Queues.Fast(width: 4, bug: .none)", modules: ["Queues"]).typeName == "Queues.Fast")
    }

    @Test("PRIORITY-ORDER is exported only where a faithful serial queue must start the higher priority first")
    func priorityOrderOnlyWhenDecided() throws {
        // The Foundation finding: op 1 (priority 0) is added before op 0 (priority -4), to a
        // suspended queue resumed after both.
        let decided = try Self.finding("Fixtures/expectations/foundation-linux/PRIORITY-ORDER.json")
        #expect(try Reproducer.export(decided, as: .swiftTesting).claims == ["serial queue 0 starts op 1, of higher priority and ready, before op 0"])
        // The low priority added first to a running queue: the queue may start it before the
        // other is there, which the rule excuses, so a claim would accuse a faithful queue.
        var racing = decided
        racing.scenario.driver.swapAt(1, 2)
        racing.scenario.queues[0].suspended = false
        do { _ = try Reproducer.export(racing, as: .swiftTesting); Issue.record("exported a PRIORITY-ORDER whose adds race with the queue's choice") } catch {
            #expect(error.description.contains("op 0 is added (step 1) before op 1 (step 2) to a queue that is not suspended in between"), "\(error)")
        }
        // The same adds to a suspended queue, resumed after both: the order is decided again.
        var suspended = racing
        suspended.scenario.queues[0].suspended = true
        #expect(try Reproducer.export(suspended, as: .swiftTesting).claims.count == 1)
        // ... unless the queue is resumed between the two adds.
        var resumedBetween = suspended
        resumedBetween.scenario.driver.insert(DriverStep(.resume(queue: 0)), at: 2)
        #expect(throws: Reproducer.Refusal.self) { try Reproducer.export(resumedBetween, as: .swiftTesting) }
        // ... or when op 0 waits for op 1 through a dependency: no faithful queue starts it first.
        var waiting = racing
        waiting.scenario.dependencies = [Edge(0, on: 1)]
        #expect(try Reproducer.export(waiting, as: .swiftTesting).claims.count == 1)
        // A higher priority operation with a dependency when added need not be ready.
        var dependent = decided
        dependent.scenario.driver.remove(at: 0)    // the removeDependency step
        dependent.scenario.dependencies = [Edge(1, on: 0)]
        do { _ = try Reproducer.export(dependent, as: .swiftTesting); Issue.record("exported a PRIORITY-ORDER whose higher priority operation had a dependency") } catch {
            #expect(error.description.contains("op 1 has dependencies (op 0) when it is added"), "\(error)")
        }
    }

    @Test("opconform export: one finding, a kind, clear errors")
    func command() throws {
        let file = "Fixtures/expectations/gnustep/DEP-ORDER.json"
        let path = Self.root.appendingPathComponent(file).path
        let written = opconform("export", path, "--as", "objc", "--runs", "3")
        #expect(written.status == 0)
        #expect(written.out.contains("int runs = given ? atoi(given) : 3"))
        let noKind = opconform("export", path)
        #expect(noKind.status == 2 && noKind.err.contains("--as swift-testing, --as xctest or --as objc"))
        let badKind = opconform("export", path, "--as", "c++")
        #expect(badKind.status == 2 && badKind.err.contains("swift-testing, xctest, objc"))
        let scenario = opconform("export", Self.root.appendingPathComponent("Fixtures/scenarios/surface2.json").path, "--as", "objc")
        #expect(scenario.status == 2 && scenario.err.contains("is a scenario, not a finding"))
        let kvo = opconform("export", Self.root.appendingPathComponent("Fixtures/expectations/gnustep/START-KVO.json").path, "--as", "swift-testing")
        #expect(kvo.status == 2 && kvo.err.contains("cannot export START-KVO --as swift-testing"))
    }
}
