/// The head bytes that are not plain values: a value's first byte is either one of these or, as a signed
/// byte outside -128...-111, the value itself (an integer, or a reference number).
enum TypedStreamTag {
    /// A 2-byte integer follows.
    static let int16: UInt8 = 0x81
    /// A 4-byte integer follows.
    static let int32: UInt8 = 0x82
    /// A 4-byte float or an 8-byte double follows (by the type being read).
    static let real: UInt8 = 0x83
    /// A new object, class, C string or shared string follows, stored literally.
    static let new: UInt8 = 0x84
    /// Nil: no object, no class (the end of a superclass chain), no string.
    static let `nil`: UInt8 = 0x85
    /// The end of an object's values.
    static let endOfObject: UInt8 = 0x86
    /// An 8-byte integer follows (written for `q`/`Q` values that do not fit 32 bits).
    static let int64: UInt8 = 0x87

    /// The reserved range of head bytes, as signed values: -128 (0x80) ... -111 (0x91).
    static let reserved: ClosedRange<Int8> = -128 ... -111
    /// Reference numbers start after the reserved range: -110 (0x92) is the first table entry.
    static let firstReference: Int64 = -110

    /// Whether `byte` is in the reserved range.
    static func isTag(_ byte: UInt8) -> Bool { byte >= 0x80 && byte <= 0x91 }
}
