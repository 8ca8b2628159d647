/// A 128-bit name for a byte string that is the same on every run, version and platform: the first 16
/// bytes of its SHA-256 digest (FIPS 180-4), written as 32 lowercase hex digits.
///
/// ``ArchiveCache`` names each entry file after the hash of its key's UTF-8 bytes. SHA-256 is used, not a
/// faster non-cryptographic hash, so that nobody can choose keys that fall on one file and evict each other;
/// a collision is still handled (the stored key is compared on every read), it just never happens by design.
///
/// ```swift
/// StableHash("abc".utf8).hex   // "ba7816bf8f01cfea414140de5dae2223"
/// ```
///
/// No Apple API; the digest is CryptoKit's `SHA256`, truncated.
package struct StableHash: Hashable, Sendable, Comparable, CustomStringConvertible {
    package var high: UInt64
    package var low: UInt64

    /// 32 lowercase hex digits, most significant first.
    package var hex: String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var text = [UInt8](repeating: 0, count: 32)
        for i in 0..<16 {
            let word = i < 8 ? high : low
            let byte = UInt8(truncatingIfNeeded: word >> (56 - 8 * UInt64(i % 8)))
            text[2 * i] = digits[Int(byte >> 4)]
            text[2 * i + 1] = digits[Int(byte & 15)]
        }
        return String(decoding: text, as: UTF8.self)
    }

    package var description: String { hex }

    package static func < (a: StableHash, b: StableHash) -> Bool { (a.high, a.low) < (b.high, b.low) }
}

extension StableHash {
    /// Parses 32 lowercase hex digits, as ``hex`` writes them.
    package init?(hex: Substring) {
        let scalars = Array(hex.utf8)
        guard scalars.count == 32 else { return nil }
        var words: (UInt64, UInt64) = (0, 0)
        for (i, c) in scalars.enumerated() {
            let nibble: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = c - UInt8(ascii: "a") + 10
            default: return nil
            }
            if i < 16 { words.0 = words.0 << 4 | UInt64(nibble) } else { words.1 = words.1 << 4 | UInt64(nibble) }
        }
        high = words.0
        low = words.1
    }

    /// The hash of `bytes`.
    package init<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        var sha = SHA256()
        let words = sha.digest(Array(bytes))
        high = UInt64(words[0]) << 32 | UInt64(words[1])
        low = UInt64(words[2]) << 32 | UInt64(words[3])
    }
}
