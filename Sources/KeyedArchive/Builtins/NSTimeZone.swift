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

extension KeyedUnarchiver {
    /// An `NSTimeZone` object.
    func decodeNSTimeZone(uid: Int) throws -> Any {
        let name = try requiredField("NS.name", as: String.self, of: "NSTimeZone", uid: uid)
        var data: Data?
        if let v = try rawField("NS.data"), let value = try plainValue(v, key: "NS.data") {
            guard let bytes = value as? Data else { throw error(.invalidValue, "NS.data of NSTimeZone is not data", uid: uid) }
            data = bytes
        }
        return ArchivedTimeZone(name: name, data: data)
    }
}

extension KeyedArchiver {
    /// An `NSTimeZone` object, with Apple's keys: the name, and the tzfile as an `NSMutableData` when known.
    func timeZoneObject(_ zone: ArchivedTimeZone) -> Int32 {
        withObjectFrame(classUID: { classObject(.timeZone) }) {
            addField(keyNode("NS.name"), state.pointee.builder.uid(Int(stringObject(zone.name))))
            if let data = zone.data {
                addField(keyNode("NS.data"),
                         state.pointee.builder.uid(Int(mutableObject(ArchivedMutableObject(className: "NSMutableData", value: data)))))
            }
        }
    }
}
