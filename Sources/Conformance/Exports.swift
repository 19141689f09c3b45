// The driver kit is part of the harness's API: `import Conformance` keeps giving a driver
// written before the kit was its own module everything it used (`OperationDriver`,
// `SubclassProbe`, `QueueUnderTest`, `DriverProtocol`).
@_exported import OperationDriverKit

// The formats, the generator, running one case and the shrinker are targets of their own below
// the run; `import Conformance` keeps giving a user's tooling, the CLI and `expectConformance`
// all of them (swift-nio's `NIO` module re-exports `NIOCore` the same way).
@_exported import ConformanceFormats
@_exported import ConformanceGeneration
@_exported import ConformanceRunning
@_exported import ConformanceShrinking
