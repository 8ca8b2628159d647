import BinaryPlist

/// A JSON value with object keys in order, and its writer and parser (Python `json` separators).
indirect enum JSONNode: Equatable {
    case null
    case bool(Bool)
    /// A number, kept as its text.
    case number(String)
    case string(String)
    case array([JSONNode])
    case object([(String, JSONNode)])

    static func == (a: JSONNode, b: JSONNode) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.number(let x), .number(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.object(let x), .object(let y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    static func wrapped(_ key: String, _ value: JSONNode) -> JSONNode { .object([(key, value)]) }

    /// A real as plist-JSON writes it: shortest round-trip number, or "nan", "inf", "-inf".
    static func real(_ r: Double) -> JSONNode {
        if r.isNaN { return .string("nan") }
        if r.isInfinite { return .string(r < 0 ? "-inf" : "inf") }
        return .number(r.description)
    }

    /// The plist-JSON of an inline plist value.
    static func plist(_ v: PlistValue) -> JSONNode {
        switch v {
        case .null: .null
        case .bool(let b): .bool(b)
        case .integer(let i): .number(i.description)
        case .real(let r): wrapped("real", real(r))
        case .date(let d): wrapped("date", real(d.secondsSinceReferenceDate))
        case .data(let d): wrapped("data", .string(Base64.encode(d)))
        case .string(let s): .string(s)
        case .uid(let u): wrapped("uid", .number(String(u.value)))
        case .array(let a): .array(a.map(plist))
        case .set(let s): wrapped("set", .array(s.map(plist)))
        case .dictionary(let d):
            if d.hasOnlyStringKeys {
                wrapped("dict", .object(d.entries.map { ($0.key.stringValue ?? "", plist($0.value)) }))
            } else {
                wrapped("dict", .array(d.entries.map { .array([plist($0.key), plist($0.value)]) }))
            }
        }
    }

    func render(pretty: Bool) -> String {
        var out: [UInt8] = []
        write(to: &out, pretty: pretty, level: 0)
        return String(decoding: out, as: UTF8.self)
    }

    private func write(to out: inout [UInt8], pretty: Bool, level: Int) {
        func newline(_ l: Int) {
            out.append(0x0A)
            out.append(contentsOf: repeatElement(0x20, count: l))
        }
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: n.utf8)
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(contentsOf: (pretty ? "," : ", ").utf8) }
                if pretty { newline(level + 1) }
                item.write(to: &out, pretty: pretty, level: level + 1)
            }
            if pretty && !items.isEmpty { newline(level) }
            out.append(UInt8(ascii: "]"))
        case .object(let entries):
            out.append(UInt8(ascii: "{"))
            for (i, (key, value)) in entries.enumerated() {
                if i > 0 { out.append(contentsOf: (pretty ? "," : ", ").utf8) }
                if pretty { newline(level + 1) }
                Self.writeString(key, to: &out)
                out.append(contentsOf: ": ".utf8)
                value.write(to: &out, pretty: pretty, level: level + 1)
            }
            if pretty && !entries.isEmpty { newline(level) }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ s: String, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(byte)
            case 0x0A: out.append(contentsOf: "\\n".utf8)
            case 0x0D: out.append(contentsOf: "\\r".utf8)
            case 0x09: out.append(contentsOf: "\\t".utf8)
            case 0..<0x20:
                out.append(contentsOf: "\\u00".utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// Parses JSON text into a ``JSONNode``, with a depth limit.
struct JSONNodeParser {
    let bytes: [UInt8]
    var position = 0
    let maxDepth: Int

    init(_ bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    func fail(_ reason: String) -> KeyedArchiveError {
        KeyedArchiveError(.invalidJSON, "archive-json at byte \(position): \(reason)")
    }

    mutating func parseDocument() throws -> JSONNode {
        let v = try parse(depth: 1)
        skipSpace()
        guard position == bytes.count else { throw fail("text after the value") }
        return v
    }

    mutating func skipSpace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    mutating func expect(_ literal: String) throws {
        let l = Array(literal.utf8)
        guard position + l.count <= bytes.count, Array(bytes[position..<(position + l.count)]) == l else {
            throw fail("expected \(literal)")
        }
        position += l.count
    }

    mutating func parse(depth: Int) throws -> JSONNode {
        guard depth <= maxDepth else { throw fail("nesting deeper than \(maxDepth)") }
        skipSpace()
        guard position < bytes.count else { throw fail("unexpected end of text") }
        switch bytes[position] {
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "["):
            position += 1
            var items: [JSONNode] = []
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return .array(items) }
            while true {
                items.append(try parse(depth: depth + 1))
                skipSpace()
                guard position < bytes.count else { throw fail("unterminated array") }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                if bytes[position] == UInt8(ascii: "]") { position += 1; return .array(items) }
                throw fail("expected , or ]")
            }
        case UInt8(ascii: "{"):
            position += 1
            var entries: [(String, JSONNode)] = []
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return .object(entries) }
            while true {
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw fail("expected a key") }
                let key = try parseString()
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw fail("expected :") }
                position += 1
                entries.append((key, try parse(depth: depth + 1)))
                skipSpace()
                guard position < bytes.count else { throw fail("unterminated object") }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                if bytes[position] == UInt8(ascii: "}") { position += 1; return .object(entries) }
                throw fail("expected , or }")
            }
        default:
            let start = position
            while position < bytes.count, "+-0123456789.eE".utf8.contains(bytes[position]) { position += 1 }
            let text = String(decoding: bytes[start..<position], as: UTF8.self)
            guard !text.isEmpty, Double(text) != nil else { throw fail("unexpected character") }
            return .number(text)
        }
    }

    mutating func parseString() throws -> String {
        position += 1
        var utf8: [UInt8] = []
        while position < bytes.count {
            let b = bytes[position]
            position += 1
            if b == UInt8(ascii: "\"") {
                guard let s = String(validating: utf8, as: UTF8.self) else { throw fail("string is not valid UTF-8") }
                return s
            }
            if b != UInt8(ascii: "\\") { utf8.append(b); continue }
            guard position < bytes.count else { break }
            let e = bytes[position]
            position += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(e)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var unit = try hex4()
                if (0xD800..<0xDC00).contains(unit) {
                    try expect("\\u")
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw fail("unpaired surrogate") }
                    unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(unit) else { throw fail("invalid \\u escape") }
                utf8.append(contentsOf: String(Character(scalar)).utf8)
            default: throw fail("invalid escape")
            }
        }
        throw fail("unterminated string")
    }

    mutating func hex4() throws -> UInt32 {
        guard position + 4 <= bytes.count else { throw fail("short \\u escape") }
        guard let v = UInt32(String(decoding: bytes[position..<(position + 4)], as: UTF8.self), radix: 16) else {
            throw fail("invalid \\u escape")
        }
        position += 4
        return v
    }
}
