#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// What one entry file holds: an ordinary keyed archive whose root object, of class `ArchiveCacheEntry`,
/// has the keys `key` (NSString), `value` (the value's own object graph; raw bytes as NSData), `created` and,
/// for an entry that expires, `expires`: seconds since 2001-01-01 (NSDate's reference date) as a real, which
/// takes 60 bytes less a small entry than NSDate objects and their class (entries written before hold
/// NSDates; both are read).
///
/// `keyedarchive dump` shows it; Apple's `NSKeyedUnarchiver` reads it with a class registered for
/// `ArchiveCacheEntry` (`setClass(_:forClassName:)`) and the value's classes. Its CRC-32 sits in the binary
/// plist's trailer (see `CacheEntryChecksum`) and is checked before anything of it is decoded.
///
/// Decoding compares the stored key with the one asked for (by UTF-8 bytes) and checks expiry before the
/// value is decoded, so another key's file or an expired entry costs no value decoding.
struct CacheEntryFile<Value>: ArchiveCodable {
    static var archivedClassName: String { "ArchiveCacheEntry" }

    var key: String
    var value: Value
    var created: Date
    var expires: Date?

    enum CodingKeys: String, CodingKey { case key, value, created, expires }

    init(key: String, value: Value, created: Date, expires: Date?) {
        self.key = key
        self.value = value
        self.created = created
        self.expires = expires
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
        try container.encode(created.timeIntervalSinceReferenceDate, forKey: .created)
        try container.encodeIfPresent(expires?.timeIntervalSinceReferenceDate, forKey: .expires)
        if let bytes = value as? [UInt8] {
            try container.encode(Data(bytes), forKey: .value)
        } else {
            try container.encodePolymorphic(value, forKey: .value)
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try container.decode(String.self, forKey: .key)
        if let expected = CacheEntryCoding.expectedKey.flatMap({ decoder.userInfo[$0] }) as? String,
           !key.utf8.elementsEqual(expected.utf8) {
            throw CacheEntryRejection.otherKey
        }
        guard let created = try CacheEntryCoding.date(container, .created) else {
            throw DecodingError.keyNotFound(CodingKeys.created, DecodingError.Context(codingPath: [], debugDescription: "no creation time"))
        }
        self.created = created
        expires = try CacheEntryCoding.date(container, .expires)
        if let now = CacheEntryCoding.now.flatMap({ decoder.userInfo[$0] }) as? Date, let expires, expires <= now {
            throw CacheEntryRejection.expired
        }
        if Value.self == [UInt8].self {
            let data = try container.decode(Data.self, forKey: .value)
            guard let bytes = [UInt8](data) as? Value else { throw CacheEntryRejection.foreign }
            value = bytes
        } else {
            value = try container.decodePolymorphic(Value.self, forKey: .value)
        }
    }
}

/// The keys and times of an entry file without its value (what `keyedarchive cache list` shows).
package struct CacheEntryHeader: ArchiveCodable, Sendable {
    package static var archivedClassName: String { "ArchiveCacheEntry" }
    package var key: String
    package var created: Date
    package var expires: Date?

    enum CodingKeys: String, CodingKey { case key, created, expires }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try container.decode(String.self, forKey: .key)
        guard let created = try CacheEntryCoding.date(container, .created) else {
            throw DecodingError.keyNotFound(CodingKeys.created, DecodingError.Context(codingPath: [], debugDescription: "no creation time"))
        }
        self.created = created
        expires = try CacheEntryCoding.date(container, .expires)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
        try container.encode(created.timeIntervalSinceReferenceDate, forKey: .created)
        try container.encodeIfPresent(expires?.timeIntervalSinceReferenceDate, forKey: .expires)
    }
}

/// Why an entry file was not used.
enum CacheEntryRejection: Error {
    /// The file holds another key (a hash collision or a misplaced file).
    case otherKey
    /// The entry has expired.
    case expired
    /// Not an entry file of this value type.
    case foreign
    /// The file does not match its checksum (or carries none): damaged.
    case damaged
}

