import Conformance
import ConformanceReports
import Foundation
import OperationSpec

/// `opconform gate --impl NAME --expectations FILE`: a run judged against known divergences.
enum GateCommand {
    static func run(_ input: Arguments, _ console: Console) throws -> Int32 {
        var input = input
        let args = try input.parse()
        if args.flags.contains("--help") { console.out(Help.gate + "\n"); return 0 }
        guard let path = args.options["--expectations"] else {
            throw InputError("gate needs --expectations FILE (Specs/expectations-format.md)")
        }
        let expectations = try Expectations.load(path)
        let profile = args.options["--profile"] == nil ? expectations.profile : try args.profile()
        let impl = try gatedImplementation(args, expectations: expectations, path: path, profile: profile)
        let configuration = try runConfiguration(
            args, impl: impl, profile: profile, expectations: expectations, path: path)
        let out = try RunCommand.outFolder(args, configuration)
        let result = try RunCommand.execute(configuration, args, console, out: out)
        let files = try RunCommand.writeFindings(result, to: out)
        try RunCommand.writeRecord(result, files: files, to: out, args)
        let verdict = GateVerdict(result: result, expectations: expectations)
        console.out(ConsoleReport.text(result, files: files, listUnchecked: args.flags.contains("--not-checked")))
        report(verdict, expectations: expectations, path: path, strict: args.flags.contains("--strict"), console)
        if let p = args.options["--json"] {
            try RunCommand.write(JSONCodec.encodeString(RunJSONReport(result, files: files)), to: p)
        }
        if let p = args.options["--junit"] { try RunCommand.write(JUnitReport.xml(result, files: files), to: p) }
        if let dir = args.options["--html"] {
            console.out("html: \(try HTMLReport.write(run: result, files: files, gate: verdict, to: dir))\n")
        }
        if result.interrupted {
            console.out("gate INTERRUPTED: no verdict\n")
            return 130
        }
        if result.noVerdict != nil {
            console.out("gate gave NO VERDICT (exit 4)\n")
            return 4
        }
        let passed = verdict.passes(strict: args.flags.contains("--strict"))
        console.out(passed ? "gate passed\n" : "gate FAILED\n")
        return passed ? 0 : 1
    }

    /// Finds the implementation the gate runs: `--impl`, the driver the file names, or the file's own.
    /// It refuses one the expectations are not written for (nor for the platform it builds on).
    private static func gatedImplementation(
        _ args: Arguments, expectations: Expectations, path: String, profile: Profile
    ) throws -> any Implementation {
        let impl: any Implementation
        if let name = args.options["--impl"] {
            impl = try args.implementation(name, profile: profile, faults: [])
        } else if let launch = try expectations.driverLaunch(relativeTo: path) {
            if !args.values("--driver-arg").isEmpty {
                throw InputError(
                    "gate: \(path) names its driver and its arguments; --driver-arg goes with --impl exec:PATH")
            }
            // A command read from a file runs only with the user's consent (the README's security note).
            try DriverConsent.check(launch, namedIn: path, trusted: args.flags.contains(DriverConsent.trustOption))
            impl = try Implementations.external(launch, limits: try args.limits())
            if let sanitizer = try args.sanitizer() { try args.sanitize(impl, with: sanitizer) }
        } else {
            impl = try args.implementation(expectations.impl, profile: profile, faults: [])
        }
        // A user's driver built on a platform may be gated by the platform's own file.
        guard impl.name == expectations.impl || KnownDivergenceOption.platformImpl(of: impl) == expectations.impl else {
            let platform = impl.setting.platform.map { " or \($0), the platform it builds on" } ?? ""
            throw InputError("gate: \(path) holds expectations for \(expectations.impl), not \(impl.name)\(platform)")
        }
        return impl
    }

    /// Builds the gate's run from the options, with the file's known divergences (and the platform's).
    private static func runConfiguration(
        _ args: Arguments, impl: any Implementation, profile: Profile, expectations: Expectations, path: String
    ) throws -> RunConfiguration {
        var configuration = RunConfiguration(impl: impl, profile: profile, seed: try args.seed("--seed", default: 1),
                                             count: try args.int("--count", default: 100, range: 1...100_000_000),
                                             generator: try args.generatorOptions(), rules: try args.rules(),
                                             shrink: !args.flags.contains("--no-shrink"))
        try configuration.apply(runOptions: args)
        // The file's entries, and the platform's (when the driver builds on one and the file is
        // not the platform's own): each excuses only what its cause explains, so nothing
        // expected is shrunk again, and a rule the platform breaks still fails the gate where
        // the tested code breaks it.
        var known = expectations
        var source = path
        if KnownDivergenceOption.platformImpl(of: impl) != expectations.impl,
           let (platform, from) = try KnownDivergenceOption.resolve(nil, for: impl) {
            known.expected += platform.expected
            source += " and \(from)"
        }
        configuration.known = known
        configuration.knownSource = source
        configuration.earlierMinima = RunCommand.earlierMinima(args, configuration)
        return configuration
    }

    /// The gate's lines under the run's summary: what was expected and seen, what was not.
    static func report(
        _ verdict: GateVerdict, expectations: Expectations, path: String, strict: Bool, _ console: Console
    ) {
        // Rules, as the rest of the line counts; the divergences (causes) too when they differ, so
        // the count matches the summary's "N known divergences" (issue 45: "7 known", then "6 seen").
        let causes = verdict.seenEntries == verdict.confirmed.count ? "" : " (\(verdict.seenEntries) known divergences)"
        console.out(
            "\ngate against \(path): \(verdict.confirmed.count) expected rules seen\(causes), "
                + "\(verdict.unexpected.count) unexpected, \(verdict.unexpectedWarnings.count) unexpected warnings, "
                + "\(verdict.nowPassing.count + verdict.notSeenRare.count) expected but not seen\n"
        )
        for rule in verdict.unexpected { console.out("  UNEXPECTED \(rule)\n") }
        for e in verdict.exceeded {
            console.out(
                "  RATE EXCEEDED \(e.rule): \(e.seen) of \(e.cases) cases, where its entry measured \(e.rate.cases) of "
                    + "\(e.rate.of)"
                    + " (at most \(e.bound) expected at the 0.001 level): a defect may hide behind the known flake\n")
        }
        for rule in verdict.unexpectedWarnings {
            let strength = RuleBook.check(id: rule)?.rule.strength.rawValue ?? ""
            console.out("  unexpected warning: \(rule) [\(strength)]\(strict ? " (--strict fails the gate)" : "")\n")
        }
        for rule in verdict.notSeenRare {
            let why = expectations.expected.first { $0.rule == rule }?.rare ?? ""
            console.out("  not seen, rare: \(rule)" + (why.isEmpty ? "" : " (\(why))") + "\n")
        }
        for rule in verdict.nowPassing {
            console.out("  now passing: \(rule) (expected to fail\(strict ? "; --strict fails the gate" : ""))\n")
        }
    }
}
