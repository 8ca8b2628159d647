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
}

/// An ``ArchiveCache``'s memory layer and its counters, kept behind one lock: decoded values by key, least
/// recently used first out past the cost limit; the uses not yet written to the journal; and how far it has
/// followed the journal for other processes' changes.
struct CacheMemoryLayer {
    var table = LRUTable<CacheKey, CacheMemoryItem>()
    var cost = 0
    var keysByHash: [StableHash: CacheKey] = [:]
    var statistics = CacheStatistics()
    /// Uses not yet written to the journal: the last use of each entry, least recent first.
    var accesses = LRUTable<StableHash, UInt64>(minimumCapacity: 256)
    var lastTick: UInt64 = 0
    /// Bumped by every change a read racing with it must not undo by caching what it read.
    var mutations: UInt64 = 0
    /// The journal as last read for others' changes.
    var stamp: CacheJournalFile.Stamp
    var generation: UInt64?
    var offset: Int

    /// The most uses kept unwritten: past it the least recent are forgotten (only the LRU order loses them).
    static var accessLimit: Int { 65_536 }
    /// Buffered uses that make a read write them out.
    static var accessFlushCount: Int { 4_096 }

    init(stamp: CacheJournalFile.Stamp, generation: UInt64?, offset: Int) {
        self.stamp = stamp
        self.generation = generation
        self.offset = offset
    }

    /// A tick later than every tick seen: the order of uses across processes (real time when it is later).
    mutating func nextTick() -> UInt64 {
        lastTick = max(Kernel.realTimeNanoseconds(), lastTick &+ 1)
        return lastTick
    }

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

    /// Applies other processes' changes, recorded in the journal since the last look: an entry they set or
    /// removed is dropped; after a compaction by another process (or damage) the layer starts empty.
    mutating func refresh(from journal: CacheJournalFile, writer: UInt32) {
        guard let stamp = try? journal.stamp() else {
            clear()
            return
        }
        guard stamp != self.stamp else { return }
        guard let read = try? journal.read(from: offset, to: stamp.size) else {
            clear()
            return
        }
        if stamp.identity != self.stamp.identity || read.generation != generation || stamp.size < offset || read.damaged {
            clear()
            generation = read.generation
            offset = stamp.size
        } else {
            for record in read.records where record.writer != writer {
                switch record.kind {
                case .set, .remove: invalidate(record.hash)
                case .clear: clear()
                case .access, .header: break
                }
            }
            offset = read.consumed
        }
        self.stamp = stamp
    }

    // MARK: Uses

    /// Notes a use of `hash` for the shared LRU order; `true` when the buffer should be written out.
    mutating func recordAccess(_ hash: StableHash) -> Bool {
        accesses.set(hash, nextTick())
        return accesses.count >= Self.accessFlushCount
    }

    /// The buffered uses as journal records of `writer`, least recent first; the buffer is emptied.
    mutating func takeAccesses(writer: UInt32) -> [CacheJournalRecord] {
        guard !accesses.isEmpty else { return [] }
        var records: [CacheJournalRecord] = []
        records.reserveCapacity(accesses.count)
        accesses.forEach { hash, tick in
            records.append(CacheJournalRecord(kind: .access, writer: writer, hash: hash, tick: tick))
            return true
        }
        accesses.removeAll()
        return records
    }

    /// Puts back uses that could not be written (older than any buffered since), keeping at most
    /// ``accessLimit``.
    mutating func restoreAccesses(_ records: [CacheJournalRecord]) {
        let newer = accesses
        accesses.removeAll()
        for record in records { accesses.set(record.hash, record.tick) }
        newer.forEach { hash, tick in
            accesses.set(hash, tick)
            return true
        }
        while accesses.count > Self.accessLimit, let oldest = accesses.leastRecent { accesses.remove(oldest.key) }
    }
}

/// The disk index as one ``ArchiveCache`` object knows it, and how far into the journal it has read. Behind
/// the cache's disk lock.
struct CacheIndexState {
    var index: CacheIndex?
    var generation: UInt64 = 0
    var offset = 0
    var stamp = CacheJournalFile.Stamp(identity: .max, size: -1, modified: FileTime(seconds: 0, nanoseconds: 0))

    /// Takes what a load or compaction read.
    mutating func adopt(_ loaded: CacheDirectory.LoadedIndex) {
        index = loaded.index
        generation = loaded.generation
        offset = loaded.offset
        stamp = loaded.stamp
    }
}
