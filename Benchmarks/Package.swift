// swift-tools-version:6.2
import PackageDescription

// The benchmarks, a package of their own (as swift-foundation and swift-collections keep theirs), so that a
// user of the libraries sees only the libraries and the two tools. Build and run from this folder:
//   swift build -c release && .build/release/keyed-bench raw
let package = Package(
    name: "KeyedArchiveStoreBenchmarks",
    // Foundation's `Process` (the peers and child processes the benchmarks start) exists on macOS and Linux.
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "keyed-bench", targets: ["keyed-bench"]),
    ],
    dependencies: [
        .package(name: "KeyedArchiveStore", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "keyed-bench",
            dependencies: [
                .product(name: "BinaryPlist", package: "KeyedArchiveStore"),
                .product(name: "KeyedArchive", package: "KeyedArchiveStore"),
                .product(name: "TypedStream", package: "KeyedArchiveStore"),
                .product(name: "ArchiveStore", package: "KeyedArchiveStore"),
                .product(name: "FormCache", package: "KeyedArchiveStore"),
            ],
            path: "keyed-bench"
        ),
    ],
    swiftLanguageModes: [.v6]
)
