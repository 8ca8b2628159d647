import Foundation

/// The repository's `Fixtures/` folder, located from this source file, so that tests never read `../shared`.
public enum RepositoryFixtures {
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repository
        .appendingPathComponent("Fixtures")

    /// The path of a file given relative to `Fixtures/`.
    public static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    /// Bytes of a fixture given by its path below `Fixtures/`.
    public static func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(relative)))
    }

    /// Every data file below `folder` (relative to `Fixtures/`), as sorted paths relative to `Fixtures/`:
    /// everything but the renderings (`.expected.txt`, `.plist.json`), notes and licenses.
    public static func dataFiles(under folder: String) -> [String] {
        let base = root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey])
        else { return [] }
        var files: [String] = []
        for case let url as URL in walker {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            let name = url.lastPathComponent
            if name.hasSuffix(".expected.txt") || name.hasSuffix(".plist.json") || name.hasSuffix(".md")
                || name.hasPrefix("COPYING") || name.hasPrefix("LICENSE") { continue }
            files.append(folder + "/" + url.path.dropFirst(base.path.count + 1))
        }
        return files.sorted()
    }
}
