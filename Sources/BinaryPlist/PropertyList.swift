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

/// One-call reading and writing of property lists in either format.
///
/// ```swift
/// let value = try PropertyList.decode(bytes)              // binary or XML, detected
/// let xml = try PropertyList.encode(value, format: .xml)
/// ```
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

    /// Decodes a binary or XML plist.
    public static func decode(_ bytes: [UInt8], limits: PlistLimits = .default) throws -> PlistValue {
        try decodeWithFormat(bytes, limits: limits).value
    }

    /// Decodes a binary or XML plist and tells which format it was.
    public static func decodeWithFormat(_ bytes: [UInt8], limits: PlistLimits = .default) throws
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

    /// Encodes `value` in `format`.
    public static func encode(_ value: PlistValue, format: PlistFormat = .binary, limits: PlistLimits = .default)
        throws -> [UInt8]
    {
        switch format {
        case .binary: try BinaryPlistWriter(limits: limits).encode(value)
        case .xml: try XMLPlistWriter(limits: limits).encode(value)
        }
    }
}
