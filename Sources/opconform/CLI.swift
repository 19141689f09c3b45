import Conformance
import Foundation
import OperationSpec

enum CLI {
    static func run(_ args: [String]) throws -> Int32 {
        guard let command = args.first else { print(Help.overview); return 0 }
        let rest = Array(args.dropFirst())
        switch command {
        case "-h", "--help", "help":
            if let topic = rest.first { print(Help.topic(topic) ?? Help.overview) } else { print(Help.overview) }
            return 0
        case "rules": return try RulesCommand.run(Arguments(rest, command: "rules"))
        case "samples": return try SamplesCommand.run(Arguments(rest, command: "samples"))
        case "run", "replay", "gate", "matrix", "faults", "bench", "driver":
            throw InputError("'\(command)' is part of the planned interface (see Specs/) but is not built yet; this build has: rules, samples")
        default:
            throw InputError("unknown command '\(command)'; the commands are: rules, samples")
        }
    }
}

/// A tiny parser: `--flag`, `--option value`, and positionals; unknown options are errors.
struct Arguments {
    let command: String
    private(set) var flags: Set<String> = []
    private(set) var options: [String: String] = [:]
    private(set) var positionals: [String] = []

    init(_ args: [String], command: String) { self.command = command; self.raw = args }
    private let raw: [String]

    mutating func parse(flags allowedFlags: [String], options allowedOptions: [String]) throws(InputError) -> Arguments {
        var i = 0
        while i < raw.count {
            let a = raw[i]
            if a == "-h" || a == "--help" { flags.insert("--help"); i += 1; continue }
            if allowedFlags.contains(a) { flags.insert(a); i += 1; continue }
            if allowedOptions.contains(a) {
                guard i + 1 < raw.count else { throw InputError("\(command): \(a) needs a value") }
                options[a] = raw[i + 1]; i += 2; continue
            }
            if a.hasPrefix("-") { throw InputError("\(command): unknown option '\(a)'; it takes: " + (allowedFlags + allowedOptions).joined(separator: ", ")) }
            positionals.append(a); i += 1
        }
        return self
    }

    func int(_ name: String, default value: Int, range: ClosedRange<Int>) throws(InputError) -> Int {
        guard let s = options[name] else { return value }
        guard let n = Int(s), range.contains(n) else { throw InputError("\(command): \(name) must be a whole number in \(range.lowerBound)...\(range.upperBound), not '\(s)'") }
        return n
    }

    func profile() throws(InputError) -> Profile {
        guard let s = options["--profile"] else { return .guide }
        guard let p = Profile(rawValue: s) else { throw InputError("\(command): unknown profile '\(s)'; the profiles are: " + Profile.allCases.map(\.rawValue).joined(separator: ", ")) }
        return p
    }
}
