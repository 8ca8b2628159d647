import ArchiveModel

/// A type that reads itself from a typedstream: `NSCoding`'s `init(coder:)` as `NSUnarchiver` calls it.
///
/// A typedstream has no keys, so the type reads its values in the order its archiver wrote them, with the
/// types it wrote them as, and may look at the version the stream records for its class:
///
/// ```swift
/// final class Bookmark: KeyedArchivable, TypedStreamDecodable {
///     var title = "", visits = 0
///     init(typedStreamCoder coder: TypedStreamUnarchiver) throws {
///         title = try coder.decodeObject(of: String.self) ?? ""
///         if (coder.version(forClassName: "Bookmark") ?? 0) >= 1 {
///             visits = Int(try coder.decodeValue(ofObjCType: "i") as? Int32 ?? 0)
///         }
///     }
///     // KeyedArchivable's init(coder:) and encode(with:) write the keyed archive it migrates to.
/// }
/// let registry = ClassRegistry([Bookmark.self])
/// let old = try TypedStreamUnarchiver.unarchiveObject(with: bytes, registry: registry) as? Bookmark
/// ```
///
/// Why a protocol of its own, registered through the `ClassRegistry` the keyed reader uses: the two
/// formats need two readers (a keyed `init(coder:)` asks for keys a typedstream does not have, and a
/// typedstream's positional groups cannot be found by key), but one set of class names, renames and
/// fallbacks. A class that migrates from `NSArchiver` data reads the old format with this initializer and
/// writes the new one with `KeyedArchivable`, registered once.
///
/// Mirrors `NSCoding.init?(coder:)` as `NSUnarchiver` calls it.
public protocol TypedStreamDecodable: ArchivableClass {
    /// Reads the values of the object the coder is positioned on, through
    /// ``TypedStreamUnarchiver/decodeObject()``, ``TypedStreamUnarchiver/decodeValue(ofObjCType:)`` and
    /// the others; values it leaves unread are an error.
    init(typedStreamCoder coder: TypedStreamUnarchiver) throws
}

/// A type that writes itself to a typedstream: `NSCoding`'s `encode(with:)` as `NSArchiver` calls it.
///
/// ```swift
/// extension Bookmark: TypedStreamEncodable {
///     static var typedStreamVersion: Int { 1 }
///     func encode(with coder: TypedStreamArchiver) {
///         coder.encodeObject(title)
///         coder.encodeValue(Int32(visits), ofObjCType: "i")
///     }
/// }
/// ```
///
/// Mirrors `NSCoding.encode(with:)` and `+[NSObject version]`.
public protocol TypedStreamEncodable: ArchivableClass {
    /// The class version written with the class name (``TypedStreamUnarchiver/version(forClassName:)``
    /// reads it back). Default 0. Mirrors `+[NSObject setVersion:]`.
    static var typedStreamVersion: Int { get }

    /// Writes the object's values in order.
    func encode(with coder: TypedStreamArchiver)
}

extension TypedStreamEncodable {
    /// Version 0.
    public static var typedStreamVersion: Int { 0 }
}

/// A type that reads and writes itself in typedstreams.
public typealias TypedStreamCodable = TypedStreamDecodable & TypedStreamEncodable
