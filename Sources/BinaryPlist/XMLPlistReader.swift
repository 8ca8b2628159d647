/// Reads an XML property list into a ``PlistValue``.
///
/// ```swift
/// let value = try XMLPlistReader().decode(Array(xmlText.utf8))
/// ```
///
/// A small XML tokenizer that knows exactly what plists need: the XML declaration, comments, processing
/// instructions, CDATA sections, the five predefined entities and numeric character references, and the
/// elements `plist` (optional wrapper; attributes ignored), `dict`/`key`, `array`, `string`, `integer`,
/// `real`, `true`, `false`, `date` and `data`, each also self-closing (`<string/>` is the empty string). It
/// keeps an explicit stack, so deep nesting never recurses, and stops at ``PlistLimits/maxDepth``,
/// ``PlistLimits/maxElements`` and ``PlistLimits/maxInputBytes``.
///
/// What it accepts, following CoreFoundation:
/// - Text inside `<string>` and `<key>` is kept verbatim (whitespace and line ends included; no `\r\n`
///   normalization); whitespace between elements is ignored; other text between elements is an error.
/// - `<integer>`: decimal or `0x` hexadecimal, an optional sign, surrounding whitespace; any value from
///   −2^127 to 2^127−1 (``PlistInteger``); anything else is an error.
/// - `<real>`: a decimal number with optional exponent, or (any case) `nan`, `inf`, `infinity`, each with an
///   optional sign; hexadecimal floats are refused.
/// - `<date>`: `YYYY-MM-DDTHH:MM:SSZ` in UTC, also with a fractional second or a signed or longer year.
/// - `<data>`: base64, whitespace ignored.
/// - A dictionary whose only key is `CF$UID` with an integer from 0 to 2^64−1 reads as ``PlistValue/uid(_:)``,
///   as CoreFoundation reads it; any other dictionary stays a dictionary.
/// - A key that appears twice in one dictionary (same code units): the last value wins, at the position of
///   the first (as `CFDictionarySetValue` keeps the last).
/// - Input must be UTF-8 (a byte-order mark is fine); an XML declaration naming another encoding, or a UTF-16
///   byte-order mark, is an ``PlistError/Code/invalidXML`` error. Invalid UTF-8 inside strings follows
///   ``PlistLimits/stringPolicy``: lenient reading replaces it with U+FFFD, strict throws
///   ``PlistError/Code/invalidString``. Control characters are accepted raw (Apple writes them raw), and as
///   character references except `&#0;`.
///
/// What it refuses: a DOCTYPE with an internal subset (`[...]`) or any `<!ENTITY` declaration
/// (``PlistError/Code/forbiddenDTD``: no entity expansion, so no "billion laughs"); unknown entity references,
/// references to surrogates or beyond U+10FFFF; unknown elements; mismatched or unterminated tags; content
/// after the top value. Every error carries the byte offset, and its reason starts with `line L, column C`.
///
/// Mirrors `PropertyListSerialization.propertyList(from:options:format:)` on XML input /
/// `CFPropertyListCreateWithData`.
package struct XMLPlistReader {
    /// The limits reading enforces.
    package var limits: PlistLimits

    /// A reader that enforces `limits`.
    package init(limits: PlistLimits = .default) { self.limits = limits }

    /// The value the XML plist `bytes` holds.
    package func decode(_ bytes: [UInt8]) throws -> PlistValue {
        guard bytes.count <= limits.maxInputBytes else {
            throw PlistError(
                .invalidCount, "input of \(bytes.count) bytes exceeds the limit of \(limits.maxInputBytes)",
                byteOffset: 0, format: "xml plist")
        }
        return try bytes.withUnsafeBufferPointer { input in
            var parser = XMLPlistParser(bytes: input, limits: limits, sink: PlistTreeSink())
            return try parser.parseDocument()
        }
    }

    /// The XML plist `bytes` as a binary plist document, read in one pass: each value becomes an object of
    /// the document as its element ends, with no ``PlistValue`` tree in between. Keyed archives in XML are
    /// read this way, so that one object accessor (``BinaryPlistObjects``) serves both formats.
    package func binaryDocument(_ bytes: [UInt8]) throws -> BinaryPlistDocument {
        guard bytes.count <= limits.maxInputBytes else {
            throw PlistError(
                .invalidCount, "input of \(bytes.count) bytes exceeds the limit of \(limits.maxInputBytes)",
                byteOffset: 0, format: "xml plist")
        }
        let table = try bytes.withUnsafeBufferPointer { input in
            var parser = XMLPlistParser(bytes: input, limits: limits, sink: BinaryPlistTableSink(inputSize: input.count))
            let top = try parser.parseDocument()
            return parser.sink.finish(top: top)
        }
        return try BinaryPlistDocument(table, limits: limits)
    }
}
