import Conformance
import OperationSpec

/// The summary a person reads at the end of `run`: totals, each finding with its replay line,
/// and the rules that were not checked and why.
public enum ConsoleReport {
    /// One line for the rules not checked: how many of each status, the unreached ones by name
    /// (a gap of the cases, which more cases or --guide may close), and how to see them all.
    static func uncheckedLine(_ unchecked: [RuleStatistics]) -> String {
        let count = { (s: RuleStatistics.Status) in unchecked.filter { $0.status == s }.count }
        let unreached = unchecked.filter { $0.status == .notReached }.map(\.id)
        var parts: [String] = []
        if count(.notObservable) > 0 { parts.append("\(count(.notObservable)) not observable here") }
        if count(.notApplicable) > 0 { parts.append("\(count(.notApplicable)) not applicable to the profile") }
        if !unreached.isEmpty {
            parts.append(
                "\(unreached.count) not reached by any case"
                    + (unreached.count <= 5 ? " (\(unreached.joined(separator: ", ")))" : ""))
        }
        return "not checked: \(unchecked.count) \(unchecked.count == 1 ? "rule" : "rules"): "
            + parts.joined(separator: ", ")
            + "; --not-checked lists each with its reason"
    }

    /// The summary, section by section: the header, the findings, the unconfirmed, the known,
    /// the rules not checked and the verdict.
    /// `listUnchecked`: every rule not checked on its own line with its reason (`--not-checked`);
    /// by default one line counts them, naming only the rules no case reached (issue 45: about
    /// 40 such lines sat under a single finding).
    public static func text(_ r: RunResult, files: [String: String], listUnchecked: Bool = false) -> String {
        header(r) + findingsSection(r, files: files) + unconfirmedSection(r) + knownSection(r)
            + uncheckedSection(r, listUnchecked: listUnchecked) + verdictLine(r)
    }

    /// The run's settings, its speed and endings, the known divergences it excused, a driver of
    /// another release, and the count of rules by status.
    private static func header(_ r: RunResult) -> String {
        let c = r.configuration
        var out = ""
        let rate = r.seconds > 0 ? Double(r.cases) / r.seconds : 0
        out +=
            "\(c.impl.name): \(r.cases) cases from seed \(c.seed) (generator v\(ScenarioGenerator.version), size "
                + "\(c.generator.size), misuse \(c.generator.misuseRate)%"
        out +=
            (c.generator.flawRate > 0 ? ", flawed subclasses \(c.generator.flawRate)%" : "")
            + (c.generator.surface2 ? ", API surface 2)" : ")")
        out += ", profile \(c.profile.rawValue)" + (c.profileReason.map { " (\($0))" } ?? "")
            + (c.faults.isEmpty ? "" : ", faults " + c.faults.map(\.rawValue).joined(separator: ",")) + "\n"
        out +=
            "  \(format(r.seconds)) s, \(rate >= 10 ? String(Int(rate)) : format(rate)) cases/s" + cpuPerCase(r)
            + "; endings: " + r.endings.keys.sorted().map { "\($0) \(r.endings[$0]!)" }.joined(separator: ", ") + "\n"
        let count = { (s: RuleStatistics.Status) in r.statistics.filter { $0.status == s }.count }
        if let known = c.known {
            out += "  known divergences: \(known.expected.count) of \(c.knownSource ?? known.impl)"
                + (c.impl.setting.platform.map { ", the platform \(c.impl.name)'s hello claims it builds on (\($0))" }
                    ?? "")
                + " (excused only where their cause shows; --expectations none reports them as failures)\n"
        }
        if let driver = c.impl as? ChildProcessImplementation, let release = driver.driverRelease,
            release != HarnessVersion.current
        {
            out +=
                "  the driver was built with OperationDriverKit \(release), and this is opconform "
                    + "\(HarnessVersion.current): "
                + "rebuild the driver against this release (CHANGELOG.md says what changed between them)\n"
        }
        // The run's own failures (RUN-CRASH, RUN-HANG, ...) are no rules of the catalog: counted
        // beside them, so the line adds up to the FAIL blocks below (issue 45).
        let runFailures = Finding.pseudoRules.map(\.id).filter { id in r.findings.contains { $0.rule == id } }
        out +=
            "  rules: \(count(.pass)) pass, \(count(.fail)) fail, \(count(.warn)) warn, \(count(.known)) known, "
                + "\(count(.unconfirmed)) unconfirmed, \(count(.notObservable)) not observable, "
                + "\(count(.notApplicable)) not applicable, \(count(.notReached)) not reached"
            + (runFailures.isEmpty
                ? "" : "; and the run: \(runFailures.count) fail (\(runFailures.joined(separator: ", ")))") + "\n"
        return out
    }

