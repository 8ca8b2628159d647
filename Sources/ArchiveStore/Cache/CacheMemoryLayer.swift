import ArchivePlatform
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A value in the memory layer (held as `Any`, so that the memory layer is one concrete type, not one per
/// `Value`: generic code called from another module looks its types up at run time, on every read).
struct CacheMemoryItem {
    var value: Any
    var cost: Int
    var expires: Date?
    var hash: StableHash
    /// Where the value was read from or written to.
    var location: CacheLocation
    /// The table's `changes` count at which the location was last known current.
    var verified: UInt64
}

/// An ``ArchiveCache``'s memory layer and its counters, kept behind one lock: decoded values by key, least
/// recently used first out past the cost limit, and the uses not yet marked in the table.
///
/// A value is served from memory only while its entry is still the one on disk. The table counts its changes
/// (``CacheTableHeader``): when the count is the one at which everything here was known current (`trusted`),
/// a hit costs one small read; otherwise the hit's own slot is read, and a value whose slot now names another
/// frame (another process replaced or removed it, or evicted it) is dropped.
struct CacheMemoryLayer {
    var table = LRUTable<CacheKey, CacheMemoryItem>()
    var cost = 0
    var keysByHash: [StableHash: CacheKey] = [:]
    var statistics = CacheStatistics()
    /// Entries read since the last flush, by slot: marked as used in the table when a writer next holds the
    /// lock (or a read finds it free).
    var accesses: [Int: CacheLocation] = [:]
    /// The `changes` count of the table at which every value here was known current.
    var trusted: UInt64 = 0
    /// Bumped by every change a read racing with it must not undo by caching what it read.
    var mutations: UInt64 = 0
    /// Memory hits since the table's path was last checked (see ``pathCheckDue(now:)``).
    var hitsSincePathCheck = 0
    var lastPathCheck: UInt64 = 0

    /// Whether a memory hit should also check that the table it watches is still the file at its path (not
    /// removed or replaced behind the cache's back): every 256 hits or once a second. A table that writers
    /// replace is marked retired once the new one is in place, which every hit sees; only a table removed from outside waits this long.
    mutating func pathCheckDue(now: UInt64) -> Bool {
        hitsSincePathCheck += 1
        guard hitsSincePathCheck >= 256 || now &- lastPathCheck >= 1_000_000_000 else { return false }
        hitsSincePathCheck = 0
        lastPathCheck = now
        return true
    }

    /// Buffered uses that make a read write them out.
    static var accessFlushCount: Int { 4_096 }

    // MARK: Values

    /// Keeps `item` for `key`, then drops the least recently used until within `costLimit`.
    mutating func insert(_ item: CacheMemoryItem, for key: CacheKey, costLimit: Int) {
        if let old = table.set(key, item) { cost -= old.cost }
        cost += item.cost
        keysByHash[item.hash] = key
        while cost > costLimit, let oldest = table.leastRecent { remove(oldest.key) }
    }

    mutating func remove(_ key: CacheKey) {
        guard let item = table.remove(key) else { return }
        cost -= item.cost
        if keysByHash[item.hash] == key { keysByHash[item.hash] = nil }
    }

    /// Drops what is kept for the entry `hash`, and voids reads racing with the change.
    mutating func invalidate(_ hash: StableHash) {
        mutations &+= 1
        if let key = keysByHash[hash] { remove(key) }
    }

    mutating func clear() {
        table.removeAll()
        keysByHash.removeAll()
        cost = 0
        mutations &+= 1
    }

    // MARK: Uses

    /// Notes a use of the entry at `location`; `true` when the buffer should be written out.
    mutating func recordAccess(_ location: CacheLocation) -> Bool {
        guard location.index >= 0 else { return false }
        accesses[location.index] = location
        return accesses.count >= Self.accessFlushCount
    }

    /// The buffered uses; the buffer is emptied.
    mutating func takeAccesses() -> [CacheLocation] {
        guard !accesses.isEmpty else { return [] }
        defer { accesses.removeAll(keepingCapacity: true) }
        return Array(accesses.values)
    }
}
