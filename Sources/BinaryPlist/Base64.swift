/// Standard base64 (RFC 4648, `+` and `/`, `=` padding), as XML plists' `<data>` and plist-JSON use it.
///
/// Mirrors `Data.base64EncodedString()` / `Data(base64Encoded:options: .ignoreUnknownCharacters)`.
package enum Base64 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    private static let decodeTable: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { t[Int(c)] = UInt8(i) }
        return t
    }()

    /// Encodes bytes; `lineLength` > 0 inserts a newline after every that many characters.
    package static func encode(_ bytes: [UInt8], lineLength: Int = 0) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4 + (lineLength > 0 ? bytes.count / lineLength + 1 : 0))
        var column = 0
        var i = 0
        func put(_ c: UInt8) {
            if lineLength > 0 && column == lineLength {
                out.append(0x0A)
                column = 0
            }
            out.append(c)
            column += 1
        }
        while i + 3 <= bytes.count {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            put(alphabet[Int(v >> 18 & 63)]); put(alphabet[Int(v >> 12 & 63)])
            put(alphabet[Int(v >> 6 & 63)]); put(alphabet[Int(v & 63)])
            i += 3
        }
        let rest = bytes.count - i
        if rest == 1 {
            let v = UInt32(bytes[i]) << 16
            put(alphabet[Int(v >> 18 & 63)]); put(alphabet[Int(v >> 12 & 63)]); put(61); put(61)
        } else if rest == 2 {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            put(alphabet[Int(v >> 18 & 63)]); put(alphabet[Int(v >> 12 & 63)])
            put(alphabet[Int(v >> 6 & 63)]); put(61)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes base64 text, skipping ASCII whitespace. Returns `nil` for any other character outside the
    /// alphabet, misplaced padding, or a length that is not a whole number of bytes.
    package static func decode(_ text: some Sequence<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.underestimatedCount / 4 * 3)
        var acc: UInt32 = 0
        var bits = 0
        var padding = 0
        let decoded: Bool = decodeTable.withUnsafeBufferPointer { table in
            for c in text {
                let v = table[Int(c)]
                if v < 64 {
                    if padding > 0 { return false }  // data after padding
                    acc = acc << 6 | UInt32(v)
                    bits += 6
                    if bits >= 8 {
                        bits -= 8
                        out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
                    }
                    continue
                }
                if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { continue }
                if c == 61 {  // '='
                    padding += 1
                    continue
                }
                return false
            }
            return true
        }
        // Leftover bits must be fewer than a byte; padding may be absent or complete the last quantum.
        guard decoded, bits < 6, padding <= 2 else { return nil }
        return out
    }

    /// Decodes base64 text given as a string, skipping ASCII whitespace; `nil` for text that is not base64.
    package static func decode(_ text: String) -> [UInt8]? { decode(text.utf8) }
}
