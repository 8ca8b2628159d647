/// Writes a ``PlistValue`` as an XML property list, byte for byte in the layout Apple's writer uses.
///
/// ```swift
/// let bytes = try XMLPlistWriter().encode(["name": "Ada", "age": 36])
/// ```
///
/// The output is Apple's: the `<?xml ...?>` declaration, the `-//Apple//DTD PLIST 1.0//EN` DOCTYPE,
/// `<plist version="1.0">`, one element per line indented by tabs, `<dict/>` and `<array/>` when empty,
/// `<true/>` and `<false/>`, dictionary keys sorted by UTF-16 code unit (as `CFStringCompare` sorts them),
/// `<data>` as base64 on lines of `76 - 8 × indentation` characters (indentation counted up to 8 tabs),
/// dates as `YYYY-MM-DDTHH:MM:SSZ` in UTC with the seconds rounded down, integers in decimal (all 128 bits),
/// UIDs as `<dict><key>CF$UID</key><integer>n</integer></dict>`. The same value always gives the same bytes.
///
/// Where this writer chooses:
/// - Reals are written in their shortest round-tripping form without a trailing `.0` (`3.14`, `2`,
///   `1e+20`), as swift-foundation's `PropertyListEncoder` writes them; CoreFoundation writes 17 significant
///   digits (`3.1400000000000001`). Both read back to the same `Double`. NaN is `nan` (its sign and payload
///   are not kept), infinities are `+infinity` and `-infinity`.
/// - Strings escape only `&`, `<` and `>`, as Apple does; other characters, including control characters
///   that XML 1.0 does not allow (U+0001...U+0008...), are written raw like Apple writes them.
///   ``XMLPlistReader`` and CoreFoundation read them back; strict XML parsers may not.
/// - `.null` and `.set` throw ``PlistError/Code/unsupportedValue`` (CoreFoundation cannot write either to
///   XML; writing a set as `<array>` would silently change its kind). A dictionary key that is not a string
///   throws ``PlistError/Code/invalidKey``. A NaN, infinite or too distant date (see ``PlistDate``) throws
///   ``PlistError/Code/unsupportedValue``.
/// - Nesting deeper than ``PlistLimits/maxDepth`` throws ``PlistError/Code/depthLimitExceeded``.
///
/// Mirrors `PropertyListSerialization.data(fromPropertyList:format: .xml, options:)` /
/// `CFPropertyListCreateData(_, _, kCFPropertyListXMLFormat_v1_0, _, _)`.
package struct XMLPlistWriter {
    /// The limits writing enforces (the depth limit).
    package var limits: PlistLimits

    /// A writer that enforces `limits`.
    package init(limits: PlistLimits = .default) { self.limits = limits }

    /// The XML plist bytes of `value`.
    package func encode(_ value: PlistValue) throws -> [UInt8] {
        var out = XMLPlistOutput()
        out.append(XMLPlistOutput.header)
        try out.append(value, indentation: 0, depth: value.isCollection ? 1 : 0, limits: limits)
        out.append("</plist>\n")
        return out.bytes
    }
}

