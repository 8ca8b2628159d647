/// Path arithmetic on strings (no Foundation): the directory part, the last component, a join.
///
/// Mirrors `NSString.deletingLastPathComponent`, `lastPathComponent` and `appendingPathComponent(_:)`.
package enum PathName {
    /// The directory part of `path` (`"."` for a bare name, `"/"` for a top-level entry).
    package static func directory(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        if slash == trimmed.startIndex { return "/" }
        return String(trimmed[..<slash])
    }

    /// The last component of `path`.
    package static func lastComponent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return String(trimmed) }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// `directory` and `name` joined by one slash.
    package static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
