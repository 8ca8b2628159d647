/// The two on-disk forms of a property list.
///
/// Mirrors `PropertyListSerialization.PropertyListFormat` (`.binary`, `.xml`; the OpenStep form is not written).
///
/// Frozen: these are the forms Apple writes; the OpenStep form is read-only in Foundation and stays out.
public enum PlistFormat: String, Sendable, Hashable, CaseIterable {
    /// The binary format, `bplist00`.
    case binary
    /// Apple's XML format, version 1.0.
    case xml
}

/// Reading and writing of property lists in either format: the one entry point of the codec.
///
/// ```swift
/// let value = try PropertyList.decode(bytes)              // binary or XML, detected
/// let format = PropertyList.detectFormat(bytes)           // .binary, .xml or nil, from the first bytes
/// let xml = try PropertyList.encode(value, format: .xml)
/// ```
///
/// A read that needs no tree pulls the events of a binary plist itself (``BinaryPlistDocument``).
///
/// Mirrors `PropertyListSerialization.propertyList(from:options:format:)` and
/// `PropertyListSerialization.data(fromPropertyList:format:options:)`.
public enum PropertyList {
    /// The format of `bytes`, judged from its first bytes: `bplist0` is binary, `<` (after optional
    /// whitespace or a UTF-8 byte-order mark) is XML. `nil` when neither.
    public static func detectFormat(_ bytes: [UInt8]) -> PlistFormat? {
        if BinaryPlistDocument.hasMagic(bytes) { return .binary }
        var i = 0
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { i = 3 }
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
        if i < bytes.count && bytes[i] == UInt8(ascii: "<") { return .xml }
        return nil
    }

    /// Decodes a binary or XML plist, whichever `bytes` hold (as ``detectFormat(_:)`` tells).
    ///
    /// A binary plist is read as CoreFoundation reads it (<doc:BinaryPlistFormat>). An XML plist is read as
    /// `CFPropertyListCreateWithData` reads it: UTF-8 input (a byte-order mark is fine); the elements `plist`,
    /// `dict`/`key`, `array`, `string`, `integer` (decimal or `0x` hexadecimal, up to 128 bits), `real`,
    /// `true`, `false`, `date` (`YYYY-MM-DDTHH:MM:SSZ`) and `data` (base64); a dictionary whose only key is
    /// `CF$UID` as a ``PlistValue/uid(_:)``; a key repeated in one dictionary keeps its last value at its
    /// first position. A DOCTYPE with an internal subset or an `<!ENTITY` declaration is refused
    /// (``PlistError/Code/forbiddenDTD``: no entity expansion), as are unknown elements and entities, and
    /// every XML error's reason starts with `line L, column C`.
    ///
    /// - Throws: ``PlistError``, with the byte offset (and, for a binary plist, the object index) where
    ///   reading stopped; ``PlistError/Code/unknownFormat`` for bytes that are neither format.
    public static func decode(_ bytes: [UInt8], limits: PlistLimits = .default) throws -> PlistValue {
        try decodeWithFormat(bytes, limits: limits).value
    }

    /// Decodes a binary or XML plist and tells which format it was (the tools' and tests' shortcut for
    /// ``detectFormat(_:)`` and ``decode(_:limits:)``).
    package static func decodeWithFormat(_ bytes: [UInt8], limits: PlistLimits = .default) throws
        -> (value: PlistValue, format: PlistFormat)
    {
        switch detectFormat(bytes) {
        case .binary:
            return (try BinaryPlistDocument(bytes, limits: limits).decodeTopObject(), .binary)
        case .xml:
            return (try XMLPlistReader(limits: limits).decode(bytes), .xml)
        case nil:
            if bytes.count < 8 && Array("bplist00".utf8).starts(with: bytes) {
                throw PlistError(.truncated, "\(bytes.count) bytes is shorter than the 8-byte header", byteOffset: 0)
            }
            throw PlistError(.unknownFormat, "neither a binary plist ('bplist0') nor an XML plist", byteOffset: 0, format: "plist")
        }
    }

    /// Encodes `value` in `format`. The same value always gives the same bytes.
    ///
    /// A binary plist is written as CoreFoundation writes one: objects depth first from the top, scalars
    /// uniqued by value (reals and dates by bit pattern), collections never, the smallest offset and
    /// reference widths. An XML plist is written in the layout of Apple's writer, byte for byte (tabs, keys
    /// sorted by UTF-16 code unit, base64 lines), but for reals, written in their shortest round-tripping form
    /// as swift-foundation writes them (`3.14`, not `3.1400000000000001`).
    ///
    /// - Throws: ``PlistError``: ``PlistError/Code/depthLimitExceeded`` past ``PlistLimits/maxDepth``;
    ///   ``PlistError/Code/invalidKey`` for a collection as a dictionary key (in XML, any key that is not a
    ///   string); ``PlistError/Code/unsupportedValue`` in XML for `.null`, a set, or a date with no XML form.
    public static func encode(_ value: PlistValue, format: PlistFormat = .binary, limits: PlistLimits = .default)
        throws -> [UInt8]
    {
        switch format {
        case .binary: try BinaryPlistWriter(limits: limits).encode(value)
        case .xml: try XMLPlistWriter(limits: limits).encode(value)
        }
    }
}
