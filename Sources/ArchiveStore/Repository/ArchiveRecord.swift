#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// A record an ``ArchiveRepository`` can keep: a `KeyedArchivable` value with an `id`.
///
/// The model is all a new record type needs; the format version and migration have defaults. A `Codable`
/// record needs nothing more: its `encode(with:)` and `init(coder:)` come from its Codable conformance (the
/// archived object has the keys of its `CodingKeys`, as `ArchiveEncoder` writes them):
///
/// ```swift
/// struct Workout: ArchiveRecord, Codable {
///     var id: String
///     var count: Int
/// }
/// let workouts = ArchiveRepository<Workout>(path: path)
/// try workouts.add(Workout(id: "a", count: 20))
/// ```
///
/// A record may instead write its keys itself, as an `NSCoding` class does:
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
/// A record that expires declares ``ExpiringRecord``, which adds its ``ExpiringRecord/expiryDate``.
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

    /// Reads one record that a record-log store holds at an older `version`, from `coder` positioned on it.
    /// Single-archive stores (before the record log) migrate through ``migrateRecords(fromVersion:coder:)``.
    /// Default: throws ``StoreError/Code/unsupportedVersion``.
    static func migrateRecord(fromVersion version: Int, coder: KeyedUnarchiver) throws -> Self

    /// The properties the repository keeps indexes of, for queries that sort, filter and aggregate without
    /// decoding records (see ``RecordIndex`` and ``RecordQuery``). Default: none.
    static var indexes: [RecordIndex<Self>] { get }
}

extension ArchiveRecord {
    /// The default record format version: 1.
    public static var archiveFormatVersion: Int { 1 }

    /// By default a record holds no archivable types besides its own.
    public static var nestedArchivableTypes: [any KeyedArchivable.Type] { [] }

    /// By default no property is indexed.
    public static var indexes: [RecordIndex<Self>] { [] }

    /// By default there is no migration: an older record fails with ``StoreError/Code/unsupportedVersion``.
    public static func migrateRecord(fromVersion version: Int, coder: KeyedUnarchiver) throws -> Self {
        throw StoreError(
            .unsupportedVersion,
            "record format version \(version) is older than \(archiveFormatVersion) and \(Self.self) has no migration from it")
    }

    /// By default there is no migration: an older store fails with ``StoreError/Code/unsupportedVersion``.
    public static func migrateRecords(fromVersion version: Int, coder: KeyedUnarchiver) throws -> [Self] {
        throw StoreError(
            .unsupportedVersion,
            "store format version \(version) is older than \(archiveFormatVersion) and \(Self.self) has no migration from it")
    }
}
