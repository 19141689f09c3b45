import Conformance
import ConformanceTesting
import Foundation
import OpconformCLI
import OperationSpec
import Testing

/// The harness measured on the corpus of real-world asynchronous base classes (`StyleCorpus`,
/// the `corpus-driver` fixture): what it finds today, what it misses, and its false alarms,
/// each as a table, so that a change of any of them fails here and the table is updated.
/// `OPCONFORM_LONG=1` runs 100 cases a class instead of 30.
@Suite("The corpus of real-world asynchronous base classes", .serialized)
struct CorpusTests {
    static let count = RunnerTests.long ? 100 : 30
    /// Cases at once: a case of the corpus driver mostly waits (units of work, stall windows).
    /// Eight, not sixteen: the suite runs beside others that measure their children's CPU.
    static let jobs = 8

    /// Visible defects the harness finds today: each must still be found (recall, where it holds).
    static let foundToday: [String: Set<String>] = [
        "unfair-lock": ["start-ignores-cancel"],
        "ready-state": ["not-ready-once-started"],
        "block-handler": ["cancelled-never-finishes"],
        "ready-writes": ["ready-read-resets-state"],
        "no-start": ["finished-before-task"],
        "flag-only": ["executing-never-set"],
        "finish-order": ["finished-before-executing-reset"],
        "no-kvo": ["finish-unannounced"],
        "misspelled-key": ["finish-misspelled"],
        "cancel-unfinishes": ["cancel-unfinishes"],
        "cancel-flag": ["cancel-after-finish-cancels"],
        "main-first": ["task-before-executing"],
    ]

    /// Visible defects found in some runs and not others: not asserted either way.
    /// - cancel-finishes-unstarted: SUBCLASS-FINISH-AFTER-START sees it only when a cancel lands
    ///   while the operation waits in its queue; how often the queue starts it first depends on
    ///   the load (found in 2 of 3 runs of 20 cases at 8 jobs, 0 of 4 of 30 at 16, 1 of 2 of 30
    ///   at 16 after, every run of 100).
    /// - cancel-finishes-running: STATE-FINISHED-AFTER-TASK sees it only when a cancel lands
    ///   while the task runs, and the task then logs something (a unit of work, its check of
    ///   isCancelled) before it ends: 6 of 100 cases of seed 1, so a run of 30 may miss it.
    /// - flag-only's cancelled-never-finishes needs a cancel before the start: 11 of 100 cases.
    static let sometimesFound: [String: Set<String>] = [
        "cancel-finishes": ["cancel-finishes-unstarted", "cancel-finishes-running"],
        "flag-only": ["cancelled-never-finishes"],
    ]

    /// Visible defects the harness misses today, each a gap of the catalog to be closed (then
    /// removed from here: the test fails when one is found). None today: finished-before-task
    /// and cancel-finishes-running (an operation that reports finished while its task still
    /// runs) were missed until STATE-FINISHED-AFTER-TASK tied a finish to the task's end.
    static let knownMisses: [String: Set<String>] = [:]

    /// False alarms today, per class. EACH ENTRY IS A HARNESS BUG TO BE FIXED (attribution of
    /// platform limits and harness artefacts to the class); the test fails when a new false
    /// alarm appears and when one of these disappears, so that its entry is removed. None today:
    /// - dependent-keys' seven (Linux has no dependent keys, so the queue never hears the class
    ///   finish) are the platform's limit now: the driver asks every subclass operation for
    ///   isFinished when a case hangs, and a case whose started subclass operations all say YES
    ///   while the queue never acted is reported as Foundation on Linux's (`Attribution.limit`);
    /// - ready-writes' RUN-HANG on a read of isReady was the probe's own deadlock (its read
    ///   lock was not recursive); the hang that remains is the class's, a wait for an operation
    ///   its getter sent back to ready.
    static let knownFalseAlarms: [String: Set<String>] = [:]

