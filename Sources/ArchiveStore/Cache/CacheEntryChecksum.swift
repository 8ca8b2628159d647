/// The checksum every cache entry file carries, checked on every read from disk, so that a flipped byte makes
/// the entry a miss instead of wrong data.
///
/// An entry file is a binary property list (`bplist00`), which ends with a 32-byte trailer whose first five
/// bytes are unused: readers ignore them (Apple's CoreFoundation, Python's `plistlib`, this package's
/// reader), so the file stays an ordinary keyed archive that `NSKeyedUnarchiver` reads. The checksum sits
/// there:
///
/// | trailer byte | holds |
/// |---|---|
/// | 0 | `0x43` (`C`): the entry is sealed |
/// | 1..<5 | CRC-32 (little-endian) of the whole file without trailer bytes 0..<5 |
///
/// Checked with the standard library of any language, e.g. Python:
/// `zlib.crc32(data[:-32] + data[-27:]) == int.from_bytes(data[-31:-27], "little") and data[-32] == 0x43`.
///
/// No Apple API: NSKeyedArchiver writes zeros there.
enum CacheEntryChecksum {
    static let marker: UInt8 = 0x43
    private static let trailerSize = 32

    /// Writes the checksum into the trailer of `bytes` (a binary plist).
    static func seal(_ bytes: inout [UInt8]) {
        guard bytes.count >= 8 + trailerSize else { return }
        let t = bytes.count - trailerSize
        let crc = checksum(bytes)
        bytes[t] = marker
        for i in 0..<4 { bytes[t + 1 + i] = UInt8(truncatingIfNeeded: crc >> UInt32(8 * i)) }
    }

    /// Whether `bytes` is a binary plist that carries a checksum its bytes match.
    static func verify(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 8 + trailerSize, bytes.starts(with: Array("bplist0".utf8)) else { return false }
        let t = bytes.count - trailerSize
        guard bytes[t] == marker else { return false }
        return UInt32(readLittleEndian(bytes, t + 1, width: 4)) == checksum(bytes)
    }

    /// The CRC-32 of the file without trailer bytes 0..<5.
    private static func checksum(_ bytes: [UInt8]) -> UInt32 {
        let t = bytes.count - trailerSize
        return Checksum.crc32(continuing: Checksum.crc32(bytes, 0..<t), bytes, t + 5..<bytes.count)
    }
}
