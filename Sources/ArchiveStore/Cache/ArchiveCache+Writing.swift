import ArchivePlatform
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

extension ArchiveCache {
    // MARK: Writing

    /// Stores `value` for `key`, replacing what was there, expiring after `timeToLive` (when `nil`, the
    /// default, ``CacheOptions/defaultTimeToLive``).
    ///
    /// ```swift
    /// try cache.set(drawing, forKey: "cover")
    /// try cache.set(preview, forKey: "cover-preview", timeToLive: .hours(12))
    /// ```
    ///
    /// Mirrors `NSCache.setObject(_:forKey:cost:)`.
    public func set(_ value: Value, forKey key: String, timeToLive: TimeToLive? = nil) throws(StoreError) {
        try store(value, forKey: key, timeToLive: timeToLive ?? options.defaultTimeToLive)
    }

    func store(_ value: Value, forKey key: String, timeToLive: TimeToLive?) throws(StoreError) {
        let now = options.clock.now()
        let expires = timeToLive.map { now.addingTimeInterval(Double($0.seconds)) }
        let bytes = try CacheEntryCoding.encode(CacheEntryFile(key: key, value: value, created: now, expires: expires))
        if bytes.count > entryReadLimit {
            let limit = options.byteLimit > 0 && options.byteLimit <= Self.largestEntry
                ? "the cache's byte limit of \(options.byteLimit)" : "the largest entry a cache keeps (\(Self.largestEntry) bytes)"
            throw StoreError(.entryTooLarge, "the entry takes \(bytes.count) bytes, more than \(limit)", path: directory, recordID: key)
        }
        let hash = keyHash(key)
        let cacheKey = CacheKey(key)
        let keyBytes = CacheDirectory.frameKey(Array(key.utf8), hash: hash)
        var written: (CacheLocation, [StableHash])?
        var madeRoom: [StableHash] = []
        do throws(StoreError) {
            try mutate { (writer: inout CacheWriter, state: inout CacheWriterState) throws(StoreError) in
                let expiry = expires?.timeIntervalSince1970
                let (index, slot): (Int, CacheSlot)
                do throws(StoreError) {
                    (index, slot) = try writer.put(keyBytes, hash: hash, archive: bytes, expiry: expiry, &state)
                } catch where error.errno == Errno.noSpace.rawValue && writer.header.count > 0 {
                    // The disk is full while the cache holds entries: give back room for this one (the oldest
                    // segments, whole, until twice its size is free), then try once more; a second refusal is the
                    // caller's.
                    madeRoom = try writer.giveBackRoom(atLeast: 2 * bytes.count + 4_096, &state)
                    guard !madeRoom.isEmpty else { throw error }
                    (index, slot) = try writer.put(keyBytes, hash: hash, archive: bytes, expiry: expiry, &state)
                }
                let evicted = try evictToLimits(&writer, keeping: keyBytes, &state)
                written = (CacheLocation(table: writer.table.inode, index: index, slot: slot, changes: writer.header.changes &+ 1),
                           madeRoom + evicted)
                madeRoom = []
            }
        } catch {
            memory.withLock { m in
                m.invalidate(hash)
                m.statistics.evictions += madeRoom.count   // room made for a retry that failed too
                for victim in madeRoom { m.invalidate(victim) }
            }
            var error = error
            if error.code == .entryTooLarge { error.recordID = key }
            throw error
        }
        memory.withLock { m in
            m.statistics.writes += 1
            m.invalidate(hash)
            guard let (location, evicted) = written else { return }
            m.statistics.evictions += evicted.count
            for victim in evicted { m.invalidate(victim) }
            if memoryEnabled && bytes.count <= options.memoryCostLimit {
                m.insert(CacheMemoryItem(value: value, cost: bytes.count, expires: expires, hash: hash, location: location,
                                         verified: location.changes),
                         for: cacheKey, costLimit: options.memoryCostLimit)
            }
        }
    }

