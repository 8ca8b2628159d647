import Foundation

/// Locates the repository's `Fixtures/keyed` archives from this source file.
enum KeyedFixtures {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(relative)))
    }

    /// Data files below `folder` (relative to `Fixtures/`), sorted, companions excluded.
    static func dataFiles(under folder: String) -> [String] {
        let base = root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        var out: [String] = []
        for case let url as URL in walker {
            let name = url.lastPathComponent
            if name.hasSuffix(".expected.txt") || name.hasSuffix(".plist.json") || name.hasSuffix(".md")
                || name.hasPrefix("COPYING") || name.hasPrefix("LICENSE") { continue }
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir), !isDir.boolValue else { continue }
            out.append(String(url.path.dropFirst(root.path.count + 1)))
        }
        return out.sorted()
    }

    /// Apple-made keyed archives: not broken/, non-apple/ or embedded/ (a plist holding archives).
    static let appleArchives: [String] = dataFiles(under: "keyed").filter {
        !$0.contains("/broken/") && !$0.contains("/non-apple/") && !$0.contains("/embedded/")
    }

    static let brokenArchives: [String] = dataFiles(under: "keyed").filter { $0.contains("/broken/") }
}
