/// Lets the archiver walk arrays, dictionaries, sets and optionals held in an `Any` without bridging casts.
protocol ArchiveEncodableArray {
    var archiveCount: Int { get }
    func forEachArchiveElement(_ body: (Any) -> Void)
}

protocol ArchiveEncodableDictionary {
    var archiveEntries: [(key: AnyHashable, value: Any)] { get }
}

protocol ArchiveEncodableSet {
    var archiveMembers: [AnyHashable] { get }
}

protocol ArchiveOptional {
    var archiveWrapped: Any? { get }
}

extension Array: ArchiveEncodableArray {
    var archiveCount: Int { count }
    func forEachArchiveElement(_ body: (Any) -> Void) {
        for element in self { body(element) }
    }
}

extension Dictionary: ArchiveEncodableDictionary {
    var archiveEntries: [(key: AnyHashable, value: Any)] { map { (AnyHashable($0.key), $0.value as Any) } }
}

extension Set: ArchiveEncodableSet {
    var archiveMembers: [AnyHashable] { map { AnyHashable($0) } }
}

extension Optional: ArchiveOptional {
    var archiveWrapped: Any? {
        switch self {
        case .some(let v): v
        case .none: nil
        }
    }
}

/// Lets the unarchiver convert a decoded `[Any]` to `[Element]` element by element (numbers converted exactly).
protocol ArchiveDecodableArray {
    static func converting(_ elements: [Any], _ convert: (Any, Any.Type) -> Any?) -> Any?
}

extension Array: ArchiveDecodableArray {
    static func converting(_ elements: [Any], _ convert: (Any, Any.Type) -> Any?) -> Any? {
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for e in elements {
            guard let v = (e as? Element) ?? (convert(e, Element.self) as? Element) else { return nil }
            result.append(v)
        }
        return result
    }
}
