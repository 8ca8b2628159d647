import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// Decodes `Decodable` values from keyed archives (binary or XML), restoring concrete types through a
/// `ClassRegistry`.
///
/// ```swift
/// let decoder = ArchiveDecoder(registry: ClassRegistry([Circle.self, Rectangle.self, RoundedRectangle.self]))
/// let contents = try decoder.decode(Contents.self, from: bytes)
/// let shapes = try decoder.decode([any Shape].self, from: bytes)     // existentials too
/// ```
///
/// Reads what ``ArchiveEncoder`` writes and ordinary keyed archives of the same shape (NSCoding-style ones
/// included): a Codable type's keys are its archived object's keys. Rules:
/// - An object decoded as a type `T` must have `T`'s archived name in its `$classes` chain when `T` reads it
///   through a keyed container; if its class is registered as a subclass of `T`, that subclass is decoded.
/// - Existentials (`any Shape`, and through ``Polymorphic`` collections of them) decode as the type
///   registered for each object's class name; an unregistered name is an error naming the class, the coding
///   path and the registered classes.
/// - A missing key is `DecodingError.keyNotFound`; `$null` where a value is required is `valueNotFound`;
///   `decodeIfPresent` returns `nil` for both. Numbers convert exactly or fail.
/// - One archived class instance decodes to one instance, wherever it is referenced.
///
/// Every error is a `DecodingError` whose context has the full coding path and, in its debug description,
/// the archive's object index and `$classes` chain (`keyed archive: object 7 (Circle < NSObject): ...`);
/// a malformed archive is `dataCorrupted` with the ``KeyedArchiveError`` as underlying error.
///
/// Mirrors `PropertyListDecoder` (`decode(_:from:)`, `userInfo`) and `NSKeyedUnarchiver`.
public struct ArchiveDecoder: Sendable {
    /// The types that existentials and registered subclasses decode to.
    public var registry: ClassRegistry
    /// Values handed to `init(from:)` through `Decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    /// Deepest nesting of objects accepted. Default 512.
    public var maxDepth = 512
    /// Most objects decoded in one archive. Default 16,777,216.
    public var maxObjects = 1 << 24
    /// The `$archiver` names read. Default: only "NSKeyedArchiver", as `NSKeyedUnarchiver`; another name is
    /// `dataCorrupted` with a ``KeyedArchiveError/Code/foreignArchiver`` error as underlying error.
    public var acceptedArchivers: AcceptedArchivers = .nsKeyedArchiver

    /// A decoder whose existentials and superclasses decode to the types of `registry`. Mirrors `PropertyListDecoder()`.
    public init(registry: ClassRegistry = .standard) {
        self.registry = registry
    }

    /// Decodes the archive's root as `T`. Mirrors `PropertyListDecoder.decode(_:from:)`.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try unarchive(bytes) { decoder, root in try decoder.decodeValue(T.self, from: root) }
    }

    /// Decodes the archive's root as `Value`, which may be an existential (`any Shape`) or a collection or
    /// optional of existentials (`[any Shape]`, `[String: any Shape]`): each object becomes the type
    /// registered for its class name.
    public func decode<Value>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value {
        try unarchive(bytes) { decoder, root in try decoder.decodeAny(Value.self, from: root) }
    }

    /// Decodes the archive's root as `T` from `Data`.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try decode(T.self, from: [UInt8](data))
    }

    /// Decodes the archive's root as `Value` (existentials allowed) from `Data`.
    public func decode<Value>(_ type: Value.Type, from data: Data) throws -> Value {
        try decode(Value.self, from: [UInt8](data))
    }

    private func unarchive<R>(_ bytes: [UInt8], _ body: (CodableArchiveDecoder, ArchiveObjectReader.Value) throws -> R) throws -> R {
        do {
            return try KeyedUnarchiver.withUnarchiver(for: bytes, registry: registry,
                                                      acceptedArchivers: acceptedArchivers, maxDepth: maxDepth,
                                                      maxObjects: maxObjects) { unarchiver in
                let decoder = CodableArchiveDecoder(unarchiver: unarchiver, userInfo: userInfo)
                guard let root = try decoder.rootValue() else {
                    throw DecodingError.valueNotFound(R.self, DecodingError.Context(
                        codingPath: [], debugDescription: "keyed archive: $top has no \"root\" key"))
                }
                return try body(decoder, root)
            }
        } catch let error as KeyedArchiveError {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: [], debugDescription: error.description, underlyingError: error))
        }
    }
}