    /// False alarms seen in a case or two of some runs: allowed, not required (harness bugs too).
    /// - dependent-keys: CANCEL-BEFORE-START-FINISHES and QUEUE-SUSPEND-RUNNING-CONTINUE, more
    ///   of the cascade behind the stuck queue (one case in 30 to 60).
    /// - any class: COMPLETION-ONCE on one of Foundation's own operations ("finished and its
    ///   completion block never ran", 1 case in 30, in atomic-wrapper and cancel-finishes runs).
    /// - state-kvo: QUEUE-PROGRESS ("ready op 2 was never started by queue 0, which had a free
    ///   slot"), once in five full local test runs of 2026-11-27, under the suite's own load; not
    ///   seen in four runs of the class alone, nor in two fresh-clone CI runs. Unexplained: load
    ///   cutting the drain short, or the class's unlocked state (stop 38's note).
    /// - ready-writes: QUEUE-PROGRESS ("ready op 2 was never started by queue 0"), once in the
    ///   long corpus run of one CI (100 cases a class, 2026-12-03), not in 700 cases of seeds 1
    ///   to 7 run alone. Most likely the class's own reset seen from the queue's side (its isReady
    ///   getter sends an operation the queue has taken back to ready, and no queue starts an
    ///   operation twice), but no trace of it was kept, so it stays listed here as unexplained.
    /// - cancel-finishes: QUEUE-MAX-CONCURRENT ("queue 0 (max 1) started op 4 while 1 of its
    ///   operations were still running"), once in the long corpus run of one fresh-clone CI
    ///   (100 cases, 2026-12-07), not in 14 runs of the class's 100 cases alone or four at once.
    ///   Most likely the class's own early finish (its cancel finishes an operation whose task
    ///   still runs, or one the queue then starts again) seen from the width's side, but no
    ///   trace of it was kept: unexplained, listed here.
    /// - no-start: START-FINISHED-OWN ("start on finished op 2, whose class overrides start,
    ///   ran it again"), a warning, once in the long corpus run of a fresh-clone CI (2026-12-07).
    ///   no-start overrides no start: the start that ran the task again was Foundation's
    ///   default one (why it did is not established: no trace was kept), and the rule
    ///   takes every operation of the user's class for one whose class overrides start, which
    ///   the harness cannot see on Linux. A misattribution of the platform's; listed here until
    ///   the kit can tell an overridden start.
    static let rareFalseAlarms: [String: Set<String>] = [
        "cancel-finishes": ["QUEUE-MAX-CONCURRENT"],
        "no-start": ["START-FINISHED-OWN"],
        "dependent-keys": ["CANCEL-BEFORE-START-FINISHES", "QUEUE-SUSPEND-RUNNING-CONTINUE"],
        "state-kvo": ["QUEUE-PROGRESS"],
        "ready-writes": ["QUEUE-PROGRESS"],
    ]
    static let rareAnywhere: Set<String> = ["COMPLETION-ONCE"]

    @Test("the driver serves exactly the corpus's classes")
    func driverServesTheCorpus() throws {
        let driver = try DriverExecutable.locate("corpus-driver")
        let list = Process()
        list.executableURL = URL(fileURLWithPath: driver)
        list.arguments = ["--list"]
        let pipe = Pipe()
        list.standardOutput = pipe
        try list.run()
        let names = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        list.waitUntilExit()
        #expect(names.split(separator: "\n").map(String.init) == StyleCorpus.entries.map(\.name))
        #expect(StyleCorpus.entries.count >= 12)
        #expect(Set(StyleCorpus.entries.map(\.name)).count == StyleCorpus.entries.count)
        // Every rule a label names is a rule of the catalog (or a hang or a crash).
        for entry in StyleCorpus.entries {
            for defect in entry.defects {
                for rule in defect.rules {
                    let known = RuleBook.check(id: rule) != nil || Finding.pseudoEnding(rule) != nil
                    #expect(known, "\(entry.name): \(rule)")
                }
            }
        }
    }

