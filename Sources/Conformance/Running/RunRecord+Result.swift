extension RunRecord {
    /// The record of `result`, whose findings were written as `files` (`RunCommand.writeFindings`:
    /// a finding's path under its rule, a further cause's under its file name).
    public init(_ result: RunResult, files: [String: String]) {
        let c = result.configuration
        func name(_ path: String?) -> String { PathText.lastComponent(path ?? "") }
        self.init(
            format: Self.formatVersion,
            harness: HarnessVersion.current,
            impl: c.impl.name,
            implArguments: c.impl.replayArguments,
            driver: c.impl.launch,
            profile: c.profile,
            faults: c.faults,
            seed: c.seed,
            count: c.count,
            shard: "\(c.shard.index + 1)/\(c.shard.count)",
            generatorVersion: GeneratorVersion.current,
            generator: c.generator,
            strict: c.strict,
            statistics: result.statistics,
            findings: result.findings.map { name(files[$0.rule] ?? files[$0.fileName]) },
            otherCauses: result.otherCauses.map { Cause(file: name(files[$0.finding.fileName]), cases: $0.cases) },
            known: result.known.map { k in
                Known(rule: k.rule, entry: k.entry, cases: k.cases, owner: k.owner,
                      first: FirstCase(index: k.first.index, identity: k.first.identity, violation: k.first.violation))
            },
            unconfirmed: result.unconfirmed.map { u in
                Unconfirmed(
                    rule: u.rule, cases: u.cases,
                    first: FirstCase(index: u.first.index, identity: u.first.identity, violation: u.first.violation))
            },
            deathCases: result.deathCases,
            endings: result.endings,
            cases: result.cases,
            seconds: result.seconds,
            shrinkSeconds: result.shrinkSeconds,
            cpu: result.cpu,
            interrupted: result.interrupted,
            knownSource: c.knownSource
        )
    }
}
