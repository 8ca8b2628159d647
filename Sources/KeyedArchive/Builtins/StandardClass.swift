import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// The Foundation classes that are built in, the one list of them for both NSCoding formats: how each is
/// named (Apple's private subclasses included) and chained in `$classes`, the versions `NSArchiver` writes
/// for it in a typedstream, and which function of its file (`Builtins/NSString.swift`, ...) decodes and
/// encodes it. The typedstream reader and writer look classes up here too.
///
/// A new built-in class is a case here, its name and chain below, one line in each dispatch at the end of
/// this file, and its own file in `Builtins/` with its decoding and encoding.
package enum StandardClass: Int, Sendable, CaseIterable {
    case string, mutableString, number, array, mutableArray, dictionary, mutableDictionary, set, mutableSet
    case orderedSet, mutableOrderedSet, date, data, mutableData, uuid, url, null, value
    case indexSet, mutableIndexSet, attributedString, mutableAttributedString, indexPath, timeZone

    /// The public class name.
    package var className: String {
        switch self {
        case .string: "NSString"
        case .mutableString: "NSMutableString"
        case .number: "NSNumber"
        case .array: "NSArray"
        case .mutableArray: "NSMutableArray"
        case .dictionary: "NSDictionary"
        case .mutableDictionary: "NSMutableDictionary"
        case .set: "NSSet"
        case .mutableSet: "NSMutableSet"
        case .orderedSet: "NSOrderedSet"
        case .mutableOrderedSet: "NSMutableOrderedSet"
        case .date: "NSDate"
        case .data: "NSData"
        case .mutableData: "NSMutableData"
        case .uuid: "NSUUID"
        case .url: "NSURL"
        case .null: "NSNull"
        case .value: "NSValue"
        case .indexSet: "NSIndexSet"
        case .mutableIndexSet: "NSMutableIndexSet"
        case .attributedString: "NSAttributedString"
        case .mutableAttributedString: "NSMutableAttributedString"
        case .indexPath: "NSIndexPath"
        case .timeZone: "NSTimeZone"
        }
    }

    /// The `$classes` chain Apple writes.
    package var classChain: [String] {
        switch self {
        case .mutableString: ["NSMutableString", "NSString", "NSObject"]
        case .number: ["NSNumber", "NSValue", "NSObject"]
        case .mutableArray: ["NSMutableArray", "NSArray", "NSObject"]
        case .mutableDictionary: ["NSMutableDictionary", "NSDictionary", "NSObject"]
        case .mutableSet: ["NSMutableSet", "NSSet", "NSObject"]
        case .mutableOrderedSet: ["NSMutableOrderedSet", "NSOrderedSet", "NSObject"]
        case .mutableData: ["NSMutableData", "NSData", "NSObject"]
        case .mutableIndexSet: ["NSMutableIndexSet", "NSIndexSet", "NSObject"]
        case .mutableAttributedString: ["NSMutableAttributedString", "NSAttributedString", "NSObject"]
        default: [className, "NSObject"]
        }
    }

    /// Whether the class is a mutable one, which readers that keep classes give as an `ArchivedMutableObject`.
    package var isMutable: Bool {
        switch self {
        case .mutableString, .mutableArray, .mutableDictionary, .mutableSet, .mutableOrderedSet, .mutableData,
             .mutableIndexSet, .mutableAttributedString: true
        default: false
        }
    }

    /// How many classes there are (`allCases.count` builds an array each time).
    static let count = allCases.count

    private static let byName: [String: StandardClass] = {
        var map: [String: StandardClass] = [:]
        for c in allCases { map[c.className] = c }
        // Apple's private concrete subclasses that appear in archives.
        map["__NSCFString"] = .string
        map["__NSCFConstantString"] = .string
        map["__NSCFNumber"] = .number
        map["__NSCFBoolean"] = .number
        map["__NSArrayI"] = .array
        map["__NSArrayM"] = .mutableArray
        map["__NSDictionaryI"] = .dictionary
        map["__NSDictionaryM"] = .mutableDictionary
        map["__NSDate"] = .date
        map["__NSCFData"] = .data
        map["__NSConcreteUUID"] = .uuid
        map["NSConcreteAttributedString"] = .attributedString
        map["NSConcreteMutableAttributedString"] = .mutableAttributedString
        map["__NSTimeZone"] = .timeZone
        map["__NSLocalTimeZone"] = .timeZone
        return map
    }()

    /// The Swift type the class decodes to (what secure coding knows no custom class can be).
    var valueType: Any.Type {
        switch self {
        case .string, .mutableString: String.self
        case .number: Int.self
        case .array, .mutableArray: [Any].self
        case .dictionary, .mutableDictionary: [AnyHashable: Any].self
        case .set, .mutableSet: Set<AnyHashable>.self
        case .orderedSet, .mutableOrderedSet: ArchivedOrderedSet.self
        case .date: Date.self
        case .data, .mutableData: Data.self
        case .uuid: UUID.self
        case .url: URL.self
        case .null: ArchivedNull.self
        case .value: ArchivedValue.self
        case .indexSet, .mutableIndexSet: ArchivedIndexSet.self
        case .attributedString, .mutableAttributedString: ArchivedAttributedString.self
        case .indexPath: IndexPath.self
        case .timeZone: ArchivedTimeZone.self
        }
    }

    /// The value an entry of the class holds as ``ArchiveGraph`` readers show it; `nil` for a class whose
    /// fields are what it holds.
    var kind: ArchivedClassKind? {
        switch self {
        case .string, .mutableString: .string
        case .data, .mutableData: .data
        case .array, .mutableArray: .array
        case .set, .mutableSet: .set
        case .orderedSet, .mutableOrderedSet: .orderedSet
        case .dictionary, .mutableDictionary: .dictionary
        case .date: .date
        case .uuid: .uuid
        case .url: .url
        case .null: .null
        case .number, .value, .indexSet, .mutableIndexSet, .attributedString, .mutableAttributedString, .indexPath, .timeZone: nil
        }
    }

    /// The class chain with the versions `NSArchiver` writes, the class first; `nil` for a class with no
    /// typedstream form here (`NSOrderedSet`, `NSUUID`, `NSIndexSet`, `NSIndexPath`, `NSTimeZone`: no Apple
    /// typedstream of them to follow).
    package var typedStreamChain: [(name: String, version: Int)]? {
        switch self {
        case .orderedSet, .mutableOrderedSet, .uuid, .indexSet, .mutableIndexSet, .indexPath, .timeZone: return nil
        case .string, .mutableString:
            // NSString is at version 1; the others NSArchiver writes at 0.
            return classChain.map { (name: $0, version: $0 == "NSObject" ? 0 : 1) }
        default:
            return classChain.map { (name: $0, version: 0) }
        }
    }

    /// The class of `className`, a public name or one of Apple's private subclasses (`__NSArrayM`).
    package init?(className: String) {
        guard let c = Self.byName[className] else { return nil }
        self = c
    }
}