/// Encoding and decoding of entry files.
enum CacheEntryCoding {
    static let expectedKey = CodingUserInfoKey(rawValue: "ArchiveCache.expectedKey")
    static let now = CodingUserInfoKey(rawValue: "ArchiveCache.now")

    /// A time field: seconds since 2001 as a real, or (entries written before) an NSDate; `nil` when absent.
    static func date<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ key: Key) throws -> Date? {
        guard container.contains(key) else { return nil }
        if let seconds = try? container.decode(Double.self, forKey: key), seconds.isFinite {
            return Date(timeIntervalSinceReferenceDate: seconds)
        }
        return try container.decode(Date.self, forKey: key)
    }

    enum Outcome<Value> {
        case value(Value, expires: Date?)
        case rejected(CacheEntryRejection)
    }

    /// The entry file's bytes, its checksum sealed in.
    static func encode<Value>(_ entry: CacheEntryFile<Value>) throws(StoreError) -> [UInt8] {
        do {
            var bytes = try ArchiveEncoder().encode(entry)
            CacheEntryChecksum.seal(&bytes)
            return bytes
        } catch {
            throw StoreError(.invalidArgument, "cannot archive the value: \(error)", recordID: entry.key)
        }
    }

    /// Decodes an entry file for `key` as of `now`. Anything that is not an entry of this key, live, whose
    /// value decodes as `Value`, is a rejection (never an error: a cache entry that cannot be used is a miss).
    ///
    /// `bytes` have been checked once already, by the one CRC that covers them: their frame's, or for a large
    /// file its trailer checksum (``CacheDirectory/readEntry(_:key:hash:limit:)``). They are not checked again.
    static func decode<Value>(_ bytes: [UInt8], as type: Value.Type, key: String, now: Date,
                              registry: ClassRegistry) -> Outcome<Value> {
        // Without the keys the stored key could not be compared: fail closed.
        guard let expectedKey, let nowKey = CacheEntryCoding.now else { return .rejected(.foreign) }
        var decoder = ArchiveDecoder(registry: registry)
        decoder.userInfo = [expectedKey: key, nowKey: now]
        do {
            let entry = try decoder.decode(CacheEntryFile<Value>.self, from: bytes)
            return .value(entry.value, expires: entry.expires)
        } catch let rejection as CacheEntryRejection {
            return .rejected(rejection)
        } catch {
            if let rejection = underlyingRejection(error) { return .rejected(rejection) }
            return .rejected(.foreign)
        }
    }

    /// Runs the decoding path once on a small entry, so that the one-time costs of a first decode (type
    /// metadata, lazily built tables, cold code) are paid by opening rather than by the first read.
    static func prepare<Value>(_ type: Value.Type, registry: ClassRegistry) {
        let time = Date(timeIntervalSince1970: 0)
        let value = [UInt8](repeating: 0, count: 64)
        guard let bytes = try? encode(CacheEntryFile<[UInt8]>(key: "", value: value, created: time, expires: time + 1)) else { return }
        _ = decode(bytes, as: [UInt8].self, key: "", now: time, registry: registry)
        _ = decode(bytes, as: Value.self, key: "", now: time, registry: registry)
        _ = header(bytes)
    }

    /// The key and times of an entry file, or `nil` when it is not one or fails its checksum.
    static func header(_ bytes: [UInt8]) -> CacheEntryHeader? {
        guard CacheEntryChecksum.verify(bytes) else { return nil }
        return header(checked: bytes)
    }

    /// The key and times of an entry file whose bytes a CRC has covered already (a frame's, or a large file's
    /// trailer), or `nil` when it is not one.
    static func header(checked bytes: [UInt8]) -> CacheEntryHeader? {
        try? ArchiveDecoder().decode(CacheEntryHeader.self, from: bytes)
    }

    private static func underlyingRejection(_ error: any Error) -> CacheEntryRejection? {
        switch error {
        case let rejection as CacheEntryRejection: return rejection
        case DecodingError.dataCorrupted(let context): return context.underlyingError.flatMap(underlyingRejection)
        default: return nil
        }
    }
}
