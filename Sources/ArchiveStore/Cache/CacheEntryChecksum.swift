import BinaryPlist
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

    /// Writes the checksum into the trailer of `bytes` (a binary plist).
    static func seal(_ bytes: inout [UInt8]) {
        guard let unused = BinaryPlistTrailer.unusedBytes(inPlistOfSize: bytes.count) else { return }
        let crc = checksum(bytes, unused)
        bytes[unused.lowerBound] = marker
        for i in 0..<4 { bytes[unused.lowerBound + 1 + i] = UInt8(truncatingIfNeeded: crc >> UInt32(8 * i)) }
    }

    /// Whether `bytes` is a binary plist that carries a checksum its bytes match.
    static func verify(_ bytes: [UInt8]) -> Bool {
        guard let unused = BinaryPlistTrailer.unusedBytes(inPlistOfSize: bytes.count),
              bytes.starts(with: Array("bplist0".utf8)), bytes[unused.lowerBound] == marker else { return false }
        return UInt32(readLittleEndian(bytes, unused.lowerBound + 1, width: 4)) == checksum(bytes, unused)
    }

    /// The CRC-32 of the file without the trailer's unused bytes.
    private static func checksum(_ bytes: [UInt8], _ unused: Range<Int>) -> UInt32 {
        Checksum.crc32(continuing: Checksum.crc32(bytes, 0..<unused.lowerBound), bytes, unused.upperBound..<bytes.count)
    }
}
