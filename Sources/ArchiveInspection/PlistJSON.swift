import BinaryPlist
/// plist-JSON: the project's JSON rendering of a property list, as `shared/tools/plist-json.py` defines it.
///
/// | plist | JSON |
/// |---|---|
/// | string | string |
/// | integer | integer (any value of `PlistInteger`, never written as a real) |
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
        var writer = JSONWriter(pretty: pretty)
        writer.plist(value)
        return writer.text
    }

    /// Parses plist-JSON text.
    ///
    /// - Throws: `PlistError` with format `plist-json` and the byte offset: `.invalidJSON` for text that is
    ///   not JSON or not plist-JSON, `.depthLimitExceeded` / `.elementLimitExceeded` past `limits`.
    public static func parse(_ text: String, limits: PlistLimits = .default) throws -> PlistValue {
        try parse(Array(text.utf8), limits: limits)
    }

    /// Parses plist-JSON from UTF-8 bytes (the tools read files so); bytes that are not valid UTF-8 are an
    /// `.invalidJSON` error.
    package static func parse(_ bytes: [UInt8], limits: PlistLimits = .default) throws -> PlistValue {
        var parser = PlistJSONParser(bytes: bytes, limits: limits)
        return try parser.parseDocument()
    }
}

extension JSONWriter {
    /// Writes `value` as plist-JSON at the current position (``PlistJSON`` describes the mapping). A UID is
    /// written as `{uidKey: n}`: `{"uid": n}` in plist-JSON, `{"$ref": n}` in archive-JSON's graph form.
    package mutating func plist(_ value: PlistValue, uidKey: String = "uid") {
        switch value {
        case .null: raw("null")
        case .bool(let b): raw(b ? "true" : "false")
        case .integer(let i): raw(i.description)
        case .real(let r): wrapped("real") { $0.real(r) }
        case .date(let d): wrapped("date") { $0.real(d.secondsSinceReferenceDate) }
        case .data(let d): wrapped("data") { $0.string(Base64.encode(d)) }
        case .string(let s): string(s)
        case .uid(let u): wrapped(uidKey) { $0.raw(String(u.value)) }
        case .array(let a): plistArray(a, uidKey: uidKey)
        case .set(let s): wrapped("set") { $0.plistArray(s, uidKey: uidKey) }
        case .dictionary(let d):
            wrapped("dict") { w in
                if d.hasOnlyStringKeys {
                    w.open(.object)
                    for (i, entry) in d.entries.enumerated() {
                        w.item(first: i == 0)
                        w.plist(entry.key, uidKey: uidKey)
                        w.raw(": ")
                        w.plist(entry.value, uidKey: uidKey)
                    }
                    w.close(.object, empty: d.isEmpty)
                } else {
                    w.plistArray(d.entries.map { .array([$0.key, $0.value]) }, uidKey: uidKey)
                }
            }
        }
    }

    private mutating func plistArray(_ items: [PlistValue], uidKey: String) {
        open(.array)
        for (i, item) in items.enumerated() {
            self.item(first: i == 0)
            plist(item, uidKey: uidKey)
        }
        close(.array, empty: items.isEmpty)
    }
}
