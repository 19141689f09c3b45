/// The harness's release, as a semantic version.
///
/// `opconform --version` prints it; finding files, the run's JSON, JUnit and HTML reports, the run
/// record and a kit-built driver's `hello` say which release made them. CHANGELOG.md says what
/// each release changed, and a git tag of the same name marks it, so that a package manifest can
/// pin one (`.package(url: …, from: "0.11.0")`). Before 1.0 a minor release may change a format;
/// every such change also bumps that format's own number (scenario, finding, trace, driver
/// protocol).
public enum HarnessVersion {
    public static let current = "0.11.0"
}
