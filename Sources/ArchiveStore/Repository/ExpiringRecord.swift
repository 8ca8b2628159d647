#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A record that expires: an ``ArchiveRecord`` with an ``expiryDate``.
///
/// The repository keeps each record's expiry beside its location, so that
/// ``ArchiveRepository/expired(at:)`` and ``ArchiveRepository/removeExpired(at:progress:)``, which exist for
/// repositories of expiring records, find the expired records without decoding the others:
///
/// ```swift
/// struct Session: ExpiringRecord, Codable {
///     let id: String
///     var expiresAt: Date
///     var expiryDate: Date? { expiresAt }
/// }
/// let removed = try ArchiveRepository<Session>(path: path).removeExpired(at: Date())
/// ```
///
/// Plays the part of an expiry attribute that a Core Data fetch request filters on, kept where the store
/// finds it without faulting the objects in.
public protocol ExpiringRecord: ArchiveRecord {
    /// When the record expires, or `nil` when it does not: it has expired at every date from this one on.
    var expiryDate: Date? { get }
}
