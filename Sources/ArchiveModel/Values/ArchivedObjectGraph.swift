/// The storage of the ``ArchivedObject``s that the unarchiver found on one cycle (a strongly connected
/// component of unknown-class objects): their class chains and fields, where a reference to a member of the
/// same graph is a ``ArchivedObjectGraph/Member`` index rather than the object.
///
/// Ownership runs one way: each member object holds the graph strongly; the graph holds its member objects
/// weakly (so that a field read while a member is alive gives that same member) and creates a member object
/// again when a field is read after the last holder of that member let it go. The fields hold strongly only
/// what is outside the graph. So no reference cycle is made, and the graph with its members is freed when
/// the last member object is released.
///
/// Not thread-safe: reading a field may create a member object (as ``ArchivedObject`` is not `Sendable`).
package final class ArchivedObjectGraph {
    struct Node {
        var classChain: [String]
        var fields: [(key: String, value: ArchivedObject.Field)]
    }

    /// A reference to `nodes[index]`, in stored field values only (never handed out).
    struct Member: Hashable {
        let index: Int
    }

    struct WeakObject {
        weak var object: ArchivedObject?
    }

    /// A mutable object (``ArchivedMutableObject``) held by the graph's fields: its class and value, stored as
    /// fields are (members as references). Like the members, it holds the graph strongly and the graph holds
    /// it weakly, so one shared by several fields, or by a field and something outside, stays one instance.
    struct MutableNode {
        var className: String
        var value: Any
    }

    /// A reference to `mutableNodes[index]`, in stored values only.
    struct MutableMember: Hashable {
        let index: Int
    }

    struct WeakMutable {
        weak var object: ArchivedMutableObject?
    }

    var nodes: [Node] = []
    private var objects: [WeakObject] = []
    var mutableNodes: [MutableNode] = []
    private var mutableObjects: [WeakMutable] = []

    /// Collection values nest no deeper than this when references are rewritten (decoded values are bounded
    /// by the unarchiver's depth limit far below this).
    static let maxRewriteDepth = 10_000

    /// Moves `members` (their fields referring to each other) into one new graph.
    package static func adopt(_ members: [ArchivedObject]) {
        let graph = ArchivedObjectGraph()
        var indexOf: [ObjectIdentifier: Int] = [:]
        indexOf.reserveCapacity(members.count)
        for (i, m) in members.enumerated() { indexOf[ObjectIdentifier(m)] = i }
        graph.nodes.reserveCapacity(members.count)
        graph.objects.reserveCapacity(members.count)
        // Members become references; a mutable object in their fields joins the graph (its value stored the
        // same way), so that nothing the fields hold refers back to a member strongly.
        func stored(_ leaf: Any) -> Any? {
            if let object = leaf as? ArchivedObject { return indexOf[ObjectIdentifier(object)].map { Member(index: $0) } }
            if let mutable = leaf as? ArchivedMutableObject { return graph.bind(mutable, stored) }
            return nil
        }
        for m in members {
            let fields = m.ownFields.map { (key: $0.key, value: rewrite($0.value, stored)) }
            graph.nodes.append(Node(classChain: m.ownClassChain, fields: fields))
            graph.objects.append(WeakObject(object: m))
        }
        for (i, m) in members.enumerated() { m.move(to: graph, index: i) }
    }

    /// `mutable` as a reference to a mutable node of this graph: one it already is, or a new node its value
    /// moves into (rewritten with `leaf`). `nil` for one of another graph, which stays as it is.
    private func bind(_ mutable: ArchivedMutableObject, _ leaf: (Any) -> Any?) -> MutableMember? {
        if let graph = mutable.graph { return graph === self ? MutableMember(index: mutable.index) : nil }
        let index = mutableNodes.count
        let value = mutable.ownValue
        mutableNodes.append(MutableNode(className: mutable.className, value: value))
        mutableObjects.append(WeakMutable(object: mutable))
        // Bound before its value is rewritten: a reference to it from inside is a reference to the node.
        mutable.move(to: self, index: index)
        mutableNodes[index].value = Self.rewriteValue(value, depth: 0, leaf) ?? value
        return MutableMember(index: index)
    }

    /// The mutable object of `mutableNodes[index]`: the live one, or a new one.
    func mutable(_ index: Int) -> ArchivedMutableObject {
        if let live = mutableObjects[index].object { return live }
        let made = ArchivedMutableObject(graph: self, index: index, className: mutableNodes[index].className)
        mutableObjects[index].object = made
        return made
    }

    /// The value of `mutableNodes[index]` with references as objects.
    func mutableValue(_ index: Int) -> Any {
        let stored = mutableNodes[index].value
        return Self.publicValue(stored, self) ?? stored
    }

    /// Stores `value` in `mutableNodes[index]`, objects of this graph as references.
    func setMutableValue(_ index: Int, _ value: Any) {
        mutableNodes[index].value = Self.rewriteValue(value, depth: 0) { [unowned self] leaf in ownReference(leaf) } ?? value
    }

    /// A reference for an object or a mutable object of this graph; `nil` for anything else.
    private func ownReference(_ leaf: Any) -> Any? {
        if let object = leaf as? ArchivedObject, object.graph === self { return Member(index: object.index) }
        if let mutable = leaf as? ArchivedMutableObject, mutable.graph === self { return MutableMember(index: mutable.index) }
        return nil
    }

    /// The member object at `index`: the live one, or a new one.
    func object(_ index: Int) -> ArchivedObject {
        if let live = objects[index].object { return live }
        let made = ArchivedObject(graph: self, index: index)
        objects[index].object = made
        return made
    }

    /// The fields of `nodes[index]` with member references as objects.
    func publicFields(_ index: Int) -> [(key: String, value: ArchivedObject.Field)] {
        nodes[index].fields.map { (key: $0.key, value: publicField($0.value)) }
    }

    func publicField(_ field: ArchivedObject.Field) -> ArchivedObject.Field {
        switch field {
        case .value: return field
        case .object(let o): return .object(o.map { Self.publicValue($0, self) ?? $0 })
        case .objects(let list):
            return .objects(list.map { e in e.map { Self.publicValue($0, self) ?? $0 } })
        }
    }

    /// Stores `fields` in `nodes[index]`, objects of this graph as member references.
    func setFields(_ index: Int, _ fields: [(key: String, value: ArchivedObject.Field)]) {
        nodes[index].fields = fields.map { (key: $0.key, value: Self.rewrite($0.value) { [unowned self] leaf in ownReference(leaf) }) }
    }

    /// `field` with each value for which `reference` answers a reference replaced by it.
    static func rewrite(_ field: ArchivedObject.Field, _ reference: (Any) -> Any?) -> ArchivedObject.Field {
        switch field {
        case .value: return field
        case .object(let o): return .object(o.map { rewriteValue($0, depth: 0, reference) ?? $0 })
        case .objects(let list):
            return .objects(list.map { e in e.map { rewriteValue($0, depth: 0, reference) ?? $0 } })
        }
    }

    // The two rewrites: objects to member references (storing) and member references to objects (reading).
    // Each returns `nil` when nothing in `value` changes, so values are copied only where needed. Only the
    // collection types the unarchiver produces are looked into.

    private static func publicValue(_ value: Any, _ graph: ArchivedObjectGraph) -> Any? {
        rewriteValue(value, depth: 0) { leaf in
            if let m = leaf as? Member { return graph.object(m.index) }
            if let m = leaf as? MutableMember { return graph.mutable(m.index) }
            return nil
        }
    }

    static func rewriteValue(_ value: Any, depth: Int, _ leaf: (Any) -> Any?) -> Any? {
        if let replaced = leaf(value) { return replaced }
        guard depth < maxRewriteDepth else { return nil }
        let type = Swift.type(of: value)
        if type == [Any].self, let list = value as? [Any] {
            var result = list   // copied on the first change only
            var changed = false
            for (i, e) in list.enumerated() {
                if let r = rewriteValue(e, depth: depth + 1, leaf) {
                    result[i] = r
                    changed = true
                }
            }
            return changed ? result : nil
        }
        if type == [Any?].self, let list = value as? [Any?] {
            var result = list
            var changed = false
            for (i, e) in list.enumerated() {
                if let e, let r = rewriteValue(e, depth: depth + 1, leaf) {
                    result[i] = r
                    changed = true
                }
            }
            return changed ? result : nil
        }
        if type == [AnyHashable: Any].self, let dict = value as? [AnyHashable: Any] {
            var changed = false
            var result: [AnyHashable: Any] = [:]
            result.reserveCapacity(dict.count)
            for (k, v) in dict {
                let newKey = rewriteKey(k, depth: depth + 1, leaf)
                let newValue = rewriteValue(v, depth: depth + 1, leaf)
                if newKey != nil || newValue != nil { changed = true }
                result[newKey ?? k] = newValue ?? v
            }
            return changed ? result : nil
        }
        if type == Set<AnyHashable>.self, let set = value as? Set<AnyHashable> {
            var changed = false
            var result = Set<AnyHashable>(minimumCapacity: set.count)
            for e in set {
                if let r = rewriteKey(e, depth: depth + 1, leaf) { changed = true; result.insert(r) } else { result.insert(e) }
            }
            return changed ? result : nil
        }
        if type == ArchivedAttributedString.self, let string = value as? ArchivedAttributedString {
            // Attribute values are objects too (a typedstream's attributes may refer back into the graph).
            var result = string
            var changed = false
            for (i, run) in string.runs.enumerated() {
                for (name, attribute) in run.attributes {
                    if let r = rewriteValue(attribute, depth: depth + 1, leaf) {
                        result.runs[i].attributes[name] = r
                        changed = true
                    }
                }
            }
            return changed ? result : nil
        }
        if type == ArchivedOrderedSet.self, let ordered = value as? ArchivedOrderedSet {
            var result = ordered.elements
            var changed = false
            for (i, e) in ordered.elements.enumerated() {
                if let r = rewriteKey(e, depth: depth + 1, leaf) {
                    result[i] = r
                    changed = true
                }
            }
            return changed ? ArchivedOrderedSet(result) : nil
        }
        return nil
    }

    private static func rewriteKey(_ key: AnyHashable, depth: Int, _ leaf: (Any) -> Any?) -> AnyHashable? {
        guard let r = rewriteValue(key.base, depth: depth, leaf) else { return nil }
        return r as? AnyHashable
    }
}
