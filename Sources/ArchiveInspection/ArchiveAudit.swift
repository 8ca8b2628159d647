import BinaryPlist
import KeyedArchive

/// What decoding a keyed archive would instantiate, found without decoding it: the classes and their
/// counts, the depth, the largest collections, strings and data, sharing and cycles, keyed archives nested in
/// data, and notes on classes that deserve a look. `keyedarchive audit` prints it.
///
/// ```swift
/// let audit = try ArchiveAudit.audit(bytes)
/// for use in audit.classes { print(use.count, use.name) }
/// if !audit.disallowed(by: ["NSArray", "NSString", "Note"]).isEmpty { throw Refused() }
/// ```
///
/// The graph is walked from `$top` once, depth first with an explicit stack, each object read once: time is
/// linear in the archive, memory within the archive's size, and no archive makes it recurse or trap.
///
/// No Apple API corresponds: it is what `NSKeyedUnarchiver` with `requiresSecureCoding` would be asked to
/// allow (`allowedClasses`), found before any of it runs.
public struct ArchiveAudit: Sendable {
    /// How many instances of one class are reached, and the class's `$classes` chain.
    public struct ClassUse: Sendable, Hashable {
        /// The `$classname`.
        public internal(set) var name: String
        /// The `$classes` chain, the class first (`["NSMutableArray", "NSArray", "NSObject"]`).
        public internal(set) var chain: [String]
        /// The instances reached from `$top`.
        public internal(set) var count: Int
    }

    /// Something with a size (elements, bytes, references) and the path where it was found.
    public struct Finding: Sendable, Hashable {
        /// The size: a collection's elements, a string's or data's bytes, an object's references; for a
        /// cycle, its number in the order found.
        public internal(set) var size: Int
        /// Where it is: `root.items[2]["name"]` (as `ArchiveDiff` writes paths).
        public internal(set) var path: String
        /// What it is: a class name or value kind (`NSArray`, `string`); for a cycle, the path it goes back to.
        public internal(set) var what: String
    }

    /// A remark on the archive: its kind, where (when it has a place) and a sentence.
    public struct Note: Sendable, Hashable {
        /// `predicate`, `selector`, `url`, `file-url`, `unused-class`, `class-chain`, `archiver` or `nesting`
        /// (an open set: more kinds may come).
        public internal(set) var kind: String
        /// Where the note applies, or `nil` for the archive as a whole.
        public internal(set) var path: String?
        /// The remark, one line.
        public internal(set) var text: String
    }

    /// A keyed archive found inside a data value, and its audit.
    public struct Nested: Sendable {
        /// Where the data is.
        public internal(set) var path: String
        /// The nested archive's audit, or why it could not be read.
        public internal(set) var audit: Result<ArchiveAudit, KeyedArchiveError>
    }

    /// `$archiver` (`NSKeyedArchiver`, or a subclass's name such as `SCNKeyedArchiver`).
    public internal(set) var archiver = ""
    /// The `$objects` entries, `$null` included.
    public internal(set) var objectCount = 0
    /// The entries reached from `$top` (instances, containers and scalar entries).
    public internal(set) var reached = 0
    /// Instances reached, per class, most used first.
    public internal(set) var classes: [ClassUse] = []
    /// Every `$classname` the archive names, used or not, nested archives included.
    public internal(set) var classNames: Set<String> = []
    /// The most objects and collections nested from `$top`, and the path of the deepest.
    public internal(set) var maxDepth = 0
    /// The path where ``maxDepth`` is reached.
    public internal(set) var deepestPath = "$top"
    /// The largest collections (arrays, sets, dictionaries), at most 5, largest first.
    public internal(set) var largestCollections: [Finding] = []
    /// The objects reached by more than one reference.
    public internal(set) var sharedObjects = 0
    /// The references to objects beyond their first.
    public internal(set) var sharedReferences = 0
    /// The most referenced objects, at most 5, with their reference counts.
    public internal(set) var mostShared: [Finding] = []
    /// The references back to an object on their own path.
    public internal(set) var cycles = 0
    /// The first cycles found, at most 5: where each reference is, and the path it goes back to.
    public internal(set) var cycleExamples: [Finding] = []
    /// The longest strings, at most 5, in UTF-8 bytes.
    public internal(set) var largestStrings: [Finding] = []
    /// The largest data values, at most 5.
    public internal(set) var largestData: [Finding] = []
    /// Keyed archives nested in data values, up to 8 levels deep (a deeper one is named in a `nesting` note).
    public internal(set) var nested: [Nested] = []
    /// Remarks, at most 20 of each kind (then one saying how many more).
    public internal(set) var notes: [Note] = []

    /// How many entries each "largest" list keeps.
    package static let listLength = 5
    /// How many notes of one kind are listed before "... and N more".
    package static let notesPerKind = 20
    /// Nested archives deeper than this are named (a `nesting` note), not audited.
    package static let maxNesting = 8

    /// Audits the binary or XML keyed archive `archive`, of any `$archiver` (``archiver`` says which, and an
    /// `archiver` note names one other than `NSKeyedArchiver`). Nothing is decoded.
    /// - Throws: `KeyedArchiveError` when it is not a well-formed keyed archive (the error names the object
    ///   and path), or `KeyedArchiveError/Code/elementLimitExceeded` for a plist that shares collections
    ///   between entries (no archiver writes one).
    public static func audit(_ archive: [UInt8]) throws -> ArchiveAudit {
        try ArchiveAuditor.audit(archive, nesting: 0)
    }

    /// Every class name here and in the nested archives that `allowed` does not hold, sorted.
    public func disallowed(by allowed: Set<String>) -> [String] {
        classNames.subtracting(allowed).sorted()
    }

    init() {}
}
