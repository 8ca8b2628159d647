import KeyedArchive

/// The semantic diff of two keyed archives: both graphs are walked together from their roots, children
/// matched by their step (a field's key, an array index, a dictionary key, a set member), never by UID, so
/// UID numbering, object order, string uniquing, binary against XML and Apple's archiver against this one make
/// no difference. `keyedarchive diff` prints it.
///
/// ```swift
/// var found: [ArchiveDifference] = []
/// try ArchiveDiff.differences(between: old, and: new) { found.append($0) }
/// for difference in found { print(difference) }   // root.items[2].title: changed: "a" -> "b"
/// ```
///
/// Instances of classes whose chain holds `NSArray` or `NSOrderedSet` compare by element, `NSDictionary` by
/// key, `NSSet` by member; other objects by field. Objects are paired the first time a path reaches them in
/// both archives and compared once; reaching a pair again is sharing (or a cycle) both have, and reaching an
/// object already paired with another is a ``ArchiveDifference/Kind/sharing`` or
/// ``ArchiveDifference/Kind/cycle`` difference, not followed further. Time and memory are linear in the two
/// archives, and no graph, however deep, makes the walk recurse.
///
/// No Apple API corresponds (Foundation compares decoded objects with `isEqual(_:)`, after decoding them).
public enum ArchiveDiff {
    /// Values in a difference are cut to this many characters.
    package static let valueLimit = 120

    /// Compares the keyed archives `a` and `b` (binary or XML, of any `$archiver`), handing each difference
    /// to `body` in a stable order: depth first, children in step order. Nothing is handed over when the
    /// graphs are equal. An `$archiver` that differs is a ``ArchiveDifference/Kind/changed`` difference at
    /// `$archiver`.
    /// - Throws: ``ArchiveDiffError`` when either is not a well-formed keyed archive, saying which; or what
    ///   `body` throws.
    public static func differences(between a: [UInt8], and b: [UInt8],
                                   _ body: (ArchiveDifference) throws -> Void) throws {
        try ArchiveDiffWalk.compare(a, b, report: body)
    }
}

/// A keyed archive that ``ArchiveDiff`` cannot compare: which of the two, and why.
///
/// ```swift
/// do { try ArchiveDiff.differences(between: a, and: b) { print($0) } }
/// catch let error as ArchiveDiffError { print(error) }   // B: keyed archive: $top is missing
/// ```
///
/// No Apple API corresponds.
public struct ArchiveDiffError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which archive of the two.
    ///
    /// Frozen: a comparison has two sides.
    public enum Side: Sendable, Hashable {
        /// The first archive (`a`).
        case a
        /// The second archive (`b`).
        case b
    }

    /// The archive that could not be read.
    public var side: Side
    /// Why: the error reading it gave, with its code (`underlying.code`), object and path.
    public var underlying: KeyedArchiveError

    /// The underlying error's code (`KeyedArchiveError/Code/invalidHeader`...).
    package var code: KeyedArchiveError.Code { underlying.code }

    /// An error for the archive at `side`, which `underlying` says is not readable.
    package init(side: Side, underlying: KeyedArchiveError) {
        self.side = side
        self.underlying = underlying
    }

    /// `B: keyed archive: $top is missing`.
    public var description: String { (side == .a ? "A: " : "B: ") + underlying.description }
}
