import Foundation
import OperationSpec

/// The known, explained divergences of one implementation from the rules (`Specs/expectations-format.md`).
/// A CI gate passes when every failure of a run is expected, fails on any new one, and reports
/// expected failures that no longer happen.
public struct Expectations: Codable, Sendable, Equatable {
    /// 1; 2 adds `driver`, the driver the gate starts when it is given no `--impl`.
    public static let formatVersion = 1
    public static let newestFormat = 2

    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// The platform does it differently and says so (a trap where Cocoa throws, no KVO...).
        case platformDifference = "platform-difference"
        /// We believe the implementation is wrong.
        case bug
        /// The documents can be read both ways.
        case ambiguity
    }

    public struct Entry: Codable, Sendable, Equatable {
        public var rule: String
        public var kind: Kind
        /// One line: what the implementation does, and why it is expected.
        public var reason: String
        /// A finding file, relative to the expectations file, that shows it.
        public var finding: String
        /// Why a gate of ordinary length may not see it, and how many cases it takes (measured:
        /// `opconform bench`, time to detect). A rare entry not seen is said so, and does not fail
        /// `--strict`: its absence is explained, not a fix to acknowledge.
        public var rare: String?
        public init(rule: String, kind: Kind, reason: String, finding: String, rare: String? = nil) {
            self.rule = rule
            self.kind = kind
            self.reason = reason
            self.finding = finding
            self.rare = rare
        }
    }

    public var format: Int
    public var impl: String
    /// The driver to start (format 2): a path relative to this file (or absolute, or a bare
    /// name looked up on PATH) and its arguments, so `gate --expectations FILE` alone runs a
    /// driver of the user's own.
    public var driver: DriverEntry?
    public var profile: Profile
    public var expected: [Entry]

    public struct DriverEntry: Codable, Sendable, Equatable {
        public var path: String
        public var arguments: [String]?
        public init(path: String, arguments: [String]? = nil) { self.path = path; self.arguments = arguments }
    }

    /// The driver this file names, resolved against the file's folder.
    public func driverLaunch(relativeTo file: String) throws(InputError) -> DriverLaunch? {
        guard let driver else { return nil }
        let base = PathText.absolute(PathText.folder(of: file))
        do {
            return try DriverLaunch.resolve(driver.path, arguments: driver.arguments ?? [], directory: base)
        } catch {
            throw InputError("\(file): its driver: \(error.message)")
        }
    }

    public init(format: Int = Expectations.formatVersion, impl: String, profile: Profile, expected: [Entry]) {
        self.format = format
        self.impl = impl
        self.profile = profile
        self.expected = expected
    }

    /// Reads an expectations file; its format, driver entry and rule ids are checked as it is
    /// decoded (`inputProblem`), so are its keys (`StrictlyKeyed`), and every problem is one
    /// sentence naming the field.
    public static func load(_ path: String) throws(InputError) -> Expectations {
        try JSONCodec.decode(Expectations.self, from: try JSONCodec.readFile(at: path), source: path)
    }

    /// The path of an entry's finding file.
    public func findingPath(_ entry: Entry, relativeTo file: String) -> String {
        PathText.join(PathText.parent(file), entry.finding)
    }
}

extension Expectations: CheckedInput {
    func inputProblem() -> InputError.FieldProblem? {
        guard (Self.formatVersion...Self.newestFormat).contains(format) else {
            return .init(path: [.key("format")], what: "is \(format)", requirement: ", but this build reads expectations formats \(Self.formatVersion) and \(Self.newestFormat)")
        }
        if driver != nil && format < 2 {
            let format = format
            return .init(path: [.key("driver")]) { _, at in "a driver entry needs format 2, but the file is format \(format) (the entry is\(at.isEmpty ? " there" : at))" }
        }
        for (i, entry) in expected.enumerated() {
            let path: [JSONPathSegment] = [.key("expected"), .index(i), .key("rule")]
            // A driver that breaks the protocol gives no verdict at all: it is fixed, never expected.
            if entry.rule == Finding.protocolRule {
                return .init(path: path, what: "names \(Finding.protocolRule)",
                             requirement: ", which cannot be an expected divergence: a driver that breaks the protocol is fixed, not expected (the run gives no verdict)")
            }
            if let problem = Finding.ruleProblem(entry.rule, at: path) { return problem }
        }
        return nil
    }
}

/// A key an expectations file does not have is refused with the nearest one it does (a
/// misspelt "rare" would otherwise leave an entry not rare, and the gate failing for it).
extension Expectations: StrictlyKeyed {
    func optionalKeys(at path: [JSONPathSegment]) -> [String] {
        switch path {
        case []: return ["driver"]
        case [.key("driver")]: return ["arguments"]
        default:
            if path.count == 2, path[0] == .key("expected"), case .index = path[1] { return ["rare"] }
            return []
        }
    }
}
