/// What an archive records about a type besides its fields: its class name, its superclass chain and the
/// identity that decides sharing. The metadata every coding protocol declares, with one set of defaults:
/// `KeyedArchivable` (the `NSCoding` style) and `ArchiveCodable` (the Codable bridge) for keyed archives,
/// `TypedStreamDecodable` and `TypedStreamEncodable` for `NSArchiver` typedstreams. A ``ClassRegistry``
/// holds types by this protocol, so a type registered once is read from whichever format it codes.
///
/// ```swift
/// final class RoundedRectangle: Rectangle {      // Rectangle: KeyedArchivable or ArchiveCodable
///     override class var archivedClassName: String { "RRect" }
/// }
/// RoundedRectangle.archivedSuperclassNames        // ["Rectangle", "NSObject"]
/// ```
///
/// Mirrors `classForKeyedArchiver`, `+[NSKeyedArchiver setClassName:forClass:]` and the `$classes` chain
/// that `NSKeyedArchiver` writes from `-[NSObject superclass]`.
public protocol ArchivableClass: SendableMetatype {
    /// The name written as `$classname`. Default: the unqualified Swift type name (`"RoundedRectangle"`).
    /// A non-final class that overrides it should declare it as `class var` so that subclasses can too.
    static var archivedClassName: String { get }

    /// The names written after the class's own name in `$classes`. Default: the archived names of the
    /// archivable superclasses of a class, nearest first, then `"NSObject"`; `["NSObject"]` for a struct or
    /// an enum. Archivable superclasses are the ones that adopt a coding protocol (``ArchivableClass``), and
    /// for an `ArchiveCodable` type also the `Encodable` ones.
    static var archivedSuperclassNames: [String] { get }

    /// The instance whose identity decides sharing: `self` for a class, `nil` for a value type. Provided by
    /// the library; do not implement it (the unarchiver registers and returns this instance as the decoded
    /// object, so any other answer changes what decoding gives).
    var archiveIdentity: AnyObject? { get }
}

extension ArchivableClass {
    /// The default class name: the type's own name (`self` is the dynamic type, so a subclass gets its own).
    public static var archivedClassName: String { String(describing: self) }

    /// The default superclass chain: the Swift superclasses' archived names, nearest first, then `NSObject`.
    public static var archivedSuperclassNames: [String] {
        archivedSuperclassChain(of: self, namingEncodable: false)
    }

    /// A value type's identity: none, so each encode is its own object.
    public var archiveIdentity: AnyObject? { nil }
}

extension ArchivableClass where Self: AnyObject {
    /// A class instance's identity: the instance, so encoding it twice writes one shared object.
    public var archiveIdentity: AnyObject? { self }
}

/// The superclasses of `type`, nearest first; none for a value type. The one walk of a class hierarchy.
package func superclasses(of type: Any.Type) -> UnfoldSequence<AnyClass, AnyClass?> {
    sequence(state: (type as? AnyClass).flatMap { _getSuperclass($0) }) { next in
        defer { next = next.flatMap { _getSuperclass($0) } }
        return next
    }
}

/// The archived names of the archivable superclasses of `type`, nearest first, then `"NSObject"`: the
/// ``ArchivableClass`` ones, and with `namingEncodable` (a Codable type, which encodes its superclass's keys
/// through `super.encode(to:)`) every `Encodable` one too, under its Swift name unless it names itself.
package func archivedSuperclassChain(of type: Any.Type, namingEncodable: Bool) -> [String] {
    var names: [String] = []
    for c in superclasses(of: type) {
        if let archivable = c as? any ArchivableClass.Type {
            names.append(archivable.archivedClassName)
        } else if namingEncodable, c is any Encodable.Type {
            names.append(String(describing: c))
        }
    }
    names.append("NSObject")
    return names
}

/// Whether `candidate` is `allowed` or, for classes, a subclass of it.
package func isType(_ candidate: Any.Type, kindOf allowed: Any.Type) -> Bool {
    if ObjectIdentifier(candidate) == ObjectIdentifier(allowed) { return true }
    guard allowed is AnyClass else { return false }
    return superclasses(of: candidate).contains { ObjectIdentifier($0) == ObjectIdentifier(allowed) }
}
