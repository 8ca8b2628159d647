import BinaryPlist
/// The tokens of strict JSON (RFC 8259) over UTF-8 bytes: whitespace, punctuation, literals, numbers and
/// strings with every escape. The one JSON tokenizer of the package: the plist-JSON parser and the
/// archive-JSON parser build their values on it. Every error is a `PlistError` with code `.invalidJSON`,
/// the scanner's `format` label and the byte offset.
///
/// ```swift
/// var scanner = JSONScanner(Array(#"["a", 1]"#.utf8), format: "archive-json")
/// if try !scanner.openSequence(UInt8(ascii: "["), close: UInt8(ascii: "]")) {
///     repeat { ... } while try scanner.nextInSequence(close: UInt8(ascii: "]"))
/// }
/// ```
///
/// No Apple API corresponds.
package struct JSONScanner {
    package let bytes: [UInt8]
    package var position = 0
    /// The label errors carry (`plist-json`, `archive-json`).
    package let format: String

    package init(_ bytes: [UInt8], format: String) {
        self.bytes = bytes
        self.format = format
    }

    /// The byte at ``position``, or `nil` at the end.
    package var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    package var isAtEnd: Bool { position >= bytes.count }

    package mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// Skips whitespace, then consumes `byte` or fails.
    package mutating func expect(_ byte: UInt8) throws {
        skipWhitespace()
        guard position < bytes.count else {
            throw error("unexpected end of input, expected '\(Character(Unicode.Scalar(byte)))'")
        }
        guard bytes[position] == byte else {
            throw error("unexpected \(describe(bytes[position])), expected '\(Character(Unicode.Scalar(byte)))'")
        }
        position += 1
    }

    /// Consumes `true`, `false` or `null`.
    package mutating func expectLiteral(_ word: String) throws {
        let start = position
        for expected in word.utf8 {
            guard position < bytes.count, bytes[position] == expected else {
                throw error("invalid literal, expected '\(word)'", at: start)
            }
            position += 1
        }
    }

    /// Consumes `open` (at ``position``) and whitespace; `true` when `close` follows at once (an empty
    /// sequence, `close` consumed too). Otherwise read a member, then call ``nextInSequence(close:)``.
    package mutating func openSequence(_ open: UInt8, close: UInt8) throws -> Bool {
        position += 1  // open
        skipWhitespace()
        guard position < bytes.count, bytes[position] == close else { return false }
        position += 1
        return true
    }

    /// After a member: `true` when `,` follows (another member comes), `false` when `close` ends the sequence.
    package mutating func nextInSequence(close: UInt8) throws -> Bool {
        skipWhitespace()
        let closing = "'\(Character(Unicode.Scalar(close)))'"
        guard position < bytes.count else { throw error("unexpected end of input, expected ',' or \(closing)") }
        position += 1
        switch bytes[position - 1] {
        case close: return false
        case UInt8(ascii: ","): return true
        default:
            position -= 1
            throw error("unexpected \(describe(bytes[position])), expected ',' or \(closing)")
        }
    }

    package func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, its text and whether it has neither
    /// fraction nor exponent.
    package mutating func number() throws -> (text: String, isInteger: Bool) {
        let start = position
        var isInteger = true
        if position < bytes.count && bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else {
            throw error("invalid number: expected a digit", at: position)
        }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count && isDigit(bytes[position]) {
                throw error("invalid number: leading zero", at: start)
            }
        } else {
            while position < bytes.count && isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count && bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else {
                throw error("invalid number: expected a digit after '.'", at: position)
            }
            while position < bytes.count && isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count && (bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E")) {
            isInteger = false
            position += 1
            if position < bytes.count && (bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")) {
                position += 1
            }
            guard position < bytes.count, isDigit(bytes[position]) else {
                throw error("invalid number: expected a digit in the exponent", at: position)
            }
            while position < bytes.count && isDigit(bytes[position]) { position += 1 }
        }
        return (String(decoding: bytes[start..<position], as: UTF8.self), isInteger)
    }

    /// A JSON string (``position`` at its `"`) with every escape; a lone surrogate, a raw control character
    /// or invalid UTF-8 fails.
    package mutating func string() throws -> String {
        let start = position
        position += 1  // "
        var utf8: [UInt8] = []
        var runStart = position
        while true {
            guard position < bytes.count else { throw error("unterminated string", at: start) }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") { break }
            if byte < 0x20 {
                throw error("control character \(describe(byte)) in a string must be escaped")
            }
            if byte != UInt8(ascii: "\\") {
                position += 1
                continue
            }
            utf8.append(contentsOf: bytes[runStart..<position])
            let escapeStart = position
            position += 1
            guard position < bytes.count else { throw error("unterminated string", at: start) }
            let escaped = bytes[position]
            position += 1
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escaped)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4(at: escapeStart)
                if (0xD800..<0xDC00).contains(scalar) {
                    guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                        bytes[position + 1] == UInt8(ascii: "u")
                    else { throw error("lone surrogate in \\u escape", at: escapeStart) }
                    position += 2
                    let low = try hex4(at: escapeStart)
                    guard (0xDC00..<0xE000).contains(low) else {
                        throw error("lone surrogate in \\u escape", at: escapeStart)
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(scalar) {
                    throw error("lone surrogate in \\u escape", at: escapeStart)
                }
                guard let unicode = Unicode.Scalar(scalar) else {
                    throw error("invalid \\u escape", at: escapeStart)
                }
                utf8.append(contentsOf: String(Character(unicode)).utf8)
            default:
                throw error("invalid escape '\\\(Character(Unicode.Scalar(escaped)))'", at: escapeStart)
            }
            runStart = position
        }
        utf8.append(contentsOf: bytes[runStart..<position])
        position += 1  // "
        guard let string = validUTF8String(utf8) else {
            throw error("string is not valid UTF-8", at: start)
        }
        return string
    }

    /// Four hex digits after `\u`.
    private mutating func hex4(at escapeStart: Int) throws -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("truncated \\u escape", at: escapeStart) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[position]
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: throw error("invalid \\u escape: \(describe(b)) is not a hex digit", at: escapeStart)
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// `'x'` for a printable byte, `byte 0x0A` otherwise.
    package func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        let hex = Array("0123456789ABCDEF".utf8)
        return "byte 0x" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]], as: UTF8.self)
    }

    /// An error at `offset` (default: the current position).
    package func error(_ reason: String, at offset: Int? = nil, code: PlistError.Code = .invalidJSON) -> PlistError {
        PlistError(code, reason, byteOffset: offset ?? position, format: format)
    }
}
