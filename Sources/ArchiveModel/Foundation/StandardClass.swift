import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// The Foundation classes that are built in: the one list of them for both NSCoding formats. Each class's file
/// in `Foundation/Classes/` (`NSIndexPath.swift`, ...) declares everything about it once: its names (Apple's
/// private subclasses included), its `$classes` chain, the versions `NSArchiver` writes, its Swift value, its
/// inspector kind and its keyed and typedstream reading and writing; this list names the classes and
/// dispatches to their files.
///
/// A new built-in class is its file, a case here, its family in ``families`` and a line in each dispatch
/// below that its file has a function for.
package enum StandardClass: Int, Sendable, CaseIterable {
    case string, mutableString, number, array, mutableArray, dictionary, mutableDictionary, set, mutableSet
    case orderedSet, mutableOrderedSet, date, data, mutableData, uuid, url, null, value
    case indexSet, mutableIndexSet, attributedString, mutableAttributedString, indexPath, timeZone

    /// The class families, each declared in its file.
    private static var families: [any FoundationClass.Type] {
        [NSStringClass.self, NSNumberClass.self, NSArrayClass.self, NSDictionaryClass.self, NSSetClass.self,
         NSOrderedSetClass.self, NSDateClass.self, NSDataClass.self, NSUUIDClass.self, NSURLClass.self,
         NSNullClass.self, NSValueClass.self, NSIndexSetClass.self, NSAttributedStringClass.self,
         NSIndexPathClass.self, NSTimeZoneClass.self]
    }

    /// Each case's description, by `rawValue` (a test checks that every case has exactly one).
    private static let table: [FoundationClassInfo] = families.flatMap { $0.classes }.sorted { $0.standard.rawValue < $1.standard.rawValue }

    /// What the class's file declares of it.
    package var info: FoundationClassInfo { Self.table[rawValue] }

    /// The public class name.
    package var className: String { info.className }

    /// The `$classes` chain Apple writes.
    package var classChain: [String] { info.classChain }

    /// Whether the class is a mutable one, which readers that keep classes give as an `ArchivedMutableObject`.
    package var isMutable: Bool { info.isMutable }

    /// How many classes there are (`allCases.count` builds an array each time).
    package static let count = allCases.count

    private static let byName: [String: StandardClass] = {
        var map: [String: StandardClass] = [:]
        for c in table { map[c.className] = c.standard }
        // Apple's private concrete subclasses that appear in archives.
        for c in table { for name in c.privateNames { map[name] = c.standard } }
        return map
    }()

    /// The Swift type the class decodes to (what secure coding knows no custom class can be).
    package var valueType: Any.Type { info.valueType }

    /// The value an entry of the class holds as `ArchiveGraph` readers show it; `nil` for a class whose
    /// fields are what it holds.
    package var kind: ArchivedClassKind? { info.kind }

    /// The class chain with the versions `NSArchiver` writes, the class first; `nil` for a class with no
    /// typedstream form here.
    package var typedStreamChain: [(name: String, version: Int)]? {
        guard let versions = info.typedStreamVersions else { return nil }
        return zip(info.classChain, versions).map { (name: $0, version: $1) }
    }

    /// The class of `className`, a public name or one of Apple's private subclasses (`__NSArrayM`).
    package init?(className: String) {
        guard let c = Self.byName[className] else { return nil }
        self = c
    }
}

// MARK: - Dispatch to the classes' files

extension StandardClass {
    /// Decodes the keyed reader's current object, of this class, by its file's keyed decoding.
    @inlinable
    package func decodeKeyed<R: KeyedFieldReader>(from r: R) throws -> Any {
        switch self {
        case .string, .mutableString: try NSStringClass.decode(keyed: r)
        case .array, .mutableArray: try NSArrayClass.decode(keyed: r)
        case .set, .mutableSet: try NSSetClass.decode(keyed: r)
        case .dictionary, .mutableDictionary: try NSDictionaryClass.decode(keyed: r)
        case .data, .mutableData: try NSDataClass.decode(keyed: r)
        case .date: try NSDateClass.decode(keyed: r)
        case .uuid: try NSUUIDClass.decode(keyed: r)
        case .url: try NSURLClass.decode(keyed: r)
        case .null: try NSNullClass.decode(keyed: r)
        case .orderedSet, .mutableOrderedSet: try NSOrderedSetClass.decode(keyed: r)
        case .indexSet, .mutableIndexSet: try NSIndexSetClass.decode(keyed: r)
        case .indexPath: try NSIndexPathClass.decode(keyed: r)
        case .timeZone: try NSTimeZoneClass.decode(keyed: r)
        case .attributedString, .mutableAttributedString: try NSAttributedStringClass.decode(keyed: r)
        case .number: try NSNumberClass.decode(keyed: r)
        case .value: try NSValueClass.decode(keyed: r)
        }
    }

