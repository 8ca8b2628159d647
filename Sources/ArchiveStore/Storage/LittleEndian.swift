/// Appends the low `width` bytes of `value`, least significant first: every integer of the engines' file
/// formats (record log, index, cache segments and table) is little-endian.
@inline(__always)
func appendLittleEndian(_ value: UInt64, width: Int, to bytes: inout [UInt8]) {
    for i in 0..<width { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(8 * i))) }
}

/// The `width`-byte little-endian integer at `offset` (the caller checked the bounds).
@inline(__always)
func readLittleEndian(_ bytes: [UInt8], _ offset: Int, width: Int) -> UInt64 {
    var value: UInt64 = 0
    for i in 0..<width { value |= UInt64(bytes[offset + i]) << UInt64(8 * i) }
    return value
}

/// An on-disk count, length or offset as an `Int`, or `nil` when it does not fit (a 32-bit platform reading a
/// value of 2^31 or more, or any platform reading 2^63 or more): the caller reports the file as damaged
/// instead of trapping or truncating.
@inline(__always)
func intFromDisk(_ value: UInt64) -> Int? { Int(exactly: value) }
