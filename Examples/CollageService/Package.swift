// swift-tools-version:6.0
import PackageDescription

// An example that embeds CollageKit in a small HTTP service (Hummingbird 2).
// A package of its own, so that the root package's builds never pay for
// Hummingbird: `cd Examples/CollageService && swift build && swift test`
// (or ./test.sh).
let package = Package(
    name: "CollageService",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "collage-service", targets: ["collage-service"]),
    ],
    dependencies: [
        // The root package, whatever its folder is called (its identity would
        // otherwise be the folder's name).
        .package(name: "collage", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
    ],
    targets: [
        // The service: its routes, what a request becomes, and how a run's outcome is answered.
        .target(name: "CollageService",
                dependencies: [.product(name: "CollageKit", package: "collage"),
                               .product(name: "Hummingbird", package: "hummingbird"),
                               .product(name: "NIOCore", package: "swift-nio"),
                               .product(name: "NIOPosix", package: "swift-nio"),
                               .product(name: "Logging", package: "swift-log")],
                swiftSettings: [.swiftLanguageMode(.v6)]),
        .executableTarget(name: "collage-service",
                          dependencies: ["CollageService",
                                         .product(name: "CollageKit", package: "collage"),
                                         .product(name: "Hummingbird", package: "hummingbird"),
                                         .product(name: "Logging", package: "swift-log")],
                          swiftSettings: [.swiftLanguageMode(.v6)]),
        .testTarget(name: "CollageServiceTests",
                    dependencies: ["CollageService",
                                   .product(name: "Hummingbird", package: "hummingbird"),
                                   .product(name: "HummingbirdTesting", package: "hummingbird"),
                                   .product(name: "NIOCore", package: "swift-nio")],
                    swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
