/// The cache's view of its directory: every entry's hash, size, last use and expiry, in LRU order, with
/// the totals the limits are checked against. Built from the snapshot and journal (or from the entry files).
struct CacheIndex {
    struct Entry: Hashable {
        var hash: StableHash
        var size: UInt64
        var tick: UInt64
        var expires: Int64
    }

    /// The expiry of an entry found by a rebuild, before its file's own expiry is read.
    static let unknownExpiry = Int64.min

    struct Info {
        var size: UInt64
        var tick: UInt64
        var expires: Int64
    }

    private(set) var table = LRUTable<StableHash, Info>()
    private(set) var byteCount: UInt64 = 0
    private(set) var latestTick: UInt64 = 0

    var count: Int { table.count }

    init(entries: [Entry] = []) {
        table = LRUTable(minimumCapacity: entries.count)
        for entry in entries { apply(set: entry) }
    }

    mutating func apply(set entry: Entry) {
        let old = table.set(entry.hash, Info(size: entry.size, tick: entry.tick, expires: entry.expires))
        byteCount = byteCount &- (old?.size ?? 0) &+ entry.size
        latestTick = max(latestTick, entry.tick)
    }

    mutating func apply(access hash: StableHash, tick: UInt64) {
        table.update(hash) { $0.tick = max($0.tick, tick) }
        table.touch(hash)
        latestTick = max(latestTick, tick)
    }

    @discardableResult
    mutating func remove(_ hash: StableHash) -> Info? {
        guard let old = table.remove(hash) else { return nil }
        byteCount = byteCount &- old.size
        return old
    }

    mutating func removeAll() {
        table.removeAll()
        byteCount = 0
    }

    /// Applies one journal record.
    mutating func apply(_ record: CacheJournalRecord) {
        switch record.kind {
        case .set: apply(set: Entry(hash: record.hash, size: record.size, tick: record.tick, expires: record.expires))
        case .remove: remove(record.hash)
        case .access: apply(access: record.hash, tick: record.tick)
        case .clear: removeAll()
        case .header: break
        }
    }

    subscript(hash: StableHash) -> Info? { table[hash] }

    mutating func setExpiry(_ hash: StableHash, _ expires: Int64) {
        table.update(hash) { $0.expires = expires }
    }

    /// Entries, least recently used first.
    var entries: [Entry] {
        var result: [Entry] = []
        result.reserveCapacity(count)
        table.forEach { hash, info in
            result.append(Entry(hash: hash, size: info.size, tick: info.tick, expires: info.expires))
            return true
        }
        return result
    }
}
