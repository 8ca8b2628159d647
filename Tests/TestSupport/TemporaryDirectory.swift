import Foundation

/// A fresh directory under the system temporary directory (`<prefix>-<UUID>`), removed by ``remove()`` or,
/// at the latest, when the value is released. The one scratch-directory helper of every test target.
///
/// ```swift
/// let directory = try TemporaryDirectory(prefix: "inspector")
/// defer { directory.remove() }          // or let the value go out of scope
/// try directory.write([1, 2, 3], to: "input.plist")
/// ```
public final class TemporaryDirectory: Sendable {
    /// The directory's path.
    public let path: String

    /// Creates the directory (`prefix` names what it is for, to tell leftovers apart).
    public init(prefix: String = "keyedarchive-tests") throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = url.path
    }

    /// The directory's file URL.
    public var url: URL { URL(fileURLWithPath: path, isDirectory: true) }

    /// The path of `name` (which may hold slashes) inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    /// The file URL of `name` inside the directory.
    public func fileURL(_ name: String) -> URL { URL(fileURLWithPath: file(name)) }

    /// Writes `bytes` to `name` inside the directory.
    public func write(_ bytes: [UInt8], to name: String) throws {
        try Data(bytes).write(to: fileURL(name))
    }

    /// The bytes of `name` inside the directory.
    public func read(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: fileURL(name)))
    }

    /// The names directly inside the directory, sorted.
    public func entries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    /// The permission bits of `name` inside the directory.
    public func mode(_ name: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: file(name))
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    /// Removes the directory and everything in it (again: nothing).
    public func remove() { try? FileManager.default.removeItem(atPath: path) }

    deinit { remove() }
}

/// What `path` takes on disk as `du -s` counts it: the allocated blocks of every file and directory below
/// it, the directory itself included, links not followed.
public func diskUsage(of path: String) -> Int {
    var total = 0
    func add(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        total += Int(info.st_blocks) * 512
    }
    add(path)
    guard let walker = FileManager.default.enumerator(atPath: path) else { return total }
    while let name = walker.nextObject() as? String { add(path + "/" + name) }
    return total
}
