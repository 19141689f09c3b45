/// What the generator may produce. Part of a case's identity: replaying a seed needs the same options.
public struct GeneratorOptions: Sendable, Equatable, Codable {
    /// The most operations a scenario has (1...64).
    public var size: Int
    /// Percent of cases that misuse the API on purpose (start twice, add twice, late completion
    /// blocks, self/duplicate/cyclic dependencies...). Conformance runs keep it low so that they
    /// are not drowned by it; the rules check how misuse is refused.
    public var misuseRate: Int
    /// Percent of concurrent subclasses written with a deliberate bug (the guide's Listing 2-6
    /// race, a missing notification, a call to super...). Zero for conformance runs: a flawed
    /// subclass breaks rules that bind the subclass author, not the runtime.
    public var flawRate: Int

    public init(size: Int = 8, misuseRate: Int = 10, flawRate: Int = 0) {
        self.size = size
        self.misuseRate = misuseRate
        self.flawRate = flawRate
    }
}