    /// The findings told as stories: each root in full, the rules its case breaks after it
    /// under it, each with its replay.
    private static func findingsSection(_ r: RunResult, files: [String: String]) -> String {
        let c = r.configuration
        var out = ""
        // Failures first: they decide the exit status. A warning fails it only under --strict.
        // Findings one minimal case shows are one story (`Story`): its root in full, the rules
        // the case breaks after it under the root, each with its replay.
        let stories = r.stories
        if stories.contains(where: { !$0.knockOns.isEmpty }) {
            let told = stories.reduce(0) { $0 + $1.findings.count }
            out += "  \(told) findings tell \(stories.count) \(stories.count == 1 ? "story" : "stories"): "
                + "findings of one case (first seen together, or shrunk to or from the same minimum) "
                + "are told under the rule it breaks first\n"
        }
        for story in stories {
            out += block(story.root, r, files: files)
            guard !story.knockOns.isEmpty else { continue }
            out +=
                "  the same case then breaks (knock-ons of \(story.root.rule), most likely; each replays on its own):\n"
            for k in story.knockOns {
                out += "    \(k.severity.label(strict: c.strict)) \(k.rule): \(k.message)\n"
                out += "      " + brokenIn(k, r) + "\n"
                out += "      replay: \(k.replayLine(file: files[k.rule], program: r.configuration.replayProgram))\n"
                for other in r.otherCauses where other.finding.rule == k.rule {
                    out +=
                        "      another cause, in \(other.cases) of \(r.cases) cases: \(other.finding.message); replay: "
                        + other.finding.replayLine(
                            file: files[other.finding.fileName], program: r.configuration.replayProgram) + "\n"
                }
            }
        }
        return out
    }

    /// The findings that rested on absence or time and a patient run did not show again.
    private static func unconfirmedSection(_ r: RunResult) -> String {
        let c = r.configuration
        var out = ""
        // Absence or time that a patient run did not show again: slowness is not proof.
        if !r.unconfirmed.isEmpty {
            out +=
                "\nunconfirmed (each rested on absence or time, and the case run again with \(Confirmation.patience)x "
                    + "patience did not show it;"
                + (c.strict ? " --strict fails on them" : " not failures without --strict") + "):\n"
            for u in r.unconfirmed {
                let line = Finding.replayLine(
                    identity: u.first.identity, implArguments: c.impl.replayArguments, profile: c.profile,
                    faults: c.faults,
                    program: c.replayProgram)
                out +=
                    "  \(u.rule) in \(u.cases) of \(r.cases) cases; first: case \(u.first.index): "
                        + "\(u.first.violation.observed.prefix(200))\n"
                out += "    replay: \(line)\n"
            }
        }
        return out
    }

    /// The known divergences of the platform the run saw, told apart from the failures.
    private static func knownSection(_ r: RunResult) -> String {
        let c = r.configuration
        var out = ""
        // The platform's, not the tested code's: said apart, never as FAIL.
        if !r.known.isEmpty {
            out += "\nknown on \(r.known[0].owner) (not the tested code's failures):\n"
            for k in r.known {
                let line = Finding.replayLine(
                    identity: k.first.identity, implArguments: c.impl.replayArguments, profile: c.profile,
                    faults: c.faults,
                    program: c.replayProgram)
                let cause = k.entry.cause.map { "; cause: " + $0.summary } ?? ""
                out +=
                    "  \(k.rule) in \(k.cases) of \(r.cases) cases (\(k.entry.kind.rawValue)\(cause)): "
                        + "\(k.entry.reason.prefix(160))"
                    + (k.entry.reason.count > 160 ? "..." : "") + "\n"
                out += "    first: case \(k.first.index): \(k.first.violation.observed.prefix(200)); replay: \(line)\n"
            }
        }
        return out
    }

