import ArchivePlatform
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

extension ArchiveCache {
    // MARK: Writing

    /// Stores `value` for `key` with the default time to live, replacing what was there.
    /// Mirrors `NSCache.setObject(_:forKey:cost:)`.
    public func set(_ value: Value, forKey key: String) throws(StoreError) {
        try store(value, forKey: key, timeToLive: options.defaultTimeToLive)
    }

    /// Stores `value` for `key`, expiring after `timeToLive`.
    public func set(_ value: Value, forKey key: String, timeToLive: TimeToLive) throws(StoreError) {
        try store(value, forKey: key, timeToLive: timeToLive)
    }

    func store(_ value: Value, forKey key: String, timeToLive: TimeToLive?) throws(StoreError) {
        let now = options.clock.now()
        let expires = timeToLive.map { now.addingTimeInterval(Double($0.seconds)) }
        let bytes = try CacheEntryCoding.encode(CacheEntryFile(key: key, value: value, created: now, expires: expires))
        if bytes.count > entryReadLimit {
            let limit = options.byteLimit > 0 && options.byteLimit <= CacheDirectory.largestEntry
                ? "the cache's byte limit of \(options.byteLimit)" : "the largest entry a cache keeps (\(CacheDirectory.largestEntry) bytes)"
            throw StoreError(.entryTooLarge, "the entry takes \(bytes.count) bytes, more than \(limit)", path: directory, recordID: key)
        }
        let hash = keyHash(key)
        var file = try files.prepareEntry(bytes, for: hash, durability: options.durability)
        let cacheKey = CacheKey(key)
        defer { compactIfDue(afterWrite: true) }
        do throws(StoreError) {
            try install(file, hash: hash, key: key, cacheKey: cacheKey, value: value, size: bytes.count, expires: expires)
        } catch where error.code == .durabilityUnknown {
            throw error   // in place
        } catch {
            file.abandon()
            throw error
        }
    }

    /// The part of `set` that holds the lock: the journal record, the rename, the index, eviction.
    func install(_ file: AtomicReplace, hash: StableHash, key: String, cacheKey: CacheKey, value: Value,
                 size: Int, expires: Date?) throws(StoreError) {
        try mutate { (d: inout CacheIndexState) throws(StoreError) in
            if limited || d.index != nil { try synchronize(&d) }
            let (accesses, tick) = memory.withLock { m in (m.takeAccesses(writer: files.writer), m.nextTick()) }
            let record = CacheJournalRecord(kind: .set, writer: files.writer, hash: hash, size: UInt64(size),
                                            tick: tick, expires: Self.milliseconds(expires))
            try files.journal.append(accesses + [record])
            // The file being replaced becomes a future temporary file (see CacheDirectory.retire).
            // Only a file there is moved (the index, when loaded, knows; a rename that finds nothing costs a
            // path lookup).
            let replaces = d.index == nil ? true : (d.index?[hash].map { $0.size <= 1 << 20 } ?? false)
            let retired = replaces ? files.staging.retire(files.entryPath(hash)) : nil
            var durability: StoreError?
            do throws(StoreError) {
                try files.install(file, as: hash, durability: options.durability)
            } catch where error.code == .durabilityUnknown {
                durability = StoreError(.durabilityUnknown, "the entry is in place but the sync of its directory failed: \(error.reason)",
                                        path: files.entryPath(hash), recordID: key, errno: error.errno)
            } catch {
                if let retired { _ = files.staging.restore(retired, to: files.entryPath(hash)) }
                correctAfterFailedInstall(hash, &d)
                throw error
            }
            if d.index != nil {
                for access in accesses { d.index?.apply(access) }
                d.index?.apply(record)
            }
            // The record again, now that the file is in place: a memory layer in another process that read
            // the first one, then the old file (before the rename), drops what it cached when it reads this.
            let evicted = evict(&d, keeping: hash, byteLimit: options.byteLimit > 0 ? options.byteLimit : nil, writing: [record])
            if d.index != nil, let stamp = try? files.journal.stamp() {
                // Synchronized when this section began, and nobody else appends while it holds the lock:
                // everything since is this cache's own, already applied.
                d.stamp = stamp
                d.offset = stamp.size
            }
            memory.withLock { m in
                m.statistics.writes += 1
                m.statistics.evictions += evicted.count
                m.invalidate(hash)
                for victim in evicted { m.invalidate(victim) }
                if memoryEnabled && size <= options.memoryCostLimit {
                    m.insert(CacheMemoryItem(value: value, cost: size, expires: expires, hash: hash), for: cacheKey,
                             costLimit: options.memoryCostLimit)
                }
            }
            if let durability { throw durability }
        }
    }

