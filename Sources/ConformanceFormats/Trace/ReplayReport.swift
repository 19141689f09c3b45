import Foundation
import OperationSpec

/// What `replay --json` and `check --json` print (Specs/trace-format.md, "Replay reports"): the
/// trace file, the profile it was judged under, and each violation with its rule's severity
/// and strength and its witnesses as the `seq` of events in the trace (the events themselves
/// are in the trace once; a witness list that repeated them would double a report's size).
package enum ReplayReport {
    public static func encode(_ file: TraceFile, profile: Profile, violations: [Violation]) -> Data {
        value(file, profile: profile, violations: violations).text
    }

    static func value(_ file: TraceFile, profile: Profile, violations: [Violation]) -> JSONValue {
        .object([
            ("format", .int(TraceFormat.format(of: file.trace))),
            ("profile", .string(profile.rawValue)),
            ("trace", TraceFormat.value(file)),
            ("violations", .array(violations.map { v in
                .object([
                    ("rule", .string(v.rule)), ("observed", .string(v.observed)), ("expected", .string(v.expected)),
                    ("severity", .string(Finding.severity(of: v.rule).rawValue)),
                    ("strength", .string(RuleBook.check(id: v.rule)?.rule.strength.rawValue ?? "run")),
                    ("witnesses", .array(v.witnesses.map { .int($0.seq) })),
                ])
            })),
        ])
    }
}
