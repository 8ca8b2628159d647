import BinaryPlist

/// The one error that archiving or unarchiving throws.
///
/// It carries a ``Code`` from an open set (match it in `catch`), where it happened (the `$objects` index, the
/// key path from the root, the `$classes` chain of the object being read) and a one-line reason:
///
/// ```swift
/// do { _ = try KeyedUnarchiver.unarchivedObject(ofType: Contents.self, from: bytes, registry: registry) }
/// catch let error as KeyedArchiveError where error.code == .unknownClass { print(error) }
/// // keyed archive: object 7 (Hexagon < Shape < NSObject) at root.shapes.3: class "Hexagon" is not registered
/// ```
///
/// Mirrors the `NSCoderReadCorruptError` / `NSCoderValueNotFoundError` family of `NSCocoaErrorDomain` errors.
public struct KeyedArchiveError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong. An open set: new codes may be added without breaking callers.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name (`"unknownClass"`).
        public let rawValue: String
        /// The code named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// The bytes are not a property list, or the plist is malformed (see ``KeyedArchiveError/underlying``).
        public static let invalidPlist = Code(rawValue: "invalidPlist")
        /// `$archiver`, `$version`, `$top` or `$objects` is missing or wrong, or `$objects[0]` is not `$null`.
        public static let invalidHeader = Code(rawValue: "invalidHeader")
        /// `$archiver` names an archiver the reader does not accept (by default anything but
        /// "NSKeyedArchiver"); ``KeyedArchiveError/archiver`` holds the name. See ``AcceptedArchivers``.
        public static let foreignArchiver = Code(rawValue: "foreignArchiver")
        /// A UID points outside `$objects`.
        public static let invalidReference = Code(rawValue: "invalidReference")
        /// `$class` is missing or malformed, or a class dictionary lacks `$classname` / `$classes`.
        public static let invalidClass = Code(rawValue: "invalidClass")
        /// The class is neither a standard class nor registered.
        public static let unknownClass = Code(rawValue: "unknownClass")
        /// Secure decoding: the class is not among the allowed types.
        public static let classNotAllowed = Code(rawValue: "classNotAllowed")
        /// The value found is not of the requested type.
        public static let typeMismatch = Code(rawValue: "typeMismatch")
        /// A required value is missing (or is `$null`).
        public static let valueNotFound = Code(rawValue: "valueNotFound")
        /// An integer does not fit the requested width.
        public static let outOfRange = Code(rawValue: "outOfRange")
        /// A standard class's fields are malformed (`NS.keys`/`NS.objects` lengths, `NS.uuidbytes` size, a NaN date...).
        public static let invalidValue = Code(rawValue: "invalidValue")
        /// An object refers back to itself before its `init(coder:)` finished, and no deferred decode was used.
        public static let cycle = Code(rawValue: "cycle")
        /// Nesting deeper than the depth limit.
        public static let depthLimitExceeded = Code(rawValue: "depthLimitExceeded")
        /// More objects would be decoded than the element limit allows.
        public static let elementLimitExceeded = Code(rawValue: "elementLimitExceeded")
        /// A value of a Swift type the archiver cannot write.
        public static let unsupportedType = Code(rawValue: "unsupportedType")
    }

    /// What went wrong; match it in `catch` (`catch KeyedArchiveError.Code.cycle`).
    public var code: Code
    /// Index in `$objects` of the object being read or written, when known.
    public var objectIndex: Int?
    /// Keys from the root to the value, joined by dots (`root.shapes.3.style`), when known.
    public var keyPath: String?
    /// The `$classes` chain of the object being read, when known.
    public var classChain: [String]?
    /// One-line reason.
    public var reason: String
    /// The property-list error behind an ``Code/invalidPlist`` error.
    public var underlying: PlistError?
    /// The `$archiver` name of the archive, for a ``Code/foreignArchiver`` error.
    public var archiver: String?

    /// An error with `code`, a one-line `reason` and where it happened.
    public init(_ code: Code, _ reason: String, objectIndex: Int? = nil, keyPath: String? = nil,
                classChain: [String]? = nil, underlying: PlistError? = nil, archiver: String? = nil) {
        self.code = code
        self.reason = reason
        self.objectIndex = objectIndex
        self.keyPath = keyPath
        self.classChain = classChain
        self.underlying = underlying
        self.archiver = archiver
    }

    /// `keyed archive: object 7 (Hexagon < Shape < NSObject) at root.shapes.3: class "Hexagon" is not registered`
    public var description: String {
        var s = "keyed archive:"
        if let objectIndex { s += " object \(objectIndex)" }
        if let classChain, !classChain.isEmpty { s += " (" + classChain.joined(separator: " < ") + ")" }
        if let keyPath, !keyPath.isEmpty { s += " at " + keyPath }
        return s + (objectIndex == nil && keyPath == nil && classChain == nil ? " " : ": ") + reason
    }
}

extension KeyedArchiveError.Code {
    /// Lets `catch KeyedArchiveError.Code.cycle` match any error with that code.
    public static func ~= (code: KeyedArchiveError.Code, error: any Error) -> Bool {
        (error as? KeyedArchiveError)?.code == code
    }
}