    /// Removes `key`'s entry, if any. Mirrors `NSCache.removeObject(forKey:)`.
    public func removeValue(forKey key: String) throws(StoreError) {
        let hash = keyHash(key)
        try mutate { (d: inout CacheIndexState) throws(StoreError) in
            // Only a file of this key is removed (a colliding key's entry stays).
            if let file = try files.readEntry(hash) {
                let header = CacheEntryCoding.header(file.bytes)
                if header == nil || header?.key.utf8.elementsEqual(key.utf8) == true {
                    try files.removeEntry(hash, inode: file.inode)
                    try files.journal.append([CacheJournalRecord(kind: .remove, writer: files.writer, hash: hash)])
                    d.index?.remove(hash)
                }
            }
            memory.withLock { m in
                m.mutations &+= 1
                m.remove(CacheKey(key))
            }
        }
    }

    /// Removes every entry (files the cache did not write stay); returns how many entry files it removed.
    /// Mirrors `NSCache.removeAllObjects()`.
    @discardableResult
    public func removeAll() throws(StoreError) -> Int {
        try mutate { (d: inout CacheIndexState) throws(StoreError) -> Int in
            let result = try files.removeAllEntries()
            d.index = CacheIndex()
            d.generation = memory.withLock { m in
                m.clear()
                m.stamp = result.stamp
                m.offset = CacheJournalRecord.size
                m.generation = (try? files.journal.read(from: 0, to: 0).generation) ?? nil
                return m.generation ?? 0
            }
            d.offset = CacheJournalRecord.size
            d.stamp = result.stamp
            return result.removed
        }
    }

    /// Removes every expired entry; returns how many.
    @discardableResult
    public func removeExpired() throws(StoreError) -> Int {
        let now = options.clock.now()
        // Expiries are kept rounded up to the millisecond; now is rounded down, so an entry is removed only
        // once it has certainly expired.
        let nowMilliseconds = Self.milliseconds(now, roundingUp: false)
        return try mutate { (d: inout CacheIndexState) throws(StoreError) -> Int in
            try synchronize(&d)
            guard let index = d.index else { return 0 }
            var expired: [StableHash] = []
            for entry in index.entries {
                if entry.expires == CacheIndex.unknownExpiry {
                    // Rebuilt from the files: read the entry's own expiry once.
                    guard let file = try? files.readEntry(entry.hash) else { continue }
                    let expires = CacheEntryCoding.header(file.bytes).map { Self.milliseconds($0.expires) } ?? .max
                    d.index?.setExpiry(entry.hash, expires)
                    if expires <= nowMilliseconds { expired.append(entry.hash) }
                } else if entry.expires <= nowMilliseconds {
                    expired.append(entry.hash)
                }
            }
            var records: [CacheJournalRecord] = []
            var removed: [StableHash] = []
            var failure: StoreError?
            for hash in expired {
                do throws(StoreError) {
                    try files.removeEntry(hash)
                } catch {
                    failure = error
                    continue
                }
                d.index?.remove(hash)
                removed.append(hash)
                records.append(CacheJournalRecord(kind: .remove, writer: files.writer, hash: hash))
            }
            expired = removed
            try files.journal.append(records)
            if let failure { throw failure }
            memory.withLock { m in
                m.statistics.expired += expired.count
                for hash in expired { m.invalidate(hash) }
                var stale: [CacheKey] = []
                m.table.forEach { key, item in
                    if let expires = item.expires, expires <= now { stale.append(key) }
                    return true
                }
                for key in stale { m.remove(key) }
            }
            return expired.count
        }
    }

