// swift-tools-version: 6.0
// Three AsyncOperation base classes, tested by the harness two folders up: each gets a driver
// executable of a few lines, and Swift Testing tests run generated cases on them.
import PackageDescription

let package = Package(
    name: "async-operation",
    dependencies: [
        // The harness two folders up. In a package of your own, pin a release instead
        // (CHANGELOG.md; the tags are the releases):
        //     .package(url: "https://github.com/<owner>/OperationConformance.git", from: "0.11.0"),
        .package(name: "OperationConformance", path: "../.."),
    ],
    targets: [
        // The classes under test: Foundation only.
        .target(name: "AsyncOperations", swiftSettings: [.swiftLanguageMode(.v6)]),
        // One driver per class (`opconform run --impl exec:.build/debug/careful-operation-driver`).
        .executableTarget(name: "careful-operation-driver",
                          dependencies: ["AsyncOperations", .product(name: "OperationDriverKit", package: "OperationConformance")],
                          swiftSettings: [.swiftLanguageMode(.v6)]),
        .executableTarget(name: "blog-operation-driver",
                          dependencies: ["AsyncOperations", .product(name: "OperationDriverKit", package: "OperationConformance")],
                          swiftSettings: [.swiftLanguageMode(.v6)]),
        .executableTarget(name: "timeout-operation-driver",
                          dependencies: ["AsyncOperations", .product(name: "OperationDriverKit", package: "OperationConformance")],
                          swiftSettings: [.swiftLanguageMode(.v6)]),
        .testTarget(name: "AsyncOperationTests",
                    dependencies: [.product(name: "ConformanceTesting", package: "OperationConformance")],
                    swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
