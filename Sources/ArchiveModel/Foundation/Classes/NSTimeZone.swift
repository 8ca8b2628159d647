#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `NSTimeZone`, as `ArchivedTimeZone` (`TimeZone` is written as one): in keyed archives the name in
/// `NS.name` and the zone's tzfile in `NS.data` (an `NSMutableData`) when known. No typedstream form here: no
/// Apple typedstream of one to follow.
///
/// Mirrors `NSTimeZone` (`__NSTimeZone`, `__NSLocalTimeZone`) and its `encode(with:)` / `init(coder:)`.
package enum NSTimeZoneClass: FoundationClass {
    package static let classes = [
        FoundationClassInfo(.timeZone, "NSTimeZone", privateNames: ["__NSTimeZone", "__NSLocalTimeZone"],
                            typedStreamVersions: nil, valueType: ArchivedTimeZone.self, kind: nil),
    ]

    /// An `NSTimeZone` object.
    @inlinable
    package static func decode<R: KeyedFieldReader>(keyed r: R) throws -> Any {
        let name = try r.requiredField("NS.name", as: String.self, of: "NSTimeZone")
        var data: Data?
        if let v = try r.rawField("NS.data"), let value = try r.plainValue(v, key: "NS.data") {
            guard let bytes = value as? Data else { throw r.invalidValue("NS.data of NSTimeZone is not data") }
            data = bytes
        }
        return ArchivedTimeZone(name: name, data: data)
    }

    /// An `NSTimeZone` object, with Apple's keys: the name, and the tzfile as an `NSMutableData` when known.
    @inlinable
    package static func encode<W: KeyedFieldWriter>(keyed zone: ArchivedTimeZone, to w: W) -> Int32 {
        w.writeObject(of: .timeZone) {
            w.setString(zone.name, forRawKey: "NS.name")
            if let data = zone.data {
                w.setMutableObject(className: "NSMutableData", value: data, forRawKey: "NS.data")
            }
        }
    }
}
