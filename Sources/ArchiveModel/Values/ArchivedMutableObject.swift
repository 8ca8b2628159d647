#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An object of a mutable Foundation class (`NSMutableString`, `NSMutableArray`, `NSMutableDictionary`,
/// `NSMutableSet`, `NSMutableData`, `NSMutableOrderedSet`, `NSMutableIndexSet`, `NSMutableAttributedString`)
/// kept as that class: the value its immutable class decodes to, and the class's name.
///
/// The readers give it only where they are asked to keep classes (`KeyedUnarchiver.keepsMutableClasses`,
/// the typedstream reader's equivalent), which conversion between the two formats and the inspector do:
/// there a mutable object comes back as the same class, shared where the archive shares it, and each
/// archiver writes it with the class chain Apple writes (`NSMutableArray`, `NSArray`, `NSObject`). A
/// registered type reading its own fields is never handed one: it reads plain values as always.
///
/// A reference, as the object it stands for is: two references to one mutable object in an archive decode to
/// one instance, and are written back as one object. A mutable collection that holds itself is a cycle error
/// when read, as its plain value is (it would be a reference cycle no one frees); a cycle through objects of
/// unknown classes is kept as theirs are, in their shared graph.
package final class ArchivedMutableObject: Hashable {
    /// The archived class name: one of the mutable Foundation classes.
    package let className: String
    /// The value: a `String`, `[Any]`, `[AnyHashable: Any]`, `Set<AnyHashable>`, `Data`,
    /// `ArchivedOrderedSet`, `ArchivedIndexSet` or `ArchivedAttributedString`, as the class holds.
    ///
    /// One held by objects of unknown classes on a cycle keeps its value in their graph (see
    /// `ArchivedObjectGraph`), so that it refers to them without a reference cycle.
    package var value: Any {
        get { graph.map { $0.mutableValue(index) } ?? ownValue }
        set {
            if let graph { graph.setMutableValue(index, newValue) } else { ownValue = newValue }
        }
    }

    /// Own storage, for an object in no graph.
    private(set) var ownValue: Any
    /// The graph that holds the value, for an object held on a cycle.
    private(set) var graph: ArchivedObjectGraph?
    private(set) var index = 0

    /// An object of `className` holding `value`.
    package init(className: String, value: Any) {
        self.className = className
        self.ownValue = value
    }

    /// An object of `graph`, whose value is `graph.mutableNodes[index]`.
    init(graph: ArchivedObjectGraph, index: Int, className: String) {
        self.className = className
        self.ownValue = ()
        self.graph = graph
        self.index = index
    }

    /// Moves the value into `graph` at `index` (its own storage is emptied).
    func move(to graph: ArchivedObjectGraph, index: Int) {
        self.graph = graph
        self.index = index
        ownValue = ()
    }

    /// `value` without the class: what a reader that does not keep classes gives.
    package static func plain(_ value: Any) -> Any {
        if let object = value as? ArchivedMutableObject { return object.value }
        return value
    }

    /// `value` without the class, for an optional.
    package static func plain(_ value: Any?) -> Any? {
        guard let value else { return nil }
        return plain(value)
    }

    /// Identity, as for any object.
    package static func == (lhs: ArchivedMutableObject, rhs: ArchivedMutableObject) -> Bool { lhs === rhs }
    /// Hashes the instance's identity.
    package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
