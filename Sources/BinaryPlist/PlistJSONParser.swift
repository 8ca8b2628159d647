/// A strict JSON parser (RFC 8259) that builds ``PlistValue``s following the plist-JSON contract of
/// ``PlistJSON``. Every error is a ``PlistError`` with format `plist-json` and the byte offset.
struct PlistJSONParser {
    private let bytes: [UInt8]
    private let limits: PlistLimits
    private var position = 0
    private var elements = 0

    init(bytes: [UInt8], limits: PlistLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    mutating func parseDocument() throws -> PlistValue {
        guard bytes.count <= limits.maxInputBytes else {
            throw PlistError(
                .invalidCount, "input of \(bytes.count) bytes exceeds the limit of \(limits.maxInputBytes)",
                format: "plist-json")
        }
        let value = try parseValue(depth: 1)
        skipWhitespace()
        if position < bytes.count { throw error("unexpected \(describe(bytes[position])) after the value") }
        return value
    }

    // MARK: Values

    /// A plist value; `depth` is the nesting level a collection here would have (the top is 1).
    private mutating func parseValue(depth: Int) throws -> PlistValue {
        skipWhitespace()
        guard position < bytes.count else { throw error("unexpected end of input, expected a value") }
        elements += 1
        if elements > limits.elementBudget(forInputOf: bytes.count) {
            throw error("more than \(limits.elementBudget(forInputOf: bytes.count)) values", code: .elementLimitExceeded)
        }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseWrapper(depth: depth)
        case UInt8(ascii: "["): return .array(try parseArray(depth: depth))
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = position
            let number = try scanNumber()
            guard number.isInteger else {
                throw error("a real must be written {\"real\": \(number.text)}", at: start)
            }
            return .integer(try integer(number.text, at: start))
        default:
            throw error("unexpected \(describe(bytes[position])), expected a value")
        }
    }

    private mutating func parseArray(depth: Int) throws -> [PlistValue] {
        try checkDepth(depth)
        var items: [PlistValue] = []
        try parseSequence(open: UInt8(ascii: "["), close: UInt8(ascii: "]")) { parser in
            items.append(try parser.parseValue(depth: depth + 1))
        }
        return items
    }

