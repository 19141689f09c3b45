/// One normative statement of the documents, as a checkable rule.
public struct Rule: Sendable, Equatable {
    /// Stable id, `FAMILY-NAME`. Never reused for a different meaning.
    public let id: String
    public let family: Family
    /// One sentence, in our own words.
    public let statement: String
    public let citations: [Citation]
    public let strength: Strength
    /// What an implementation must be able to observe for this rule to be checked.
    public let needs: [Observation]
    /// Profiles the rule applies under; empty means all.
    public let profiles: [Profile]
    /// Where the documents disagree: the statement under a given profile.
    public let variants: [Variant]
    /// Whose duty the rule states: the runtime's, or the subclass author's. A subclass rule
    /// judges the scenario's own operation code; on an implementation under test it confirms
    /// the adapter ran that code faithfully.
    public let subject: Subject

    public init(_ id: String, _ family: Family, _ statement: String, cites: [Citation],
                strength: Strength, needs: [Observation] = [], profiles: [Profile] = [],
                variants: [Variant] = [], subject: Subject = .runtime) {
        self.id = id
        self.family = family
        self.statement = statement
        self.citations = cites
        self.strength = strength
        self.needs = needs
        self.profiles = profiles
        self.variants = variants
        self.subject = subject
    }

    public func applies(to profile: Profile) -> Bool { profiles.isEmpty || profiles.contains(profile) }
    public func statement(for profile: Profile) -> String {
        variants.first { $0.profile == profile }?.statement ?? statement
    }
}

public enum Family: String, Sendable, CaseIterable, Codable {
    case READY, CANCEL, START, KVO, STATE, DEP, COMPLETION, PRIORITY, THREAD, QUEUE, BLOCK, SUBCLASS, INVOCATION

    public var title: String {
        switch self {
        case .READY: return "Readiness"
        case .CANCEL: return "Cancellation"
        case .START: return "start"
        case .KVO: return "The KVO protocol"
        case .STATE: return "State invariants"
        case .DEP: return "Dependencies"
        case .COMPLETION: return "Completion blocks"
        case .PRIORITY: return "Queue priority"
        case .THREAD: return "Thread priority"
        case .QUEUE: return "Queues"
        case .BLOCK: return "Block operations"
        case .SUBCLASS: return "Concurrent subclasses"
        case .INVOCATION: return "Invocation operations"
        }
    }
}

/// A place in one of the five documents of `../shared/seeds/`.
public struct Citation: Sendable, Equatable, CustomStringConvertible {
    public let document: Document
    public let section: String
    public init(_ document: Document, _ section: String) { self.document = document; self.section = section }
    public var description: String { "\(document.rawValue) \(section)" }
}

public enum Document: String, Sendable, CaseIterable {
    /// Russian article on concurrent subclasses.
    case ru = "000"
    /// English article on NSOperation subclasses and concurrency.
    case en = "001"
    /// Chinese article on custom non-concurrent and concurrent subclasses.
    case zh = "002"
    /// GNUstep's NSOperation.h comments.
    case gnustep = "003"
    /// Apple's Concurrency Programming Guide, Operation Queues, with a Chinese translation.
    case guide = "004"

    public var file: String {
        switch self {
        case .ru: return "000_f54c280970a6fc84.txt"
        case .en: return "001_d9566bb0a539df7e.txt"
        case .zh: return "002_8bc1b3c52460b08c.txt"
        case .gnustep: return "003_c75261ff81fa2b27.txt"
        case .guide: return "004_9a09716935ad78fc.txt"
        }
    }
}

public enum Subject: String, Sendable, Codable {
    case runtime, subclass
}

public enum Strength: String, Sendable, Codable, CaseIterable {
    case documentedMust = "documented must"
    case documentedExample = "documented example"
    case documentedAdvice = "documented advice"
    case observedOnly = "observed only"
}

