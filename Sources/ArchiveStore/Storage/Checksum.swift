/// The engines' one content check: CRC-32 as zlib computes it (IEEE 802.3 polynomial, reflected, initial and
/// final value all ones). It guards every frame, header and commit slot of a record log (``RecordLog``), every
/// bucket of its index (``RecordIndex``), the cache's table (``CacheTable``) and its slots, and every cache
/// entry (in its binary plist trailer), so that a flipped byte is detected and never decoded as data.
///
/// CRC-32 was chosen over a stronger digest because every language has it (`zlib.crc32` in Python,
/// `crc32fast` in Rust), so what is on disk can be checked without this library.
///
/// ```swift
/// Checksum.crc32(Array("123456789".utf8))   // 0xCBF43926
/// ```
///
/// No Apple API; zlib's `crc32()`.
package enum Checksum {
    /// Eight tables for slicing-by-8.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for i in 0..<256 {
            var c = UInt32(i)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            tables[i] = c
        }
        for i in 0..<256 {
            for t in 1..<8 { tables[t * 256 + i] = tables[(t - 1) * 256 + i] >> 8 ^ tables[Int(tables[(t - 1) * 256 + i] & 0xFF)] }
        }
        return tables
    }()

    /// The CRC-32 of `bytes` continuing from `crc` (0 to start).
    package static func crc32(continuing crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var c = ~crc
        tables.withUnsafeBufferPointer { t in
            var i = 0
            let n = bytes.count
            while i + 8 <= n {
                let low = c ^ (UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24)
                c = t[7 * 256 + Int(low & 0xFF)] ^ t[6 * 256 + Int(low >> 8 & 0xFF)]
                    ^ t[5 * 256 + Int(low >> 16 & 0xFF)] ^ t[4 * 256 + Int(low >> 24)]
                    ^ t[3 * 256 + Int(bytes[i + 4])] ^ t[2 * 256 + Int(bytes[i + 5])]
                    ^ t[1 * 256 + Int(bytes[i + 6])] ^ t[Int(bytes[i + 7])]
                i += 8
            }
            while i < n {
                c = t[Int((c ^ UInt32(bytes[i])) & 0xFF)] ^ (c >> 8)
                i += 1
            }
        }
        return ~c
    }

    /// The CRC-32 of `bytes[range]` continuing from `crc`.
    package static func crc32(continuing crc: UInt32, _ bytes: [UInt8], _ range: Range<Int>) -> UInt32 {
        bytes.withUnsafeBytes { crc32(continuing: crc, UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// The CRC-32 of `bytes[range]`.
    package static func crc32(_ bytes: [UInt8], _ range: Range<Int>) -> UInt32 { crc32(continuing: 0, bytes, range) }

    /// The CRC-32 of all of `bytes`.
    package static func crc32(_ bytes: [UInt8]) -> UInt32 { crc32(continuing: 0, bytes, 0..<bytes.count) }

    /// The CRC-32 of a 32-bit value's four little-endian bytes, continuing from `crc`: how a log chains the
    /// checksums of its frames (see ``RecordLog``).
    package static func crc32(continuing crc: UInt32, word: UInt32) -> UInt32 {
        withUnsafeBytes(of: word.littleEndian) { crc32(continuing: crc, $0) }
    }
}
