import BinaryPlist

/// An object of a class the registry does not know, kept whole: its `$classes` chain and every key with its
/// value, in file order. Encoding it writes the same class chain and fields back.
///
/// Keys are raw archive keys (a user key `$x` appears escaped as `$$x`, unkeyed values as `$0`, `$1`...).
/// Scalars stay plist values (an integer, a real and a bool never merge); references are decoded values
/// (`String`, `[Any]`, another `ArchivedObject`, ...) or `nil` for `$null`.
///
/// ```swift
/// let registry = ClassRegistry.standard.allowingUnknownClasses()
/// let object = try KeyedUnarchiver.unarchivedObject(ofType: ArchivedObject.self, from: bytes, registry: registry)
/// print(object?.classChain, object?.fields.map(\.key))
/// ```
///
/// Mirrors what `NSKeyedUnarchiverDelegate.unarchiver(_:cannotDecodeObjectOfClassName:originalClasses:)`
/// lets an app substitute for an unknown class.
public final class ArchivedObject: ArchivableClass, Hashable {
    /// One field value. Frozen: a keyed archive's field holds a plist value, a reference, or an array of
    /// references, and nothing else.
    public enum Field {
        /// A scalar stored inline in the object (integer, real, bool, string, data), or an inline plist
        /// collection without references.
        case value(PlistValue)
        /// A reference to another object, decoded; `nil` for `$null`.
        case object(Any?)
        /// An inline array of references (as `NS.objects`), each decoded.
        case objects([Any?])
    }

    /// `$classname` followed by its superclasses, as in `$classes`.
    public var classChain: [String] {
        _read {
            if let graph { yield graph.nodes[index].classChain } else { yield ownClassChain }
        }
        _modify {
            if let graph { yield &graph.nodes[index].classChain } else { yield &ownClassChain }
        }
    }

    /// The fields in file order, `$class` excluded.
    ///
    /// Objects that the unarchiver found on a cycle of unknown-class objects (one refers, directly or through
    /// arrays, dictionaries, sets and other unknown-class objects, back to another) share one internal graph
    /// that holds their fields, and refer to each other through it rather than by strong references: the
    /// cycle is kept (reading a field gives the same object while anything holds it, and the archiver writes
    /// it back shared) and the whole graph is freed when the last of its objects is released. Setting the
    /// fields of such an object stores the references to objects of its own graph the same way; references
    /// the caller adds elsewhere are its own.
    public var fields: [(key: String, value: Field)] {
        _read {
            if let graph { yield graph.publicFields(index) } else { yield ownFields }
        }
        _modify {
            if let graph {
                var list = graph.publicFields(index)
                yield &list
                graph.setFields(index, list)
            } else {
                yield &ownFields
            }
        }
    }

    /// Where the object stands on the stack of the ``ArchivedObjectCycles`` reading it, `-1` when on none
    /// (checked against that stack before use).
    ///
    /// Set once or twice for each object a decode reads, each access a plain get or set that no other access
    /// overlaps (an object is read by one decode, on one thread, and no public API reaches it): the run-time
    /// exclusivity check of a class's stored property would cost more than the access.
    @exclusivity(unchecked) package var cycleStackPosition = -1
    /// Own storage, for an object on no cycle (`graph` is `nil`).
    var ownClassChain: [String]
    /// Checked for exclusive access as any stored property: the public ``fields`` yields it for modification.
    package var ownFields: [(key: String, value: Field)]
    /// The graph that holds this object's class chain and fields, for an object on a cycle.
    private(set) var graph: ArchivedObjectGraph?
    private(set) var index: Int = 0

    /// The archived class name (`$classname`).
    public var className: String { classChain.first ?? "" }

    /// An object of the class chain `classChain` (`$classname` first) with `fields` in order.
    public init(classChain: [String], fields: [(key: String, value: Field)] = []) {
        self.ownClassChain = classChain
        self.ownFields = fields
    }

    /// An object of `graph`, whose storage is `graph.nodes[index]`.
    init(graph: ArchivedObjectGraph, index: Int) {
        self.ownClassChain = []
        self.ownFields = []
        self.graph = graph
        self.index = index
    }

    /// Hands the fields a decode read to the object, after any it has.
    package func adoptFields(_ read: [(key: String, value: Field)]) {
        if ownFields.isEmpty { ownFields = read } else { ownFields.append(contentsOf: read) }
    }

    /// Drops the fields of an object whose reading failed.
    package func dropOwnFields() { ownFields = [] }

    /// Moves this object's storage into `graph` at `index` (its own storage is emptied).
    func move(to graph: ArchivedObjectGraph, index: Int) {
        self.graph = graph
        self.index = index
        ownClassChain = []
        ownFields = []
    }

    /// The value of a raw key.
    public subscript(key: String) -> Field? {
        if let graph {
            guard let stored = graph.nodes[index].fields.first(where: { $0.key == key })?.value else { return nil }
            return graph.publicField(stored)
        }
        return ownFields.first(where: { $0.key == key })?.value
    }

    /// The name under which the type itself would be registered; an instance writes its own ``classChain``.
    public static var archivedClassName: String { "ArchivedObject" }

    /// Whether two objects are the same instance: archived objects have identity, as `NSObject`s do.
    public static func == (lhs: ArchivedObject, rhs: ArchivedObject) -> Bool { lhs === rhs }
    /// Hashes the instance's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
