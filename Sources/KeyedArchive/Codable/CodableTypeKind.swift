#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How the Codable bridge writes and reads the values of one Swift type, decided once per type. The encoder
/// and the decoder classify through this one place, so a type is read back the way it was written.
enum CodableTypeKind {
    /// `String`, `Double`, `Int`, `Bool`: bare plist scalars, each on a path of its own.
    case string, double, int, bool
    /// `Float` and the other fixed-width integers: numbers.
    case float, integer
    /// `Date`, `Data`, `UUID`, `URL`: `NSDate`, `NSData`, `NSUUID` and `NSURL` objects.
    case standard
    /// A ``Polymorphic`` wrapper: its value, archived under its own class.
    case polymorphic
    /// A `Dictionary` as an `NSDictionary`.
    case dictionary
    /// A `Set` as an `NSSet`. Only when encoding: the decoder reads a set through its unkeyed container.
    case set
    /// Anything else: `encode(to:)` / `init(from:)` on an archived object of its own.
    case object

    /// Which side of the bridge asks: the two differ only in the protocols of the wrappers they look for.
    enum Direction { case encoding, decoding }

    /// The kind of `type` for ``CodableArchiveEncoder`` or ``CodableArchiveDecoder``.
    init(_ type: Any.Type, for direction: Direction) {
        let encoding = direction == .encoding
        switch type {
        case is String.Type: self = .string
        case is Double.Type: self = .double
        case is Int.Type: self = .int
        case is Bool.Type: self = .bool
        case is Float.Type: self = .float
        case is Int8.Type, is Int16.Type, is Int32.Type, is Int64.Type, is UInt.Type, is UInt8.Type,
             is UInt16.Type, is UInt32.Type, is UInt64.Type:
            self = .integer
        case is Date.Type, is Data.Type, is UUID.Type, is URL.Type: self = .standard
        case is any PolymorphicEncodable.Type where encoding, is any PolymorphicDecodable.Type where !encoding:
            self = .polymorphic
        case is any ArchiveEncodableCodableDictionary.Type where encoding,
             is any ArchiveDecodableCodableDictionary.Type where !encoding:
            self = .dictionary
        case is any ArchiveEncodableCodableSet.Type where encoding: self = .set
        default: self = .object
        }
    }
}
