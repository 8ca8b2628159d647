#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// `NSTimeZone` in keyed archives, as `ArchivedTimeZone`.
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
