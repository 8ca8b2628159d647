#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// The keyed archive's dispatch over the Foundation classes of ``StandardClass``: every class's object decoded
/// by its file in `ArchiveModel/Foundation/Classes/` through ``StandardClass``'s dispatch; in writing, the
/// values on the keyed codec's hot paths (bare, uniqued strings, numbers and data; the Swift collections held
/// in an `Any`) here, the commonest first, every other class by its file.
extension KeyedUnarchiver {
    /// Decodes the current frame, an object of a built-in class, by the class's own decoding.
    func decodeStandard(_ standard: StandardClass, uid: Int) throws -> Any {
        try standard.decodeKeyed(from: self)
    }
}

extension KeyedArchiver {
    /// Encodes a value that is not ``KeyedArchivable`` as the built-in class it stands for, and returns its
    /// UID. The commonest types come first.
    func encodeStandard(_ value: Any) -> Int32 {
        switch value {
        case let s as String: return stringObject(s)
        case let i as Int: return integerObject(Int64(i))
        case let d as Double: return realObject(d)
        case let b as Bool: return boolObject(b)
        case let d as Data: return dataObject(d)
        case let date as Date: return dateObject(date)
        case let uuid as UUID: return uuidObject(uuid)
        case let url as URL: return urlObject(url)
        case is ArchivedNull: return nullObject()
        case let v as ArchivedValue: return NSValueClass.encode(keyed: v, to: self)
        case let i as Int64: return integerObject(i)
        case let i as Int32: return integerObject(Int64(i))
        case let i as Int16: return integerObject(Int64(i))
        case let i as Int8: return integerObject(Int64(i))
        case let u as UInt64:
            if u <= UInt64(Int64.max) { return integerObject(Int64(u)) }
            return bareObject(state.pointee.builder.unsignedInteger(u))
        case let u as UInt: return encodeStandard(UInt64(u))
        case let u as UInt32: return integerObject(Int64(u))
        case let u as UInt16: return integerObject(Int64(u))
        case let u as UInt8: return integerObject(Int64(u))
        case let f as Float: return realObject(Double(f))
        case let optional as ArchiveOptional: return archiveObject(optional.archiveWrapped)
        case let array as ArchiveEncodableArray: return encodableArrayObject(array)
        case let dictionary as ArchiveEncodableDictionary: return encodableDictionaryObject(dictionary)
        case let set as ArchiveEncodableSet: return encodableSetObject(set)
        case let pairs as OrderedArchiveDictionary: return orderedPairsObject(pairs)
        case let set as OrderedArchiveSet: return orderedMembersObject(set)
        case let bytes as [UInt8]: return bareObject(state.pointee.builder.data(bytes))
        case let mutable as ArchivedMutableObject: return mutableObject(mutable)
        default: break
        }
        // The rarer classes last, by their files in ArchiveModel: each failed cast costs every value that
        // reaches this point. Before `Encodable`, which `IndexPath` and `TimeZone` also are.
        if let uid = StandardClass.encodeKeyed(value, to: self) { return uid }
        if let encodable = value as? any Encodable { return encodeCodableValue(encodable) }
        record(KeyedArchiveError(.unsupportedType,
                                 "a value of type \(type(of: value)) is not KeyedArchivable nor a standard class",
                                 objectIndex: state.pointee.objectNodes.count))
        return 0
    }
}
