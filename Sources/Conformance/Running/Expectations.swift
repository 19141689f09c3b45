import Foundation
import OperationSpec

/// The known, explained divergences of one implementation from the rules (`Specs/expectations-format.md`).
/// A CI gate passes when every failure of a run is expected, fails on any new one, and reports
/// expected failures that no longer happen.
public struct Expectations: Codable, Sendable, Equatable {
    /// 1; 2 adds `driver`, the driver the gate starts when it is given no `--impl`.
    public static let formatVersion = 1
    public static let newestFormat = 2

    public enum Kind: String, Codable, Sendable {
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
        public init(rule: String, kind: Kind, reason: String, finding: String) {
            self.rule = rule
            self.kind = kind
            self.reason = reason
            self.finding = finding
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
        let folder = (file as NSString).deletingLastPathComponent
        let base = folder.isEmpty ? FileManager.default.currentDirectoryPath
            : (folder.hasPrefix("/") ? folder : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(folder))
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

    public static func load(_ path: String) throws(InputError) -> Expectations {
        guard let data = FileManager.default.contents(atPath: path) else { throw InputError("\(path) cannot be read: no such file, or no permission") }
        let e = try JSONCodec.decode(Expectations.self, from: data, source: path)
        guard (formatVersion...newestFormat).contains(e.format) else { throw InputError("\(path): expectations format \(e.format); this build reads 1 and 2") }
        if e.driver != nil && e.format < 2 { throw InputError("\(path): a driver entry needs format 2") }
        let known = Set(RuleBook.rules.map(\.id) + [Finding.crashRule, Finding.hangRule])
        if let bad = e.expected.first(where: { !known.contains($0.rule) }) { throw InputError("\(path): unknown rule '\(bad.rule)'") }
        return e
    }

    /// The path of an entry's finding file.
    public func findingPath(_ entry: Entry, relativeTo file: String) -> String {
        ((file as NSString).deletingLastPathComponent as NSString).appendingPathComponent(entry.finding)
    }
}

/// What a gate decided.
public struct GateVerdict: Sendable {
    /// Failing rules with no expectation: the gate fails.
    public var unexpected: [String]
    /// Expected failures that this run did not show.
    public var nowPassing: [String]
    /// Expected failures this run showed.
    public var confirmed: [String]

    public init(result: RunResult, expectations: Expectations) {
        var failing = result.statistics.filter { $0.status == .fail }.map(\.id)
        failing += result.findings.map(\.rule).filter { $0 == Finding.crashRule || $0 == Finding.hangRule }
        let expected = expectations.expected.map(\.rule)
        unexpected = failing.filter { !expected.contains($0) }
        confirmed = failing.filter { expected.contains($0) }
        nowPassing = expected.filter { !failing.contains($0) }
    }

    public func passes(strict: Bool) -> Bool { unexpected.isEmpty && (!strict || nowPassing.isEmpty) }
}
