import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The values of the typedstream's current object, as a Foundation class's typedstream decoding reads them:
/// groups by their type encoding (`"d"`, `"c"`, `"@"`), the values in them, counts checked against the bytes
/// left, and an error at an offset of the stream. The typedstream unarchiver conforms.
///
/// Mirrors the part of `NSUnarchiver` (`decodeValue(ofObjCType:at:)`, `decodeObject()`) that Foundation's own
/// classes decode with.
package protocol StreamFieldReader: AnyObject {
    /// Whether the next byte ends the current object.
    func atEndOfObject() throws -> Bool
    /// The offset of the next byte of the stream.
    var streamOffset: Int { get }
    /// Reads the header of the next group, which must hold the types of `encoding`.
    func expectGroup(encoding: String) throws
    /// The next group, one `+` value (bytes), and the offset of the value.
    func decodeUnsharedBytes() throws -> (bytes: ArraySlice<UInt8>, offset: Int)
    /// The next bytes written by `encodeDataObject(_:)`: an `i` length group and a `[Nc]` array group.
    /// Mirrors `NSCoder.decodeDataObject()`.
    func decodeDataObject() throws -> Data
    /// The next value of the current group, a `d`.
    func readDouble() throws -> Double
    /// The next group, one integer of type `encoding` (`"c"`, `"i"`), as an `Int`, and its offset.
    func decodeInteger(encoding: String) throws -> (value: Int, offset: Int)
    /// The next group, integers of the types of `encoding` (`"iI"`; a type of another width or sign that the
    /// stream holds there is read as it is), in order.
    func decodeIntegers(encoding: String) throws -> [PlistInteger]
    /// The next group, one count of type `encoding` of the elements of `what`: at least 0 and at most the
    /// bytes left.
    func decodeCount(encoding: String, of what: String) throws -> Int
    /// The next group, one object (`nil` for a nil object).
    func decodeObject() throws -> Any?
    /// ``decodeObject()``, an object of a mutable class as its plain value.
    func decodePlainObject() throws -> Any?
    /// An invalid-value error at `offset` of the stream (the current offset when `nil`), for `reason`.
    func invalidValue(_ reason: String, at offset: Int?) -> any Error
}

/// The values of a new object in a typedstream, as a Foundation class's typedstream encoding writes them:
/// the object with `NSArchiver`'s chain and versions, group headers by type encoding, the values in them and
/// objects. The typedstream archiver conforms.
///
/// Mirrors the part of `NSArchiver` (`encodeValue(ofObjCType:at:)`, `encode(_:)`) that Foundation's own
/// classes encode with.
package protocol StreamFieldWriter: AnyObject {
    /// A new object of `standard` whose values `body` writes, numbered for `identity` when given.
    func writeObject(of standard: StandardClass, identity: AnyObject?, _ body: () -> Void)
    /// The header of a group of values of the types of `encoding`.
    func writeGroup(encoding: String)
    /// A value of type `c` or `C` in the current group.
    func writeRawByte(_ value: UInt8)
    /// A value of type `d` in the current group.
    func writeRawDouble(_ value: Double)
    /// A signed integer of type `s`, `i`, `l` or `q` in the current group.
    func writeRawSigned(_ value: Int64)
    /// An unsigned integer of type `S`, `I`, `L` or `Q` in the current group.
    func writeRawUnsigned(_ value: UInt64)
    /// A value of type `+` in the current group: the bytes, unshared.
    func writeRawUnsharedBytes(_ bytes: [UInt8])
    /// Bytes as an `i` length group and a `[Nc]` array group. Mirrors `NSCoder.encodeDataObject(_:)`.
    func writeDataObject(_ bytes: [UInt8])
    /// A group of one object. Mirrors `NSCoder.encode(_:)`.
    func encodeObject(_ object: Any?)
    /// A group of one new, unshared string object of `standard` (`NSString` or `NSMutableString`).
    func encodeString(_ string: String, as standard: StandardClass)
}
