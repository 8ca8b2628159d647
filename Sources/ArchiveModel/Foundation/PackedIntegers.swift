/// The packed unsigned integers inside the data of `NSIndexSet`'s `NSRangeData` and `NSAttributedString`'s
/// `NSAttributeInfo`: seven bits a byte, least significant group first, the high bit set on every byte but
/// the last (unsigned LEB128).
package enum PackedIntegers {
    /// The integers of `bytes`, or the byte offset of the first that is cut off or exceeds `Int.max`.
    package static func read(_ bytes: [UInt8]) -> Result<[Int], ReadFailure> {
        var values: [Int] = []
        var value: UInt64 = 0
        var shift: UInt64 = 0
        var start = 0
        for (offset, byte) in bytes.enumerated() {
            if shift == 0 { start = offset }
            let group = UInt64(byte & 0x7F)
            guard shift < 64, shift == 0 || group >> (64 - shift) == 0 else { return .failure(ReadFailure(offset: start)) }
            value |= group << shift
            if byte & 0x80 == 0 {
                guard let v = Int(exactly: value) else { return .failure(ReadFailure(offset: start)) }
                values.append(v)
                value = 0
                shift = 0
            } else {
                shift += 7
            }
        }
        guard shift == 0 else { return .failure(ReadFailure(offset: start)) }
        return .success(values)
    }

    /// `values` (each at least 0) packed.
    package static func write(_ values: [Int]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count)
        for v in values {
            var rest = UInt64(max(v, 0))
            while rest >= 0x80 {
                bytes.append(UInt8(rest & 0x7F) | 0x80)
                rest >>= 7
            }
            bytes.append(UInt8(rest))
        }
        return bytes
    }

    /// Where the packed integers stop making sense: the byte offset of the integer that is cut off or too large.
    package struct ReadFailure: Error {
        package var offset: Int
    }
}
