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
    /// The flaws a flawed subclass is drawn from (`--flaws LIST`, in catalog order); nil for
    /// the whole catalog (`SubclassFlaw.allCases`).
    public var flaws: [SubclassFlaw]?
    /// Whether the asynchronous subclasses are the implementation's own (`OperationKind.subclass`,
    /// the work of the program the generator would have made) instead of step programs. Set when
    /// a driver's hello names a subclass of its own. The random draws are the same either way,
    /// so a seed gives the same scenario with the implementation's subclass in place.
    public var subclass: Bool
    /// Whether the generator also draws the constructs of API surface 2 (`Specs/api-surface.md`:
    /// `addBlock`, `readSuspended`, `sleep`, the `signaled` trigger, `readCurrentQueue`,
    /// `executionBlocks` reads, queue names, `readyAfterSignal`). Set when the implementation
    /// declares `apiSurface2`. Off, the draws are exactly those of generator version 1 before
    /// these constructs existed, so older findings regenerate the same cases.
    public var surface2: Bool
    /// Whether a misuse case misuses the API at one moment only: before the operations are
    /// added, or while they run, chosen on a stream of its own (`ScenarioGenerator`). Set for an
    /// implementation that cannot report misuse as an error (no `thrownErrors`: Foundation on
    /// Linux calls `fatalError`). There, version 1's cases misuse before the adds and again while
    /// running, and the early misuse ends the process every time, so the late one (a start of a
    /// finished operation, a completion block set while it runs) was never reached: in 1,000
    /// cases on Foundation, START-FINISHED was `not-reached` (issue 18). Off, the draws are
    /// exactly version 1's.
    public var splitMisuse: Bool
    /// The part of the API this case leans towards, chosen by a guided run (`--guide`) from the
    /// rules it reached least so far; nil for an unguided case (version 1's chances).
    public var focus: GeneratorFocus?
    /// Whether `ReachDecorator` adds the episodes that reach the paths a first run missed
    /// (issue 44): a cancel of a finished operation, getters read while the task runs, a cancel
    /// as the operation starts with reads right after it, a cancelled operation started by hand.
    /// Set for an implementation that owns a subclass or a queue (`RunConfiguration`). Off, the
    /// draws are exactly generator version 2's, so older findings regenerate the same cases.
    public var reach: Bool

    /// What `size` may be (the command line's `--size`), and the percentages
    /// `--misuse-rate` and `--flaw-rate`.
    package static let sizeRange = 1...64
    package static let rateRange = 0...100

    public init(
        size: Int = 8, misuseRate: Int = 10, flawRate: Int = 0, flaws: [SubclassFlaw]? = nil, subclass: Bool = false,
        surface2: Bool = false,
        splitMisuse: Bool = false, focus: GeneratorFocus? = nil, reach: Bool = false
    ) {
        self.size = size
        self.misuseRate = misuseRate
        self.flawRate = flawRate
        self.flaws = flaws
        self.subclass = subclass
        self.surface2 = surface2
        self.splitMisuse = splitMisuse
        self.focus = focus
        self.reach = reach
    }

    /// The flaws a flawed subclass is drawn from: those named, or the default draw.
    public var flawList: [SubclassFlaw] { flaws ?? SubclassFlaw.drawnByDefault }

    enum CodingKeys: String, CodingKey {
        case size, misuseRate, flawRate, flaws, subclass, surface2, splitMisuse, focus, reach
    }

    /// `flaws`, `subclass`, `surface2`, `splitMisuse`, `focus` and `reach` are written only when set, and read as
    /// false when absent: files written before it existed keep their bytes and still read. Each number must be in
    /// the range its command line option allows, or the options could not have made the case (a finding file that
    /// says otherwise was edited): the error names the field and the range.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func number(_ key: CodingKeys, _ range: ClosedRange<Int>, _ option: String) throws -> Int {
            let n = try c.decode(Int.self, forKey: key)
            guard range.contains(n) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: c.codingPath + [key],
                        debugDescription:
                            "must be a whole number from \(range.lowerBound) to \(range.upperBound), as for \(option)"))
            }
            return n
        }
        size = try number(.size, Self.sizeRange, "--size")
        misuseRate = try number(.misuseRate, Self.rateRange, "--misuse-rate")
        flawRate = try number(.flawRate, Self.rateRange, "--flaw-rate")
        flaws = try c.decodeIfPresent([String].self, forKey: .flaws).map { names in
            try names.map { name in
                guard let flaw = SubclassFlaw(rawValue: name) else {
                    let all = SubclassFlaw.allCases.map(\.rawValue)
                    throw DecodingError.dataCorrupted(
                        DecodingError.Context(
                            codingPath: c.codingPath + [CodingKeys.flaws],
                            debugDescription:
                                "\"\(name)\" is not a flaw\(KeySuggestion.clause(for: name, among: all)); the flaws "
                                    + "are: \(all.joined(separator: ", "))"
                        ))
                }
                return flaw
            }
        }
        if let flaws,
            flaws.isEmpty || flaws != flaws.sorted(by: { $0.order < $1.order })
                || Set(flaws.map(\.rawValue)).count != flaws.count
        {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: c.codingPath + [CodingKeys.flaws],
                    debugDescription:
                        "must list flaws once each, in catalog order, as --flaws writes them "
                            + "(opconform flaws lists them)"
                ))
        }
        subclass = try c.decodeIfPresent(Bool.self, forKey: .subclass) ?? false
        surface2 = try c.decodeIfPresent(Bool.self, forKey: .surface2) ?? false
        splitMisuse = try c.decodeIfPresent(Bool.self, forKey: .splitMisuse) ?? false
        focus = try c.decodeIfPresent(GeneratorFocus.self, forKey: .focus)
        reach = try c.decodeIfPresent(Bool.self, forKey: .reach) ?? false
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(size, forKey: .size)
        try c.encode(misuseRate, forKey: .misuseRate)
        try c.encode(flawRate, forKey: .flawRate)
        if let flaws { try c.encode(flaws, forKey: .flaws) }
        if subclass { try c.encode(true, forKey: .subclass) }
        if surface2 { try c.encode(true, forKey: .surface2) }
        if splitMisuse { try c.encode(true, forKey: .splitMisuse) }
        if let focus { try c.encode(focus, forKey: .focus) }
        if reach { try c.encode(true, forKey: .reach) }
    }
}
