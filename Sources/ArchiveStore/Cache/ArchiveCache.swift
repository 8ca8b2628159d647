import FoundationEssentials
import KeyedArchive

/// A disk cache of values kept as keyed archives, one file per entry, with a memory layer in front, an
/// expiry per entry, byte and count limits and least-recently-used eviction. Several threads and several
/// processes may use one directory at once.
///
/// ```swift
/// var options = CacheOptions()
/// options.byteLimit = 256 << 20
/// options.defaultTimeToLive = .days(7)
/// options.memoryCostLimit = 32 << 20
/// let cache = try ArchiveCache<Drawing>(directory: path, registry: ClassRegistry([Drawing.self]), options: options)
/// try cache.set(drawing, forKey: "home")
/// let drawing = try cache.value(forKey: "home")                 // nil: absent, expired or damaged
/// let fresh = try await cache.value(forKey: "k") { key in try await download(key) }   // loads once
/// ```
///
/// `Value` is any ``KeyedArchivable`` type, any `Codable` type (existentials such as `[any Shape]` keep
/// their concrete types through the registry, as with ``ArchiveEncoder``), or raw bytes (`[UInt8]`, stored
/// as `NSData`).
///
/// **On disk** each entry is `<directory>/<hh>/<hash>.archive`, an ordinary keyed archive (see
/// `CacheEntryFile`): `<hash>` is the first 128 bits of the SHA-256 of the key's UTF-8 bytes in hex, so a
/// key of any content (empty, `/`, `..`, NUL, 100 KB) never becomes a path, and the stored key is compared
/// on every read. Writes go to a temporary file renamed into place: a reader sees the old entry, the new
/// one or none. A damaged, truncated or foreign entry file is a miss and is removed; an expired entry is
/// never returned and is removed when met. The sizes and use order of all entries live in a shared index
/// (snapshot + journal, rebuilt from the entry files when lost), so eviction survives restarts and
/// opening reads nothing but a few small files.
///
/// **In memory** decoded values are kept up to ``CacheOptions/memoryCostLimit`` (cost: the entry file's
/// size). A memory hit returns the same instance each time for a class, as `NSCache` does; a change made
/// by another process is seen before the next read answers, through the journal.
///
/// Errors are ``StoreError``s: `.io` for a failed system call (a full disk, an unwritable directory; reads
/// keep answering), `.entryTooLarge`, `.invalidArgument` for a value that cannot be archived,
/// `.durabilityUnknown` when a `.synchronous` write is in place but its directory could not be fsynced.
///
/// Plays the part of `NSCache` in front of files written with `NSKeyedArchiver`, as PINCache and
/// hyperoslo/Cache combine them.
public final class ArchiveCache<Value>: @unchecked Sendable { // Sendable: all mutable state is behind `Locked`; values are shared as NSCache shares them.
    /// The directory holding the entries.
    public let directory: String
    /// The limits and policies in force.
    public let options: CacheOptions
    /// The classes values decode to.
    public let registry: ClassRegistry

    let files: CacheDirectory
    private let keyHash: @Sendable (String) -> StableHash
    private let memory: Locked<MemoryState>
    private let disk = Locked(DiskState())
    private let flights = Locked<[CacheKey: Flight]>([:])
    private var memoryEnabled: Bool { options.memoryCostLimit > 0 }
    /// The largest entry written or read: the byte limit, and never more than 1 GiB.
    private var entryReadLimit: Int {
        options.byteLimit > 0 ? min(options.byteLimit, CacheDirectory.largestEntry) : CacheDirectory.largestEntry
    }
    private var limited: Bool { options.byteLimit > 0 || options.countLimit > 0 }

    /// Opens (creating it, mode 0700) the cache in `directory`. Reads no entry file; removes temporary
    /// files left by writers that died.
    public convenience init(directory: String, registry: ClassRegistry = .standard,
                            options: CacheOptions = CacheOptions()) throws(StoreError) {
        try self.init(directory: directory, registry: registry, options: options, fileSystem: .kernel,
                      keyHash: { StableHash($0.utf8) })
    }

