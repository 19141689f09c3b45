// swift-tools-version: 6.0
// OperationConformance: checks implementations of the NSOperation / NSOperationQueue model
// against the rules of their documents. No package dependencies, by a user's requirement:
// the harness must be easy to vendor into any CI.
//
// The targets follow the data path, each depending only on those before it:
//   OperationSpec -> ReferenceEngine -> OperationDriverKit (what a driver links)
//   -> ConformanceFormats -> ConformanceGeneration -> ConformanceRunning -> ConformanceShrinking
//   -> Conformance (the run in its phases)
//   -> ConformanceReports, ConformanceExport -> ConformanceBench, ConformanceTesting -> OpconformCLI.
import PackageDescription

let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "OperationConformance",
    // Linux is where this project runs and verifies everything (Docs/platforms.md). On Darwin the
    // harness and the kit use `Mutex` and `Atomic` (Synchronization), which need macOS 15; nothing
    // on Darwin is run by this project.
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "OperationSpec", targets: ["OperationSpec"]),
        .library(name: "ReferenceEngine", targets: ["ReferenceEngine"]),
        // What a driver links: the driver host, the subclass probe, the queue protocol, the
        // recorder and the protocol's messages. Foundation and the rules' data types only.
        .library(name: "OperationDriverKit", targets: ["OperationDriverKit"]),
        // The harness: formats, generation, running, shrinking and the run. What `expectConformance`,
        // the CLI and a user's tooling call; `import Conformance` sees every target below it too.
        .library(name: "Conformance", targets: ["Conformance"]),
        // Opt-in: the reports a run's result becomes, and reproducers exported from findings.
        .library(name: "ConformanceReports", targets: ["ConformanceReports"]),
        .library(name: "ConformanceExport", targets: ["ConformanceExport"]),
        .library(name: "ConformanceTesting", targets: ["ConformanceTesting"]),
        .executable(name: "opconform", targets: ["opconform"]),
    ],
    targets: [
        // The rules, the scenario and trace models, the checkers. Pure Swift: no Foundation.
        .target(name: "OperationSpec", swiftSettings: strict),
        // The deterministic reference implementation. Pure Swift: no Foundation, no threads.
        .target(name: "ReferenceEngine", dependencies: ["OperationSpec"], swiftSettings: strict),
        // The driver kit: a driver's host (`OperationDriver`), what it drives (`SubclassProbe`,
        // `QueueUnderTest`), the recorder, and the driver protocol's messages. A user's driver
        // links this and the rules' data types (OperationSpec), nothing else.
        .target(
            name: "OperationDriverKit", dependencies: ["OperationSpec", "DidChangeHook"], swiftSettings: strict),
        // The kit's ear on Linux: stands in for Foundation's `Operation.didChangeValue` so that
        // the kit hears what a tested subclass announces (Sources/DidChangeHook/DidChangeHook.c).
        // C, built by the toolchain's own clang: no dependency.
        .target(name: "DidChangeHook"),
        // The files a user or a driver author touches, read strictly and written in sorted keys:
        // scenario, trace, finding, expectations, run record, and the values they hold (a case's
        // identity, the generator's options, a driver's launch). No running, no generating.
        .target(
            name: "ConformanceFormats", dependencies: ["OperationSpec", "ReferenceEngine", "OperationDriverKit"],
            swiftSettings: strict),
        // The seeded generator: a case's scenario from its identity, with the decorators that
        // reach the paths a first run misses (issue 44) and API surface 2.
        .target(name: "ConformanceGeneration", dependencies: ["ConformanceFormats"], swiftSettings: strict),
        // Running one case: the adapters (the engine, Foundation, GNUstep, a driver in a child
        // process), the implementations' interface, attribution and confirmation.
        .target(name: "ConformanceRunning", dependencies: ["ConformanceFormats"], swiftSettings: strict),
        // The shrinker: a failing case's smallest form, replayed through a running implementation.
        .target(name: "ConformanceShrinking", dependencies: ["ConformanceRunning"], swiftSettings: strict),
        // The run in its phases (cases, attribution, confirmation, shrinking, writing), merge, the
        // reach table and the style corpus; `import Conformance` re-exports the targets below it.
        .target(
            name: "Conformance", dependencies: ["ConformanceGeneration", "ConformanceShrinking"],
            swiftSettings: strict),
        // What a run's result becomes: the console, JSON, JUnit, HTML and case-log reports, the
        // run folder, the coverage, matrix, sweep and rule-catalog pages. After the run: nothing
        // in `Conformance` depends on it.
        .target(name: "ConformanceReports", dependencies: ["Conformance"], swiftSettings: strict),
        // A finding as a stand-alone reproducer (Swift or Objective-C source). After the run too.
        .target(name: "ConformanceExport", dependencies: ["Conformance"], swiftSettings: strict),
        // `opconform bench`: the harness measuring itself. Only the CLI links it.
        .target(name: "ConformanceBench", dependencies: ["Conformance", "ConformanceReports"], swiftSettings: strict),
        // One-call conformance checks for a user's Swift Testing suite.
        .target(name: "ConformanceTesting", dependencies: ["Conformance", "ConformanceReports"], swiftSettings: strict),
        // The commands, as a library so tests can run them in process and read what they print.
        .target(
            name: "OpconformCLI",
            dependencies: ["Conformance", "ConformanceReports", "ConformanceExport", "ConformanceBench"],
            swiftSettings: strict),
        .executableTarget(name: "opconform", dependencies: ["OpconformCLI"], swiftSettings: strict),
        // A test fixture, not a product: a driver for a sample asynchronous subclass, run by the
        // tests in a child process as the harness runs every driver (`swift build` builds it).
        .executableTarget(
            name: "sample-subclass-driver", dependencies: ["OperationDriverKit"], path: "Tests/SampleSubclassDriver",
            swiftSettings: strict),
        // A test fixture too: the corpus of real-world asynchronous Operation base classes
        // (`opconform flaws --corpus`, CorpusTests), one class chosen by `--class NAME`.
        .executableTarget(
            name: "corpus-driver", dependencies: ["Conformance"], path: "Tests/CorpusDriver", swiftSettings: strict),
        .testTarget(
            name: "OperationSpecTests", dependencies: ["OperationSpec", "ReferenceEngine"], swiftSettings: strict),
        .testTarget(
            name: "ReferenceEngineTests",
            dependencies: [
                "ReferenceEngine", "ConformanceFormats", "ConformanceGeneration", "ConformanceRunning",
                "ConformanceShrinking", "Conformance", "ConformanceBench",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "ConformanceTests",
            dependencies: [
                "ConformanceFormats", "ConformanceGeneration", "ConformanceRunning", "ConformanceShrinking",
                "Conformance", "ConformanceReports", "ConformanceExport", "ConformanceBench", "ConformanceTesting",
                "OpconformCLI", "OperationDriverKit",
            ],
            swiftSettings: strict),
    ]
)