    /// Writes `value` as the object of the class its Swift type stands for, by that class's file, and returns
    /// its UID; `nil` when no class's file takes the type.
    @inlinable
    package static func encodeKeyed<W: KeyedFieldWriter>(_ value: Any, to w: W) -> Int32? {
        switch value {
        case let string as String: w.stringObject(string)
        case let data as Data: w.dataObject(data)
        case let date as Date: NSDateClass.encode(keyed: date, to: w)
        case let uuid as UUID: NSUUIDClass.encode(keyed: uuid, to: w)
        case let url as URL: NSURLClass.encode(keyed: url, to: w)
        case let null as ArchivedNull: NSNullClass.encode(keyed: null, to: w)
        case let set as ArchivedOrderedSet: NSOrderedSetClass.encode(keyed: set, to: w)
        case let set as ArchivedIndexSet: NSIndexSetClass.encode(keyed: set, to: w)
        case let path as IndexPath: NSIndexPathClass.encode(keyed: path, to: w)
        case let zone as ArchivedTimeZone: NSTimeZoneClass.encode(keyed: zone, to: w)
        case let zone as TimeZone: NSTimeZoneClass.encode(keyed: ArchivedTimeZone(zone), to: w)
        case let string as ArchivedAttributedString: NSAttributedStringClass.encode(keyed: string, to: w)
        case let value as ArchivedValue: NSValueClass.encode(keyed: value, to: w)
        default: nil
        }
    }

    /// Writes the fields of an object of this class, a mutable one, holding `value`, by its file; `false` when
    /// its file has no such function for the value.
    @inlinable
    package func encodeKeyedFields<W: KeyedFieldWriter>(_ value: Any, to w: W) -> Bool {
        switch (self, value) {
        case (.mutableString, let string as String): NSStringClass.encodeFields(keyed: string, to: w)
        case (.mutableData, let data as Data): NSDataClass.encodeFields(keyed: data, to: w)
        case (.mutableOrderedSet, let set as ArchivedOrderedSet): NSOrderedSetClass.encodeFields(keyed: set, to: w)
        case (.mutableIndexSet, let set as ArchivedIndexSet): NSIndexSetClass.encodeFields(keyed: set, to: w)
        case (.mutableAttributedString, let string as ArchivedAttributedString):
            NSAttributedStringClass.encodeFields(keyed: string, mutable: true, to: w)
        default: return false
        }
        return true
    }

    /// Decodes the values of a typedstream object of this class (not through its end of object) by its file's
    /// typedstream decoding; `nil` for a class with no typedstream form, and for `NSValue`, which may keep the
    /// object whole and so reads through its end (``NSValueClass/decode(stream:)``).
    @inlinable
    package func decodeStream<R: StreamFieldReader>(from r: R) throws -> Any? {
        switch self {
        case .string, .mutableString: try NSStringClass.decode(stream: r)
        case .array, .mutableArray: try NSArrayClass.decode(stream: r)
        case .set, .mutableSet: try NSSetClass.decode(stream: r)
        case .dictionary, .mutableDictionary: try NSDictionaryClass.decode(stream: r)
        case .data, .mutableData: try NSDataClass.decode(stream: r)
        case .date: try NSDateClass.decode(stream: r)
        case .url: try NSURLClass.decode(stream: r)
        case .null: try NSNullClass.decode(stream: r)
        case .attributedString, .mutableAttributedString: try NSAttributedStringClass.decode(stream: r)
        case .number: try NSNumberClass.decode(stream: r)
        default: nil
        }
    }

    /// Writes `value` as the typedstream object of the class its Swift type stands for, by that class's file;
    /// `false` when no class's file writes the type to typedstreams.
    @inlinable
    package static func encodeStream<W: StreamFieldWriter>(_ value: Any, to w: W) -> Bool {
        switch value {
        case let string as String: NSStringClass.encode(stream: string, to: w)
        case let data as Data: NSDataClass.encode(stream: [UInt8](data), to: w)
        case let date as Date: NSDateClass.encode(stream: date, to: w)
        case let url as URL: NSURLClass.encode(stream: url, to: w)
        case let null as ArchivedNull: NSNullClass.encode(stream: null, to: w)
        case let value as ArchivedValue: NSValueClass.encode(stream: value, to: w)
        case let string as ArchivedAttributedString:
            NSAttributedStringClass.encode(stream: string, as: .attributedString, identity: nil, to: w)
        default: return false
        }
        return true
    }
}
