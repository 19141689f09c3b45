/// Which generator built a case: a finding records it (`CaseIdentity.generatorVersion`), and a
/// build replays a finding's seed only if its generator builds that case the same. The numbers
/// live beside the options they depend on, below the generator (`ScenarioGenerator`).
public enum GeneratorVersion {
    /// Bumped whenever the same seed would build a different scenario.
    /// 2: a flawed subclass is drawn from the catalog of `SubclassFlaw` (14 flaws, two of them
    /// with a driver step), not version 1's five, and Listing 2-6's flaw has a main with no
    /// work, as in the guide; cases without flaws are version 1's.
    /// 3: with the option `reach`, `ReachDecorator` adds the episodes that reach the paths a
    /// first run missed (issue 44); cases without it are version 2's (or 1's).
    public static let current = 3

    /// Whether a case made by generator `version` with `options` is rebuilt the same by this
    /// one: every case is built the same by every version from the one its options need
    /// (`stamp`) on, up to this one.
    public static func rebuilds(version: Int, options: GeneratorOptions) -> Bool {
        (stamp(options)...current).contains(version)
    }

    /// The version a generated scenario records: the oldest generator that builds it the same.
    /// A case generated with flaw rate 0 is version 1's to the byte, and says so, so its
    /// scenario, its hash and the findings that hold it did not change when version 2 came;
    /// a case without `reach` is version 2's at most, for the same reason.
    public static func stamp(_ options: GeneratorOptions) -> Int {
        options.reach ? 3 : options.flawRate == 0 ? 1 : 2
    }
}
