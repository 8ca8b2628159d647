/// What one Foundation class is in both NSCoding formats: its names (the public one and Apple's private
/// concrete subclasses that archives name), the `$classes` chain `NSKeyedArchiver` writes, the versions
/// `NSArchiver` writes for that chain, the Swift value it decodes to and the kind an `ArchiveGraph` reader
/// shows. Each class's file in `Foundation/Classes/` declares these once; ``StandardClass`` lists them.
///
/// Mirrors the class descriptions `NSKeyedArchiver` (`$classes`) and `NSArchiver`
/// (`+[NSObject version]`) write.
package struct FoundationClassInfo: @unchecked Sendable {
    // @unchecked: every stored property is an immutable `let`; `valueType` is a metatype, which cannot change.
    /// The case of the one list this describes.
    package let standard: StandardClass
    /// The public class name (`NSMutableArray`).
    package let className: String
    /// Apple's private concrete subclasses that archives name (`__NSArrayM`), read as this class.
    package let privateNames: [String]
    /// The `$classes` chain Apple writes, the class first.
    package let classChain: [String]
    /// The version `NSArchiver` writes for each class of ``classChain``; `nil` for a class with no
    /// typedstream form here.
    package let typedStreamVersions: [Int]?
    /// Whether the class is a mutable one, which readers that keep classes give as an `ArchivedMutableObject`.
    package let isMutable: Bool
    /// The Swift type the class decodes to (what secure coding knows no custom class can be).
    package let valueType: Any.Type
    /// The value an entry of the class holds as `ArchiveGraph` readers show it; `nil` for a class whose
    /// fields are what it holds.
    package let kind: ArchivedClassKind?

    /// A class named `className` whose superclass chain (after it) is `superclasses`, with `NSArchiver`'s
    /// `typedStreamVersions` for the whole chain (`nil`: no typedstream form).
    package init(_ standard: StandardClass, _ className: String, superclasses: [String] = ["NSObject"],
                 privateNames: [String] = [], typedStreamVersions: [Int]?, mutable: Bool = false,
                 valueType: Any.Type, kind: ArchivedClassKind?) {
        self.standard = standard
        self.className = className
        self.privateNames = privateNames
        self.classChain = [className] + superclasses
        self.typedStreamVersions = typedStreamVersions
        self.isMutable = mutable
        self.valueType = valueType
        self.kind = kind
    }
}

/// A Foundation class family (the class and, where Foundation has one, its mutable subclass) as one file
/// declares it: its classes' descriptions here, and beside them, as static functions of the same type, its
/// keyed and typedstream reading and writing over ``KeyedFieldReader``, ``KeyedFieldWriter``,
/// ``StreamFieldReader`` and ``StreamFieldWriter``.
package protocol FoundationClass {
    /// The family's classes, the public immutable class first.
    static var classes: [FoundationClassInfo] { get }
}