    /// Opens a cache whose system calls and key hash are given (tests: fault injection, forced collisions).
    package init(directory: String, registry: ClassRegistry, options: CacheOptions, fileSystem: FileSystem,
                 keyHash: @escaping @Sendable (String) -> StableHash) throws(StoreError) {
        guard options.byteLimit >= 0, options.countLimit >= 0, options.memoryCostLimit >= 0 else {
            throw StoreError(.invalidArgument, "cache limits must not be negative")
        }
        guard !directory.isEmpty else { throw StoreError(.invalidArgument, "the cache directory path is empty") }
        self.directory = directory
        self.options = options
        self.registry = registry
        self.keyHash = keyHash
        files = try CacheDirectory(path: directory, fileSystem: fileSystem)
        // The memory layer starts empty, so what the journal holds so far concerns it not: read its header
        // only, and follow it from its end (whole records from the header on).
        let stamp = try files.journalStamp()
        let header = try files.readJournal(from: 0, to: 0)
        let end = stamp.size - max(0, stamp.size - CacheJournalRecord.size) % CacheJournalRecord.size
        memory = Locked(MemoryState(stamp: stamp, generation: header.generation, offset: end))
        // The first read of a process would pay for cold code and first allocations; opening pays instead.
        CacheEntryCoding.prepare(Value.self, registry: registry)
        _ = keyHash("")
        _ = try? files.readFile(files.lockPath)
        _ = try? files.readEntry(StableHash(high: 0, low: 0))
    }

    deinit {
        flushAccesses()
    }

    // MARK: Reading

    /// The value stored for `key`, or `nil` when there is none, it has expired, or its file is damaged or
    /// belongs to another key. Never blocks on a writer. Mirrors `NSCache.object(forKey:)`.
    public func value(forKey key: String) throws(StoreError) -> Value? {
        let cacheKey = CacheKey(key)
        let now = options.clock.now()
        var expiredInMemory: StableHash?
        var flush = false
        let (found, mutationsBefore) = memory.withLock { m -> (Value?, UInt64) in
            guard memoryEnabled else { return (nil, m.mutations) }
            refresh(&m)
            guard let item = m.table[cacheKey] else { return (nil, m.mutations) }
            if let expires = item.expires, expires <= now {
                remove(cacheKey, from: &m)
                expiredInMemory = item.hash
                return (nil, m.mutations)
            }
            m.table.touch(cacheKey)
            m.statistics.memoryHits += 1
            flush = recordAccess(item.hash, in: &m)
            return (item.value, m.mutations)
        }
        if let found {
            if flush { flushAccessesIfFree() }
            return found
        }
        let hash = expiredInMemory ?? keyHash(key)
        guard let file = try files.readEntry(hash, limit: entryReadLimit) else {
            memory.withLock { $0.statistics.misses += 1 }
            return nil
        }
        switch CacheEntryCoding.decode(file.bytes, as: Value.self, key: key, now: now, registry: registry) {
        case .value(let value, let expires):
            let flush = memory.withLock { m -> Bool in
                m.statistics.diskHits += 1
                if memoryEnabled && file.bytes.count <= options.memoryCostLimit {
                    refresh(&m)
                    if m.mutations == mutationsBefore {
                        insert(MemoryItem(value: value, cost: file.bytes.count, expires: expires, hash: hash), for: cacheKey, into: &m)
                    }
                }
                return recordAccess(hash, in: &m)
            }
            if flush { flushAccessesIfFree() }
            return value
        case .rejected(.otherKey):
            memory.withLock { $0.statistics.misses += 1 }
            return nil
        case .rejected(let reason):
            memory.withLock { m in
                m.statistics.misses += 1
                if reason == .expired { m.statistics.expired += 1 } else { m.statistics.damaged += 1 }
            }
            discard(hash, inode: file.inode)
            return nil
        }
    }

    /// The bytes of `key`'s entry file (an ordinary keyed archive), when it holds a live entry for `key`.
    /// Does not count as a use.
    public func archivedEntry(forKey key: String) throws(StoreError) -> [UInt8]? {
        guard let file = try files.readEntry(keyHash(key)), let header = CacheEntryCoding.header(file.bytes),
              header.key.utf8.elementsEqual(key.utf8)
        else { return nil }
        if let expires = header.expires, expires <= options.clock.now() { return nil }
        return file.bytes
    }

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