    /// The rules not checked: each on its own line under `listUnchecked`, else one line counting them.
    private static func uncheckedSection(_ r: RunResult, listUnchecked: Bool) -> String {
        var out = ""
        let unchecked = r.statistics.filter {
            $0.status == .notReached || $0.status == .notObservable || $0.status == .notApplicable
        }
        if !unchecked.isEmpty && listUnchecked {
            out += "\nnot checked:\n"
            for s in unchecked { out += "  \(s.id): \(s.status.rawValue)" + (s.reason.map { " (\($0))" } ?? "") + "\n" }
        } else if !unchecked.isEmpty {
            out += "\n" + uncheckedLine(unchecked) + "\n"
        }
        return out
    }

    /// The last line: interrupted, no verdict, or what the run found when it failed nothing.
    private static func verdictLine(_ r: RunResult) -> String {
        let c = r.configuration
        var out = ""
        if r.interrupted {
            out +=
                "\nINTERRUPTED after \(r.cases) of \(r.configuration.shard.cases(of: c.count)) cases: the findings "
                    + "above are what was decided"
                + (r.findings.contains { $0.interrupted == true }
                    ? "; those marked (interrupted) were not fully shrunk" : "") + "\n"
        } else if let why = r.noVerdict {
            out += "\nNO VERDICT: \(why)\n"
        } else if r.findings.isEmpty && !r.unconfirmed.isEmpty {
            out +=
                "\nno confirmed failure; \(r.unconfirmed.count) unconfirmed"
                + (c.strict ? " (--strict: the run fails)" : "") + "\n"
        } else if r.findings.isEmpty && !r.known.isEmpty {
            out +=
                "\nno failure of the tested code; \(r.known.count) known "
                    + "\(r.known.count == 1 ? "divergence" : "divergences") of \(r.known[0].owner)\n"
        } else if r.findings.isEmpty {
            out += "\nno violation\n"
        } else if !r.failed {
            out += "\nno failure; \(r.warnings.count) \(r.warnings.count == 1 ? "warning" : "warnings"): "
                + "a documented example, a piece of advice or observed behaviour was not followed "
                + "(--strict fails on warnings)\n"
        }
        return out
    }

