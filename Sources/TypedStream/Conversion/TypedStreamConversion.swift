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
/// ``KeyedArchivable`` type reads with ``KeyedUnarchiver/decodeNext(_:)``). Converting that keyed archive
/// back gives the same values. A stream of several top-level groups converts to a keyed archive whose root
/// is an array of the values.
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
        let root: Any? = values.count == 1 ? values[0] : values
        do {
            return (try KeyedArchiver.archivedData(withRootObject: root, format: format), unarchiver.instantiatedClassNames)
        } catch let error as KeyedArchiveError {
            throw TypedStreamError(.keyedArchive, "the keyed archiver failed: \(error.reason)", underlying: error)
        }
    }

    /// The typedstream of the root object of `bytes`, a keyed archive.
    public static func typedStream(fromKeyedArchive bytes: [UInt8]) throws -> [UInt8] {
        let root: Any?
        do {
            root = try KeyedUnarchiver.withUnarchiver(for: bytes, registry: ClassRegistry.standard.allowingUnknownClasses()) {
                try $0.decodeTopLevelObject(forKey: "root")
            }
        } catch let error as KeyedArchiveError {
            throw TypedStreamError(.keyedArchive, "the keyed archive cannot be read: \(error.reason)", underlying: error)
        }
        return try TypedStreamArchiver.archivedData(withRootObject: root)
    }
}
