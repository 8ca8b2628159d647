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
/// The class name, superclass chain and identity come from `ArchivableClass`, with its defaults.
///
/// Mirrors `NSCoding` / `NSSecureCoding` (`encode(with:)`, `init?(coder:)`) and `classForKeyedArchiver`.
public protocol KeyedArchivable: ArchivableClass {
    /// Writes the value's keys. Failures (such as the depth limit) are recorded by the archiver and thrown
    /// when the archive is finished.
    func encode(with coder: KeyedArchiver)

    /// Reads the value's keys.
    init(coder: KeyedUnarchiver) throws
}

/// A `Codable` type needs no `encode(with:)` or `init(coder:)` of its own: its coding keys become the keys of
/// its archived object, written and read through the Codable bridge (the same bytes ``ArchiveEncoder``
/// writes for the value's fields).
///
/// ```swift
/// struct Reading: KeyedArchivable, Codable {
///     var room: String
///     var celsius: Double
/// }
/// let bytes = try KeyedArchiver.archivedData(withRootObject: Reading(room: "kitchen", celsius: 21.5))
/// ```
///
/// A type that implements either method keeps its own.
extension KeyedArchivable where Self: Codable {
    /// Writes the value's Codable keys (its `encode(to:)`) into the archived object.
    /// Mirrors `NSCoding.encode(with:)`.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeCodableFields(of: self)
    }

    /// Reads the value through its Codable `init(from:)`, from the archived object the coder is positioned on.
    /// Mirrors `NSCoding.init?(coder:)`.
    public init(coder: KeyedUnarchiver) throws {
        self = try coder.decodeCurrentCodableObject(Self.self)
    }
}
