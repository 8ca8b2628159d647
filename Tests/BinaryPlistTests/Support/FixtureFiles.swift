import Foundation
import TestSupport

/// Locates the repository's `Fixtures/` folder from this source file, so tests never read `../shared`.
/// The plist collection lives in `Fixtures/bplist` and `Fixtures/keyed`; a fixture's `.plist.json` sibling is
/// CPython plistlib's reading of it, rendered as plist-JSON by the maintainers' tooling (not in the repository).
enum FixtureFiles {
    static let root: URL = RepositoryFixtures.root

    /// Bytes of a fixture given by its path below `Fixtures/`.
    static func bytes(_ relative: String) throws -> [UInt8] { try RepositoryFixtures.bytes(relative) }

    /// Text of a file given by its path below `Fixtures/`, or nil when there is no such file.
    static func text(_ relative: String) throws -> String? {
        let url = root.appendingPathComponent(relative)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// The `.plist.json` rendering of a fixture, or nil when plistlib refused the file.
    static func plistJSON(of relative: String) throws -> String? { try text(relative + ".plist.json") }

    /// Every data file in `bplist/` and `keyed/` (paths relative to `Fixtures/`), sorted: everything but
    /// renderings, notes and licenses.
    static let dataFiles: [String] = (RepositoryFixtures.dataFiles(under: "bplist")
        + RepositoryFixtures.dataFiles(under: "keyed")).sorted()

    /// Data files that have a `.plist.json` rendering.
    static let filesWithJSON: [String] = dataFiles.filter { (try? plistJSON(of: $0)) != nil }

    /// Data files whose first bytes are an XML plist.
    static let xmlPlists: [String] = dataFiles.filter { file in
        guard let head = FileManager.default.contents(atPath: root.appendingPathComponent(file).path)?.prefix(512)
        else { return false }
        let text = String(decoding: head, as: UTF8.self)
        return text.contains("<plist") || text.hasPrefix("<?xml")
    }

    /// XML fixtures that have a `.plist.json` rendering.
    static let xmlPlistsWithJSON: [String] = xmlPlists.filter { filesWithJSON.contains($0) }
}
