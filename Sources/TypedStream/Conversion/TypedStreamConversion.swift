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
/// of the same classes (`NSMutableArray` stays `NSMutableArray`, with the chain Apple writes, and a mutable
/// object referred to twice stays one object); an object of any other class becomes an object of the same
/// class chain whose fields are its class versions (`$versions`), type encodings (`$types`) and values (`$0`,
/// `$1`, ..., which a `KeyedArchivable` type reads with `KeyedUnarchiver/decodeObject(of:)`). Converting that
/// keyed archive back gives the same values. A stream of one `@` group (what `NSArchiver` writes) converts to
/// an archive whose `root` is its object; any other stream (several groups, as an `NSColorList` file holds,
/// a group of another type, or none) to one whose `$top` holds the groups as such an object holds its
/// fields: `$types` the type encoding of each group, `$0`, `$1`, ... the values (scalars inline, objects by
/// reference), and back to the same groups.
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
    /// `NSUnarchiver` would instantiate).
    package static func keyedArchiveAndClasses(fromTypedStream bytes: [UInt8], format: PlistFormat = .binary,
                                               registry: ClassRegistry = ClassRegistry.standard.allowingUnknownClasses())
        throws -> (keyed: [UInt8], classes: [String]) {
        let unarchiver = try TypedStreamUnarchiver(forReadingWith: bytes, registry: registry)
        unarchiver.keepsMutableClasses = true
        let groups = try unarchiver.decodeTopLevelGroups()
        // The values are conversion's own: once written, emptied, so no reference among them outlives it.
        defer { ArchivedValueTeardown.empty(fields: groups.values) }
        do {
            if groups.types == ["@"], groups.values.count == 1, case .object(let root) = groups.values[0].value {
                return (try KeyedArchiver.archivedData(withRootObject: root, format: format), unarchiver.instantiatedClassNames)
            }
            let archiver = KeyedArchiver(outputFormat: format)
            archiver.encode(.value(.array(groups.types.map { .string($0) })), forArchivedKey: TypedStreamUnarchiver.typesKey)
            for (key, value) in groups.values { archiver.encode(value, forArchivedKey: key) }
            return (try archiver.finishEncoding(), unarchiver.instantiatedClassNames)
        } catch let error as KeyedArchiveError {
            throw TypedStreamError(.keyedArchive, "the keyed archiver failed: \(error.reason)", underlying: error)
        }
    }

    /// The typedstream of `bytes`, a keyed archive: one `@` group of its root object, or, for an archive
    /// without `root` whose `$top` holds groups (`$types` and the values `$0`, `$1`, ..., what a stream of
    /// several groups converts to), those groups.
    public static func typedStream(fromKeyedArchive bytes: [UInt8]) throws -> [UInt8] {
        try typedStream(fromKeyedArchive: bytes, acceptedArchivers: .nsKeyedArchiver)
    }

    /// ``typedStream(fromKeyedArchive:)`` of an archive whose `$archiver` is one of `acceptedArchivers` (the
    /// inspector converts archives of `NSKeyedArchiver` subclasses too, with a note).
    package static func typedStream(fromKeyedArchive bytes: [UInt8], acceptedArchivers: AcceptedArchivers) throws -> [UInt8] {
        let top: [(key: String, value: ArchivedObject.Field)]
        do {
            top = try KeyedUnarchiver.withUnarchiver(for: bytes, registry: ClassRegistry.standard.allowingUnknownClasses(),
                                                     acceptedArchivers: acceptedArchivers) { u in
                u.keepsMutableClasses = true
                if try u.containsValue(forKey: "root") {
                    return [("$0", .object(try u.decodeTopLevelObject(forKey: "root"))), (TypedStreamUnarchiver.typesKey, .value(.array(["@"])))]
                }
                let fields = ArchivedObject(classChain: [])
                try u.decodeAllFields(into: fields)
                return fields.fields
            }
        } catch let error as KeyedArchiveError {
            throw TypedStreamError(.keyedArchive, "the keyed archive cannot be read: \(error.reason)", underlying: error)
        }
        defer { ArchivedValueTeardown.empty(fields: top) }
        let archiver = TypedStreamArchiver()
        archiver.encodeTopLevelGroups(top)
        return try archiver.finishEncoding()
    }
}
