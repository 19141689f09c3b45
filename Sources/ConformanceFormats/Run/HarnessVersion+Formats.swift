import OperationDriverKit

/// The formats the harness's release writes.
///
/// `opconform --version` prints it; finding files, the run's JSON, JUnit and HTML reports and
/// the run record say which release made them. CHANGELOG.md says what each release changed, and
/// a git tag of the same name marks it, so that a package manifest can pin one
/// (`.package(url: …, from: "0.11.0")`). Before 1.0 a minor release may change a format; every
/// such change also bumps that format's own number (scenario, finding, trace, driver protocol).
/// The release itself is the driver kit's (`OperationDriverKit/HarnessRelease.swift`), so that a
/// driver's `hello` can say which release built it; this adds the formats, for `--version`.
extension HarnessVersion {
    /// The formats this release writes, for `--version`.
    package static var formats: String {
        "scenario format \(ScenarioFormat.newest), finding format \(Finding.newestFormat), trace format "
            + "\(TraceFormat.newest), "
            + "expectations format \(Expectations.newestFormat), "
            + "driver protocols \(DriverProtocol.versions.map(String.init).joined(separator: " and ")), generator "
            + "version \(GeneratorVersion.current)"
    }
}
