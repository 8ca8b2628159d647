import BinaryPlist
import KeyedArchive
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Converts between the two NSCoding formats: typedstreams (`NSArchiver`) and keyed archives
/// (`NSKeyedArchiver`), through the values both readers give.
///
/// ```swift
/// let keyed = try TypedStreamConversion.keyedArchive(fromTypedStream: oldDocument)
/// let back = try TypedStreamConversion.typedStream(fromKeyedArchive: keyed)
/// ```
///
/// Typedstream to keyed archive keeps every value: Foundation objects become the same Foundation objects,
/// and an object of any other class becomes an object of the same class chain whose fields are its class
/// versions (`$versions`), type encodings (`$types`) and values (`$0`, `$1`, ..., which a
/// `KeyedArchivable` type reads with `KeyedUnarchiver/decodeNext(_:)`). Converting that keyed archive
/// back gives the same values. A stream of one group converts to an archive whose `root` is its value; a
/// stream of several (or none) to one whose `$top` holds them as `$0`, `$1`, ..., and back.
///
/// Keyed archive to typedstream works for what a typedstream can express: the Foundation classes above,
/// objects converted from a typedstream, and objects whose fields are all unkeyed. `NSUUID`, `NSOrderedSet`,
/// `NSIndexSet` and objects with keyed fields are ``TypedStreamError/Code/unsupportedType`` errors.
///
/// Mirrors what a program would do with `NSUnarchiver.unarchiveObject(with:)` and
/// `NSKeyedArchiver.archivedData(withRootObject:requiringSecureCoding:)`, and back.
public enum TypedStreamConversion {
    /// The keyed archive of the values of `bytes`, a typedstream. Unknown classes are kept as objects of
    /// their class chains.
    public static func keyedArchive(fromTypedStream bytes: [UInt8], format: PlistFormat = .binary,
                                    registry: ClassRegistry = ClassRegistry.standard.allowingUnknownClasses()) throws -> [UInt8] {
        try keyedArchiveAndClasses(fromTypedStream: bytes, format: format, registry: registry).keyed
    }

    /// The keyed archive of `bytes` and the classes of the objects the stream holds, first use first (what
    /// `NSUnarchiver` would instantiate; the keyed archive names `NSString` for `NSMutableString` and the like).
    package static func keyedArchiveAndClasses(fromTypedStream bytes: [UInt8], format: PlistFormat = .binary,
                                               registry: ClassRegistry = ClassRegistry.standard.allowingUnknownClasses())
        throws -> (keyed: [UInt8], classes: [String]) {
        let unarchiver = try TypedStreamUnarchiver(forReadingWith: bytes, registry: registry)
        let values = try unarchiver.decodeAllValues()
        do {
            if values.count == 1 {
                return (try KeyedArchiver.archivedData(withRootObject: values[0], format: format), unarchiver.instantiatedClassNames)
            }
            let archiver = KeyedArchiver(outputFormat: format)
            for (i, v) in values.enumerated() { archiver.encode(.object(v), forArchivedKey: "$\(i)") }
            return (try archiver.finishEncoding(), unarchiver.instantiatedClassNames)
        } catch let error as KeyedArchiveError {
            throw TypedStreamError(.keyedArchive, "the keyed archiver failed: \(error.reason)", underlying: error)
        }
    }

    /// The typedstream of `bytes`, a keyed archive: one group of its root object, or, for an archive whose
    /// `$top` holds the unkeyed values `$0`, `$1`, ... (what a stream of several groups converts to), one
    /// group of each.
    public static func typedStream(fromKeyedArchive bytes: [UInt8]) throws -> [UInt8] {
        let values: [Any?]
        do {
            let unkeyed = unkeyedTopCount(bytes)
            values = try KeyedUnarchiver.withUnarchiver(for: bytes, registry: ClassRegistry.standard.allowingUnknownClasses()) { u in
                guard let unkeyed else { return [try u.decodeTopLevelObject(forKey: "root")] }
                return try (0..<unkeyed).map { _ in try u.decodeNext(Any.self) }
            }
        } catch let error as KeyedArchiveError {
            throw TypedStreamError(.keyedArchive, "the keyed archive cannot be read: \(error.reason)", underlying: error)
        }
        let archiver = TypedStreamArchiver()
        for v in values { archiver.encodeObject(v) }
        return try archiver.finishEncoding()
    }

    /// How many unkeyed values `$top` holds when it holds nothing else (no `root`), else `nil` (also for bytes
    /// that are no plist: the unarchiver then says what is wrong with them).
    private static func unkeyedTopCount(_ bytes: [UInt8]) -> Int? {
        guard let plist = try? PropertyList.decode(bytes), let top = plist.dictionaryValue?["$top"]?.dictionaryValue else {
            return nil
        }
        let keys = top.keys.compactMap(\.stringValue)
        guard keys.count == top.count, !keys.contains("root"),
              keys.allSatisfy({ $0.count > 1 && $0.hasPrefix("$") && Int($0.dropFirst()) != nil }) else { return nil }
        return keys.count
    }
}