    /// `{"<kind>": payload}`: every JSON object in plist-JSON has exactly one of the wrapper keys.
    private mutating func parseWrapper(depth: Int) throws -> PlistValue {
        let start = position
        position += 1  // {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
            throw error(
                "an object must have one key: real, date, data, uid, dict or set", at: start)
        }
        let keyStart = position
        let key = try parseString()
        try expect(UInt8(ascii: ":"))
        skipWhitespace()
        let payloadStart = position
        let value: PlistValue
        switch key {
        case "real": value = .real(try parseRealPayload())
        case "date": value = .date(PlistDate(secondsSinceReferenceDate: try parseRealPayload()))
        case "data":
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw error("\"data\" needs a base64 string")
            }
            guard let data = Base64.decode(try parseString()) else {
                throw error("\"data\" is not valid base64", at: payloadStart)
            }
            value = .data(data)
        case "uid":
            guard position < bytes.count, isDigit(bytes[position]) || bytes[position] == UInt8(ascii: "-") else {
                throw error("\"uid\" needs an integer from 0 to 2^64-1")
            }
            let number = try scanNumber()
            guard number.isInteger, let uid = try integer(number.text, at: payloadStart).uint64Value else {
                throw error("\"uid\" needs an integer from 0 to 2^64-1", at: payloadStart)
            }
            value = .uid(PlistUID(uid))
        case "set": value = .set(try parseArrayPayload(depth: depth, of: "set"))
        case "dict": value = .dictionary(try parseDictionaryPayload(depth: depth))
        default:
            throw error("unknown key \"\(key)\": expected real, date, data, uid, dict or set", at: keyStart)
        }
        skipWhitespace()
        guard position < bytes.count else { throw error("unexpected end of input, expected '}'") }
        if bytes[position] == UInt8(ascii: ",") {
            throw error("an object must have exactly one key; \"\(key)\" is followed by another")
        }
        try expect(UInt8(ascii: "}"))
        return value
    }

    /// A number, or `"nan"`, `"inf"`, `"-inf"`.
    private mutating func parseRealPayload() throws -> Double {
        let start = position
        if position < bytes.count && bytes[position] == UInt8(ascii: "\"") {
            switch try parseString() {
            case "nan": return .nan
            case "inf": return .infinity
            case "-inf": return -.infinity
            default: throw error("a real is a number or \"nan\", \"inf\", \"-inf\"", at: start)
            }
        }
        guard position < bytes.count, bytes[position] == UInt8(ascii: "-") || isDigit(bytes[position]) else {
            throw error("a real is a number or \"nan\", \"inf\", \"-inf\"")
        }
        let number = try scanNumber()
        // The text is a validated JSON number, which the standard library parses correctly rounded.
        guard let real = Double(number.text), real.isFinite else {
            throw error("\(number.text) is out of the range of a 64-bit real", at: start)
        }
        return real
    }

    private mutating func parseArrayPayload(depth: Int, of kind: String) throws -> [PlistValue] {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "[") else {
            throw error("\"\(kind)\" needs an array")
        }
        return try parseArray(depth: depth)
    }

    /// `{"key": value, ...}` or `[[key, value], ...]`.
    private mutating func parseDictionaryPayload(depth: Int) throws -> PlistDictionary {
        guard position < bytes.count else { throw error("unexpected end of input, expected '{' or '['") }
        try checkDepth(depth)
        var dictionary = PlistDictionary()
        var seen: Set<PlistValue> = []
        switch bytes[position] {
        case UInt8(ascii: "{"):
            try parseSequence(open: UInt8(ascii: "{"), close: UInt8(ascii: "}")) { parser in
                parser.skipWhitespace()
                let keyStart = parser.position
                guard keyStart < parser.bytes.count, parser.bytes[keyStart] == UInt8(ascii: "\"") else {
                    throw parser.error("expected a string key")
                }
                let key = PlistValue.string(try parser.parseString())
                guard seen.insert(key).inserted else { throw parser.error("duplicate key", at: keyStart) }
                try parser.expect(UInt8(ascii: ":"))
                dictionary.append(key: key, value: try parser.parseValue(depth: depth + 1))
            }
        case UInt8(ascii: "["):
            try parseSequence(open: UInt8(ascii: "["), close: UInt8(ascii: "]")) { parser in
                parser.skipWhitespace()
                let pairStart = parser.position
                let (key, value) = try parser.parsePair(depth: depth + 1)
                if key.isCollection { throw parser.error("a dict key cannot be a \(key.kindName)", at: pairStart) }
                guard seen.insert(key).inserted else { throw parser.error("duplicate key", at: pairStart) }
                dictionary.append(key: key, value: value)
            }
        default:
            throw error("\"dict\" needs an object or an array of [key, value] pairs")
        }
        return dictionary
    }

    /// `[key, value]`, one entry of a dictionary in pair form; the pair itself is not a plist collection.
    private mutating func parsePair(depth: Int) throws -> (PlistValue, PlistValue) {
        let start = position
        guard position < bytes.count, bytes[position] == UInt8(ascii: "[") else {
            throw error("a dict entry is a [key, value] pair")
        }
        position += 1
        let key = try parseValue(depth: depth)
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: ",") else {
            throw error("a dict entry is a [key, value] pair", at: start)
        }
        position += 1
        let value = try parseValue(depth: depth)
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "]") else {
            throw error("a dict entry is a [key, value] pair", at: start)
        }
        position += 1
        return (key, value)
    }

    /// `open` item (`,` item)* `close`, calling `item` with the position at each item.
    private mutating func parseSequence(
        open: UInt8, close: UInt8, item: (inout PlistJSONParser) throws -> Void
    ) throws {
        position += 1  // open
        skipWhitespace()
        if position < bytes.count && bytes[position] == close {
            position += 1
            return
        }
        while true {
            try item(&self)
            skipWhitespace()
            guard position < bytes.count else {
                throw error("unexpected end of input, expected ',' or '\(Character(Unicode.Scalar(close)))'")
            }
            if bytes[position] == close {
                position += 1
                return
            }
            guard bytes[position] == UInt8(ascii: ",") else {
                throw error("unexpected \(describe(bytes[position])), expected ',' or '\(Character(Unicode.Scalar(close)))'")
            }
            position += 1
        }
    }

    private func checkDepth(_ depth: Int) throws {
        if depth > limits.maxDepth {
            throw error("nesting deeper than \(limits.maxDepth)", code: .depthLimitExceeded)
        }
    }

    // MARK: Tokens

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private mutating func expect(_ byte: UInt8) throws {
        skipWhitespace()
        guard position < bytes.count else {
            throw error("unexpected end of input, expected '\(Character(Unicode.Scalar(byte)))'")
        }
        guard bytes[position] == byte else {
            throw error("unexpected \(describe(bytes[position])), expected '\(Character(Unicode.Scalar(byte)))'")
        }
        position += 1
    }

    private mutating func expectLiteral(_ word: String) throws {
        let start = position
        for expected in word.utf8 {
            guard position < bytes.count, bytes[position] == expected else {
                throw error("invalid literal, expected '\(word)'", at: start)
            }
            position += 1
        }
    }

    private func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func scanNumber() throws -> (text: String, isInteger: Bool) {
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

    /// A JSON integer literal as a ``PlistInteger``: −2^127 ... 2^127−1.
    private func integer(_ text: String, at offset: Int) throws -> PlistInteger {
        let negative = text.hasPrefix("-")
        var high: UInt64 = 0
        var low: UInt64 = 0
        for digit in text.utf8 where digit != UInt8(ascii: "-") {
            // (high, low) = (high, low) * 10 + digit, failing past 2^128.
            let lowProduct = low.multipliedFullWidth(by: 10)
            let highProduct = high.multipliedReportingOverflow(by: 10)
            let (newLow, carry) = lowProduct.low.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
            let (h1, o1) = highProduct.partialValue.addingReportingOverflow(lowProduct.high)
            let (h2, o2) = h1.addingReportingOverflow(carry ? 1 : 0)
            guard !highProduct.overflow, !o1, !o2 else { throw outOfRange(text, at: offset) }
            high = h2
            low = newLow
        }
        let signBit: UInt64 = 1 << 63
        if negative {
            // Magnitude at most 2^127.
            guard high < signBit || (high == signBit && low == 0) else { throw outOfRange(text, at: offset) }
            let negLow = ~low &+ 1
            let negHigh = ~high &+ (low == 0 ? 1 : 0)
            return PlistInteger(high: Int64(bitPattern: negHigh), low: negLow)
        }
        guard high < signBit else { throw outOfRange(text, at: offset) }
        return PlistInteger(high: Int64(bitPattern: high), low: low)
    }

    private func outOfRange(_ text: String, at offset: Int) -> PlistError {
        error("integer \(text) is outside the 128-bit range -2^127...2^127-1", at: offset)
    }

    /// A JSON string with every escape; a lone surrogate, a raw control character or invalid UTF-8 fails.
    private mutating func parseString() throws -> String {
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
        guard let string = String(validating: utf8, as: UTF8.self) else {
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

    // MARK: Errors

    private func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        let hex = Array("0123456789ABCDEF".utf8)
        return "byte 0x" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]], as: UTF8.self)
    }

    private func error(_ reason: String, at offset: Int? = nil, code: PlistError.Code = .invalidJSON) -> PlistError {
        PlistError(code, reason, byteOffset: offset ?? position, format: "plist-json")
    }
}
