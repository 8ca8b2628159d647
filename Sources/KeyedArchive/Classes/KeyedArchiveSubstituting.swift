/// An archivable type that stands in for another object when archived, or hands back another object once
/// unarchived: a singleton that must stay unique, a proxy archived as what it represents, a private subclass
/// archived as its public superclass. Each method has a default that keeps the object as it is; implement
/// the ones you need.
///
/// ```swift
/// final class Palette: KeyedArchiveSubstituting {
///     static let shared = Palette()
///     // Every decoded palette becomes the shared one.
///     func awakeAfter(using unarchiver: KeyedUnarchiver) throws -> Any? { Palette.shared }
///     ...
/// }
/// ```
///
/// In a class hierarchy, implement the methods in the class that declares the conformance (and override
/// them in subclasses): a subclass cannot override a default it did not inherit as a method.
///
/// The archiver's and unarchiver's own hooks (``KeyedArchiver/willEncode``, ``KeyedUnarchiver/didDecode``)
/// see every object, after these methods.
///
/// Mirrors `NSObject.replacementObject(for:)`, `NSObject.classForKeyedArchiver` and
/// `NSObject.awakeAfter(using:)`.
public protocol KeyedArchiveSubstituting: KeyedArchivable {
    /// The object to archive in place of this one (`nil` archives `$null`). Called once per instance: later
    /// references to the same instance refer to what its first call returned. The replacement's own
    /// `replacementObject(for:)` is not called. Default: `self`.
    /// Mirrors `NSObject.replacementObject(for:)` (`replacementObjectForKeyedArchiver:`).
    func replacementObject(for archiver: KeyedArchiver) -> Any?

    /// The type whose class name and `$classes` chain are written for this object (its own
    /// `encode(with:)` still writes the fields); ``KeyedArchiver/setClassName(_:for:)`` applies to that
    /// type. Default: the object's own type.
    /// Mirrors `NSObject.classForKeyedArchiver`.
    var classForKeyedArchiver: any KeyedArchivable.Type { get }

    /// The object to hand back in place of this one, just decoded (`nil` decodes as `$null` would). It
    /// replaces this object for every reference to it in the archive. Called after `init(coder:)` with the
    /// unarchiver still on this object's keys. Default: `self`.
    /// Mirrors `NSObject.awakeAfter(using:)`.
    func awakeAfter(using unarchiver: KeyedUnarchiver) throws -> Any?
}

extension KeyedArchiveSubstituting {
    /// By default an object is archived as itself. Mirrors `NSObject.replacementObject(for:)`.
    public func replacementObject(for archiver: KeyedArchiver) -> Any? { self }
    /// By default an object is archived under its own class. Mirrors `NSObject.classForKeyedArchiver`.
    public var classForKeyedArchiver: any KeyedArchivable.Type { type(of: self) }
    /// By default a decoded object stands for itself. Mirrors `NSObject.awakeAfter(using:)`.
    public func awakeAfter(using unarchiver: KeyedUnarchiver) throws -> Any? { self }
}

extension KeyedUnarchiver {
    /// Called with every object decoded through the NSCoding-style API (custom classes after
    /// `awakeAfter(using:)`, standard values such as strings and arrays, `ArchivedObject`s), once per
    /// archived object; what it returns is decoded in its place, for every reference to that object (`nil`
    /// decodes as `$null` would). Scalars stored inline are not objects and are not passed. Set it before
    /// decoding; Codable types decoded through the Codable bridge are passed whole, not their contents.
    ///
    /// ```swift
    /// try KeyedUnarchiver.withUnarchiver(for: bytes, registry: registry) { unarchiver in
    ///     unarchiver.didDecode = { object in (object as? String).map { $0.uppercased() } ?? object }
    ///     return try unarchiver.decodeTopLevelObject(of: Contents.self, forKey: "root")
    /// }
    /// ```
    ///
    /// Mirrors `NSKeyedUnarchiverDelegate.unarchiver(_:didDecode:)`.
    public var didDecode: ((Any) throws -> Any?)? {
        get { state.pointee.didDecode }
        set {
            state.pointee.didDecode = newValue
            state.pointee.hooked = newValue != nil
        }
    }
}

extension KeyedArchiver {
    /// Called with every object about to be encoded (after its `replacementObject(for:)`), once per class
    /// instance (later references to an instance reuse the first result) and at each use of a value; what it
    /// returns is encoded instead (`nil` writes `$null`), and is not passed to the hook again. Not called
    /// for `nil`, nor for scalars written inline. Set it before encoding.
    ///
    /// ```swift
    /// let archiver = KeyedArchiver()
    /// archiver.willEncode = { object in object is Cache ? nil : object }   // never archive caches
    /// archiver.encode(document, forKey: "root")
    /// ```
    ///
    /// Mirrors `NSKeyedArchiverDelegate.archiver(_:willEncode:)`.
    public var willEncode: ((Any) -> Any?)? {
        get { state.pointee.willEncode }
        set {
            state.pointee.willEncode = newValue
            state.pointee.hooked = newValue != nil
        }
    }
}
