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
        var out = XMLPlistOutput(limits: limits)
        defer { out.deallocate() }
        out.append(XMLPlistOutput.header)
        do {
            try out.append(value, indentation: 0, depth: value.isCollection ? 1 : 0)
        } catch var error {
            error.path.reverse()
            let path = error.path.joined()
            throw PlistError(error.code, (path.isEmpty ? "" : "at \(path): ") + error.reason, format: "xml plist")
        }
        out.append("</plist>\n")
        return out.bytes()
    }
}

/// The growing byte buffer of ``XMLPlistWriter``: bytes appended in place (no text built per element and
/// copied), static markup from the binary's constant data.
private struct XMLPlistOutput {
    static let header: StaticString = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """
    /// Longest base64 line, tabs counted as 8 characters.
    static let base64LineLimit = 76

    /// A failure inside the value, with the path to it collected as the writer unwinds (innermost first):
    /// the path costs nothing while writing succeeds.
    struct Failure: Error {
        var code: PlistError.Code
        var reason: String
        var path: [String] = []
    }

    let limits: PlistLimits
    /// The output so far, written through a pointer: `Array.append` costs a call and a uniqueness check a
    /// time, and an XML plist is many short appends. Owned by this value; ``deallocate()`` frees it.
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int
    /// Reused for the text of a date or a base64 line.
    private var scratch: [UInt8] = []

    init(limits: PlistLimits) {
        self.limits = limits
        capacity = 4096
        base = .allocate(capacity: capacity)
        scratch.reserveCapacity(80)
    }

    /// Frees the buffer; the value is not used again.
    func deallocate() { base.deallocate() }

    /// A copy of the output.
    func bytes() -> [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    @inline(__always)
    private mutating func reserve(_ n: Int) {
        if n > capacity - count { grow(n) }
    }

    private mutating func grow(_ n: Int) {
        let newCapacity = max(capacity * 2, count + n)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ run: UnsafeBufferPointer<UInt8>) {
        guard let source = run.baseAddress else { return }
        reserve(run.count)
        (base + count).initialize(from: source, count: run.count)
        count += run.count
    }

    @inline(__always)
    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    mutating func appendScratch() {
        scratch.withUnsafeBufferPointer { append($0) }
        scratch.removeAll(keepingCapacity: true)
    }

    @inline(__always)
    mutating func indent(_ tabs: Int) {
        reserve(tabs)
        (base + count).initialize(repeating: 0x09, count: tabs)
        count += tabs
    }

    /// `text` with `&`, `<` and `>` escaped; runs without them are copied whole.
    mutating func appendEscaped(_ text: String) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { appendEscaped($0) }
        if done == nil {
            var copy = text
            copy.withUTF8 { appendEscaped($0) }
        }
    }

    mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var run = 0
        for i in 0..<utf8.count {
            let c = utf8[i]
            // One comparison for most bytes: `&` is 0x26, `<` 0x3C and `>` 0x3E.
            guard c <= 0x3E, c == 0x26 || c == 0x3C || c == 0x3E else { continue }
            append(UnsafeBufferPointer(rebasing: utf8[run..<i]))
            switch c {
            case 0x26: append("&amp;")
            case 0x3C: append("&lt;")
            default: append("&gt;")
            }
            run = i + 1
        }
        append(UnsafeBufferPointer(rebasing: utf8[run...]))
    }

    /// The decimal digits of `value`.
    mutating func appendDecimal(_ value: PlistInteger) {
        guard let v = value.int64Value else {
            var text = value.description
            return text.withUTF8 { append($0) }
        }
        if v < 0 { append(UInt8(ascii: "-")) }
        var magnitude = v.magnitude
        // 20 digits hold any UInt64.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var n = 20
            repeat {
                n -= 1
                digits[n] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            append(UnsafeBufferPointer(rebasing: digits[n..<20]))
        }
    }

    /// One element (or a container and its contents) starting at `indentation` tabs, ending with a newline.
    mutating func append(_ value: PlistValue, indentation: Int, depth: Int) throws(Failure) {
        if depth > limits.maxDepth {
            throw Failure(code: .depthLimitExceeded, reason: "nesting deeper than the limit of \(limits.maxDepth)")
        }
        indent(indentation)
        switch value {
        case .null:
            throw Failure(code: .unsupportedValue, reason: "XML plists cannot hold null")
        case .set:
            throw Failure(code: .unsupportedValue, reason: "XML plists cannot hold a set")
        case .bool(let b):
            if b { append("<true/>\n") } else { append("<false/>\n") }
        case .integer(let i):
            append("<integer>")
            appendDecimal(i)
            append("</integer>\n")
        case .real(let r):
            append("<real>")
            appendRealText(r)
            append("</real>\n")
        case .date(let d):
            append("<date>")
            guard ISO8601.append(d, to: &scratch) else {
                throw Failure(code: .unsupportedValue, reason: "date \(d.secondsSinceReferenceDate) has no ISO 8601 form")
            }
            appendScratch()
            append("</date>\n")
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
            append("<integer>")
            appendDecimal(PlistInteger(u.value))
            append("</integer>\n")
            indent(indentation)
            append("</dict>\n")
        case .array(let items):
            guard !items.isEmpty else { return append("<array/>\n") }
            append("<array>\n")
            for n in items.indices {
                let item = items[n]
                do {
                    try append(item, indentation: indentation + 1, depth: item.isCollection ? depth + 1 : depth)
                } catch {
                    var failure = error
                    failure.path.append("[\(n)]")
                    throw failure
                }
            }
            indent(indentation)
            append("</array>\n")
        case .dictionary(let dict):
            guard !dict.isEmpty else { return append("<dict/>\n") }
            // Apple's readers and writers keep keys sorted: check, and sort only a dictionary that is not.
            var sorted = true
            var previous: String?
            for entry in dict.entries {
                guard case .string(let key) = entry.key else {
                    throw Failure(code: .invalidKey,
                                  reason: "XML plist dictionary keys must be strings, not \(entry.key.kindName)")
                }
                if let previous, Self.utf16Precedes(key, previous) {
                    sorted = false
                    break
                }
                previous = key
            }
            append("<dict>\n")
            if sorted {
                for entry in dict.entries {
                    guard case .string(let key) = entry.key else { continue }  // checked above
                    try appendEntry(key, entry.value, indentation: indentation, depth: depth)
                }
            } else {
                var entries: [(key: String, value: PlistValue)] = []
                entries.reserveCapacity(dict.count)
                for entry in dict.entries {
                    guard case .string(let key) = entry.key else {
                        throw Failure(code: .invalidKey,
                                      reason: "XML plist dictionary keys must be strings, not \(entry.key.kindName)")
                    }
                    entries.append((key, entry.value))
                }
                // Stable, so that duplicate keys keep their order and the output stays deterministic.
                // Code units, not `String.<`: canonically equivalent keys ("é", "e\u{301}") stay distinct.
                entries = entries.enumerated().sorted {
                    Self.utf16Precedes($0.element.key, $1.element.key)
                        || (!Self.utf16Precedes($1.element.key, $0.element.key) && $0.offset < $1.offset)
                }.map(\.element)
                for (key, item) in entries { try appendEntry(key, item, indentation: indentation, depth: depth) }
            }
            indent(indentation)
            append("</dict>\n")
        }
    }

    /// One `<key>` and its value, inside a dictionary at `indentation` tabs.
    mutating func appendEntry(_ key: String, _ item: PlistValue, indentation: Int, depth: Int) throws(Failure) {
        indent(indentation + 1)
        append("<key>")
        appendEscaped(key)
        append("</key>\n")
        do {
            try append(item, indentation: indentation + 1, depth: item.isCollection ? depth + 1 : depth)
        } catch {
            var failure = error
            failure.path.append("." + key)
            throw failure
        }
    }

    /// Whether `a` sorts before `b` by UTF-16 code units, as `CFStringCompare` sorts keys. UTF-8 bytes sort
    /// as code points, which is the UTF-16 order but for one case: a character past U+FFFF (a surrogate pair
    /// in UTF-16, lead byte F0...F4 in UTF-8) sorts before one in U+E000...U+FFFF (lead byte EE or EF).
    static func utf16Precedes(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let n = min(x.count, y.count)
                var i = 0
                while i < n {
                    let (p, q) = (x[i], y[i])
                    if p != q {
                        if p >= 0xF0 && (q == 0xEE || q == 0xEF) { return true }
                        if q >= 0xF0 && (p == 0xEE || p == 0xEF) { return false }
                        return p < q
                    }
                    i += 1
                }
                return x.count < y.count
            }
        }
    }

    /// Base64 lines as Apple lays them out: each indented like the `<data>` tag (at most 8 tabs), each at most
    /// `76 - 8 × tabs` characters long, each ending in a newline; nothing at all for empty data.
    mutating func appendBase64Lines(_ data: [UInt8], indentation: Int) {
        let tabs = min(indentation, 8)
        let groupsPerLine = (Self.base64LineLimit - 8 * tabs) / 4  // 3...19 groups of 4 characters
        let lines = (data.count + 3 * groupsPerLine - 1) / (3 * groupsPerLine)
        reserve((data.count + 2) / 3 * 4 + lines * (tabs + 1))
        data.withUnsafeBufferPointer { input in
            Base64.alphabet.withUnsafeBufferPointer { table in
                var start = 0
                while start < input.count {
                    let end = min(start + 3 * groupsPerLine, input.count)
                    (base + count).initialize(repeating: 0x09, count: tabs)
                    count += tabs
                    var i = start
                    var out = base + count
                    while i + 3 <= end {
                        let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                        out[0] = table[Int(v >> 18 & 63)]
                        out[1] = table[Int(v >> 12 & 63)]
                        out[2] = table[Int(v >> 6 & 63)]
                        out[3] = table[Int(v & 63)]
                        out += 4
                        i += 3
                    }
                    if end - i == 1 {
                        let v = UInt32(input[i]) << 16
                        out[0] = table[Int(v >> 18 & 63)]; out[1] = table[Int(v >> 12 & 63)]; out[2] = 61; out[3] = 61
                        out += 4
                    } else if end - i == 2 {
                        let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
                        out[0] = table[Int(v >> 18 & 63)]; out[1] = table[Int(v >> 12 & 63)]
                        out[2] = table[Int(v >> 6 & 63)]; out[3] = 61
                        out += 4
                    }
                    out[0] = 0x0A
                    count = out + 1 - base
                    start = end
                }
            }
        }
    }

    /// Shortest round-tripping decimal, without a trailing `.0`; `nan`, `+infinity`, `-infinity`.
    mutating func appendRealText(_ r: Double) {
        if r.isNaN { return append("nan") }
        if r.isInfinite { return r < 0 ? append("-infinity") : append("+infinity") }
        if let whole = Int64(exactly: r), whole.magnitude < 1 << 53 {
            // `description` writes these as digits and `.0` (never with an exponent below 2^53).
            if whole == 0 && r.sign == .minus { return append("-0") }
            return appendDecimal(PlistInteger(whole))
        }
        var text = r.description
        text.withUTF8 { utf8 in
            let n = utf8.count
            let trim = n >= 2 && utf8[n - 2] == UInt8(ascii: ".") && utf8[n - 1] == UInt8(ascii: "0") ? 2 : 0
            append(UnsafeBufferPointer(rebasing: utf8[..<(n - trim)]))
        }
    }
}
