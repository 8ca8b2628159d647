import KeyedArchive

/// A record an ``ArchiveRepository`` can keep: a ``KeyedArchivable`` value with an `id`.
///
/// The model is all a new record type needs; the format version and migration have defaults:
///
/// ```swift
/// struct Workout: ArchiveRecord {
///     var id: String
///     var count: Int
///     init(id: String, count: Int) { self.id = id; self.count = count }
///     func encode(with coder: KeyedArchiver) { coder.encode(id, forKey: "id"); coder.encode(count, forKey: "count") }
///     init(coder: KeyedUnarchiver) throws {
///         id = try coder.decode(String.self, forKey: "id")
///         count = try coder.decode(Int.self, forKey: "count")
///     }
/// }
/// ```
///
/// Format versions: the store file records ``archiveFormatVersion``. A file with a higher version is refused
/// (``StoreError/Code/unsupportedVersion``); a file with a lower one is read by
/// ``migrateRecords(fromVersion:coder:)`` and rewritten at the current version on the next change.
///
/// Plays the part of an `NSManagedObject` subclass with its model version, or an `NSSecureCoding` model class.
public protocol ArchiveRecord: KeyedArchivable, Identifiable {
    /// The store-format version this build writes. Default: 1.
    static var archiveFormatVersion: Int { get }

    /// Other archivable types that records contain (the record type itself is always registered).
    /// Default: none.
    static var nestedArchivableTypes: [any KeyedArchivable.Type] { get }

    /// Reads the records of a store file written at an older `version`, from the coder positioned on the
    /// file's root object (keys `version`, `records`, and whatever that version wrote). Default: throws.
    static func migrateRecords(fromVersion version: Int, coder: KeyedUnarchiver) throws -> [Self]
}

extension ArchiveRecord {
    public static var archiveFormatVersion: Int { 1 }

    public static var nestedArchivableTypes: [any KeyedArchivable.Type] { [] }

    public static func migrateRecords(fromVersion version: Int, coder: KeyedUnarchiver) throws -> [Self] {
        throw StoreError(
            .unsupportedVersion,
            "store format version \(version) is older than \(archiveFormatVersion) and \(Self.self) has no migration from it")
    }
}