extension KeyedUnarchiver {
    /// Decodes the current frame, an object of a built-in class, by the class's own decoding.
    func decodeStandard(_ standard: StandardClass, uid: Int) throws -> Any {
        switch standard {
        case .string, .mutableString: try decodeNSString(uid: uid)
        case .data, .mutableData: try decodeNSData(uid: uid)
        case .number: try decodeNSNumber(uid: uid)
        case .array, .mutableArray: try decodeNSArray(uid: uid)
        case .set, .mutableSet: try decodeNSSet(uid: uid)
        case .orderedSet, .mutableOrderedSet: try decodeNSOrderedSet(uid: uid)
        case .dictionary, .mutableDictionary: try decodeNSDictionary(uid: uid)
        case .date: try decodeNSDate(uid: uid)
        case .uuid: try decodeNSUUID(uid: uid)
        case .url: try decodeNSURL(uid: uid)
        case .null: try decodeNSNull(uid: uid)
        case .value: try decodeNSValue(uid: uid)
        case .indexSet, .mutableIndexSet: try decodeNSIndexSet(uid: uid)
        case .attributedString, .mutableAttributedString: try decodeNSAttributedString(uid: uid)
        case .indexPath: try decodeNSIndexPath(uid: uid)
        case .timeZone: try decodeNSTimeZone(uid: uid)
        }
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
        case let v as ArchivedValue: return valueObject(v)
        case let set as ArchivedOrderedSet: return orderedSetObject(set)
        case let set as ArchivedIndexSet: return indexSetObject(set)
        case let string as ArchivedAttributedString: return attributedStringObject(string)
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
        // The rarer classes last: each failed cast costs every value that reaches this switch. Before
        // `Encodable`, which `IndexPath` and `TimeZone` also are.
        case let mutable as ArchivedMutableObject: return mutableObject(mutable)
        case let path as IndexPath: return indexPathObject(path)
        case let zone as ArchivedTimeZone: return timeZoneObject(zone)
        case let zone as TimeZone: return timeZoneObject(ArchivedTimeZone(zone))
        case let encodable as any Encodable: return encodeCodableValue(encodable)
        default:
            record(KeyedArchiveError(.unsupportedType,
                                     "a value of type \(type(of: value)) is not KeyedArchivable nor a standard class",
                                     objectIndex: state.pointee.objectNodes.count))
            return 0
        }
    }
}
