/// A type that can be written to and read from a keyed archive: `NSCoding` in Swift's vocabulary.
///
/// Classes and structs may conform. A class hierarchy encodes its superclass's keys by calling `super`:
///
/// ```swift
/// class Rectangle: KeyedArchivable {
///     var origin: (x: Double, y: Double) = (0, 0)
///     required init(coder: KeyedUnarchiver) throws {
///         origin = (try coder.decode(Double.self, forKey: "origin.x"), try coder.decode(Double.self, forKey: "origin.y"))
///     }
///     func encode(with coder: KeyedArchiver) {
///         coder.encode(origin.x, forKey: "origin.x")
///         coder.encode(origin.y, forKey: "origin.y")
///     }
/// }
/// final class RoundedRectangle: Rectangle {
///     var cornerRadius = 0.0
///     required init(coder: KeyedUnarchiver) throws {
///         cornerRadius = try coder.decode(Double.self, forKey: "cornerRadius")
///         try super.init(coder: coder)
///     }
///     override func encode(with coder: KeyedArchiver) {
///         super.encode(with: coder)
///         coder.encode(cornerRadius, forKey: "cornerRadius")
///     }
/// }
/// ```
///
/// The archived `$classes` chain of `RoundedRectangle` is then `["RoundedRectangle", "Rectangle", "NSObject"]`.
///
/// Mirrors `NSCoding` / `NSSecureCoding` (`encode(with:)`, `init?(coder:)`) and `classForKeyedArchiver`.
public protocol KeyedArchivable: SendableMetatype {
    /// The name written as `$classname`. Default: the unqualified Swift type name (`"RoundedRectangle"`).
    /// A non-final class that overrides it should declare it as `class var` so that subclasses can too.
    static var archivedClassName: String { get }

    /// The names written after the class's own name in `$classes`. Default: the archived names of the
    /// archivable superclasses of a class, nearest first, then `"NSObject"`; `["NSObject"]` for a struct.
    static var archivedSuperclassNames: [String] { get }

    /// Writes the value's keys. Failures (such as the depth limit) are recorded by the archiver and thrown
    /// when the archive is finished.
    func encode(with coder: KeyedArchiver)

    /// Reads the value's keys.
    init(coder: KeyedUnarchiver) throws

    /// The instance whose identity decides sharing: `self` for a class, `nil` for a value type. Provided by
    /// the library; do not implement it.
    var keyedArchiveIdentity: AnyObject? { get }
}

extension KeyedArchivable {
    public var keyedArchiveIdentity: AnyObject? { nil }
}

extension KeyedArchivable where Self: AnyObject {
    public var keyedArchiveIdentity: AnyObject? { self }
}

extension KeyedArchivable {
    public static var archivedClassName: String { String(describing: self) }  // `self`: the dynamic type, so a subclass gets its own name

    public static var archivedSuperclassNames: [String] {
        var names: [String] = []
        if let cls = self as? AnyClass {
            var next: AnyClass? = _getSuperclass(cls)
            while let c = next {
                if let archivable = c as? any KeyedArchivable.Type { names.append(archivable.archivedClassName) }
                next = _getSuperclass(c)
            }
        }
        names.append("NSObject")
        return names
    }
}