    /// Evicts least recently used entries until the entries on disk take at most `byteLimit` bytes, and
    /// removes temporary files of writers that died.
    public func trim(toByteLimit byteLimit: Int) throws(StoreError) {
        guard byteLimit >= 0 else { throw StoreError(.invalidArgument, "a byte limit must not be negative") }
        files.staging.removeStaleTemporaryFiles()
        try mutate { (d: inout CacheIndexState) throws(StoreError) in
            try synchronize(&d)
            let evicted = evict(&d, keeping: nil, byteLimit: byteLimit, enforceCount: false)
            memory.withLock { m in
                m.statistics.evictions += evicted.count
                for victim in evicted { m.invalidate(victim) }
            }
        }
    }

    /// Evicts least recently used entries (never `keeping`) until within the limits; returns their hashes.
    func evict(_ d: inout CacheIndexState, keeping: StableHash?, byteLimit: Int?, enforceCount: Bool = true,
                       writing leading: [CacheJournalRecord] = []) -> [StableHash] {
        var victims: [StableHash] = []
        defer {
            try? files.journal.append(leading + victims.map { CacheJournalRecord(kind: .remove, writer: files.writer, hash: $0) })
        }
        guard d.index != nil else { return [] }
        // Only scalars are read from `d.index` here: binding the index itself would keep a second reference
        // to its storage, and every removal would then copy the whole table.
        while let byteCount = d.index?.byteCount, let count = d.index?.count {
            let overBytes = byteLimit.map { byteCount > UInt64($0) } ?? false
            let overCount = enforceCount && options.countLimit > 0 && count > options.countLimit
            guard overBytes || overCount, let oldest = d.index?.table.leastRecent, oldest.key != keeping else { break }
            // A file that cannot be removed stays counted; the excess waits for the next write.
            guard (try? files.evictEntry(oldest.key)) != nil else { break }
            d.index?.remove(oldest.key)
            victims.append(oldest.key)
        }
        return victims
    }

    /// After a failed rename the journal says the new entry is in place; say what is there instead.
    func correctAfterFailedInstall(_ hash: StableHash, _ d: inout CacheIndexState) {
        let path = files.entryPath(hash)
        let info = try? files.fileSystem.linkStatus(path)
        let record: CacheJournalRecord
        if let info = info ?? nil, info.isRegularFile {
            record = CacheJournalRecord(kind: .set, writer: files.writer, hash: hash, size: UInt64(clamping: info.size),
                                        tick: memory.withLock { $0.nextTick() }, expires: CacheIndex.unknownExpiry)
        } else {
            record = CacheJournalRecord(kind: .remove, writer: files.writer, hash: hash)
        }
        try? files.journal.append([record])
        d.index?.apply(record)
    }

    /// Removes an entry file found expired or damaged (only the very file that was read), when the locks
    /// are free now: a read never waits for a writer, and a file left now is removed by a later read.
    func discard(_ hash: StableHash, inode: UInt64) {
        _ = disk.withLockIfAvailable { d in
            _ = try? files.exclusivelyIfAvailable { () throws(StoreError) in
                guard try files.removeEntry(hash, inode: inode) else { return }
                try files.journal.append([CacheJournalRecord(kind: .remove, writer: files.writer, hash: hash)])
                d.index?.remove(hash)
                memory.withLock { $0.invalidate(hash) }
            }
        }
    }

    static func milliseconds(_ date: Date?, roundingUp: Bool = true) -> Int64 {
        guard let date else { return .max }
        let value = (date.timeIntervalSince1970 * 1000).rounded(roundingUp ? .up : .down)
        guard value.isFinite else { return value > 0 ? .max : .min + 1 }
        return Int64(exactly: value) ?? (value > 0 ? .max - 1 : .min + 1)
    }
}
