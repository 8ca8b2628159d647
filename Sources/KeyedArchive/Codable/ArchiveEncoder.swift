import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// Encodes `Encodable` values as keyed archives (the format of `NSKeyedArchiver`), keeping concrete types.
///
/// ```swift
/// let bytes = try ArchiveEncoder().encode(contents)              // binary plist
/// let xml = try ArchiveEncoder(outputFormat: .xml).encode(contents)
/// let shapes = try ArchiveEncoder().encode(shapes)               // [any Shape] too
/// ```
///
/// How values are written (the root under `$top`'s `root` key):
/// - A keyed container becomes an archived object: `$classname` is the type's
///   `ArchivableClass.archivedClassName` (or Swift type name), `$classes` its chain. `Double`, `Float`,
///   integers and `Bool` are stored inline (as `encodeDouble:forKey:` does), strings and everything else as
///   object references; user keys starting with `$` are escaped as Apple does.
/// - `superEncoder()` shares the object: a subclass and its superclass write their keys into one object, as
///   NSCoding's `super.encode(with:)` does, and the `$classes` chain records the inheritance.
/// - An unkeyed container becomes an `NSArray`; `[K: V]` an `NSDictionary` (keys in a sorted order);
///   `Set` an `NSSet`; nested containers an `NSDictionary` / `NSArray`.
/// - A single value container holding a scalar becomes a bare plist value (`NSString`, `NSNumber`).
/// - `Date`, `Data`, `UUID`, `URL` become `NSDate`, `NSData`, `NSUUID`, `NSURL`.
/// - `nil` (`encodeNil`, `nil` elements, `nil` in a single value) is `$null`; `encodeIfPresent` of `nil`
///   leaves the key out, as the synthesized conformances expect.
/// - A class instance met twice is archived once (by identity) and decodes to one instance; equal strings
///   and numbers are uniqued.
/// - Existentials and ``KeyedArchivable`` values inside Codable types: see ``Polymorphic``.
///
/// The same value always gives the same bytes.
///
/// Mirrors `PropertyListEncoder` (`outputFormat`, `userInfo`, `encode(_:)`) and `NSKeyedArchiver`.
public struct ArchiveEncoder: Sendable {
    /// The property-list format written. Mirrors `PropertyListEncoder.outputFormat`.
    public var outputFormat: PlistFormat
    /// Values handed to `encode(to:)` through `Encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    /// Deepest nesting of objects accepted. Default 512.
    public var maxDepth = 512
    private var classNames: [(type: ObjectIdentifier, name: String)] = []

    /// An encoder that writes archives in `outputFormat`. Mirrors `PropertyListEncoder()`.
    public init(outputFormat: PlistFormat = .binary) {
        self.outputFormat = outputFormat
    }

    /// Writes `$classname` `name` for values of `type` (its chain starts with `name`).
    /// Mirrors `NSKeyedArchiver.setClassName(_:for:)`.
    public mutating func setClassName(_ name: String, for type: any Encodable.Type) {
        classNames.append((ObjectIdentifier(type), name))
    }

    /// The keyed archive of `value`. Mirrors `PropertyListEncoder.encode(_:)`.
    public func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        try archive { try $0.encode(value) }
    }

    /// The keyed archive of a value whose static type is not `Encodable` but whose contents are: an
    /// existential (`any Shape`), a collection or optional of them, a ``KeyedArchivable`` value. Each object
    /// is archived by its dynamic type.
    public func encode<Value>(_ value: Value) throws -> [UInt8] {
        try archive { try $0.encodeAny(value) }
    }

    private func archive(_ body: (CodableArchiveEncoder) throws -> Int32) throws -> [UInt8] {
        let archiver = KeyedArchiver(outputFormat: outputFormat)
        archiver.maxDepth = maxDepth
        for (type, name) in classNames { archiver.classNames[type] = name }
        let encoder = CodableArchiveEncoder(archiver: archiver, userInfo: userInfo)
        // Key strings get their plist objects in the order KeyedArchiver creates them: the same model gives
        // the same bytes through either API.
        let rootKey = archiver.keyNode("root")
        let root = try body(encoder)
        encoder.finishDetached()
        archiver.addField(rootKey, archiver.reference(root))
        do {
            return try archiver.finishEncoding()
        } catch let error as KeyedArchiveError {
            throw EncodingError.invalidValue(value: root, EncodingError.Context(
                codingPath: [], debugDescription: error.description, underlyingError: error))
        }
    }
}

extension EncodingError {
    fileprivate static func invalidValue(value: Any, _ context: Context) -> EncodingError { .invalidValue(value, context) }
}
