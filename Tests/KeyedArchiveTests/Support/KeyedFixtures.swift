import Foundation
import TestSupport

/// Locates the repository's `Fixtures/keyed` archives from this source file.
enum KeyedFixtures {
    static let root: URL = RepositoryFixtures.root

    static func bytes(_ relative: String) throws -> [UInt8] { try RepositoryFixtures.bytes(relative) }

    /// Data files below `folder` (relative to `Fixtures/`), sorted, companions excluded.
    static func dataFiles(under folder: String) -> [String] { RepositoryFixtures.dataFiles(under: folder) }

    /// Apple-made keyed archives: not broken/, non-apple/ or embedded/ (a plist holding archives).
    static let appleArchives: [String] = dataFiles(under: "keyed").filter {
        !$0.contains("/broken/") && !$0.contains("/non-apple/") && !$0.contains("/embedded/")
    }

    static let brokenArchives: [String] = dataFiles(under: "keyed").filter { $0.contains("/broken/") }
}
