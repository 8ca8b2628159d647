import BinaryPlist
/// A strict JSON parser (RFC 8259) that builds `PlistValue`s following the plist-JSON contract of
/// ``PlistJSON``. Every error is a `PlistError` with format `plist-json` and the byte offset.
struct PlistJSONParser {
    private var scanner: JSONScanner
    private let limits: PlistLimits
    private var elements = 0

    init(bytes: [UInt8], limits: PlistLimits) {
        self.scanner = JSONScanner(bytes, format: "plist-json")
        self.limits = limits
    }

    mutating func parseDocument() throws -> PlistValue {
        guard scanner.bytes.count <= limits.maxInputBytes else {
            throw PlistError(
                .invalidCount, "input of \(scanner.bytes.count) bytes exceeds the limit of \(limits.maxInputBytes)",
                format: "plist-json")
        }
        let value = try parseValue(depth: 1)
        scanner.skipWhitespace()
        if let byte = scanner.current { throw error("unexpected \(scanner.describe(byte)) after the value") }
        return value
    }

    // MARK: Values

    /// A plist value; `depth` is the nesting level a collection here would have (the top is 1).
    private mutating func parseValue(depth: Int) throws -> PlistValue {
        scanner.skipWhitespace()
        guard let byte = scanner.current else { throw error("unexpected end of input, expected a value") }
        elements += 1
        let budget = limits.elementBudget(forInputOf: scanner.bytes.count)
        if elements > budget { throw error("more than \(budget) values", code: .elementLimitExceeded) }
        switch byte {
        case UInt8(ascii: "{"): return try parseWrapper(depth: depth)
        case UInt8(ascii: "["): return .array(try parseArray(depth: depth))
        case UInt8(ascii: "\""): return .string(try scanner.string())
        case UInt8(ascii: "t"): try scanner.expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try scanner.expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try scanner.expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = scanner.position
            let number = try scanner.number()
            guard number.isInteger else {
                throw error("a real must be written {\"real\": \(number.text)}", at: start)
            }
            return .integer(try integer(number.text, at: start))
        default:
            throw error("unexpected \(scanner.describe(byte)), expected a value")
        }
    }

    private mutating func parseArray(depth: Int) throws -> [PlistValue] {
        try checkDepth(depth)
        var items: [PlistValue] = []
        if try scanner.openSequence(UInt8(ascii: "["), close: UInt8(ascii: "]")) { return items }
        repeat {
            items.append(try parseValue(depth: depth + 1))
        } while try scanner.nextInSequence(close: UInt8(ascii: "]"))
        return items
    }

    /// `{"<kind>": payload}`: every JSON object in plist-JSON has exactly one of the wrapper keys.
    private mutating func parseWrapper(depth: Int) throws -> PlistValue {
        let start = scanner.position
        scanner.position += 1  // {
        scanner.skipWhitespace()
        guard scanner.current == UInt8(ascii: "\"") else {
            throw error(
                "an object must have one key: real, date, data, uid, dict or set", at: start)
        }
        let keyStart = scanner.position
        let key = try scanner.string()
        try scanner.expect(UInt8(ascii: ":"))
        scanner.skipWhitespace()
        let payloadStart = scanner.position
        let value: PlistValue
        switch key {
        case "real": value = .real(try parseRealPayload())
        case "date": value = .date(PlistDate(secondsSinceReferenceDate: try parseRealPayload()))
        case "data":
            guard scanner.current == UInt8(ascii: "\"") else {
                throw error("\"data\" needs a base64 string")
            }
            guard let data = Base64.decode(try scanner.string()) else {
                throw error("\"data\" is not valid base64", at: payloadStart)
            }
            value = .data(data)
        case "uid":
            guard let byte = scanner.current, scanner.isDigit(byte) || byte == UInt8(ascii: "-") else {
                throw error("\"uid\" needs an integer from 0 to 2^64-1")
            }
            let number = try scanner.number()
            guard number.isInteger, let uid = try integer(number.text, at: payloadStart).uint64Value else {
                throw error("\"uid\" needs an integer from 0 to 2^64-1", at: payloadStart)
            }
            value = .uid(PlistUID(uid))
        case "set": value = .set(try parseArrayPayload(depth: depth, of: "set"))
        case "dict": value = .dictionary(try parseDictionaryPayload(depth: depth))
        default:
            throw error("unknown key \"\(key)\": expected real, date, data, uid, dict or set", at: keyStart)
        }
        scanner.skipWhitespace()
        guard let next = scanner.current else { throw error("unexpected end of input, expected '}'") }
        if next == UInt8(ascii: ",") {
            throw error("an object must have exactly one key; \"\(key)\" is followed by another")
        }
        try scanner.expect(UInt8(ascii: "}"))
        return value
    }

