import BinaryPlist
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The fields of the keyed archive's current object, as a Foundation class's keyed decoding reads them: the
/// raw value under a key (`NS.time`), that value decoded, the decoded elements of an array of references,
/// and an error that names the current object. The keyed unarchiver conforms; a class's file decodes through
/// this and nothing else of it.
///
/// Mirrors the part of `NSKeyedUnarchiver` (`decodeObject(forKey:)`, `containsValue(forKey:)`) that
/// Foundation's own classes decode with.
package protocol KeyedFieldReader: AnyObject {
    /// The raw value of field `key` of the current object, `nil` when it has none.
    func rawField(_ key: String) throws -> BinaryPlistObjects.Value?
    /// A field value as a natural Swift value (`nil` for `$null`), decoded under `key`.
    func anyValue(_ value: BinaryPlistObjects.Value, key: String) throws -> Any?
    /// ``anyValue(_:key:)``, an object of a mutable class as its plain value.
    func plainValue(_ value: BinaryPlistObjects.Value, key: String) throws -> Any?
    /// The decoded elements of the array of references under `key` (none when absent).
    func elements(_ key: String) throws -> [Any]
    /// `value` as a dictionary key or set member (`ArchivedNull` for `nil`), decoded under `key`.
    func hashable(_ value: Any?, key: String) throws -> AnyHashable
    /// How errors name a raw value ("the integer 3", "a string").
    func describe(_ value: BinaryPlistObjects.Value) -> String
    /// An invalid-value error at the current object, for `reason`.
    func invalidValue(_ reason: String) -> any Error
    /// The current object kept whole, as an `ArchivedObject` with every field decoded.
    func decodeWholeObject() throws -> Any
}

extension KeyedFieldReader {
    /// Field `key` as a `T` (`NS.string` of an `NSString`), or an invalid-value error when the object of
    /// class `className` lacks it or holds another type there.
    package func requiredField<T>(_ key: String, as type: T.Type, of className: String) throws -> T {
        guard let v = try rawField(key) else { throw invalidValue("\(className) without \(key)") }
        guard let value = try plainValue(v, key: key) as? T else {
            throw invalidValue("\(key) of \(className) is not a \(T.self)")
        }
        return value
    }
}

/// The fields of a new object in a keyed archive, as a Foundation class's keyed encoding writes them: an
/// object of a class with its fields, and fields of integers, reals, data and objects under raw keys. The
/// keyed archiver conforms. Each object is written as its UID in `$objects`.
///
/// Mirrors the part of `NSKeyedArchiver` (`encode(_:forKey:)`) that Foundation's own classes encode with.
package protocol KeyedFieldWriter: AnyObject {
    /// The string object of `string`: a bare plist string, one object per distinct string; its UID.
    func stringObject(_ string: String) -> Int32
    /// A new data object of `data`: bare plist data; its UID.
    func dataObject(_ data: Data) -> Int32
    /// A new object of `standard` whose fields `body` adds; its UID.
    func writeObject(of standard: StandardClass, _ body: () -> Void) -> Int32
    /// The archive's one object of `standard`, a class with no fields (`NSNull`); its UID.
    func writeSingleObject(of standard: StandardClass) -> Int32
    /// An integer field of the current object.
    func setInteger(_ value: Int64, forRawKey key: String)
    /// A real field of the current object.
    func setReal(_ value: Double, forRawKey key: String)
    /// A string field of the current object, the string inline (not an `NSString` object).
    func setInlineString(_ string: String, forRawKey key: String)
    /// A data field of the current object, the bytes inline (not an `NSData` object).
    func setData(_ bytes: [UInt8], forRawKey key: String)
    /// A field of the current object referring to `value` encoded as an object (`$null` for `nil`).
    func setObject(_ value: Any?, forRawKey key: String)
    /// A field of the current object referring to the string object of `string` (one per distinct string).
    func setString(_ string: String, forRawKey key: String)
    /// A field of the current object referring to the number object of `value` (one per distinct integer).
    func setIntegerObject(_ value: Int64, forRawKey key: String)
    /// A field of the current object referring to a new `NSData` object of `data`.
    func setDataObject(_ data: Data, forRawKey key: String)
    /// A field of the current object referring to an object of the mutable class `className` holding `value`.
    func setMutableObject(className: String, value: Any, forRawKey key: String)
    /// Whether a date the unarchiver would refuse (infinite or NaN) fails the archive.
    var refusesNonFiniteDates: Bool { get }
    /// Fails the archive with an invalid-value error for `reason`.
    func recordInvalidValue(_ reason: String)
}
