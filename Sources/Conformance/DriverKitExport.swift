// The driver kit is part of the harness's API: `import Conformance` keeps giving a driver
// written before the kit was its own module everything it used (`OperationDriver`,
// `SubclassProbe`, `QueueUnderTest`, `DriverProtocol`).
@_exported import OperationDriverKit