    private func store(_ value: Value, forKey key: String, timeToLive: TimeToLive?) throws(StoreError) {
        let now = options.clock.now()
        let expires = timeToLive.map { now.addingTimeInterval(Double($0.seconds)) }
        let bytes = try CacheEntryCoding.encode(CacheEntryFile(key: key, value: value, created: now, expires: expires))
        if bytes.count > entryReadLimit {
            let limit = options.byteLimit > 0 && options.byteLimit <= CacheDirectory.largestEntry
                ? "the cache's byte limit of \(options.byteLimit)" : "the largest entry a cache keeps (\(CacheDirectory.largestEntry) bytes)"
            throw StoreError(.entryTooLarge, "the entry takes \(bytes.count) bytes, more than \(limit)", path: directory, recordID: key)
        }
        let hash = keyHash(key)
        let synchronous = options.durability == .synchronous
        let temporary = try files.writeTemporary(bytes, sync: synchronous)
        let cacheKey = CacheKey(key)
        defer { compactIfDue() }
        do throws(StoreError) {
            try install(temporary, hash: hash, key: key, cacheKey: cacheKey, value: value, size: bytes.count, expires: expires)
        } catch {
            // Gone already when it was renamed into place (a failed directory fsync after the rename).
            _ = try? files.fileSystem.unlink(temporary)
            throw error
        }
    }

    /// The part of `set` that holds the lock: the journal record, the rename, the index, eviction.
    private func install(_ temporary: String, hash: StableHash, key: String, cacheKey: CacheKey, value: Value,
                         size: Int, expires: Date?) throws(StoreError) {
        let synchronous = options.durability == .synchronous
        try mutate { (d: inout DiskState) throws(StoreError) in
            if limited || d.index != nil { try synchronize(&d) }
            let (accesses, tick) = memory.withLock { m in (m.takeAccesses(writer: files.writer), m.nextTick()) }
            let record = CacheJournalRecord(kind: .set, writer: files.writer, hash: hash, size: UInt64(size),
                                            tick: tick, expires: Self.milliseconds(expires))
            try files.appendHoldingLock(accesses + [record])
            // The file being replaced becomes a future temporary file (see CacheDirectory.retire).
            let retired = d.index?[hash].map({ $0.size <= 1 << 20 }) ?? true ? files.retire(files.entryPath(hash)) : nil
            do throws(StoreError) {
                try files.install(temporary, as: hash)
            } catch {
                if let retired { _ = files.restore(retired, to: files.entryPath(hash)) }
                correctAfterFailedInstall(hash, &d)
                throw error
            }
            var durability: StoreError?
            if synchronous {
                do throws(StoreError) { try files.fileSystem.syncDirectory(files.entryDirectory(hash)) } catch {
                    durability = StoreError(.durabilityUnknown, "the entry is in place but fsync of its directory failed: \(error.reason)",
                                            path: files.entryPath(hash), recordID: key, errno: error.errno)
                }
            }
            if d.index != nil {
                for access in accesses { d.index?.apply(access) }
                d.index?.apply(record)
            }
            // The record again, now that the file is in place: a memory layer in another process that read
            // the first one, then the old file (before the rename), drops what it cached when it reads this.
            let evicted = evict(&d, keeping: hash, byteLimit: options.byteLimit > 0 ? options.byteLimit : nil, writing: [record])
            memory.withLock { m in
                m.statistics.writes += 1
                m.statistics.evictions += evicted.count
                invalidate(hash, in: &m)
                for victim in evicted { invalidate(victim, in: &m) }
                if memoryEnabled && size <= options.memoryCostLimit {
                    insert(MemoryItem(value: value, cost: size, expires: expires, hash: hash), for: cacheKey, into: &m)
                }
            }
            if let durability { throw durability }
        }
    }

    /// Removes `key`'s entry, if any. Mirrors `NSCache.removeObject(forKey:)`.
    public func removeValue(forKey key: String) throws(StoreError) {
        let hash = keyHash(key)
        try mutate { (d: inout DiskState) throws(StoreError) in
            // Only a file of this key is removed (a colliding key's entry stays).
            if let file = try files.readEntry(hash) {
                let header = CacheEntryCoding.header(file.bytes)
                if header == nil || header?.key.utf8.elementsEqual(key.utf8) == true {
                    try files.removeEntry(hash, inode: file.inode)
                    try files.appendHoldingLock([CacheJournalRecord(kind: .remove, writer: files.writer, hash: hash)])
                    d.index?.remove(hash)
                }
            }
            memory.withLock { m in
                m.mutations &+= 1
                remove(CacheKey(key), from: &m)
            }
        }
    }

