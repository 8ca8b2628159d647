/// A `Codable` type that keeps its concrete type in a keyed archive: the Codable counterpart of
/// ``KeyedArchivable``.
///
/// Conforming gives the type an archived class name (its `$classname`) and a superclass chain (the rest of
/// `$classes`); registering it once in a ``ClassRegistry`` is all it takes to decode it back from an
/// existential (`any Shape`, `[any Shape]`, `[String: any Shape]`, optionals of them):
///
/// ```swift
/// protocol Shape: ArchiveCodable {}
/// struct Circle: Shape { var center: Point; var radius: Double }
/// class Rectangle: Shape { ... }
/// final class RoundedRectangle: Rectangle { ... }   // $classes: RoundedRectangle, Rectangle, NSObject
///
/// let registry = ClassRegistry(codable: [Circle.self, Rectangle.self, RoundedRectangle.self])
/// let shapes = try ArchiveDecoder(registry: registry).decode([any Shape].self, from: bytes)
/// ```
///
/// Plain `Codable` types need no conformance when they are always decoded as themselves (a `Point` inside a
/// `Circle`): they are archived under their Swift type name. Only types decoded through an existential or a
/// superclass must be registered, which needs this conformance.
///
/// Mirrors `NSCoding` with `classForKeyedArchiver` / `+[NSKeyedArchiver setClassName:forClass:]`.
public protocol ArchiveCodable: Codable, SendableMetatype {
    /// The name written as `$classname`. Default: the unqualified Swift type name (`"RoundedRectangle"`).
    /// A non-final class that overrides it should declare it as `class var` so that subclasses can too.
    static var archivedClassName: String { get }

    /// The names written after the class's own name in `$classes`. Default: the archived names of the
    /// archivable (``ArchiveCodable``, ``KeyedArchivable`` or `Encodable`) superclasses of a class, nearest
    /// first, then `"NSObject"`; `["NSObject"]` for a struct or an enum.
    static var archivedSuperclassNames: [String] { get }

    /// The instance whose identity decides sharing: `self` for a class, `nil` for a value type. Provided by
    /// the library; do not implement it.
    var archiveIdentity: AnyObject? { get }
}

extension ArchiveCodable {
    public var archiveIdentity: AnyObject? { nil }
}

extension ArchiveCodable where Self: AnyObject {
    public var archiveIdentity: AnyObject? { self }
}

extension ArchiveCodable {
    public static var archivedClassName: String { String(describing: self) }  // `self`: the dynamic type, so a subclass gets its own name
    public static var archivedSuperclassNames: [String] { archivedSuperclassChain(of: self) }
}

/// The archived names of the archivable superclasses of `type`, nearest first, then `"NSObject"`.
func archivedSuperclassChain(of type: Any.Type) -> [String] {
    var names: [String] = []
    var next: AnyClass? = (type as? AnyClass).flatMap { _getSuperclass($0) }
    while let c = next {
        if let codable = c as? any ArchiveCodable.Type {
            names.append(codable.archivedClassName)
        } else if let archivable = c as? any KeyedArchivable.Type {
            names.append(archivable.archivedClassName)
        } else if c is any Encodable.Type {
            names.append(String(describing: c))
        }
        next = _getSuperclass(c)
    }
    names.append("NSObject")
    return names
}

/// The entry `cache` holds for `type`, made by `make` the first time (per-type facts of the coders).
@inline(__always)
func cachedEntry<Entry>(_ cache: inout [ObjectIdentifier: Entry], _ type: Any.Type, _ make: (Any.Type) -> Entry) -> Entry {
    let id = ObjectIdentifier(type)
    if let entry = cache[id] { return entry }
    let entry = make(type)
    cache[id] = entry
    return entry
}

/// The `$classname` of a Codable type: its ``ArchiveCodable/archivedClassName``, or its Swift type name.
func archivedCodableName(of type: Any.Type) -> String {
    (type as? any ArchiveCodable.Type)?.archivedClassName ?? String(describing: type)
}

/// The `$classes` chain of a Codable type.
func archivedCodableChain(of type: Any.Type) -> [String] {
    if let codable = type as? any ArchiveCodable.Type {
        return [codable.archivedClassName] + codable.archivedSuperclassNames
    }
    return [String(describing: type)] + archivedSuperclassChain(of: type)
}

// MARK: Registration

extension ClassRegistry {
    /// A registry of NSCoding-style types and Codable types, each under its archived class name.
    ///
    /// ```swift
    /// let registry = ClassRegistry([Drawing.self], codable: [Circle.self, Rectangle.self, RoundedRectangle.self])
    /// ```
    public init(_ archivable: [any KeyedArchivable.Type] = [], codable: [any ArchiveCodable.Type]) {
        self.init(archivable)
        for type in codable { self = registering(type) }
    }

    /// A copy that also decodes the Codable `type` (under its ``ArchiveCodable/archivedClassName``).
    public func registering(_ type: any ArchiveCodable.Type) -> ClassRegistry {
        registering(codableEntry(for: type))
    }

    /// A copy that decodes objects archived as `className` as the Codable `type` (an old or foreign name).
    /// Mirrors `NSKeyedUnarchiver.setClass(_:forClassName:)`.
    public func renaming(_ className: String, to type: any ArchiveCodable.Type) -> ClassRegistry {
        renaming(className, to: codableEntry(for: type))
    }
}

private func codableEntry<T: ArchiveCodable>(for type: T.Type) -> any KeyedArchivable.Type {
    CodableRegistryEntry<T>.self
}

/// What the registry holds for a Codable type: the unarchiver resolves it to the type itself
/// (``ResolvedClass/Kind/codable(_:)``), so an entry is never instantiated by the keyed machinery; its
/// coding methods still work, through the Codable bridge, for callers that use the type directly.
protocol CodableRegistryEntryType {
    static var codableType: any ArchiveCodable.Type { get }
}

struct CodableRegistryEntry<T: ArchiveCodable>: KeyedArchivable, CodableRegistryEntryType {
    var value: T
    static var codableType: any ArchiveCodable.Type { T.self }
    static var archivedClassName: String { T.archivedClassName }
    static var archivedSuperclassNames: [String] { T.archivedSuperclassNames }

    init(coder: KeyedUnarchiver) throws {
        value = try coder.decodeCurrentCodableObject(T.self)
    }

    func encode(with coder: KeyedArchiver) {
        coder.encodeCodableFields(of: value)
    }
}
