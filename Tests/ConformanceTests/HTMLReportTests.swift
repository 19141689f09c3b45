import Conformance
import ConformanceReports
import Foundation
import OperationSpec
import ReferenceEngine
import Testing

/// The HTML report (issue 19): self-contained pages whose links resolve, whose timeline model
/// has a lane per thread and rings the violation's witnesses; and, in a real browser (headless
/// Chromium), pages that run their script without an error and draw what the model says.
@Suite("The HTML report")
struct HTMLReportTests {
    /// A run with findings: the reference engine with a fault that breaks a rule.
    static func faultyRun() -> RunResult {
        let c = RunConfiguration(impl: ReferenceImplementation(options: EngineOptions(faults: [.priorityIgnored])), faults: [.priorityIgnored],
                                 seed: 1, count: 300)
        return Runner(c).run()
    }

    static func folder(_ name: String) -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("opconform-html-\(name)-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Every `href` of a page: relative files must exist next to it, `#anchors` must be ids in it.
    static func brokenLinks(in page: String, dir: String) throws -> [String] {
        let html = try String(contentsOfFile: (dir as NSString).appendingPathComponent(page), encoding: .utf8)
        var broken: [String] = []
        for match in html.matches(of: /href="([^"]*)"/) {
            let target = String(match.1)
            if target.hasPrefix("#") {
                if !html.contains("id=\"\(target.dropFirst())\"") { broken.append("\(page): \(target)") }
            } else if target.hasPrefix("http") || target.hasPrefix("/") {
                broken.append("\(page): \(target) leaves the folder")
            } else if !FileManager.default.fileExists(atPath: (dir as NSString).appendingPathComponent(target)) {
                broken.append("\(page): \(target)")
            }
        }
        return broken
    }

    @Test("a run's report: an index with every rule, a page per finding, every link resolving, nothing fetched from elsewhere")
    func runPages() throws {
        let result = Self.faultyRun()
        let finding = try #require(result.findings.first { $0.rule == "PRIORITY-ORDER" })
        let dir = Self.folder("run")
        try HTMLReport.write(run: result, files: [:], to: dir)
        let pages = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(pages == (["index.html"] + result.findings.map { "finding-\($0.rule).html" }).sorted())
        let index = try String(contentsOfFile: dir + "/index.html", encoding: .utf8)
        for s in result.statistics { #expect(index.contains("<tr data-status=\"\(s.status.rawValue)\""), "\(s.id)") }
        #expect(index.contains("<a href=\"finding-PRIORITY-ORDER.html\">PRIORITY-ORDER</a>"))
        for page in pages {
            #expect(try Self.brokenLinks(in: page, dir: dir).isEmpty)
            let html = try String(contentsOfFile: dir + "/" + page, encoding: .utf8)
            #expect(!html.contains("<script src") && !html.contains("<link ") && !html.contains("url(http"), "\(page) fetches something")
        }
        let page = try String(contentsOfFile: dir + "/finding-PRIORITY-ORDER.html", encoding: .utf8)
        #expect(page.contains(Markup.escape(finding.replayLine(file: nil))))
        #expect(page.contains("class=\"timeline-box\"") && page.contains("When a serial queue picks its next operation"))
    }

    @Test("the timeline model: a lane per thread of the trace, the violation's witnesses, spans for calls, brackets for will/did pairs")
    func timelineModel() throws {
        let sample = try #require(DocumentSamples.all.first { $0.scenario.name == "guide-listings-2-5-to-2-7" })
        let trace = ReferenceEngine().run(sample.scenario, scheduleSeed: 8)
        let violations = RuleBook.violations(scenario: sample.scenario, trace: trace, profile: .guide)
        let v = try #require(violations.first { $0.rule == "STATE-EXCLUSIVE" })
        let dir = Self.folder("replay")
        try HTMLReport.write(replay: sample.scenario, trace: trace, violations: [v], profile: .guide, source: "sample",
                             replayLine: "opconform replay sample.json --schedule-seed 8", to: dir)
        let html = try String(contentsOfFile: dir + "/index.html", encoding: .utf8)
        let json = try #require(html.firstMatch(of: /<script type="application\/json">(.*?)<\/script>/.dotMatchesNewlines())?.1)
        #expect(!json.contains("<") && !json.contains(">"), "the embedded JSON carries no markup")
        let model = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let threads = Set(trace.events.map(\.thread))
        #expect((model["lanes"] as? [Any])?.count == threads.count)
        #expect((model["events"] as? [Any])?.count == trace.events.count)
        let witnesses = ((model["violations"] as? [[String: Any]])?.first?["witnesses"] as? [Int]) ?? []
        #expect(witnesses == v.witnesses.map(\.seq))
        let calls = trace.events.filter { if case .call = $0.kind { return true }; return false }.count
        #expect((model["spans"] as? [Any])?.count == calls, "every call of a complete trace returned")
        #expect(((model["brackets"] as? [Any])?.count ?? 0) > 0)
        #expect(try Self.brokenLinks(in: "index.html", dir: dir).isEmpty)

        // Text from the implementation (a thread's name, a crash's last words) cannot end the
        // embedded JSON or open a comment that swallows the page.
        var hostile = trace
        hostile.events[0].kind = .threadStarted(name: "</script><!--<script>&", queue: nil)
        let hostileDir = Self.folder("hostile")
        try HTMLReport.write(replay: sample.scenario, trace: hostile, violations: [v], profile: .guide, source: "<b>x</b>",
                             replayLine: "opconform replay '<x>'", to: hostileDir)
        let page = try String(contentsOfFile: hostileDir + "/index.html", encoding: .utf8)
        let embedded = try #require(page.firstMatch(of: /<script type="application\/json">(.*?)<\/script>/.dotMatchesNewlines())?.1)
        let back = try #require(try JSONSerialization.jsonObject(with: Data(embedded.utf8)) as? [String: Any])
        #expect(((back["lanes"] as? [[String: Any]])?.first?["label"] as? String) == "t0 </script><!--<script>&")
        #expect(!page.contains("<b>x</b>") && page.contains("&lt;b&gt;x&lt;/b&gt;"))
        if Self.chromium != nil {
            let dom = try Self.chromiumRun(["--dump-dom", "file://" + hostileDir + "/index.html"])
            #expect(dom.contains("data-ready=\"1\"") && !dom.contains("data-errors="), "a hostile thread name broke the page")
        }
    }

    @Test("replay --html and check --html from the command line: the same page for a run and for its stored trace")
    func commandLine() throws {
        let dir = Self.folder("cli")
        let trace = dir + "/t.json"
        let replay = opconform("replay", "Fixtures/samples/guide-listings-2-5-to-2-7.json", "--schedule-seed", "8", "--trace", trace, "--html", dir + "/replay")
        #expect(replay.status == 1, "\(replay.err)")
        let check = opconform("check", trace, "--html", dir + "/check")
        #expect(check.status == 1 && check.err.contains("html: \(dir)/check/index.html"), "\(check.err)")
        for page in ["replay", "check"] {
            let html = try String(contentsOfFile: "\(dir)/\(page)/index.html", encoding: .utf8)
            #expect(html.contains("STATE-EXCLUSIVE") && html.contains("href=\"#e10\"") && html.contains("href=\"#e11\""), "\(page)")
        }
        let checkPage = try String(contentsOfFile: dir + "/check/index.html", encoding: .utf8)
        #expect(checkPage.contains("check \(trace)") && !checkPage.contains("--html"), "the page names the command that made it, without --html")
    }

    @Test("the matrix as a page: a row per rule, a column per implementation, each failing cell a link to its finding's timeline")
    func matrixPage() throws {
        let report = MatrixTests.report()
        let dir = Self.folder("matrix")
        try HTMLReport.write(matrix: report, to: dir)
        let index = try String(contentsOfFile: dir + "/index.html", encoding: .utf8)
        for rule in RuleBook.all.map(\.rule.id) { #expect(index.contains("<tr><td><code>\(rule)</code></td>"), "row for \(rule)") }
        let failing = try #require(report.columns[1].result.findings.first)
        #expect(index.contains("<a href=\"2-reference/finding-\(failing.rule).html\"><span class=\"pill s-fail\">fail</span></a>"))
        #expect(try Self.brokenLinks(in: "index.html", dir: dir).isEmpty)
        let page = try String(contentsOfFile: dir + "/2-reference/finding-\(failing.rule).html", encoding: .utf8)
        #expect(page.contains("<a href=\"../index.html\">") && page.contains("class=\"timeline-box\""))
        if Self.chromium != nil {
            for page in ["index.html", "2-reference/finding-\(failing.rule).html"] {
                let dom = try Self.chromiumRun(["--dump-dom", "file://" + dir + "/" + page])
                #expect(dom.contains("data-ready=\"1\"") && !dom.contains("data-errors="), "\(page)")
            }
        }
    }

    /// Headless Chromium, when the machine has it: `.ci/run` installs it and sets
    /// OPCONFORM_BROWSER=1, which makes its absence a failure rather than a skip.
    static let chromium: String? = {
        for path in ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"] where FileManager.default.isExecutableFile(atPath: path) { return path }
        return nil
    }()
    nonisolated(unsafe) static let errorsPattern = /data-errors="([^"]*)"/
    nonisolated(unsafe) static let lanePattern = /<g class="lane"/
    nonisolated(unsafe) static let witnessPattern = /class="mark k-[A-Za-z]+ witness" data-seq="(\d+)"/
    static let browserRequired = ProcessInfo.processInfo.environment["OPCONFORM_BROWSER"] == "1"

    static func chromiumRun(_ arguments: [String]) throws -> String {
        let p = Process()
        // Under timeout(1): a Chromium that hangs must not hang the suite.
        p.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        p.arguments = ["60", try #require(chromium), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--virtual-time-budget=5000"] + arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test("in a real browser: every page runs its script without an error; the timeline has a lane per thread and rings exactly the witnesses; screenshots are saved",
          .enabled(if: chromium != nil || browserRequired, "headless Chromium is not installed (apt-get install chromium); .ci/run installs it"))
    func inBrowser() throws {
        try #require(Self.chromium != nil, "OPCONFORM_BROWSER=1 but no Chromium at /usr/bin/chromium")
        let shots = FileManager.default.currentDirectoryPath + "/.build/html-screenshots"
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        // The guide's Listing 2-6 race, as `replay --html` draws it.
        let sample = try #require(DocumentSamples.all.first { $0.scenario.name == "guide-listings-2-5-to-2-7" })
        let trace = ReferenceEngine().run(sample.scenario, scheduleSeed: 8)
        let v = try #require(RuleBook.violations(scenario: sample.scenario, trace: trace, profile: .guide).first { $0.rule == "STATE-EXCLUSIVE" })
        let replayDir = Self.folder("browser-replay")
        try HTMLReport.write(replay: sample.scenario, trace: trace, violations: [v], profile: .guide, source: "Fixtures/samples/guide-listings-2-5-to-2-7.json",
                             replayLine: "opconform replay Fixtures/samples/guide-listings-2-5-to-2-7.json --schedule-seed 8", to: replayDir)
        let dom = try Self.chromiumRun(["--dump-dom", "file://" + replayDir + "/index.html"])
        #expect(dom.contains("data-ready=\"1\""), "the page's script did not finish")
        let errors = dom.firstMatch(of: Self.errorsPattern).map { String($0.1) } ?? ""
        #expect(!dom.contains("data-errors="), "script error: \(errors)")
        let lanes = dom.matches(of: Self.lanePattern).count
        #expect(lanes == Set(trace.events.map(\.thread)).count)
        let ringed = dom.matches(of: Self.witnessPattern).map { Int($0.1)! }
        #expect(ringed.sorted() == v.witnesses.map(\.seq).sorted())
        _ = try Self.chromiumRun(["--screenshot=\(shots)/listing-2-6-timeline.png", "--window-size=1400,820", "file://" + replayDir + "/index.html"])
        #expect(((try? FileManager.default.attributesOfItem(atPath: shots + "/listing-2-6-timeline.png")[.size] as? Int) ?? 0) > 10_000)

        // A run's pages: the index and each finding.
        let result = Self.faultyRun()
        let runDir = Self.folder("browser-run")
        try HTMLReport.write(run: result, files: [:], to: runDir)
        for page in ["index.html"] + result.findings.map({ "finding-\($0.rule).html" }) {
            let dom = try Self.chromiumRun(["--dump-dom", "file://" + runDir + "/" + page])
            #expect(dom.contains("data-ready=\"1\"") && !dom.contains("data-errors="), "\(page)")
            if page != "index.html" { #expect(dom.contains("class=\"mark k-") && dom.contains(" witness\""), "\(page) rings no witness") }
        }
        _ = try Self.chromiumRun(["--screenshot=\(shots)/run-index.png", "--window-size=1400,900", "file://" + runDir + "/index.html"])
    }
}
