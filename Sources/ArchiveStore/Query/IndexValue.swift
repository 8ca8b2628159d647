/// A property value as a property index keeps it: one comparable form for every type an index takes, ordered
/// as the values are (`nil` first, then numbers by value, strings by their UTF-8 bytes as SQLite's `BINARY`
/// collation orders them, UUIDs by their bytes).
///
/// Numbers are kept in 64 bits whose unsigned order is the value's order (an `Int` with its sign bit flipped, a
/// `Double` with its sign bit flipped or, when negative, all its bits), so a key turns back into its value:
/// ``IndexableValue/init(indexValue:)`` reads `min`/`max`/`sum` from an index without decoding a record.
///
/// Made only by the ``IndexableValue`` types (`Int`, `Double`, `Date`, `String`, `Bool`, `UUID` and their
/// optionals); a type of an app's own is indexed through one of them, by a computed property the index's key
/// path names (``RecordIndex/init(_:_:)``), for example an enum by its raw value.
///
/// Opaque to users: the repository compares and keeps it; a type of an app's own that conforms to
/// ``IndexableValue`` hands on the one of the type it is kept as (`rawValue.indexValue`).
///
/// No Apple API: the key of a Core Data attribute's index (`NSFetchIndexDescription`).
public struct IndexValue: Sendable {
    /// `0` for `nil`, `1` for any value (so that `nil` sorts first).
    var present: UInt8
    /// The number, or the first eight bytes of a UUID, or the first eight bytes of a string (big-endian).
    var high: UInt64
    /// The last eight bytes of a UUID; zero otherwise.
    var low: UInt64
    /// The whole string (compared by its UTF-8 bytes only when `high`, its first eight, is equal).
    var text: String?

    static let null = IndexValue(present: 0, high: 0, low: 0, text: nil)
    /// The lowest value that is not `nil`: a range's missing lower bound (ranges exclude `nil`).
    static let lowest = IndexValue(present: 1, high: 0, low: 0, text: nil)

    init(present: UInt8, high: UInt64, low: UInt64, text: String?) {
        self.present = present
        self.high = high
        self.low = low
        self.text = text
    }

    init(integer value: Int64) { self.init(present: 1, high: UInt64(bitPattern: value) ^ (1 << 63), low: 0, text: nil) }

    init(double value: Double) {
        // -0.0 and 0.0 are one key; every NaN is one key, after +infinity.
        let bits = value.isNaN ? Double.nan.bitPattern : (value == 0 ? 0 : value.bitPattern)
        let ordered = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
        self.init(present: 1, high: ordered, low: 0, text: nil)
    }

    init(string value: String) {
        var high: UInt64 = 0
        var shift: UInt64 = 56
        for byte in value.utf8.prefix(8) {
            high |= UInt64(byte) << shift
            shift &-= 8
        }
        self.init(present: 1, high: high, low: 0, text: value)
    }

    init(uuidBytes bytes: (UInt64, UInt64)) { self.init(present: 1, high: bytes.0, low: bytes.1, text: nil) }

    /// The value as a debugger shows it: `nil`, a quoted string, or the ordered bits in hexadecimal.
    var description: String {
        if present == 0 { return "nil" }
        if let text { return text.debugDescription }
        return low == 0 ? "0x" + String(high, radix: 16) : "0x" + String(high, radix: 16) + String(low, radix: 16)
    }

    var integer: Int64 { Int64(bitPattern: high ^ (1 << 63)) }

    var double: Double {
        let bits = high & (1 << 63) != 0 ? high & ~(1 << 63) : ~high
        return Double(bitPattern: bits)
    }

    /// Whether `a` sorts before `b`: `nil` first, then by number, bytes of the string or of the UUID.
    static func < (a: IndexValue, b: IndexValue) -> Bool {
        if a.present != b.present { return a.present < b.present }
        if a.high != b.high { return a.high < b.high }
        if let x = a.text, let y = b.text {
            // Same first eight bytes: the UTF-8 bytes decide (shorter first when one is a prefix of the other).
            return x.utf8.lexicographicallyPrecedes(y.utf8)
        }
        return a.low < b.low
    }

    /// Whether `a` and `b` are one key.
    static func == (a: IndexValue, b: IndexValue) -> Bool {
        a.present == b.present && a.high == b.high && a.low == b.low && a.text == b.text
    }

    /// Whether `a` and `b` are different keys.
    static func != (a: IndexValue, b: IndexValue) -> Bool { !(a == b) }
}