/// The growing byte buffer of ``XMLPlistWriter``.
private struct XMLPlistOutput {
    static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """
    /// Longest base64 line, tabs counted as 8 characters.
    static let base64LineLimit = 76

    var bytes: [UInt8] = []
    /// Where the writer is, for error messages: array indices and dictionary keys from the top.
    var path: [PathComponent] = []

    enum PathComponent {
        case index(Int)
        case key(String)
    }

    var pathText: String {
        path.map {
            switch $0 {
            case .index(let i): "[\(i)]"
            case .key(let k): "." + k
            }
        }.joined()
    }

    mutating func append(_ text: String) { bytes.append(contentsOf: text.utf8) }

    mutating func indent(_ count: Int) {
        for _ in 0..<count { bytes.append(0x09) }
    }

    mutating func appendEscaped(_ text: String) {
        for c in text.utf8 {
            switch c {
            case UInt8(ascii: "&"): append("&amp;")
            case UInt8(ascii: "<"): append("&lt;")
            case UInt8(ascii: ">"): append("&gt;")
            default: bytes.append(c)
            }
        }
    }

    /// One element (or a container and its contents) starting at `indentation` tabs, ending with a newline.
    mutating func append(_ value: PlistValue, indentation: Int, depth: Int, limits: PlistLimits) throws {
        func fail(_ code: PlistError.Code, _ reason: String) -> PlistError {
            PlistError(code, (path.isEmpty ? "" : "at \(pathText): ") + reason, format: "xml plist")
        }
        if depth > limits.maxDepth {
            throw fail(.depthLimitExceeded, "nesting deeper than the limit of \(limits.maxDepth)")
        }
        indent(indentation)
        switch value {
        case .null:
            throw fail(.unsupportedValue, "XML plists cannot hold null")
        case .set:
            throw fail(.unsupportedValue, "XML plists cannot hold a set")
        case .bool(let b):
            append(b ? "<true/>\n" : "<false/>\n")
        case .integer(let i):
            append("<integer>\(i.description)</integer>\n")
        case .real(let r):
            append("<real>\(Self.realText(r))</real>\n")
        case .date(let d):
            guard let text = ISO8601.format(d) else {
                throw fail(.unsupportedValue, "date \(d.secondsSinceReferenceDate) has no ISO 8601 form")
            }
            append("<date>\(text)</date>\n")
        case .data(let d):
            append("<data>\n")
            appendBase64Lines(d, indentation: indentation)
            indent(indentation)
            append("</data>\n")
        case .string(let s):
            append("<string>")
            appendEscaped(s)
            append("</string>\n")
        case .uid(let u):
            append("<dict>\n")
            indent(indentation + 1)
            append("<key>CF$UID</key>\n")
            indent(indentation + 1)
            append("<integer>\(u.value)</integer>\n")
            indent(indentation)
            append("</dict>\n")
        case .array(let items):
            guard !items.isEmpty else { return append("<array/>\n") }
            append("<array>\n")
            for (n, item) in items.enumerated() {
                path.append(.index(n))
                try append(item, indentation: indentation + 1, depth: item.isCollection ? depth + 1 : depth, limits: limits)
                path.removeLast()
            }
            indent(indentation)
            append("</array>\n")
        case .dictionary(let dict):
            guard !dict.isEmpty else { return append("<dict/>\n") }
            var entries: [(key: String, value: PlistValue)] = []
            entries.reserveCapacity(dict.count)
            for entry in dict.entries {
                guard case .string(let key) = entry.key else {
                    throw fail(.invalidKey, "XML plist dictionary keys must be strings, not \(entry.key.kindName)")
                }
                entries.append((key, entry.value))
            }
            // Stable, so that duplicate keys keep their order and the output stays deterministic.
            // Code units, not `String.<`: canonically equivalent keys ("é", "e\u{301}") stay distinct.
            entries = entries.enumerated().sorted {
                $0.element.key.utf16.elementsEqual($1.element.key.utf16)
                    ? $0.offset < $1.offset : $0.element.key.utf16.lexicographicallyPrecedes($1.element.key.utf16)
            }.map(\.element)
            append("<dict>\n")
            for (key, item) in entries {
                indent(indentation + 1)
                append("<key>")
                appendEscaped(key)
                append("</key>\n")
                path.append(.key(key))
                try append(item, indentation: indentation + 1, depth: item.isCollection ? depth + 1 : depth, limits: limits)
                path.removeLast()
            }
            indent(indentation)
            append("</dict>\n")
        }
    }

    /// Base64 lines as Apple lays them out: each indented like the `<data>` tag (at most 8 tabs), each at most
    /// `76 - 8 × tabs` characters long, each ending in a newline; nothing at all for empty data.
    mutating func appendBase64Lines(_ data: [UInt8], indentation: Int) {
        let tabs = min(indentation, 8)
        let lineLength = Self.base64LineLimit - 8 * tabs  // 12...76, a multiple of 4
        let text = Array(Base64.encode(data).utf8)
        var start = 0
        while start < text.count {
            let end = min(start + lineLength, text.count)
            indent(tabs)
            bytes.append(contentsOf: text[start..<end])
            bytes.append(0x0A)
            start = end
        }
    }

    /// Shortest round-tripping decimal, without a trailing `.0`; `nan`, `+infinity`, `-infinity`.
    static func realText(_ r: Double) -> String {
        if r.isNaN { return "nan" }
        if r.isInfinite { return r < 0 ? "-infinity" : "+infinity" }
        let text = r.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }
}
