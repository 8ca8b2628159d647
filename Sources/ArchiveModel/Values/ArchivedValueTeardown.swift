/// Empties every ``ArchivedObject`` and `ArchivedMutableObject` a decoded value reaches, so that whatever
/// references they made among themselves are gone at once: what conversion does with the values it decoded
/// once it has written them, which no one else sees. The cycle graph frees what it finds on cycles; this
/// frees the rest whatever the graph missed (objects of unknown classes and mutable collections shared in
/// ways the one pass over the archive cannot see).
package enum ArchivedValueTeardown {
    /// Empties the objects `values` reach, each once.
    package static func empty(_ values: [Any?]) {
        var seen = Set<ObjectIdentifier>()
        var objects: [AnyObject] = []
        for case let value? in values { collect(value, depth: 0, &seen, &objects) }
        for object in objects {
            if let archived = object as? ArchivedObject { archived.fields = [] }
            if let mutable = object as? ArchivedMutableObject { mutable.value = () }
        }
    }

    /// Empties the objects the values of `fields` reach.
    package static func empty(fields: [(key: String, value: ArchivedObject.Field)]) {
        var values: [Any?] = []
        for (_, field) in fields {
            switch field {
            case .value: break
            case .object(let o): values.append(o)
            case .objects(let list): values.append(contentsOf: list)
            }
        }
        empty(values)
    }

    private static func collect(_ value: Any, depth: Int, _ seen: inout Set<ObjectIdentifier>, _ objects: inout [AnyObject]) {
        guard depth < 10_000 else { return }
        switch value {
        case let object as ArchivedObject:
            guard seen.insert(ObjectIdentifier(object)).inserted else { return }
            objects.append(object)
            for (_, field) in object.fields {
                switch field {
                case .value: break
                case .object(let o?): collect(o, depth: depth + 1, &seen, &objects)
                case .object(nil): break
                case .objects(let list): for case let o? in list { collect(o, depth: depth + 1, &seen, &objects) }
                }
            }
        case let mutable as ArchivedMutableObject:
            guard seen.insert(ObjectIdentifier(mutable)).inserted else { return }
            objects.append(mutable)
            collect(mutable.value, depth: depth + 1, &seen, &objects)
        default:
            forEachElement(of: value) { collect($0, depth: depth + 1, &seen, &objects) }
        }
    }

    /// Calls `body` with each element of a collection the decoders make (arrays, dictionaries' keys and
    /// values, sets, ordered sets, attributed strings' attribute values); nothing for any other value. The one
    /// walk of decoded values that this teardown and the cycle finder share.
    package static func forEachElement(of value: Any, _ body: (Any) -> Void) {
        switch value {
        case let list as [Any]: for e in list { body(e) }
        case let list as [Any?]: for case let e? in list { body(e) }
        case let dictionary as [AnyHashable: Any]:
            for (k, v) in dictionary {
                body(k.base)
                body(v)
            }
        case let set as Set<AnyHashable>: for e in set { body(e.base) }
        case let ordered as ArchivedOrderedSet: for e in ordered.elements { body(e.base) }
        case let string as ArchivedAttributedString:
            for run in string.runs { for v in run.attributes.values { body(v) } }
        default: return
        }
    }
}
