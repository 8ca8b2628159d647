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
    package static let count = allCases.count

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
    package var valueType: Any.Type {
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

    /// The value an entry of the class holds as `ArchiveGraph` readers show it; `nil` for a class whose
    /// fields are what it holds.
    package var kind: ArchivedClassKind? {
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
