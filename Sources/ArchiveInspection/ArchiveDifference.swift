/// One difference between two keyed archives' object graphs, at a path from their roots, as
/// ``ArchiveDiff/differences(between:and:_:)`` finds it.
///
/// ```swift
/// try ArchiveDiff.differences(between: old, and: new) { difference in
///     if difference.kind == .changed { print(difference) }   // root.items[2].title: changed: "a" -> "b"
/// }
/// ```
///
/// No Apple API corresponds.
public struct ArchiveDifference: Hashable, Sendable, CustomStringConvertible {
    /// What differs. An open set: new kinds may be added without breaking callers.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// The kind's name (`"changed"`).
        package let rawValue: String
        /// The kind named `rawValue`.
        package init(rawValue: String) { self.rawValue = rawValue }
        /// The kind's name (`changed`), as ``ArchiveDifference/description`` writes it.
        public var description: String { rawValue }

        /// A value, or a value against an object, differs.
        public static let changed = Kind(rawValue: "changed")
        /// Both are objects whose class (or `$classes` chain) differs.
        public static let `class` = Kind(rawValue: "class")
        /// Only B has something at the path.
        public static let added = Kind(rawValue: "added")
        /// Only A has something at the path.
        public static let removed = Kind(rawValue: "removed")
        /// One archive reaches an object it already reached at another path, the other a separate object.
        public static let sharing = Kind(rawValue: "sharing")
        /// One archive reaches an object on the path to it (a cycle), the other does not.
        public static let cycle = Kind(rawValue: "cycle")
    }

    /// Where: a `$top` key, then fields (`.key`), elements (`[i]`), dictionary keys (`["k"]`) and set members
    /// (`{m}`); a run of more than three equal steps written once with its count (`root(.next)*599`).
    public var path: String
    /// What differs there.
    public var kind: Kind
    /// What A has there: a value as plist-JSON (cut at 120 characters), an object as
    /// `<Class>`, a container as `<array>`; for sharing and cycles, how A reaches it; `nil` for ``Kind/added``.
    public var a: String?
    /// What B has there, as ``a``; `nil` for ``Kind/removed``.
    public var b: String?

    /// A difference at `path` of `kind`, with what A and B have there.
    package init(path: String, kind: Kind, a: String?, b: String?) {
        self.path = path
        self.kind = kind
        self.a = a
        self.b = b
    }

    /// One line: `root.items[2].title: changed: "a" -> "b"`, `root.x: added: 3`,
    /// `root.y: sharing: A: the object at root.x; B: a separate object`.
    public var description: String {
        switch kind {
        case .added: "\(path): added: \(b ?? "")"
        case .removed: "\(path): removed: \(a ?? "")"
        case .changed, .class: "\(path): \(kind.rawValue): \(a ?? "") -> \(b ?? "")"
        default: "\(path): \(kind.rawValue): A: \(a ?? ""); B: \(b ?? "")"
        }
    }
}
