#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive
import ArchiveStore

/// One cached form: a name, its fields, when it was registered and when it expires.
///
/// Archived as class `FormRecord` with keys `id`, `name`, `fields` (an NSDictionary of strings),
/// `registeredAt` and `expiresAt` (NSDate).
///
/// ```swift
/// let record = FormRecord(name: "signup", fields: ["email": "a@b.c"], registeredAt: now, timeToLive: .defaultValue)
/// ```
///
/// Plays the part of the `NSCoding` model class (`FormModel`) of the iOS cache manager it replaces.
public struct FormRecord: ExpiringRecord, Hashable, Sendable {
    /// The record's id: a UUID string unless given.
    public var id: String
    /// The form's name.
    public var name: String
    /// The form's fields, by name.
    public var fields: [String: String]
    /// When the record was added.
    public var registeredAt: Date
    /// When the record expires: from then on, reads no longer return it.
    public var expiresAt: Date

    /// A record with every property given.
    public init(id: String, name: String, fields: [String: String], registeredAt: Date, expiresAt: Date) {
        self.id = id
        self.name = name
        self.fields = fields
        self.registeredAt = registeredAt
        self.expiresAt = expiresAt
    }

    /// A record registered at `registeredAt` that expires `timeToLive` later; `id` defaults to a new UUID string.
    public init(
        id: String = UUID().uuidString, name: String, fields: [String: String] = [:], registeredAt: Date,
        timeToLive: TimeToLive
    ) {
        self.init(
            id: id, name: name, fields: fields, registeredAt: registeredAt,
            expiresAt: registeredAt.addingTimeInterval(Double(timeToLive.seconds)))
    }

    /// Whether the record has expired at `now`: `now` is at or past ``expiresAt``.
    public func isExpired(at now: Date) -> Bool { now >= expiresAt }

    /// ``expiresAt``, kept in the store's index (see `ExpiringRecord.expiryDate`).
    public var expiryDate: Date? { expiresAt }

    /// The properties the store keeps indexes of: `registeredAt`, `expiresAt` and `name` (for
    /// `formcache list --sort`, and `purge`, which find records without decoding the others).
    public static let indexes: [RecordIndex<FormRecord>] = [
        RecordIndex("registeredAt", \.registeredAt),
        RecordIndex("expiresAt", \.expiresAt),
        RecordIndex("name", \.name),
    ]

    /// The archived class name, `FormRecord`.
    public static var archivedClassName: String { "FormRecord" }

    /// Writes the record's keys: `id`, `name`, `fields`, `registeredAt`, `expiresAt`. Mirrors `NSCoding.encode(with:)`.
    public func encode(with coder: KeyedArchiver) {
        coder.encode(id, forKey: "id")
        coder.encode(name, forKey: "name")
        coder.encode(fields, forKey: "fields")
        coder.encode(registeredAt, forKey: "registeredAt")
        coder.encode(expiresAt, forKey: "expiresAt")
    }

    /// Reads a record written by ``encode(with:)``. Mirrors `NSCoding.init(coder:)`.
    public init(coder: KeyedUnarchiver) throws {
        id = try coder.decode(String.self, forKey: "id")
        name = try coder.decode(String.self, forKey: "name")
        fields = try coder.decode([String: String].self, forKey: "fields")
        registeredAt = try coder.decode(Date.self, forKey: "registeredAt")
        expiresAt = try coder.decode(Date.self, forKey: "expiresAt")
    }
}
