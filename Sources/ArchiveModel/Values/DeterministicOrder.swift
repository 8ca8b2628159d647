// The one order in which both archivers write the members of a set and the entries of a dictionary, so that
// one collection always writes the same bytes whatever its hash order.

/// A deterministic order for hashable values of mixed types: by type name, then by natural order for
/// strings and numbers, then by description.
package func deterministicOrder(_ a: AnyHashable, _ b: AnyHashable) -> Bool {
    switch (a.base, b.base) {
    case (let x as String, let y as String): return x < y
    case (let x as Int, let y as Int): return x < y
    case (let x as Double, let y as Double): return x < y || (x.isNaN && !y.isNaN)
    default:
        let ta = String(describing: type(of: a.base))
        let tb = String(describing: type(of: b.base))
        if ta != tb { return ta < tb }
        return orderingText(a.base) < orderingText(b.base)
    }
}

/// The order of dictionary entries: by ``deterministicOrder(_:_:)`` of their keys, and entries whose keys tie
/// (objects of one class with the same fields) by their values, so that one dictionary always writes the same
/// bytes whatever its hash order.
package func deterministicEntryOrder(_ a: (key: AnyHashable, value: Any), _ b: (key: AnyHashable, value: Any)) -> Bool {
    if deterministicOrder(a.key, b.key) { return true }
    if deterministicOrder(b.key, a.key) { return false }
    return orderingText(a.value) < orderingText(b.value)
}

/// A text of `value` that is the same for equal contents whatever the hash order of its sets and
/// dictionaries, with ``ArchivedObject``s written out by class and fields (to a few levels): what orders keys
/// that `String(describing:)` would not (objects that all describe as their class, sets in hash order).
package func orderingText(_ value: Any?, depth: Int = 0) -> String {
    guard let value else { return "nil" }
    guard depth < 6 else { return "…" }
    switch value {
    case let object as ArchivedObject:
        let fields = object.fields.map { field -> String in
            switch field.value {
            case .value(let p): return field.key + "=" + String(describing: p)
            case .object(let o): return field.key + "=" + orderingText(o, depth: depth + 1)
            case .objects(let list): return field.key + "=[" + list.map { orderingText($0, depth: depth + 1) }.joined(separator: ",") + "]"
            }
        }
        return object.classChain.joined(separator: "<") + "(" + fields.joined(separator: ",") + ")"
    case let list as [Any]:
        return "[" + list.map { orderingText($0, depth: depth + 1) }.joined(separator: ",") + "]"
    case let set as Set<AnyHashable>:
        return "{" + set.map { orderingText($0.base, depth: depth + 1) }.sorted().joined(separator: ",") + "}"
    case let dictionary as [AnyHashable: Any]:
        let entries = dictionary.map { orderingText($0.key.base, depth: depth + 1) + ":" + orderingText($0.value, depth: depth + 1) }
        return "{" + entries.sorted().joined(separator: ",") + "}"
    default:
        return String(describing: value)
    }
}