    /// Removes `key`'s entry, if any. Mirrors `NSCache.removeObject(forKey:)`.
    public func removeValue(forKey key: String) throws(StoreError) {
        let hash = keyHash(key)
        var evicted: [StableHash] = []
        do throws(StoreError) {
            try mutate { (writer: inout CacheWriter, state: inout CacheWriterState) throws(StoreError) in
                _ = try writer.remove(CacheDirectory.frameKey(Array(key.utf8), hash: hash), hash: hash, &state)
                evicted = try evictToLimits(&writer, keeping: nil, &state)   // the delete frame takes room too
            }
        } catch {
            memory.withLock { $0.invalidate(hash) }
            throw error
        }
        memory.withLock { m in
            m.invalidate(hash)
            m.remove(CacheKey(key))
            m.statistics.evictions += evicted.count
            for victim in evicted { m.invalidate(victim) }
        }
    }

    /// Removes every entry (files the cache did not write stay); returns how many entries there were.
    /// `progress` counts the files removed (segments and large entries), of those there are.
    /// Mirrors `NSCache.removeAllObjects()`.
    @discardableResult
    public func removeAll(progress: ProgressHandler? = nil) throws(StoreError) -> Int {
        let removed = try mutate { (writer: inout CacheWriter, state: inout CacheWriterState) throws(StoreError) -> Int in
            try writer.removeAll(progress: progress, &state)
        }
        memory.withLock { $0.clear() }
        return removed
    }

    /// Removes every expired entry; returns how many. `progress` counts the expired entries removed, of
    /// those found.
    @discardableResult
    public func removeExpired(progress: ProgressHandler? = nil) throws(StoreError) -> Int {
        let now = options.clock.now()
        let (removed, evicted) = try mutate {
            (writer: inout CacheWriter, state: inout CacheWriterState) throws(StoreError) -> ([StableHash], [StableHash]) in
            let removed = try writer.removeExpired(now: now.timeIntervalSince1970, progress: progress, &state)
            return (removed, try evictToLimits(&writer, keeping: nil, &state))
        }
        memory.withLock { m in
            m.statistics.expired += removed.count
            m.statistics.evictions += evicted.count
            for hash in removed + evicted { m.invalidate(hash) }
            var stale: [CacheKey] = []
            m.table.forEach { key, item in
                if let expires = item.expires, expires <= now { stale.append(key) }
                return true
            }
            for key in stale { m.remove(key) }
        }
        return removed.count
    }

    /// Evicts entries, oldest segments first, until the directory takes at most `byteLimit` bytes on disk.
    /// `progress` counts the bytes given back, of those over `byteLimit` at the start.
    public func trim(toByteLimit byteLimit: Int, progress: ProgressHandler? = nil) throws(StoreError) {
        guard byteLimit >= 0 else { throw StoreError(.invalidArgument, "a byte limit must not be negative") }
        let evicted = try mutate { (writer: inout CacheWriter, state: inout CacheWriterState) throws(StoreError) -> [StableHash] in
            files.sweepTemporaries()
            return try writer.evict(byteLimit: byteLimit, countLimit: 0, progress: progress, &state)
        }
        memory.withLock { m in
            m.statistics.evictions += evicted.count
            for victim in evicted { m.invalidate(victim) }
        }
    }

    // MARK: The writer

    /// Evicts (or compacts) until the directory is within the options' limits again, after a change that
    /// appended frames; returns the hashes of the entries evicted.
    func evictToLimits(_ writer: inout CacheWriter, keeping kept: [UInt8]?,
                       _ state: inout CacheWriterState) throws(StoreError) -> [StableHash] {
        try writer.evict(byteLimit: options.byteLimit > 0 ? options.byteLimit : nil, countLimit: options.countLimit,
                         keeping: kept, &state)
    }

