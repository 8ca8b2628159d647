import ArchiveModel
import KeyedArchive

/// The one error that reading or writing a typedstream throws.
///
/// It carries a ``Code`` from an open set (match it in `catch`), the byte offset where the item being read
/// starts, the object being decoded (its number in the stream's object table and its class) and a one-line
/// reason:
///
/// ```swift
/// do { _ = try TypedStreamUnarchiver.unarchiveObject(with: bytes) }
/// catch TypedStreamError.Code.truncated { print("cut short") }
/// // typedstream: byte 57 in object 4 (NSString): a 200-byte string runs past the 12 bytes left
/// ```
///
/// Mirrors the `NSInternalInconsistencyException` / `NSArchiverArchiveInconsistency` exceptions that
/// `NSUnarchiver` raises, as a value.
public struct TypedStreamError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong. An open set: new codes may be added without breaking callers.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name (`"truncated"`).
        public let rawValue: String
        /// The code named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// The bytes do not start with a typedstream header (`\u{4}\u{b}streamtyped` or `typedstream`).
        public static let invalidHeader = Code(rawValue: "invalidHeader")
        /// The streamer version is not 4 (version 3, NeXTSTEP's oldest, is not read).
        public static let unsupportedVersion = Code(rawValue: "unsupportedVersion")
        /// The stream ends inside a value.
        public static let truncated = Code(rawValue: "truncated")
        /// A byte that is not valid where it stands (a reserved tag, an end of object outside one, a nil type string).
        public static let invalidTag = Code(rawValue: "invalidTag")
        /// A reference to an object, class, C string or shared string that was not read before, or of another kind.
        public static let invalidReference = Code(rawValue: "invalidReference")
        /// A type-encoding string that does not parse (`{i`, `[c]`, an unknown type character).
        public static let invalidTypeEncoding = Code(rawValue: "invalidTypeEncoding")
        /// The stream holds values of other types than the ones asked for.
        public static let typeMismatch = Code(rawValue: "typeMismatch")
        /// An integer does not fit the type it is read as.
        public static let outOfRange = Code(rawValue: "outOfRange")
        /// A Foundation object's contents are malformed (a string that is not UTF-8, attribute runs past the string...).
        public static let invalidValue = Code(rawValue: "invalidValue")
        /// The class is not registered and unknown classes are not allowed.
        public static let unknownClass = Code(rawValue: "unknownClass")
        /// An object refers back to an object of a value type (an array, a dictionary, a registered struct or a
        /// class whose `init` has not returned) that is still being decoded.
        public static let cycle = Code(rawValue: "cycle")
        /// Objects, class chains or type encodings nest deeper than the depth limit.
        public static let depthLimitExceeded = Code(rawValue: "depthLimitExceeded")
        /// More objects or elements than the element limit allows, or a count larger than the bytes left.
        public static let elementLimitExceeded = Code(rawValue: "elementLimitExceeded")
        /// Bytes after the root object (`unarchiveObject(with:)` reads exactly one).
        public static let trailingData = Code(rawValue: "trailingData")
        /// The archiver was given a value that a typedstream cannot express.
        public static let unsupportedType = Code(rawValue: "unsupportedType")
        /// Converting to or from a keyed archive failed on the keyed side (see ``TypedStreamError/underlying``).
        public static let keyedArchive = Code(rawValue: "keyedArchive")
    }

    /// What went wrong; match it in `catch` (`catch TypedStreamError.Code.truncated`).
    public var code: Code
    /// Offset in the stream of the item that could not be read, when reading.
    public var offset: Int?
    /// Number, in the stream's object table, of the innermost object being decoded, when known.
    public var objectIndex: Int?
    /// Class of the innermost object being decoded, when known.
    public var className: String?
    /// One-line reason.
    public var reason: String
    /// The keyed-archive error behind a ``Code/keyedArchive`` error.
    public var underlying: KeyedArchiveError?

    /// An error with `code`, a one-line `reason` and where it happened.
    public init(_ code: Code, _ reason: String, offset: Int? = nil, objectIndex: Int? = nil, className: String? = nil,
                underlying: KeyedArchiveError? = nil) {
        self.code = code
        self.reason = reason
        self.offset = offset
        self.objectIndex = objectIndex
        self.className = className
        self.underlying = underlying
    }

    /// `typedstream: byte 57 in object 4 (NSString): a 200-byte string runs past the 12 bytes left`
    public var description: String {
        var s = "typedstream:"
        if let offset { s += " byte \(offset)" }
        if let objectIndex { s += (offset == nil ? " object \(objectIndex)" : " in object \(objectIndex)") }
        if let className { s += " (\(className))" }
        return s + (offset == nil && objectIndex == nil && className == nil ? " " : ": ") + reason
    }
}

extension TypedStreamError.Code {
    /// Lets `catch TypedStreamError.Code.truncated` match any error with that code.
    public static func ~= (code: TypedStreamError.Code, error: any Error) -> Bool {
        (error as? TypedStreamError)?.code == code
    }
}
