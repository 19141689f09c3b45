// The driver kit is part of the harness's API: `import Conformance` keeps giving a driver
// written before the kit was its own module everything it used (`OperationDriver`,
// `SubclassProbe`, `QueueUnderTest`, `DriverProtocol`).
@_exported import OperationDriverKit

// The formats and the generator are targets of their own below the running; `import
// Conformance` keeps giving a user's tooling, the CLI and `expectConformance` all of them
// (swift-nio's `NIO` module re-exports `NIOCore` the same way).
@_exported import ConformanceFormats
@_exported import ConformanceGeneration
