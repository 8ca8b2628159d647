import Foundation

/// Locates the repository's `Fixtures/` folder from this source file, so tests never read `../shared`.
enum FixtureFiles {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// Bytes of a fixture given by its path below `Fixtures/`.
    static func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(relative)))
    }

    /// Every data file below `folder` (relative to `Fixtures/`), as relative paths, sorted.
    static func dataFiles(under folder: String) -> [String] {
        let base = root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        var out: [String] = []
        for case let url as URL in walker {
            let name = url.lastPathComponent
            if name.hasSuffix(".expected.txt") || name.hasSuffix(".plist.json") || name.hasSuffix(".md")
                || name.hasPrefix("COPYING") { continue }
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir), !isDir.boolValue else { continue }
            out.append(String(url.path.dropFirst(root.path.count + 1)))
        }
        return out.sorted()
    }
}
