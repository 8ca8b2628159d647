/// A `Codable` type that keeps its concrete type in a keyed archive: the Codable counterpart of
/// ``KeyedArchivable``.
///
/// Conforming gives the type an archived class name (its `$classname`) and a superclass chain (the rest of
/// `$classes`); registering it once in a `ClassRegistry` is all it takes to decode it back from an
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
/// The class name, superclass chain and identity come from `ArchivableClass`, with its defaults.
public protocol ArchiveCodable: ArchivableClass, Codable {}

extension ArchiveCodable {
    /// The default superclass chain of a Codable type: the archived names of its archivable and `Encodable`
    /// superclasses (a Codable class encodes its superclass's keys through `super.encode(to:)`), nearest
    /// first, then `NSObject`.
    public static var archivedSuperclassNames: [String] {
        archivedSuperclassChain(of: self, namingEncodable: true)
    }
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

/// The `$classname` of a Codable type: its `ArchivableClass.archivedClassName`, or its Swift type name.
func archivedCodableName(of type: Any.Type) -> String {
    (type as? any ArchivableClass.Type)?.archivedClassName ?? String(describing: type)
}

/// The `$classes` chain of a Codable type.
func archivedCodableChain(of type: Any.Type) -> [String] {
    if let archivable = type as? any ArchivableClass.Type {
        return [archivable.archivedClassName] + archivable.archivedSuperclassNames
    }
    return [String(describing: type)] + archivedSuperclassChain(of: type, namingEncodable: true)
}