/// What an implementation can observe. A rule needing something an implementation cannot
/// observe is "not observable" there, never "pass".
public enum Observation: String, Sendable, Codable, CaseIterable {
    /// will/did change notifications, with values.
    case kvo
    /// Misuse reported as a thrown error or exception rather than a trap.
    case thrownErrors
    /// Which thread each event happened on.
    case threadIdentity
    /// Thread names.
    case threadNames
    /// The thread priority in effect when main or a completion block runs.
    case threadPriority
    /// Whether a concurrent subclass called `super.start`.
    case superStart
    /// Every operation's move to finished is in the trace (a did-change, or an equivalent record
    /// the adapter makes). Rules that conclude from the absence of a finish need it.
    case finishing
    /// The driver performs API surface 2 (`Specs/api-surface.md`): the `addBlock`,
    /// `readSuspended` and `sleep` actions, the `signaled` trigger, the `readCurrentQueue` step,
    /// `executionBlocks` reads, queue names and `readyAfterSignal`. A promise about what it can
    /// do, not only what it sees: the harness generates these constructs only for a driver that
    /// declares it, and refuses a scenario that uses them on one that does not.
    case apiSurface2
    /// The driver performs API surface 3 (`Specs/api-surface.md`): the constructs the peer
    /// suite needs that API surface 2 lacks: the `cancelAll` step (a queue's
    /// `cancelAllOperations` called from an operation's own code), and the `readOperations` and
    /// `releaseQueue` actions. A promise, as `apiSurface2`: the harness refuses a scenario that
    /// uses them on a driver that does not declare it (the generator draws none of them).
    case apiSurface3
    /// The driver performs API surface 4 (`Specs/api-surface.md`): the rest of the peer suite's
    /// constructs that every built-in driver can perform: the `readMainQueue` action (the main
    /// queue, read from the driving thread) and the `readQueueDeallocated` action (whether a
    /// queue the driver let go of is gone). A promise, as `apiSurface3`.
    case apiSurface4
    /// The driver performs the Dispatch constructs (`Specs/api-surface.md`, "Dispatch queues"):
    /// the `setUnderlyingQueue` action, the `readUnderlyingQueue` step and a driver step's
    /// `onDispatchQueue`. A capability of its own, not part of a surface, because only an
    /// implementation built on Dispatch has it: GNUstep Base has no `underlyingQueue`.
    case dispatchQueues
    /// The implementation accepts a queue priority that is not one of the defined values
    /// (`setQueuePriority:` with 3, -6, 100...), so what it makes of one can be read back. The
    /// Swift API cannot express one (`Operation.QueuePriority(rawValue:)` is nil for it): a
    /// driver of Foundation's classes records such a step as `unsupported`, and PRIORITY-NORMALIZE
    /// is then not observable rather than silently not reached (issue 18 item 3).
    case undefinedQueuePriorities
    /// The case ran with timing noise (Specs/driver-protocol.md, "Timing noise"): the driver
    /// made short random delays at its instrumented points, as the request's `noise` asked.
    /// Informational: no rule needs it; it marks a trace recorded under noise.
    case timingNoise
    /// What the implementation's own subclass announces: every `didChangeValue(forKey:)` its
    /// code sends, with the key as written, is an `announced` event (the driver kit sees them on
    /// Linux by standing in for Foundation's method, Specs/driver-protocol.md, "Announcements").
    /// A platform limit about announcements (Foundation on Linux has no dependent keys) is
    /// excused only with this evidence.
    case announcements

    /// The capabilities that promise what a driver performs, not what its traces show (no rule
    /// needs them): left out of every trace the harness writes, so that a trace without one of
    /// their constructs keeps its format and bytes.
    public static let performedOnly: [Observation] = [.apiSurface3, .apiSurface4, .dispatchQueues]
}

/// Where the documents disagree, a profile picks one reading.
public enum Profile: String, Sendable, Codable, CaseIterable {
    /// Apple's guide, section 2.7.2 and the GNUstep header: `start` on a finished operation throws.
    case guide
    /// Apple's class reference since OS X 10.6: `start` on a finished operation returns quietly.
    case classReference = "class-reference"
    /// The guide plus GNUstep's own promises (worker thread names).
    case gnustep
}

public struct Variant: Sendable, Equatable {
    public let profile: Profile
    public let statement: String
    public init(_ profile: Profile, _ statement: String) { self.profile = profile; self.statement = statement }
}
