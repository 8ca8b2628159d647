/// The low-level writer of a typedstream: one growing byte buffer, little-endian, integers in the
/// shortest form that every reader reads (the byte itself for -110...127, else `0x81` int16, `0x82` int32,
/// `0x87` int64), reals as integers when they are integral and fit 32 bits (as `NSArchiver` writes them),
/// else `0x83` and their bytes.
struct TypedStreamWriter {
    var bytes: [UInt8] = []

    mutating func byte(_ b: UInt8) { bytes.append(b) }

    mutating func raw(_ b: some Collection<UInt8>) { bytes.append(contentsOf: b) }

    private mutating func fixed(_ v: UInt64, _ count: Int) {
        for i in 0..<count { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) }
    }

    mutating func signed(_ v: Int64) {
        if v >= -110 && v <= 127 {
            bytes.append(UInt8(bitPattern: Int8(v)))
        } else if let s = Int16(exactly: v) {
            bytes.append(TypedStreamTag.int16)
            fixed(UInt64(UInt16(bitPattern: s)), 2)
        } else if let s = Int32(exactly: v) {
            bytes.append(TypedStreamTag.int32)
            fixed(UInt64(UInt32(bitPattern: s)), 4)
        } else {
            bytes.append(TypedStreamTag.int64)
            fixed(UInt64(bitPattern: v), 8)
        }
    }

    mutating func unsigned(_ v: UInt64) {
        if v <= 127 {
            bytes.append(UInt8(v))
        } else if v <= UInt64(UInt16.max) {
            bytes.append(TypedStreamTag.int16)
            fixed(v, 2)
        } else if v <= UInt64(UInt32.max) {
            bytes.append(TypedStreamTag.int32)
            fixed(v, 4)
        } else {
            bytes.append(TypedStreamTag.int64)
            fixed(v, 8)
        }
    }

    /// Whether `d` is written as an integer: integral, not -0, within Int32.
    private static func integral(_ d: Double) -> Int64? {
        guard d == d.rounded(), !(d == 0 && d.sign == .minus), d >= -2_147_483_648, d <= 2_147_483_647 else { return nil }
        return Int64(d)
    }

    mutating func float(_ f: Float) {
        if let i = Self.integral(Double(f)) { return signed(i) }
        bytes.append(TypedStreamTag.real)
        fixed(UInt64(f.bitPattern), 4)
    }

    mutating func double(_ d: Double) {
        if let i = Self.integral(d) { return signed(i) }
        bytes.append(TypedStreamTag.real)
        fixed(d.bitPattern, 8)
    }

    /// A length and the bytes.
    mutating func unsharedString(_ b: [UInt8]) {
        unsigned(UInt64(b.count))
        bytes.append(contentsOf: b)
    }
}
