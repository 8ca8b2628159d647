// swift-tools-version:6.2
import PackageDescription

// Layers run one way: BinaryPlist -> ArchiveModel -> KeyedArchive -> ArchiveStore -> FormCache -> command-line targets, and
// KeyedArchive -> ArchiveInspection (what the tools show of an archive) -> command-line targets, and
// ArchiveModel -> TypedStream (NSArchiver's typedstreams, read into the model's values; KeyedArchive for
// conversion) -> command-line targets.
let package = Package(
    name: "KeyedArchiveStore",
    // The lowest minimums the code needs: Swift concurrency (the cache's get-or-load is async) back-deploys to
    // these. Nothing newer is used: no `Duration` or `Clock` (macOS 13 / iOS 16), no `String(validating:)`
    // (macOS 15 / iOS 18); a new-OS API is replaced rather than a minimum raised.
    platforms: [.macOS(.v10_15), .iOS(.v13), .tvOS(.v13), .watchOS(.v6), .visionOS(.v1)],
    products: [
        .library(name: "BinaryPlist", targets: ["BinaryPlist"]),
        .library(name: "ArchiveModel", targets: ["ArchiveModel"]),
        .library(name: "KeyedArchive", targets: ["KeyedArchive"]),
        .library(name: "ArchiveInspection", targets: ["ArchiveInspection"]),
        .library(name: "TypedStream", targets: ["TypedStream"]),
        .library(name: "ArchiveStore", targets: ["ArchiveStore"]),
        .library(name: "FormCache", targets: ["FormCache"]),
        .executable(name: "formcache", targets: ["formcache"]),
        .executable(name: "keyedarchive", targets: ["keyedarchive"]),
    ],
    targets: [
        // The property-list codec: imports nothing. Double's rounding operations call libm on Linux.
        .target(name: "BinaryPlist", linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
        // The object model both NSCoding formats share: the `Archived*` values, the class protocol and the one
        // registry, one file per Foundation class (names, chain, versions, both formats' coding over small field
        // reader/writer protocols the codecs implement) and their one list. At most FoundationEssentials.
        .target(name: "ArchiveModel", dependencies: ["BinaryPlist"]),
        // NSKeyedArchiver / NSKeyedUnarchiver and the Codable bridge: at most FoundationEssentials.
        .target(name: "KeyedArchive", dependencies: ["BinaryPlist", "ArchiveModel"]),
        // What the tools show of an archive: the graph walk, plist-JSON and the archive's JSON forms, the dump and
        // the tree and graph printers. Pure like the codec: no platform layer.
        .target(name: "ArchiveInspection", dependencies: ["BinaryPlist", "KeyedArchive"]),
        // NSArchiver / NSUnarchiver typedstreams, decoded into KeyedArchive's values, and conversion to keyed archives.
        .target(name: "TypedStream", dependencies: ["BinaryPlist", "ArchiveModel", "KeyedArchive"]),
        // The one platform layer: the only library code that imports Glibc, Musl or Darwin.
        .target(name: "ArchivePlatform"),
        // Storage engines over archive files: the repository (a record log) and the file cache, on one floor
        // (Storage/: the FileSystem seam and its primitives).
        .target(name: "ArchiveStore", dependencies: ["BinaryPlist", "KeyedArchive", "ArchivePlatform"]),
        // An application of the store: form records with an expiry in the user's data directory.
        .target(name: "FormCache", dependencies: ["ArchiveStore", "KeyedArchive"]),
        // Argument parsing and help layout shared by the command-line tools.
        .target(name: "CommandLineSupport", dependencies: ["ArchivePlatform"]),
        .target(name: "FormCacheCLI", dependencies: ["BinaryPlist", "ArchiveInspection", "FormCache", "ArchiveStore", "CommandLineSupport"]),
        .executableTarget(name: "formcache", dependencies: ["FormCacheCLI"]),
        .target(name: "InspectorCLI", dependencies: ["BinaryPlist", "KeyedArchive", "ArchiveInspection", "TypedStream", "ArchivePlatform", "ArchiveStore", "CommandLineSupport"]),
        .executableTarget(name: "keyedarchive", dependencies: ["InspectorCLI"]),
        .executableTarget(name: "shapes-example", dependencies: ["KeyedArchive"], path: "Examples/shapes-example"),
        .executableTarget(name: "app-example", dependencies: ["ArchiveStore", "FormCache", "KeyedArchive"], path: "Examples/app-example"),

        // Helpers shared by the test targets (seeded generator, fixture locator, temporary directories, sample
        // archives); may import Foundation.
        .target(name: "TestSupport", dependencies: ["BinaryPlist", "KeyedArchive", "ArchivePlatform", "ArchiveStore"], path: "Tests/TestSupport"),
        // BinaryPlistTests and KeyedArchiveTests read the fixtures' reference renderings (plist-JSON, archive-JSON)
        // through ArchiveInspection.
        .testTarget(name: "BinaryPlistTests", dependencies: ["TestSupport", "BinaryPlist", "ArchiveInspection"]),
        .testTarget(name: "KeyedArchiveTests", dependencies: ["TestSupport", "KeyedArchive", "ArchiveInspection"]),
        .testTarget(name: "ArchiveInspectionTests", dependencies: ["TestSupport", "ArchiveInspection", "KeyedArchive", "BinaryPlist"]),
        .testTarget(name: "TypedStreamTests", dependencies: ["TestSupport", "TypedStream", "KeyedArchive", "BinaryPlist"]),
        .testTarget(name: "ArchivePlatformTests", dependencies: ["TestSupport", "ArchivePlatform"]),
        .testTarget(name: "ArchiveStoreTests", dependencies: ["TestSupport", "ArchiveStore", "ArchivePlatform", "KeyedArchive"]),
        .testTarget(name: "FormCacheTests", dependencies: ["TestSupport", "FormCache", "ArchiveStore", "KeyedArchive"]),
        .testTarget(name: "FormCacheCLITests", dependencies: ["TestSupport", "ArchivePlatform", "FormCacheCLI", "FormCache", "ArchiveStore", "CommandLineSupport"]),
        .testTarget(name: "CommandLineSupportTests", dependencies: ["TestSupport", "ArchivePlatform", "CommandLineSupport"]),
        .testTarget(name: "InspectorCLITests", dependencies: ["TestSupport", "ArchivePlatform", "InspectorCLI", "ArchiveInspection", "TypedStream", "BinaryPlist", "KeyedArchive", "ArchiveStore", "CommandLineSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
