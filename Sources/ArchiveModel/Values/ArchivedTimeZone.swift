#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// The decoded form of `NSTimeZone`: the zone's name (`NS.name`) and, as Apple writes it, the zone's
/// compiled tzfile (`NS.data`, an `NSMutableData`), kept so that a zone this system does not know survives
/// a round trip.
///
/// Mirrors `NSTimeZone(name:data:)` (Swift's `TimeZone`).
public struct ArchivedTimeZone: Hashable, Sendable {
    /// The zone's name, such as `"Europe/Paris"` or `"GMT"`. Mirrors `NSTimeZone.name`.
    public var name: String
    /// The zone's tzfile as archived, if it was. Mirrors `NSTimeZone.data`.
    public var data: Data?

    /// A zone of `name`, with `data` its tzfile if known. Mirrors `NSTimeZone(name:data:)`.
    public init(name: String, data: Data? = nil) {
        self.name = name
        self.data = data
    }

    /// The zone of `timeZone`, by its identifier (no tzfile). Mirrors `TimeZone` bridged to `NSTimeZone`.
    public init(_ timeZone: TimeZone) {
        self.init(name: timeZone.identifier)
    }

    /// The zone of this name on this system, or `nil` when the system does not know the name.
    /// Mirrors `TimeZone(identifier:)`.
    public var timeZone: TimeZone? { TimeZone(identifier: name) }
}
