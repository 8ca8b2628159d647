/// An immutable map from archived class names to Swift types, handed to the unarchiver.
///
/// There is no global state and no runtime lookup: only the types listed here (and the standard Foundation
/// classes, which are built in) can be decoded.
///
/// ```swift
/// let registry = ClassRegistry([Contents.self, Circle.self, Rectangle.self, RoundedRectangle.self, Style.self])
///     .renaming("OldCircle", to: Circle.self)
/// ```
///
/// Name resolution rule, in order: (1) a rename registered with ``renaming(_:to:)-(_,KeyedArchivable.Type)``; (2) the exact
/// `$classname` of a registered type; (3) for a module-qualified name (`MyApp.Circle`), the same two steps
/// with the part after the last dot (`Circle`). The standard Foundation classes come next, then the fallback
/// of ``resolvingUnknownClasses(_:)``. Anything else is unknown: an error naming the class and its
/// `$classes` chain, or, with ``allowingUnknownClasses()``, an ``ArchivedObject``. The `$classes` chain in the
/// file is never used to find a type by the library, so it can never widen what is decoded (a fallback may
/// read it, and answers for what it returns).
///
/// Mirrors `NSKeyedUnarchiver.setClass(_:forClassName:)` and `NSClassFromString`, without global state.
public struct ClassRegistry: Sendable {
    private var byName: [String: any KeyedArchivable.Type]
    private var renames: [String: any KeyedArchivable.Type]
    /// The Codable bridge's entries among the registered types, by type, found once as they are registered
    /// (a cast to a protocol per class of every archive decoded costs a conformance lookup each).
    private var codableEntries: [ObjectIdentifier: any ArchiveCodable.Type] = [:]
    private var fallback: (@Sendable (_ className: String, _ classChain: [String]) -> (any KeyedArchivable.Type)?)?
    /// Whether an unknown class decodes as an ``ArchivedObject`` instead of failing.
    public private(set) var decodesUnknownClassesAsArchivedObjects: Bool

    /// A registry of `types`, each under its ``ArchivableClass/archivedClassName``.
    public init(_ types: [any KeyedArchivable.Type] = []) {
        byName = [:]
        renames = [:]
        decodesUnknownClassesAsArchivedObjects = false
        for t in types { add(t) }
    }

    private mutating func add(_ type: any KeyedArchivable.Type) {
        byName[type.archivedClassName] = type
        if let entry = type as? any CodableRegistryEntryType.Type { codableEntries[ObjectIdentifier(type)] = entry.codableType }
    }

    /// The Codable type behind `type` when it is a registered entry of the Codable bridge.
    func codableType(of type: any KeyedArchivable.Type) -> (any ArchiveCodable.Type)? {
        codableEntries.isEmpty ? nil : codableEntries[ObjectIdentifier(type)]
    }

    /// No custom types: only the standard Foundation classes decode.
    public static let standard = ClassRegistry()

    /// A copy that also decodes `type`.
    public func registering(_ type: any KeyedArchivable.Type) -> ClassRegistry {
        var copy = self
        copy.add(type)
        return copy
    }

    /// A copy that decodes objects archived as `className` as `type` (an old or foreign name).
    /// Mirrors `NSKeyedUnarchiver.setClass(_:forClassName:)`.
    public func renaming(_ className: String, to type: any KeyedArchivable.Type) -> ClassRegistry {
        var copy = self
        copy.renames[className] = type
        if let entry = type as? any CodableRegistryEntryType.Type { copy.codableEntries[ObjectIdentifier(type)] = entry.codableType }
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
        _ fallback: @escaping @Sendable (_ className: String, _ classChain: [String]) -> (any KeyedArchivable.Type)?
    ) -> ClassRegistry {
        var copy = self
        copy.fallback = fallback
        return copy
    }

    /// The fallback's type for an unknown class name, if a fallback is set.
    package func fallbackType(forClassName name: String, classChain: [String]) -> (any KeyedArchivable.Type)? {
        fallback?(name, classChain)
    }

    /// The registered class names, sorted (for error messages).
    var registeredClassNames: [String] { byName.keys.sorted() }

    /// The type for an archived class name, by the documented rule, or `nil`.
    public func type(forClassName name: String) -> (any KeyedArchivable.Type)? {
        if !renames.isEmpty, let t = renames[name] { return t }
        if let t = byName[name] { return t }
        if let dot = name.lastIndex(of: ".") {
            let short = String(name[name.index(after: dot)...])
            return (renames.isEmpty ? nil : renames[short]) ?? byName[short]
        }
        return nil
    }
}
