/// An immutable map from archived class names to Swift types, handed to an unarchiver of either format.
///
/// There is no global state and no runtime lookup: only the types listed here (and the standard Foundation
/// classes, which are built in) can be decoded. A type registered once is read from each format it codes:
/// from a keyed archive when it adopts `KeyedArchivable` or `ArchiveCodable`, from a typedstream when it
/// adopts `TypedStreamDecodable`; a registered type that cannot read the format at hand is an unknown-class
/// error that says so.
///
/// ```swift
/// let registry = ClassRegistry([Contents.self, Circle.self, Rectangle.self, RoundedRectangle.self, Style.self])
///     .renaming("OldCircle", to: Circle.self)
/// ```
///
/// Name resolution rule, in order: (1) a rename registered with ``renaming(_:to:)``; (2) the exact
/// `$classname` of a registered type; (3) for a module-qualified name (`MyApp.Circle`), the same two steps
/// with the part after the last dot (`Circle`). The standard Foundation classes come next, then the fallback
/// of ``resolvingUnknownClasses(_:)``. Anything else is unknown: an error naming the class and its
/// `$classes` chain, or, with ``allowingUnknownClasses()``, an ``ArchivedObject``. The `$classes` chain in the
/// file is never used to find a type by the library, so it can never widen what is decoded (a fallback may
/// read it, and answers for what it returns).
///
/// Mirrors `NSKeyedUnarchiver.setClass(_:forClassName:)` and `NSClassFromString`, without global state.
public struct ClassRegistry: Sendable {
    private var byName: [String: any ArchivableClass.Type]
    private var renames: [String: any ArchivableClass.Type]
    private var fallback: (@Sendable (_ className: String, _ classChain: [String]) -> (any ArchivableClass.Type)?)?
    /// Whether an unknown class decodes as an ``ArchivedObject`` instead of failing.
    public private(set) var decodesUnknownClassesAsArchivedObjects: Bool

    /// A registry of `types`, each under its ``ArchivableClass/archivedClassName``.
    public init(_ types: [any ArchivableClass.Type] = []) {
        byName = [:]
        renames = [:]
        decodesUnknownClassesAsArchivedObjects = false
        for t in types { add(t) }
    }

    private mutating func add(_ type: any ArchivableClass.Type) {
        byName[type.archivedClassName] = type
    }

    /// No custom types: only the standard Foundation classes decode.
    public static let standard = ClassRegistry()

    /// A copy that also decodes `type`.
    public func registering(_ type: any ArchivableClass.Type) -> ClassRegistry {
        var copy = self
        copy.add(type)
        return copy
    }

    /// A copy that decodes objects archived as `className` as `type` (an old or foreign name).
    /// Mirrors `NSKeyedUnarchiver.setClass(_:forClassName:)`.
    public func renaming(_ className: String, to type: any ArchivableClass.Type) -> ClassRegistry {
        var copy = self
        copy.renames[className] = type
        return copy
    }

    /// A copy that decodes unknown classes as ``ArchivedObject`` values instead of failing.
    public func allowingUnknownClasses() -> ClassRegistry {
        var copy = self
        copy.decodesUnknownClassesAsArchivedObjects = true
        return copy
    }

    /// A copy that asks `fallback` for the type of a class name it does not know (neither registered nor a
    /// standard Foundation class), once per class in an archive; `nil` leaves the class unknown. The type
    /// returned is decoded as a registered one would be, secure coding checks included.
    ///
    /// ```swift
    /// let registry = ClassRegistry([Circle.self]).resolvingUnknownClasses { name, chain in
    ///     chain.contains("Shape") ? PlaceholderShape.self : nil
    /// }
    /// ```
    ///
    /// Mirrors `NSKeyedUnarchiverDelegate.unarchiver(_:cannotDecodeObjectOfClassName:originalClasses:)`.
    public func resolvingUnknownClasses(
        _ fallback: @escaping @Sendable (_ className: String, _ classChain: [String]) -> (any ArchivableClass.Type)?
    ) -> ClassRegistry {
        var copy = self
        copy.fallback = fallback
        return copy
    }

    /// The fallback's type for an unknown class name, if a fallback is set.
    package func fallbackType(forClassName name: String, classChain: [String]) -> (any ArchivableClass.Type)? {
        fallback?(name, classChain)
    }

    /// Whether a fallback is set (``resolvingUnknownClasses(_:)``).
    package var hasFallback: Bool { fallback != nil }

    /// The registered class names, sorted (for error messages).
    package var registeredClassNames: [String] { byName.keys.sorted() }

    /// The type for an archived class name, by the documented rule, or `nil`.
    public func type(forClassName name: String) -> (any ArchivableClass.Type)? {
        // Most registries (`.standard` among them) hold no type: no lookup at all.
        if byName.isEmpty && renames.isEmpty { return nil }
        if !renames.isEmpty, let t = renames[name] { return t }
        if let t = byName[name] { return t }
        // The dot found among the bytes: a search by characters would break the name into graphemes.
        let utf8 = name.utf8
        if let dot = utf8.lastIndex(of: UInt8(ascii: ".")) {
            let short = String(name[utf8.index(after: dot)...])
            return (renames.isEmpty ? nil : renames[short]) ?? byName[short]
        }
        return nil
    }
}
