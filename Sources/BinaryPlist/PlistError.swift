/// The one error that reading or writing a property list throws.
///
/// It carries a ``Code`` from an open set (match it in `catch`), where it happened (byte offset, object index,
/// key path, XML line) and a one-line reason:
///
/// ```swift
/// do { _ = try PropertyList.decode(bytes) }
/// catch let error as PlistError where error.code == .truncated { ... }
/// ```
///
/// Mirrors the `NSPropertyListReadCorruptError` family of `NSCocoaErrorDomain` errors, with more context.
public struct PlistError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong. An open set: new codes may be added without breaking callers.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name (`"truncated"`).
        public let rawValue: String
        /// The code named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// The bytes end before the structure they promise.
        public static let truncated = Code(rawValue: "truncated")
        /// Neither `bplist0?` nor an XML plist.
        public static let unknownFormat = Code(rawValue: "unknownFormat")
        /// A trailer field is out of range (widths, object count, top object, offset table position).
        public static let invalidTrailer = Code(rawValue: "invalidTrailer")
        /// An object offset points outside the object area.
        public static let invalidOffset = Code(rawValue: "invalidOffset")
        /// A marker byte names no object type this reader knows.
        public static let invalidMarker = Code(rawValue: "invalidMarker")
        /// A count or size exceeds the bytes left, or overflows.
        public static let invalidCount = Code(rawValue: "invalidCount")
        /// An object reference is not below the object count.
        public static let invalidReference = Code(rawValue: "invalidReference")
        /// A collection contains itself, directly or through others.
        public static let cycle = Code(rawValue: "cycle")
        /// Nesting is deeper than ``PlistLimits/maxDepth``.
        public static let depthLimitExceeded = Code(rawValue: "depthLimitExceeded")
        /// More values would be materialized than ``PlistLimits/maxElements`` allows.
        public static let elementLimitExceeded = Code(rawValue: "elementLimitExceeded")
        /// A string's bytes are not valid in its encoding (strict mode), or a string is too long.
        public static let invalidString = Code(rawValue: "invalidString")
        /// A dictionary key is a collection, or (where required) not a string.
        public static let invalidKey = Code(rawValue: "invalidKey")
        /// A value of a kind the target format cannot hold (null in XML, a UID wider than 64 bits...).
        public static let unsupportedValue = Code(rawValue: "unsupportedValue")
        /// The XML is not well formed, or not a plist.
        public static let invalidXML = Code(rawValue: "invalidXML")
        /// The XML declares entities or an internal DTD subset, which are refused.
        public static let forbiddenDTD = Code(rawValue: "forbiddenDTD")
        /// plist-JSON text that does not describe a plist.
        public static let invalidJSON = Code(rawValue: "invalidJSON")
    }

    /// What went wrong; match it in `catch` (`catch PlistError.Code.truncated`).
    public var code: Code
    /// Byte offset in the input where the problem was seen, when known.
    public var byteOffset: Int?
    /// Index of the binary-plist object being read, when known.
    public var objectIndex: Int?
    /// One-line reason.
    public var reason: String
    /// Format label for the message ("bplist", "xml plist", "plist-json").
    public var format: String

    /// An error with `code`, a one-line `reason` and where it was found.
    @usableFromInline package init(_ code: Code, _ reason: String, byteOffset: Int? = nil, objectIndex: Int? = nil, format: String = "bplist") {
        self.code = code
        self.reason = reason
        self.byteOffset = byteOffset
        self.objectIndex = objectIndex
        self.format = format
    }

    /// `bplist: object 12 at byte 4410: count 2^62 exceeds the 300 bytes left`
    public var description: String {
        var s = format + ":"
        if let objectIndex { s += " object \(objectIndex)" }
        if let byteOffset {
            s += objectIndex == nil ? " at byte \(byteOffset)" : " at byte \(byteOffset)"
        }
        return s + (objectIndex == nil && byteOffset == nil ? " " : ": ") + reason
    }
}

extension PlistError.Code {
    /// Lets `catch PlistError.Code.truncated` match any error with that code.
    public static func ~= (code: PlistError.Code, error: any Error) -> Bool {
        (error as? PlistError)?.code == code
    }
}