    @Test("each class: labelled defects found, known misses still missed, exactly the known false alarms")
    func corpusMeasure() throws {
        let driver = try DriverExecutable.locate("corpus-driver")
        let known = try KnownDivergences.platform.load()
        let profile = known?.profile ?? .guide
        var outcomes: [CorpusMeasure.ClassOutcome] = []
        for entry in StyleCorpus.entries {
            let o = CorpusMeasure.measure(entry, driver: driver, count: Self.count, seed: 1, profile: profile,
                                          jobs: Self.jobs, known: known)
            outcomes.append(o)
            #expect(o.error == nil, "\(entry.name): \(o.error ?? "")")
            #expect(o.cases == Self.count, "\(entry.name)")
            let found = Set(o.found.keys)
            for defect in Self.foundToday[entry.name] ?? [] {
                #expect(found.contains(defect), "\(entry.name): \(defect) is no longer found")
            }
            for defect in Self.knownMisses[entry.name] ?? [] {
                #expect(!found.contains(defect), "\(entry.name): \(defect) is found now: remove it from knownMisses")
            }
            let unexpectedFinds = found.subtracting(Self.foundToday[entry.name] ?? [])
                .subtracting(Self.sometimesFound[entry.name] ?? [])
            #expect(unexpectedFinds.isEmpty, "\(entry.name): found \(unexpectedFinds.sorted()); add to foundToday")
            let alarms = Set(o.falseAlarms)
            let knownAlarms = Self.knownFalseAlarms[entry.name] ?? []
            let allowed = knownAlarms.union(Self.rareFalseAlarms[entry.name] ?? []).union(Self.rareAnywhere)
            let new = alarms.subtracting(allowed)
            let said = o.reports.filter { new.contains($0.rule) }.map { "\($0.rule): \($0.message)" }
                .joined(separator: "; ")
            #expect(new.isEmpty, "\(entry.name): new false alarms \(new.sorted()): \(said)")
            let gone = knownAlarms.subtracting(alarms)
            #expect(gone.isEmpty,
                    "\(entry.name): known false alarms gone \(gone.sorted()): remove them from knownFalseAlarms")
        }
        let totals = CorpusMeasure.Totals(outcomes)
        // The figures, recorded with the test's output and as an attachment.
        let seconds = String(format: "%.1f", totals.seconds)
        let line = "corpus: \(totals.classes) classes, \(totals.cases) cases, \(seconds) s; "
            + "precision \(totals.precision.map { String(format: "%.2f", $0) } ?? "n/a") (\(totals.trueReports) true, "
            + "\(totals.falseAlarms) false alarms, \(totals.platformReports) Foundation's own left out); "
            + "recall \(totals.recall.map { String(format: "%.2f", $0) } ?? "n/a") "
            + "(\(totals.foundDefects) of \(totals.visibleDefects))"
        print(line)
        Attachment.record(Array(JSONCodec.encodeString(outcomes).utf8), named: "corpus-measure.json")
        let visible = StyleCorpus.entries.map(\.visible.count).reduce(0, +)
        #expect(totals.visibleDefects == visible)
        #expect(totals.foundDefects >= Self.foundToday.values.map(\.count).reduce(0, +), Comment(rawValue: line))
    }

    @Test("flaws --corpus prints each class and the totals; its options are its own")
    func command() throws {
        let driver = try DriverExecutable.locate("corpus-driver")
        let run = opconform("flaws", "--corpus", "--classes", "unfair-lock,careful-lock", "--count", "8",
                            "--jobs", "8", "--driver", driver)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("unfair-lock (8 cases"))
        #expect(run.out.contains("defect start-ignores-cancel"))
        #expect(run.out.contains("careful-lock (8 cases"))
        #expect(run.out.contains("labelled: no defect"))
        #expect(run.out.contains("  exit status 0, as labelled"), "\(run.out)")
        #expect(run.out.contains("exit status as labelled: "), "\(run.out)")
        #expect(run.out.contains("totals: 2 classes, 16 cases"))
        let bad = opconform("flaws", "--corpus", "--classes", "nonesuch", "--driver", driver)
        #expect(bad.status == 2 && bad.err.contains("no class 'nonesuch'"))
        #expect(opconform("flaws", "--corpus", "--probe").status == 2)
        #expect(opconform("flaws", "--driver", driver).status == 2)
    }

    /// Issue 42's "done when": from a plain `run`, a class that announces nothing or a wrong key
    /// exits 1 with a finding that says so (the key it announced, or none), and a class that
    /// declares its dependent keys exits 0 (Linux's limit, excused with its evidence).
    @Test("plain run: no announcement or a misspelled key exits 1 naming it; declared dependent keys exit 0",
          arguments: [("no-kvo", 1, "announcing no change at all"), ("misspelled-key", 1, "isisFinished"),
                      ("dependent-keys", 0, "known on foundation-linux")])
    func announcementsFromPlainRun(name: String, status: Int32, says: String) throws {
        let driver = try DriverExecutable.locate("corpus-driver")
        let out = NSTemporaryDirectory() + "opconform-announce-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = opconform("run", "--impl", "exec:" + driver, "--driver-arg", "--class", "--driver-arg", name, "--count", "30",
                            "--seed", "1", "--no-shrink", "--jobs", "8", "--out", out)
        #expect(run.status == status, "\(name): \(run.out)\(run.err)")
        #expect(run.out.contains(says), "\(name): \(run.out)")
        if status == 1 { #expect(run.out.contains("FAIL SUBCLASS-FINISH-ANNOUNCED"), "\(run.out)") }
    }
}