    /// Runs `body` with a writer section, holding this cache's disk mutex and the directory's lock: the uses
    /// read since the last section are marked first, and the table's header is written back after `body`.
    /// When only this cache object changed the table since its memory layer was last known current, that
    /// stays known (so its memory hits keep costing one small read).
    @discardableResult
    func mutate<Result>(_ body: (inout CacheWriter, inout CacheWriterState) throws(StoreError) -> Result) throws(StoreError) -> Result {
        guard let result = try section(waiting: true, body) else {
            throw StoreError(.locked, "the cache lock was not taken", path: files.lockPath)
        }
        return result
    }

    /// ``mutate(_:)`` only when neither this cache's writers nor another process's hold the locks now (a read
    /// never waits for a writer): `nil` when they do, or when the section failed (what a read does this way
    /// is left for a later read or write).
    func mutateIfFree<Result>(_ body: (inout CacheWriter, inout CacheWriterState) throws(StoreError) -> Result) -> Result? {
        (try? section(waiting: false, body)) ?? nil
    }

    /// A writer section: the header is written back whether `body` succeeds or not (a slot it changed must be
    /// counted as a change, or memory layers would not look at it again).
    private func section<Result>(waiting: Bool, _ body: (inout CacheWriter, inout CacheWriterState) throws(StoreError) -> Result)
        throws(StoreError) -> Result?
    {
        func run(_ state: inout CacheWriterState) throws(StoreError) -> Result? {
            try files.exclusively(waiting: waiting ? .forever : .never) { () throws(StoreError) -> Result in
                var writer = try CacheWriter(directory: files, state: &state, byteLimit: options.byteLimit, durability: options.durability)
                let result: Result
                do throws(StoreError) {
                    try writer.markReferenced(memory.withLock { $0.takeAccesses() })
                    result = try body(&writer, &state)
                } catch {
                    try? writer.finish()
                    throw error
                }
                do throws(StoreError) {
                    try writer.finish()
                } catch {
                    throw StoreError(.durabilityUnknown, "the change is made, but writing or syncing the cache table failed: \(error.reason)",
                                     path: files.tablePath, errno: error.errno)
                }
                let (before, after) = writer.changes
                memory.withLock { m in
                    if m.trusted == before { m.trusted = after }
                }
                return result
            }
        }
        if waiting { return try disk.withLock { (state: inout CacheWriterState) throws(StoreError) -> Result? in try run(&state) } }
        let outcome = disk.withLockIfAvailable { (state: inout CacheWriterState) -> Swift.Result<Result?, StoreError> in
            do throws(StoreError) { return .success(try run(&state)) } catch { return .failure(error) }
        }
        guard let outcome else { return nil }
        return try outcome.get()
    }

    /// Removes an entry a read found expired or damaged (only the very frame that was read), when the locks
    /// are free now: a read never waits for a writer, and an entry left now is removed by a later read.
    func discard(_ location: CacheLocation, key: [UInt8], hash: StableHash) {
        guard location.index >= 0 else { return }
        let evicted = mutateIfFree { (writer: inout CacheWriter, state: inout CacheWriterState) throws(StoreError) -> [StableHash]? in
            guard try writer.free(location, key: key, hash: hash, &state) else { return nil }
            return try evictToLimits(&writer, keeping: nil, &state)
        }
        guard let evicted, let evicted else { return }
        memory.withLock { m in
            m.invalidate(hash)
            m.statistics.evictions += evicted.count
            for victim in evicted { m.invalidate(victim) }
        }
    }

    /// Marks the buffered uses in the table, waiting for the lock.
    func flushAccesses() {
        guard !memory.withLock({ $0.accesses.isEmpty }) else { return }
        _ = try? mutate { (_: inout CacheWriter, _: inout CacheWriterState) throws(StoreError) in }
    }

    /// ``flushAccesses()`` from a read: only when the locks are free now; otherwise the uses stay buffered.
    func flushAccessesIfFree() {
        _ = mutateIfFree { (_: inout CacheWriter, _: inout CacheWriterState) throws(StoreError) in }
    }
}
