import BinaryPlist
import KeyedArchive

extension JSONNode {
    /// The entries of a `{"$top": {...}}` document.
    var topEntries: [(String, JSONNode)]? {
        guard case .object(let e) = self, e.count == 1, e[0].0 == "$top" else { return nil }
        guard case .object(let entries) = e[0].1 else { return nil }
        return entries
    }
}

/// Parses JSON text into a ``JSONNode``, with a depth limit. Errors are `PlistError/Code/invalidJSON` with
/// the format `archive-json` and the byte offset.
struct JSONNodeParser {
    private var scanner: JSONScanner
    let maxDepth: Int

    init(_ bytes: [UInt8], maxDepth: Int) {
        self.scanner = JSONScanner(bytes, format: "archive-json")
        self.maxDepth = maxDepth
    }

    mutating func parseDocument() throws -> JSONNode {
        let v = try parse(depth: 1)
        scanner.skipWhitespace()
        if let byte = scanner.current { throw scanner.error("unexpected \(scanner.describe(byte)) after the value") }
        return v
    }

    private mutating func parse(depth: Int) throws -> JSONNode {
        guard depth <= maxDepth else { throw scanner.error("nesting deeper than \(maxDepth)") }
        scanner.skipWhitespace()
        guard let byte = scanner.current else { throw scanner.error("unexpected end of input, expected a value") }
        switch byte {
        case UInt8(ascii: "n"): try scanner.expectLiteral("null"); return .null
        case UInt8(ascii: "t"): try scanner.expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try scanner.expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "\""): return .string(try scanner.string())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try scanner.number().text)
        case UInt8(ascii: "["):
            var items: [JSONNode] = []
            if try scanner.openSequence(byte, close: UInt8(ascii: "]")) { return .array(items) }
            repeat {
                items.append(try parse(depth: depth + 1))
            } while try scanner.nextInSequence(close: UInt8(ascii: "]"))
            return .array(items)
        case UInt8(ascii: "{"):
            var entries: [(String, JSONNode)] = []
            if try scanner.openSequence(byte, close: UInt8(ascii: "}")) { return .object(entries) }
            repeat {
                scanner.skipWhitespace()
                guard scanner.current == UInt8(ascii: "\"") else { throw scanner.error("expected a string key") }
                let key = try scanner.string()
                try scanner.expect(UInt8(ascii: ":"))
                entries.append((key, try parse(depth: depth + 1)))
            } while try scanner.nextInSequence(close: UInt8(ascii: "}"))
            return .object(entries)
        default:
            throw scanner.error("unexpected \(scanner.describe(byte)), expected a value")
        }
    }
}
