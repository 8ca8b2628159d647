/// The archiver's ``KeyedArchiver/TypeInfo`` of each archived type, found by the metatype's identity: a
/// dictionary, with a two-way set-associative cache of 16 recent types in front (the sets of
/// ``RecentArchivableTypes``).
///
/// Every object encoded looks its type up here, and an archive of many objects has few classes: the cache
/// answers with two comparisons where the dictionary hashed the identifier at every object
/// (`Benchmarks/callgrind.sh` w1-encode: about 100 instructions an object).
struct TypeInfoTable {
    private var infos: [KeyedArchiver.TypeInfo] = []
    private var indices: [ObjectIdentifier: Int] = [:]
    private var recentIDs: [ObjectIdentifier?] = Array(repeating: nil, count: 16)
    private var recentIndices: [Int] = Array(repeating: 0, count: 16)

    /// Where the information of type `id` is, or `nil` before ``add(_:_:)``.
    @inline(__always)
    mutating func index(of id: ObjectIdentifier) -> Int? {
        let set = RecentArchivableTypes.set(of: id)
        if recentIDs[set] == id { return recentIndices[set] }
        if recentIDs[set + 1] == id { return recentIndices[set + 1] }
        guard let index = indices[id] else { return nil }
        remember(id, index, set)
        return index
    }

    /// Adds type `id` (not yet in the table) and returns its index.
    mutating func add(_ id: ObjectIdentifier, _ info: KeyedArchiver.TypeInfo) -> Int {
        let index = infos.count
        infos.append(info)
        indices[id] = index
        remember(id, index, RecentArchivableTypes.set(of: id))
        return index
    }

    /// Empties the table as a new one is, keeping its storage (an archiver encoding another archive).
    mutating func removeAll() {
        guard !infos.isEmpty else { return }
        infos.removeAll(keepingCapacity: true)
        indices.removeAll(keepingCapacity: true)
        recentIDs.withUnsafeMutableBufferPointer { $0.update(repeating: nil) }
        recentIndices.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
    }

    subscript(index: Int) -> KeyedArchiver.TypeInfo {
        get { infos[index] }
        set { infos[index] = newValue }
    }

    /// Makes `id` the most recent of its set; the set's older entry is dropped from the cache (not from the
    /// table).
    private mutating func remember(_ id: ObjectIdentifier, _ index: Int, _ set: Int) {
        recentIDs[set + 1] = recentIDs[set]
        recentIndices[set + 1] = recentIndices[set]
        recentIDs[set] = id
        recentIndices[set] = index
    }
}