    /// The full account of one finding: what broke, how often, its minimum, its replay, its
    /// witness and the rule's other causes.
    static func block(_ f: Finding, _ r: RunResult, files: [String: String]) -> String {
        let c = r.configuration
        var out = ""
        // `FAIL RULE: message` stays the line scripts look for; the strength follows.
        out += "\n\(f.severity.label(strict: c.strict)) \(f.rule): \(f.message)\n"
        out += "  " + brokenIn(f, r) + "\n"
        // A run told not to shrink says so, not "minimised from 6 to 6 in 0 steps" (issue 45).
        if !c.shrink {
            out += "  not shrunk (--no-shrink): \(f.operations) operations\n"
        } else {
            out +=
                "  minimised from \(f.originalOperations) to \(f.operations) operations in \(f.shrinkSteps) steps "
                    + "(\(f.shrinkMilliseconds) ms"
                + (f.shrinkExhausted ? ", budget exhausted: a smaller case may exist)" : ")")
            out += f.replayRate.map { ", " + $0 } ?? ""
            // The smallest case replayed less often than the original: a larger one was kept.
            if f.shrinkWalkedBack > 0 {
                out += f.shrinkSteps == 0 ? "; the original kept (smaller cases replayed less often)"
                    : "; kept \(f.shrinkWalkedBack) \(f.shrinkWalkedBack == 1 ? "step" : "steps") short of the "
                        + "smallest, which replayed less often"
            }
            out += f.interrupted == true ? " (interrupted: not fully shrunk)\n" : "\n"
        }
        out += "  replay: \(f.replayLine(file: files[f.rule], program: r.configuration.replayProgram))\n"
        if files[f.rule] != nil {
            out += "     or: \(f.replayLine(file: nil, program: r.configuration.replayProgram))\n"
        }
        // The case as the run saw it: a failure that never shows again still has its witness.
        if let file = files[f.rule], f.witness != nil, !r.interrupted {
            let witness = PathText.join(PathText.join(PathText.folder(of: file), Finding.witnessFolder), f.fileName)
            out +=
                "  witness: \(witness) (the trace of case \(f.caseIndex) as run; 'opconform check' judges it again)\n"
        }
        // The rule's other causes (`CauseGroups`): each its own minimum and replay.
        for other in r.otherCauses where other.finding.rule == f.rule {
            let o = other.finding
            out += "  another cause, in \(other.cases) of \(r.cases) cases: \(o.message)\n"
            out +=
                "    first: case \(o.caseIndex); "
                + (c.shrink
                    ? "minimised from \(o.originalOperations) to \(o.operations) operations"
                        + (o.replayRate.map { ", " + $0 } ?? "")
                    : "not shrunk (--no-shrink): \(o.operations) operations") + "\n"
            out += "    replay: \(o.replayLine(file: files[o.fileName], program: r.configuration.replayProgram))\n"
        }
        return out
    }

    /// "documented must; broken in 3 of 20 cases; first: case 4, seed 17", or for the run's
    /// own failures "2 of 20 cases ended in a hang; first: ...".
    static func brokenIn(_ f: Finding, _ r: RunResult) -> String {
        if let s = r.statistics.first(where: { $0.id == f.rule }) {
            return
                "\(f.strengthLabel); broken in \(s.violations) of \(r.cases) cases; first: case \(f.caseIndex), seed "
                    + "\(f.identity.caseSeed)"
        }
        let ending = Finding.pseudoEnding(f.rule) ?? .crash
        let cases = r.deathCases[f.rule] ?? r.endings[ending.rawValue] ?? 0
        return
            "\(cases) of \(r.cases) cases ended in \(f.endingPhrase ?? "a crash"); first: case \(f.caseIndex), seed "
                + "\(f.identity.caseSeed)"
    }

    /// ", CPU 12 ms a case (harness 5, drivers 7)" for an implementation run in child processes,
    /// where the drivers' part is what the machine spends outside the harness; nothing for one
    /// run in this process (all of its CPU is the harness's, and seconds already say it). The
    /// CPU of shrinks begun beside the cases (`EarlyShrinks`) cannot be told apart: it is in
    /// the figure, and the line says how many there were.
    static func cpuPerCase(_ r: RunResult) -> String {
        guard r.configuration.impl is ChildProcessImplementation, let cpu = r.cpu, r.cases > 0 else { return "" }
        let ms = cpu.millisecondsPerCase(r.cases)
        let beside = r.shrunkBesideCases == 0 ? ""
            : ", with \(r.shrunkBesideCases) shrink\(r.shrunkBesideCases == 1 ? "" : "s") begun beside the cases"
        return ", CPU \(ms.total) ms a case (harness \(ms.harness), drivers \(ms.drivers)\(beside))"
    }

    /// One line per rule: id, status, hits, cases reached, violating cases.
    public static func table(_ r: RunResult) -> String {
        var out = "rule                                   status           hits    cases  violations\n"
        for s in r.statistics {
            out +=
                s.id.padding(39) + s.status.rawValue.padding(15) + String(s.hits).leftPadded(6)
                + String(s.cases).leftPadded(9) + String(s.violations).leftPadded(12) + "\n"
        }
        return out
    }

    static func format(_ x: Double) -> String {
        let v = (x * 100).rounded() / 100
        return String(v)
    }
}

extension String {
    public func padding(_ n: Int) -> String {
        count >= n ? self + " " : self + String(repeating: " ", count: n - count)
    }
    public func leftPadded(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
}