    /// Removes every entry (files the cache did not write stay); returns how many entry files it removed.
    /// Mirrors `NSCache.removeAllObjects()`.
    @discardableResult
    public func removeAll() throws(StoreError) -> Int {
        try mutate { (d: inout DiskState) throws(StoreError) -> Int in
            let result = try files.removeAllEntries()
            d.index = CacheIndex()
            d.generation = memory.withLock { m in
                m.clear()
                m.stamp = result.stamp
                m.offset = CacheJournalRecord.size
                m.generation = (try? files.readJournal(from: 0, to: 0).generation) ?? nil
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
        return try mutate { (d: inout DiskState) throws(StoreError) -> Int in
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
            try files.appendHoldingLock(records)
            if let failure { throw failure }
            memory.withLock { m in
                m.statistics.expired += expired.count
                for hash in expired { invalidate(hash, in: &m) }
                var stale: [CacheKey] = []
                m.table.forEach { key, item in
                    if let expires = item.expires, expires <= now { stale.append(key) }
                    return true
                }
                for key in stale { remove(key, from: &m) }
            }
            return expired.count
        }
    }

    /// Evicts least recently used entries until the entries on disk take at most `byteLimit` bytes, and
    /// removes temporary files of writers that died.
    public func trim(toByteLimit byteLimit: Int) throws(StoreError) {
        guard byteLimit >= 0 else { throw StoreError(.invalidArgument, "a byte limit must not be negative") }
        files.removeStaleTemporaryFiles()
        try mutate { (d: inout DiskState) throws(StoreError) in
            try synchronize(&d)
            let evicted = evict(&d, keeping: nil, byteLimit: byteLimit, enforceCount: false)
            memory.withLock { m in
                m.statistics.evictions += evicted.count
                for victim in evicted { invalidate(victim, in: &m) }
            }
        }
    }

    /// Counters of this cache object and the directory's entry count and bytes.
    public var statistics: CacheStatistics {
        flushAccesses()
        let totals = (try? mutate { (d: inout DiskState) throws(StoreError) -> (Int, Int) in
            try synchronize(&d)
            return (d.index?.count ?? 0, Int(clamping: d.index?.byteCount ?? 0))
        }) ?? (0, 0)
        var result = memory.withLock { $0.statistics }
        (result.entryCount, result.byteCount) = totals
        return result
    }

    /// Every entry on disk, least recently used first: key, size, creation, expiry, last use. Reads each
    /// entry file's header (not its value).
    public func entries() throws(StoreError) -> [CacheEntryInfo] {
        flushAccesses()
        let indexed = try mutate { (d: inout DiskState) throws(StoreError) -> [CacheIndex.Entry] in
            try synchronize(&d)
            return d.index?.entries ?? []
        }
        var result: [CacheEntryInfo] = []
        for entry in indexed {
            guard let file = try files.readEntry(entry.hash), let header = CacheEntryCoding.header(file.bytes) else { continue }
            result.append(CacheEntryInfo(key: header.key, byteCount: file.bytes.count, created: header.created,
                                         expires: header.expires,
                                         lastAccess: Date(timeIntervalSince1970: Double(entry.tick) / 1e9)))
        }
        return result
    }

    // MARK: Get or load

    /// The value for `key`, or, when there is none, the value `loader` makes, stored with `timeToLive`
    /// (the default when `nil`) and returned. Concurrent callers for one missing key in this process wait
    /// for a single call of `loader` and all receive its value or its error; a loader that throws stores
    /// nothing. A value that loaded but could not be stored (a full disk) is still returned.
    ///
    /// The stampede barrier of python-diskcache's `memoize`, within one process.
    public func value(forKey key: String, timeToLive: TimeToLive? = nil,
                      loader: (String) async throws -> Value) async throws -> Value {
        if let value = try value(forKey: key) { return value }
        let cacheKey = CacheKey(key)
        let (flight, leads) = flights.withLock { f -> (Flight, Bool) in
            if let existing = f[cacheKey] { return (existing, false) }
            let flight = Flight()
            f[cacheKey] = flight
            return (flight, true)
        }
        guard leads else { return try await flight.wait().value }
        let result: Result<Box, any Error>
        do {
            if let value = try value(forKey: key) {
                result = .success(Box(value))
            } else {
                let value = try await loader(key)
                try? store(value, forKey: key, timeToLive: timeToLive ?? options.defaultTimeToLive)
                result = .success(Box(value))
            }
        } catch {
            result = .failure(error)
        }
        flights.withLock { $0[cacheKey] = nil }
        flight.finish(result)
        return try result.get().value
    }

    // MARK: Memory layer

    private struct MemoryItem {
        var value: Value
        var cost: Int
        var expires: Date?
        var hash: StableHash
    }

    private struct MemoryState {
        var table = LRUTable<CacheKey, MemoryItem>()
        var cost = 0
        var keysByHash: [StableHash: CacheKey] = [:]
        var statistics = CacheStatistics()
        /// Uses not yet written to the journal: the last use of each entry, least recent first.
        var accesses = LRUTable<StableHash, UInt64>(minimumCapacity: 256)
        var lastTick: UInt64 = 0
        /// Bumped by every change a read racing with it must not undo by caching what it read.
        var mutations: UInt64 = 0
        /// The journal as last read for others' changes.
        var stamp: CacheDirectory.JournalStamp
        var generation: UInt64?
        var offset: Int

        init(stamp: CacheDirectory.JournalStamp, generation: UInt64?, offset: Int) {
            self.stamp = stamp
            self.generation = generation
            self.offset = offset
        }

        mutating func nextTick() -> UInt64 {
            lastTick = max(realTimeNanoseconds(), lastTick &+ 1)
            return lastTick
        }

        /// Puts back uses that could not be written (older than any buffered since), keeping at most
        /// ``accessLimit``: past it the least recent uses are forgotten (only the LRU order loses them).
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

        static var accessLimit: Int { 65_536 }

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

        mutating func clear() {
            table.removeAll()
            keysByHash.removeAll()
            cost = 0
            mutations &+= 1
        }
    }

    /// Notes a use of `hash` for the shared LRU order; `true` when the buffer should be written out.
    private func recordAccess(_ hash: StableHash, in m: inout MemoryState) -> Bool {
        m.accesses.set(hash, m.nextTick())
        return m.accesses.count >= 4_096
    }

    private func insert(_ item: MemoryItem, for key: CacheKey, into m: inout MemoryState) {
        if let old = m.table.set(key, item) { m.cost -= old.cost }
        m.cost += item.cost
        m.keysByHash[item.hash] = key
        while m.cost > options.memoryCostLimit, let oldest = m.table.leastRecent {
            remove(oldest.key, from: &m)
        }
    }

    private func remove(_ key: CacheKey, from m: inout MemoryState) {
        guard let item = m.table.remove(key) else { return }
        m.cost -= item.cost
        if m.keysByHash[item.hash] == key { m.keysByHash[item.hash] = nil }
    }

    private func invalidate(_ hash: StableHash, in m: inout MemoryState) {
        m.mutations &+= 1
        if let key = m.keysByHash[hash] { remove(key, from: &m) }
    }

    /// Applies other processes' changes, recorded in the journal since the last look, to the memory layer:
    /// an entry they set or removed is dropped; after a compaction by another process (or damage) the
    /// memory layer starts empty.
    private func refresh(_ m: inout MemoryState) {
        guard let stamp = try? files.journalStamp() else {
            m.clear()
            return
        }
        guard stamp != m.stamp else { return }
        guard let read = try? files.readJournal(from: m.offset, to: stamp.size) else {
            m.clear()
            return
        }
        if read.generation != m.generation || stamp.size < m.offset || read.damaged {
            m.clear()
            m.generation = read.generation
            m.offset = stamp.size
        } else {
            for record in read.records where record.writer != files.writer {
                switch record.kind {
                case .set, .remove: invalidate(record.hash, in: &m)
                case .clear: m.clear()
                case .access, .header: break
                }
            }
            m.offset = read.consumed
        }
        m.stamp = stamp
    }

    /// Writes buffered uses to the journal (and the loaded index).
    private func flushAccesses() {
        let flushed = disk.withLock { d -> Bool in
            let accesses = memory.withLock { $0.takeAccesses(writer: files.writer) }
            guard !accesses.isEmpty else { return false }
            if d.index != nil { for access in accesses { d.index?.apply(access) } }
            _ = try? files.appendShared(accesses)
            return true
        }
        if flushed { compactIfDue() }
    }

    /// ``flushAccesses()`` from a read: only when neither this cache's writers nor another process's hold
    /// the locks now (a read never waits for a writer); otherwise the uses stay buffered for later.
    private func flushAccessesIfFree() {
        _ = disk.withLockIfAvailable { d in
            let accesses = memory.withLock { $0.takeAccesses(writer: files.writer) }
            guard !accesses.isEmpty else { return }
            if (try? files.appendShared(accesses, nonBlocking: true)) == true {
                if d.index != nil { for access in accesses { d.index?.apply(access) } }
            } else {
                memory.withLock { m in m.restoreAccesses(accesses) }
            }
        }
    }

    // MARK: Disk index

    private struct DiskState {
        var index: CacheIndex?
        var generation: UInt64 = 0
        var offset = 0
        var stamp = CacheDirectory.JournalStamp(size: -1, seconds: 0, nanoseconds: 0)
    }

    /// Loads the index (snapshot + journal, or a rebuild), or brings a loaded one up to date with the
    /// journal: others' records applied, a compaction by another process followed by a reload.
    private func synchronize(_ d: inout DiskState) throws(StoreError) {
        if d.index != nil {
            let stamp = try files.journalStamp()
            if stamp == d.stamp { return }
            let read = try files.readJournal(from: d.offset, to: stamp.size)
            if read.generation == d.generation && stamp.size >= d.offset && !read.damaged {
                for record in read.records where record.writer != files.writer { d.index?.apply(record) }
                d.offset = read.consumed
                d.stamp = stamp
                return
            }
        }
        if let loaded = try files.loadIndex() {
            d.index = loaded.index
            d.generation = loaded.generation
            d.offset = loaded.offset
            d.stamp = loaded.stamp
        } else {
            try compact(&d)
        }
        memory.withLock { m in
            m.lastTick = max(m.lastTick, d.index?.latestTick ?? 0)
        }
    }

    private func compact(_ d: inout DiskState) throws(StoreError) {
        // Bring the memory layer up to the journal's end first: what it has read is then all the
        // compaction merges, unless another process appends in between (then it starts empty).
        let before = memory.withLock { m -> (UInt64?, Int) in
            refresh(&m)
            return (m.generation, m.offset)
        }
        let result = try files.compact()
        d.index = result.index
        d.generation = result.generation
        d.offset = result.offset
        d.stamp = result.stamp
        memory.withLock { m in
            if result.rebuilt || before.0 != m.generation || before.1 != m.offset || m.offset != result.merged {
                m.clear()
            }
            m.generation = result.generation
            m.offset = result.offset
            m.stamp = result.stamp
            m.lastTick = max(m.lastTick, result.index.latestTick)
        }
    }

    /// Compacts when the journal holds more records than the index has entries (and at least 16,384), so
    /// that its cost, spread over the writes that grew the journal, stays constant per write.
    private func compactIfDue() {
        disk.withLock { d in
            guard let stamp = try? files.journalStamp(),
                  stamp.size / CacheJournalRecord.size > max(16_384, d.index?.count ?? 0)
            else { return }
            // A cache without limits never needed its index; its journal must not grow forever either.
            _ = try? files.exclusively { () throws(StoreError) in
                try synchronize(&d)
                if let count = d.index?.count, (try files.journalStamp()).size / CacheJournalRecord.size > max(16_384, count) {
                    try compact(&d)
                }
            }
        }
    }

    /// Writes a new index snapshot and starts the journal over now (tests; compaction otherwise runs by
    /// itself once the journal holds more records than there are entries).
    package func compactIndex() throws(StoreError) {
        try mutate { (d: inout DiskState) throws(StoreError) in
            try synchronize(&d)
            try compact(&d)
        }
    }

    /// Runs `body` on the disk state holding this cache's lock and the directory's lock file exclusively
    /// (see ``CacheDirectory/exclusively(_:)``).
    private func mutate<Result>(_ body: (inout DiskState) throws(StoreError) -> Result) throws(StoreError) -> Result {
        try disk.withLock { (d: inout DiskState) throws(StoreError) -> Result in
            try files.exclusively { () throws(StoreError) -> Result in try body(&d) }
        }
    }

    /// Evicts least recently used entries (never `keeping`) until within the limits; returns their hashes.
    private func evict(_ d: inout DiskState, keeping: StableHash?, byteLimit: Int?, enforceCount: Bool = true,
                       writing leading: [CacheJournalRecord] = []) -> [StableHash] {
        var victims: [StableHash] = []
        defer {
            try? files.appendHoldingLock(leading + victims.map { CacheJournalRecord(kind: .remove, writer: files.writer, hash: $0) })
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
    private func correctAfterFailedInstall(_ hash: StableHash, _ d: inout DiskState) {
        let path = files.entryPath(hash)
        let info = try? files.fileSystem.linkStatus(path)
        let record: CacheJournalRecord
        if let info = info ?? nil, SystemCalls.isRegularFile(info) {
            record = CacheJournalRecord(kind: .set, writer: files.writer, hash: hash, size: UInt64(info.st_size),
                                        tick: memory.withLock { $0.nextTick() }, expires: CacheIndex.unknownExpiry)
        } else {
            record = CacheJournalRecord(kind: .remove, writer: files.writer, hash: hash)
        }
        try? files.appendHoldingLock([record])
        d.index?.apply(record)
    }

    /// Removes an entry file found expired or damaged (only the very file that was read), when the locks
    /// are free now: a read never waits for a writer, and a file left now is removed by a later read.
    private func discard(_ hash: StableHash, inode: UInt64) {
        _ = disk.withLockIfAvailable { d in
            _ = try? files.exclusivelyIfAvailable { () throws(StoreError) in
                guard try files.removeEntry(hash, inode: inode) else { return }
                try files.appendHoldingLock([CacheJournalRecord(kind: .remove, writer: files.writer, hash: hash)])
                d.index?.remove(hash)
                memory.withLock { invalidate(hash, in: &$0) }
            }
        }
    }

    private static func milliseconds(_ date: Date?, roundingUp: Bool = true) -> Int64 {
        guard let date else { return .max }
        let value = (date.timeIntervalSince1970 * 1000).rounded(roundingUp ? .up : .down)
        guard value.isFinite else { return value > 0 ? .max : .min + 1 }
        return Int64(exactly: value) ?? (value > 0 ? .max - 1 : .min + 1)
    }

    // MARK: Single flight

    /// Hands a loaded value from the task that loaded it to the tasks waiting for it.
    private final class Box: @unchecked Sendable { // Sendable: the value is handed over once, as NSCache shares instances.
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    private final class Flight: @unchecked Sendable { // Sendable: state only behind `Locked`.
        private enum State {
            case waiting([CheckedContinuation<Box, any Error>])
            case done(Result<Box, any Error>)
        }

        private let state = Locked(State.waiting([]))

        func wait() async throws -> Box {
            try await withCheckedThrowingContinuation { continuation in
                let done = state.withLock { s -> Result<Box, any Error>? in
                    switch s {
                    case .done(let result): return result
                    case .waiting(var list):
                        list.append(continuation)
                        s = .waiting(list)
                        return nil
                    }
                }
                if let done { continuation.resume(with: done) }
            }
        }

        func finish(_ result: Result<Box, any Error>) {
            let waiting = state.withLock { s -> [CheckedContinuation<Box, any Error>] in
                guard case .waiting(let list) = s else { return [] }
                s = .done(result)
                return list
            }
            for continuation in waiting { continuation.resume(with: result) }
        }
    }
}

/// One entry as ``ArchiveCache/entries()`` lists it.
public struct CacheEntryInfo: Sendable, Hashable {
    public var key: String
    /// The size of its file.
    public var byteCount: Int
    public var created: Date
    /// `nil`: never expires.
    public var expires: Date?
    /// The last use recorded in the shared index (the file's modification time after an index rebuild).
    public var lastAccess: Date
}

/// A key compared by its UTF-8 bytes, as entry files are named: `"é"` and `"e\u{301}"` are two keys,
/// although Swift's `String ==` calls them equal.
struct CacheKey: Hashable {
    let text: String

    init(_ text: String) { self.text = text }

    static func == (a: CacheKey, b: CacheKey) -> Bool { a.text.utf8.elementsEqual(b.text.utf8) }

    func hash(into hasher: inout Hasher) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if done == nil { for byte in text.utf8 { hasher.combine(byte) } }
    }
}
