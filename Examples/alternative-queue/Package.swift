// swift-tools-version: 6.0
// An alternative to OperationQueue, tested for conformance by the harness two folders up: a
// driver executable serves the harness's cases, and Swift Testing tests run them.
import PackageDescription

let package = Package(
    name: "alternative-queue",
    dependencies: [
        // The harness two folders up. In a package of your own, pin a release instead
        // (CHANGELOG.md; the tags are the releases):
        //     .package(url: "https://github.com/<owner>/OperationConformance.git", from: "0.11.0"),
        .package(name: "OperationConformance", path: "../.."),
    ],
    targets: [
        // The queue: Foundation only.
        .target(name: "AltQueue", swiftSettings: [.swiftLanguageMode(.v6)]),
        // The driver: serves one case on AltQueue (`opconform run --impl exec:.build/debug/altqueue-driver`).
        .executableTarget(name: "altqueue-driver",
                          dependencies: ["AltQueue", .product(name: "OperationDriverKit", package: "OperationConformance")],
                          swiftSettings: [.swiftLanguageMode(.v6)]),
        // The same with a bug planted on purpose, to see it caught.
        .executableTarget(name: "altqueue-buggy-driver",
                          dependencies: ["AltQueue", .product(name: "OperationDriverKit", package: "OperationConformance")],
                          swiftSettings: [.swiftLanguageMode(.v6)]),
        // The tests: the conformance test, and (while check.sh runs) a reproducer exported from
        // a finding, which builds AltQueue itself.
        .testTarget(name: "AltQueueTests",
                    dependencies: ["AltQueue", .product(name: "ConformanceTesting", package: "OperationConformance")],
                    swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
