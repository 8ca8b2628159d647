import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The values of the typedstream's current object, as a Foundation class's typedstream decoding reads them:
/// groups by their type encoding (`"d"`, `"c"`, `"@"`) or their ``ObjCType``s, the values in them, counts
/// checked against the bytes left, the object kept whole, and an error at an offset of the stream. The
/// typedstream unarchiver conforms.
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
    /// Reads the header of the next group, which must hold `types` but for the width or signedness of
    /// integers and struct names; the types the stream holds there.
    func expectGroup(_ types: [ObjCType]) throws -> [ObjCType]
    /// The next group, one `*` C string holding a type encoding (an `NSValue`'s or `NSNumber`'s first), and its
    /// type: an error at the string when it is nil, not text or does not parse. Mirrors `-[NSValue objCType]`.
    func decodeTypeEncoding() throws -> (text: String, type: ObjCType)
    /// The next value of the current group, of the stream's type `type`, as the Swift value of `requested`
    /// (integers converted, range-checked): what `NSCoder.decodeValue(ofObjCType:at:size:)` gives.
    func readValue(_ type: ObjCType, as requested: ObjCType) throws -> Any?
    /// The next value of the current group, an integer of type `type` that must fit it.
    func readInteger(_ type: ObjCType) throws -> PlistInteger
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
    /// The rest of the current object through its end, kept whole as an `ArchivedObject` (as an object of a
    /// class nothing decodes) after the groups of `readTypes` already read into `readFields`.
    func decodeWholeObject(readTypes: [String], readFields: [(key: String, value: ArchivedObject.Field)]) throws -> Any
    /// Reads the end of the current object; anything else there is an error.
    func endObject() throws
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
    /// A value of type `f` in the current group.
    func writeRawFloat(_ value: Float)
    /// A signed integer of type `s`, `i`, `l` or `q` in the current group.
    func writeRawSigned(_ value: Int64)
    /// An unsigned integer of type `S`, `I`, `L` or `Q` in the current group.
    func writeRawUnsigned(_ value: UInt64)
    /// A value of type `+` in the current group: the bytes, unshared.
    func writeRawUnsharedBytes(_ bytes: [UInt8])
    /// A value of type `*` in the current group: a C string, numbered as every C string is.
    func writeRawCString(_ text: String)
    /// Bytes as an `i` length group and a `[Nc]` array group. Mirrors `NSCoder.encodeDataObject(_:)`.
    func writeDataObject(_ bytes: [UInt8])
    /// A group of one object. Mirrors `NSCoder.encode(_:)`.
    func encodeObject(_ object: Any?)
    /// A group of one new, unshared string object of `standard` (`NSString` or `NSMutableString`).
    func encodeString(_ string: String, as standard: StandardClass)
}

extension StreamFieldWriter {
    /// A new object of `standard` (`NSValue`, `NSNumber`) that holds one value of a type: the `*` group of the
    /// type's `encoding`, then the group of that type, whose value `value` writes.
    @inlinable
    package func writeTypedObject(of standard: StandardClass, encoding: String, _ value: () -> Void) {
        writeObject(of: standard, identity: nil) {
            writeGroup(encoding: "*")
            writeRawCString(encoding)
            writeGroup(encoding: encoding)
            value()
        }
    }
}
