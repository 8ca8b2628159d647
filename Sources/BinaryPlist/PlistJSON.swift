/// plist-JSON: the project's JSON rendering of a property list, as `shared/tools/plist-json.py` defines it.
///
/// | plist | JSON |
/// |---|---|
/// | string | string |
/// | integer | integer (any value of ``PlistInteger``, never written as a real) |
/// | real | `{"real": x}`, `x` a number or `"nan"`, `"inf"`, `"-inf"` |
/// | bool | `true` / `false` |
/// | date | `{"date": seconds since 2001-01-01}` (`"nan"`, `"inf"`, `"-inf"` as for reals) |
/// | data | `{"data": base64}` |
/// | UID | `{"uid": n}` |
/// | array | array |
/// | dictionary | `{"dict": {key: value}}`; with a key that is not a string `{"dict": [[key, value], ...]}` |
/// | set | `{"set": [...]}` |
/// | null | `null` |
///
/// Keys keep their order. ``render(_:pretty:)`` writes exactly what the Python tool writes: compact output as
/// `json.dumps(v, ensure_ascii=False)`, pretty output as `json.dumps(v, ensure_ascii=False, indent=1)`; reals
/// in their shortest round-trip form.
///
/// ```swift
/// let json = PlistJSON.render(["a": 1, "b": .real(1.5)])   // {"dict": {"a": 1, "b": {"real": 1.5}}}
/// let value = try PlistJSON.parse(json)
/// ```
///
/// No Apple API corresponds; it is the text form the `keyedarchive plist` inspector prints and reads.
public enum PlistJSON {
    /// Renders `value` as plist-JSON text (no trailing newline).
    public static func render(_ value: PlistValue, pretty: Bool = false) -> String {
        var writer = PlistJSONWriter(pretty: pretty)
        writer.write(value)
        return String(decoding: writer.out, as: UTF8.self)
    }

    /// Parses plist-JSON text.
    ///
    /// - Throws: ``PlistError`` with format `plist-json` and the byte offset: `.invalidJSON` for text that is
    ///   not JSON or not plist-JSON, `.depthLimitExceeded` / `.elementLimitExceeded` past `limits`.
    public static func parse(_ text: String, limits: PlistLimits = .default) throws -> PlistValue {
        try parse(Array(text.utf8), limits: limits)
    }

    /// Parses plist-JSON from UTF-8 bytes; bytes that are not valid UTF-8 are an `.invalidJSON` error.
    public static func parse(_ bytes: [UInt8], limits: PlistLimits = .default) throws -> PlistValue {
        var parser = PlistJSONParser(bytes: bytes, limits: limits)
        return try parser.parseDocument()
    }
}

/// Writes plist-JSON into a byte buffer, with Python's `json` separators.
struct PlistJSONWriter {
    private(set) var out: [UInt8] = []
    let pretty: Bool
    private var level = 0

    init(pretty: Bool) { self.pretty = pretty }

    mutating func write(_ value: PlistValue) {
        switch value {
        case .null: append("null")
        case .bool(let b): append(b ? "true" : "false")
        case .integer(let i): append(i.description)
        case .real(let r): wrapped("real") { $0.writeNumber(r) }
        case .date(let d): wrapped("date") { $0.writeNumber(d.secondsSinceReferenceDate) }
        case .data(let d): wrapped("data") { $0.writeString(Base64.encode(d)) }
        case .string(let s): writeString(s)
        case .uid(let u): wrapped("uid") { $0.append(String(u.value)) }
        case .array(let a): writeArray(a)
        case .set(let s): wrapped("set") { $0.writeArray(s) }
        case .dictionary(let d):
            wrapped("dict") { w in
                if d.hasOnlyStringKeys {
                    w.open(UInt8(ascii: "{"))
                    for (i, entry) in d.entries.enumerated() {
                        w.item(first: i == 0)
                        w.write(entry.key)
                        w.append(": ")
                        w.write(entry.value)
                    }
                    w.close(UInt8(ascii: "}"), empty: d.isEmpty)
                } else {
                    w.writeArray(d.entries.map { .array([$0.key, $0.value]) })
                }
            }
        }
    }

    /// A real as a JSON number in its shortest round-trip form, or `"nan"`, `"inf"`, `"-inf"`.
    private mutating func writeNumber(_ r: Double) {
        if r.isNaN {
            writeString("nan")
        } else if r.isInfinite {
            writeString(r < 0 ? "-inf" : "inf")
        } else {
            append(r.description)  // "1.0", "1e+20", "5e-324": all JSON numbers, as Python's repr
        }
    }

    private mutating func writeArray(_ items: [PlistValue]) {
        open(UInt8(ascii: "["))
        for (i, item) in items.enumerated() {
            self.item(first: i == 0)
            write(item)
        }
        close(UInt8(ascii: "]"), empty: items.isEmpty)
    }

    private mutating func wrapped(_ key: String, _ body: (inout PlistJSONWriter) -> Void) {
        open(UInt8(ascii: "{"))
        item(first: true)
        writeString(key)
        append(": ")
        body(&self)
        close(UInt8(ascii: "}"), empty: false)
    }

    private mutating func open(_ bracket: UInt8) {
        out.append(bracket)
        level += 1
    }

    private mutating func item(first: Bool) {
        if !first { append(pretty ? "," : ", ") }
        if pretty { newline() }
    }

    private mutating func close(_ bracket: UInt8, empty: Bool) {
        level -= 1
        if pretty && !empty { newline() }
        out.append(bracket)
    }

    private mutating func newline() {
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: level))
    }

    private mutating func append(_ s: String) { out.append(contentsOf: s.utf8) }

    /// A JSON string, escaped as Python's `json` does with `ensure_ascii=False`.
    private mutating func writeString(_ s: String) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            case 0..<0x20:
                append("\\u00")
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
