/// A cache of 16 types found to be ``KeyedArchivable`` (their metatypes, by identity): an archive of many
/// objects has few classes, and a cast from `Any` to the concrete class found here costs a fraction of the
/// protocol-conformance lookup it replaces.
///
/// Two-way set-associative (8 sets of 2, a multiplicative hash of the metatype's address picks the set), so
/// that two classes whose metadata addresses fall in one set do not evict each other at every object: a
/// direct-mapped table did that for two of the three shape classes of the W1 benchmark, whose every object
/// then paid the conformance lookup.
struct RecentArchivableTypes {
    private var ids: [ObjectIdentifier?] = Array(repeating: nil, count: 16)
    private var types: [(any KeyedArchivable.Type)?] = Array(repeating: nil, count: 16)

    /// The first of the two slots of `id`'s set.
    @inline(__always)
    static func set(of id: ObjectIdentifier) -> Int {
        let bits = UInt64(truncatingIfNeeded: UInt(bitPattern: id))
        return Int(truncatingIfNeeded: (bits &* 0x9E37_79B9_7F4A_7C15) >> 61) << 1
    }

    @inline(__always)
    subscript(id: ObjectIdentifier) -> (any KeyedArchivable.Type)? {
        let i = Self.set(of: id)
        if ids[i] == id { return types[i] }
        return ids[i + 1] == id ? types[i + 1] : nil
    }

    /// Adds `type` as the most recent of its set; the set's older entry is dropped.
    mutating func insert(_ id: ObjectIdentifier, _ type: any KeyedArchivable.Type) {
        let i = Self.set(of: id)
        ids[i + 1] = ids[i]
        types[i + 1] = types[i]
        ids[i] = id
        types[i] = type
    }
}