    /// A number, or `"nan"`, `"inf"`, `"-inf"`.
    private mutating func parseRealPayload() throws -> Double {
        let start = scanner.position
        if scanner.current == UInt8(ascii: "\"") {
            switch try scanner.string() {
            case "nan": return .nan
            case "inf": return .infinity
            case "-inf": return -.infinity
            default: throw error("a real is a number or \"nan\", \"inf\", \"-inf\"", at: start)
            }
        }
        guard let byte = scanner.current, byte == UInt8(ascii: "-") || scanner.isDigit(byte) else {
            throw error("a real is a number or \"nan\", \"inf\", \"-inf\"")
        }
        let number = try scanner.number()
        // The text is a validated JSON number, which the standard library parses correctly rounded.
        guard let real = Double(number.text), real.isFinite else {
            throw error("\(number.text) is out of the range of a 64-bit real", at: start)
        }
        return real
    }

    private mutating func parseArrayPayload(depth: Int, of kind: String) throws -> [PlistValue] {
        guard scanner.current == UInt8(ascii: "[") else {
            throw error("\"\(kind)\" needs an array")
        }
        return try parseArray(depth: depth)
    }

    /// `{"key": value, ...}` or `[[key, value], ...]`.
    private mutating func parseDictionaryPayload(depth: Int) throws -> PlistDictionary {
        guard let byte = scanner.current else { throw error("unexpected end of input, expected '{' or '['") }
        try checkDepth(depth)
        var dictionary = PlistDictionary()
        var seen: Set<PlistValue> = []
        switch byte {
        case UInt8(ascii: "{"):
            if try scanner.openSequence(UInt8(ascii: "{"), close: UInt8(ascii: "}")) { return dictionary }
            repeat {
                scanner.skipWhitespace()
                let keyStart = scanner.position
                guard scanner.current == UInt8(ascii: "\"") else { throw error("expected a string key") }
                let key = PlistValue.string(try scanner.string())
                guard seen.insert(key).inserted else { throw error("duplicate key", at: keyStart) }
                try scanner.expect(UInt8(ascii: ":"))
                dictionary.append(key: key, value: try parseValue(depth: depth + 1))
            } while try scanner.nextInSequence(close: UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            if try scanner.openSequence(UInt8(ascii: "["), close: UInt8(ascii: "]")) { return dictionary }
            repeat {
                scanner.skipWhitespace()
                let pairStart = scanner.position
                let (key, value) = try parsePair(depth: depth + 1)
                if key.isCollection { throw error("a dict key cannot be a \(key.kindName)", at: pairStart) }
                guard seen.insert(key).inserted else { throw error("duplicate key", at: pairStart) }
                dictionary.append(key: key, value: value)
            } while try scanner.nextInSequence(close: UInt8(ascii: "]"))
        default:
            throw error("\"dict\" needs an object or an array of [key, value] pairs")
        }
        return dictionary
    }

    /// `[key, value]`, one entry of a dictionary in pair form; the pair itself is not a plist collection.
    private mutating func parsePair(depth: Int) throws -> (PlistValue, PlistValue) {
        let start = scanner.position
        guard scanner.current == UInt8(ascii: "[") else {
            throw error("a dict entry is a [key, value] pair")
        }
        scanner.position += 1
        let key = try parseValue(depth: depth)
        scanner.skipWhitespace()
        guard scanner.current == UInt8(ascii: ",") else {
            throw error("a dict entry is a [key, value] pair", at: start)
        }
        scanner.position += 1
        let value = try parseValue(depth: depth)
        scanner.skipWhitespace()
        guard scanner.current == UInt8(ascii: "]") else {
            throw error("a dict entry is a [key, value] pair", at: start)
        }
        scanner.position += 1
        return (key, value)
    }

    private func checkDepth(_ depth: Int) throws {
        if depth > limits.maxDepth {
            throw error("nesting deeper than \(limits.maxDepth)", code: .depthLimitExceeded)
        }
    }

    // MARK: Numbers

    /// A JSON integer literal as a `PlistInteger`: −2^127 ... 2^127−1.
    private func integer(_ text: String, at offset: Int) throws -> PlistInteger {
        guard let value = PlistInteger(decimalText: text) else { throw outOfRange(text, at: offset) }
        return value
    }

    private func outOfRange(_ text: String, at offset: Int) -> PlistError {
        error("integer \(text) is outside the 128-bit range -2^127...2^127-1", at: offset)
    }

    // MARK: Errors

    private func error(_ reason: String, at offset: Int? = nil, code: PlistError.Code = .invalidJSON) -> PlistError {
        scanner.error(reason, at: offset, code: code)
    }
}
