/// A direct-mapped cache of 16 types found to be ``KeyedArchivable`` (their metatypes, by identity): an
/// archive of many objects has few classes, and a cast from `Any` to the concrete class found here costs a
/// fraction of the protocol-conformance lookup it replaces.
struct RecentArchivableTypes {
    private var ids: [ObjectIdentifier?] = Array(repeating: nil, count: 16)
    private var types: [(any KeyedArchivable.Type)?] = Array(repeating: nil, count: 16)

    @inline(__always)
    private static func slot(_ id: ObjectIdentifier) -> Int {
        let bits = UInt(bitPattern: id)
        return Int(truncatingIfNeeded: (bits >> 4) ^ (bits >> 9)) & 15
    }

    @inline(__always)
    subscript(id: ObjectIdentifier) -> (any KeyedArchivable.Type)? {
        let i = Self.slot(id)
        return ids[i] == id ? types[i] : nil
    }

    mutating func insert(_ id: ObjectIdentifier, _ type: any KeyedArchivable.Type) {
        let i = Self.slot(id)
        ids[i] = id
        types[i] = type
    }
}
