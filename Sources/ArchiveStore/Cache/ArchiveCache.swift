import ArchivePlatform
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// A disk cache of values kept as keyed archives, packed into segment files, with a memory layer in front,
/// an expiry per entry, byte and count limits and eviction close to least recently used. Several threads and
/// several processes may use one directory at once.
///
/// ```swift
/// var options = CacheOptions()
/// options.byteLimit = 256 << 20          // what `du -s` shows for the directory
/// options.defaultTimeToLive = .days(7)
/// options.memoryCostLimit = 32 << 20
/// let cache = try ArchiveCache<Drawing>(directory: path, registry: ClassRegistry([Drawing.self]), options: options)
/// try cache.set(drawing, forKey: "home")
/// let drawing = try cache.value(forKey: "home")                 // nil: absent, expired or damaged
/// let fresh = try await cache.value(forKey: "k") { key in try await download(key) }   // loads once
/// ```
///
/// `Value` is any `KeyedArchivable` type, any `Codable` type (existentials such as `[any Shape]` keep
/// their concrete types through the registry, as with `ArchiveEncoder`), or raw bytes (`[UInt8]`, stored
/// as `NSData`).
///
/// **On disk** each entry is an ordinary keyed archive (see `CacheEntryFile`): a small one is a frame of a
/// segment file, so that a 1 KiB entry takes about 1 KiB of disk, not a 4 KiB block; a large one is a file of
/// its own, named by the first 128 bits of the SHA-256 of the key's UTF-8 bytes (a key of any content never
/// becomes a path). A table (`cache.table`) says where each key's entry is; the stored key is compared on
/// every read. Every frame carries a CRC-32 and every large file one in its binary plist trailer, checked on
/// every read from disk: a damaged entry is a miss, removed and counted in ``CacheStatistics/damaged``, never
/// wrong data. ``CacheOptions/byteLimit`` counts what the directory takes on disk, as `du` does: when a write
/// goes past it, the oldest segment is evicted whole, and an entry in it that was read since it was written is
/// carried forward once (written again at the head) instead. Opening opens the table and reads its change
/// count (8 bytes); the first `value(forKey:)` reads a few slots of the table and one frame. See
/// `CacheDirectory` for the layout.
///
/// **In memory** decoded values are kept up to ``CacheOptions/memoryCostLimit`` (cost: the entry's encoded
/// size). A memory hit returns the same instance each time for a class, as `NSCache` does; a change made by
/// another process is seen before the next read answers (the table counts its changes; one small read a hit).
///
/// **Concurrency.** The cache is `Sendable` exactly when `Value` is: then share one cache object across tasks
/// and actors, and every caller may get the same instance (a `Sendable` class is immutable or synchronizes
/// itself). For a `Value` that is not `Sendable` (a mutable class), Swift 6 keeps the cache object, and every
/// value it returns, in one isolation domain (a task, an actor, the main actor), where sharing one instance is
/// as safe as sharing any object; code in another domain opens its own `ArchiveCache` on the same directory
/// and gets its own instances, decoded from the entries on disk. No data race is possible either way without
/// an `unsafe` escape hatch.
///
/// Errors are ``StoreError``s: `.io` for a failed system call (a full disk, an unwritable directory; reads
/// keep answering), `.entryTooLarge`, `.invalidArgument` for a value that cannot be archived,
/// `.durabilityUnknown` when a `.synchronous` write is in place but its sync failed.
///
/// Plays the part of `NSCache` in front of files written with `NSKeyedArchiver`, as PINCache and
/// hyperoslo/Cache combine them.
public final class ArchiveCache<Value> {
    /// The directory holding the entries.
    public let directory: String
    /// The limits and policies in force.
    public let options: CacheOptions
    /// The classes values decode to.
    public let registry: ClassRegistry

    let files: CacheDirectory
    let keyHash: @Sendable (String) -> StableHash
    let memory: Locked<CacheMemoryLayer>
    let disk = Locked(CacheWriterState())
    let flights = Locked<[CacheKey: CacheFlight<Value>]>([:])
    /// Empties the memory layer when the system says memory is short (Apple platforms; `nil` elsewhere, and
    /// without a memory layer).
    private let memoryPressure: MemoryPressure?
    var memoryEnabled: Bool { options.memoryCostLimit > 0 }
    /// The largest entry written or read: the byte limit, and never more than 1 GiB.
    var entryReadLimit: Int {
        options.byteLimit > 0 ? min(options.byteLimit, Self.largestEntry) : Self.largestEntry
    }
    /// The largest entry a cache keeps (a larger file is never read: a miss).
    static var largestEntry: Int { 1 << 30 }

    /// The platform's directory for a cache named `name`: `~/Library/Caches/<name>` on Apple platforms (in an
    /// iOS, tvOS, watchOS or visionOS app, its container's), and elsewhere `$XDG_CACHE_HOME/<name>` when that
    /// variable is an absolute path, else `~/.cache/<name>`. Nothing is created; opening the cache creates it
    /// (mode 0700).
    ///
    /// With `appGroup`, the directory for a cache that an app shares with its extensions (or its other apps)
    /// instead: `<container>/Library/Caches/<name>` in the shared container of that app group, never the
    /// container's root (the root goes into backups; `Library/Caches` does not). Every process that opens the
    /// cache takes its lock only for the one write it makes, never across an `await`: the system ends an app
    /// that is suspended while it holds a file lock in a shared container (`0xdead10cc`), so begin a
    /// background task around writes an app may be suspended in the middle of.
    ///
    /// ```swift
    /// let cache = try ArchiveCache<Drawing>(directory: ArchiveCache<Drawing>.standardDirectory(named: "com.example.drawings"))
    /// let shared = try ArchiveCache<Drawing>.standardDirectory(named: "drawings", appGroup: "group.com.example.app")
    /// ```
    ///
    /// - Parameters:
    ///   - name: the cache's directory name, such as a reverse-DNS identifier (`com.example.drawings`).
    ///   - appGroup: the app group whose shared container holds the cache; `nil`, the user's own caches.
    /// - Throws: ``StoreError/Code/noDataDirectory`` where there is no home directory (no `HOME` and no
    ///   password-database entry: a service, Android, WASI), so give a directory explicitly, or, with
    ///   `appGroup`, when the app is not entitled to the group (its App Groups entitlement does not list it)
    ///   and on platforms without app groups (Linux); ``StoreError/Code/invalidArgument`` for an empty name or
    ///   group, or a path that is not UTF-8.
    ///
    /// Mirrors `FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)`, and
    /// `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)` then `Library/Caches`.
    public static func standardDirectory(named name: String, appGroup: String? = nil) throws(StoreError) -> String {
        try UserDirectories.standard(.caches, named: name, appGroup: appGroup)
    }

    /// Opens (creating it, mode 0700) the cache in `directory`. Reads no entry.
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
        guard options.byteLimit == 0 || options.byteLimit >= CacheOptions.smallestByteLimit else {
            throw StoreError(.invalidArgument,
                             "a byte limit counts what the directory takes on disk, its own files included: at least \(CacheOptions.smallestByteLimit) bytes (64 KiB)")
        }
        guard !directory.isEmpty else { throw StoreError(.invalidArgument, "the cache directory path is empty") }
        self.directory = directory
        self.options = options
        self.registry = registry
        self.keyHash = keyHash
        let memory = Locked(CacheMemoryLayer())
        self.memory = memory
        // The handler keeps the layer's lock, not the cache: a cache that goes away takes its source with it
        // (cancelled in `MemoryPressure.deinit`).
        memoryPressure = options.memoryCostLimit > 0 && MemoryPressure.isAvailable
            ? MemoryPressure { memory.withLock { $0.clear() } } : nil
        files = try CacheDirectory(path: directory,
                                   fileSystem: fileSystem.simulating(options.lockedDeviceSimulation, protection: options.fileProtection)
                                       .creating(NewItemAttributes(protection: options.fileProtection)),
                                   excludedFromBackup: options.excludedFromBackup)
        // The first read of a process would pay for cold code and first allocations; opening pays instead:
        // the table is opened (its change count read: 8 bytes) and the frame and slot readers run once on
        // bytes in memory, so that the first `value(forKey:)` costs about what a later one does.
        CacheEntryCoding.prepare(Value.self, registry: registry)
        _ = keyHash("")
        _ = try? files.currentTable(checkingPath: false)
        CacheDirectory.prepare()
    }

    deinit {
        flushAccesses()
    }

    // MARK: Reading

    /// The value stored for `key`, or `nil` when there is none, it has expired, or its entry is damaged, or
    /// the system refuses to read it while the device is locked (its files' Data Protection class, see
    /// ``CacheOptions/fileProtection``): each a miss. Never blocks on a writer. Mirrors
    /// `NSCache.object(forKey:)`.
    public func value(forKey key: String) throws(StoreError) -> Value? {
        do {
            return try readValue(forKey: key)
        } catch where error.code == .protectedDataUnavailable {
            memory.withLock { $0.statistics.misses += 1 }
            return nil
        }
    }

    /// Empties the memory layer (the entries on disk stay), as the cache does by itself on Apple platforms
    /// when the system says memory is short (`DispatchSource.makeMemoryPressureSource`, `.warning` and
    /// `.critical`). Call it where no such signal comes (Linux), or when the app knows better. Mirrors
    /// `NSCache.removeAllObjects()` on a memory warning.
    public func trimMemory() {
        memory.withLock { $0.clear() }
    }

    private func readValue(forKey key: String) throws(StoreError) -> Value? {
        let cacheKey = CacheKey(key)
        let now = options.clock.now()
        if memoryEnabled, let found = try memoryValue(cacheKey, now: now) { return found }
        let mutationsBefore = memory.withLock { $0.mutations }
        let hash = keyHash(key)
        let keyBytes = CacheDirectory.frameKey(Array(key.utf8), hash: hash)
        let location: CacheLocation
        let bytes: [UInt8]
        switch try files.lookup(keyBytes, hash: hash, limit: entryReadLimit) {
        case .missing:
            memory.withLock { $0.statistics.misses += 1 }
            return nil
        case .damaged(let at):
            memory.withLock { m in
                m.statistics.misses += 1
                m.statistics.damaged += 1
            }
            discard(at, key: keyBytes, hash: hash)
            return nil
        case .found(let found, let at):
            (bytes, location) = (found, at)
        }
        switch CacheEntryCoding.decode(bytes, as: Value.self, key: key, now: now, registry: registry) {
        case .value(let value, let expires):
            let flush = memory.withLock { m -> Bool in
                m.statistics.diskHits += 1
                if memoryEnabled && bytes.count <= options.memoryCostLimit && m.mutations == mutationsBefore && location.index >= 0 {
                    m.insert(CacheMemoryItem(value: value, cost: bytes.count, expires: expires, hash: hash, location: location,
                                             verified: location.changes),
                             for: cacheKey, costLimit: options.memoryCostLimit)
                }
                return m.recordAccess(location)
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
            discard(location, key: keyBytes, hash: hash)
            return nil
        }
    }

    /// The memory layer's value for `key` when it is still the entry on disk (see `CacheMemoryLayer`).
    private func memoryValue(_ key: CacheKey, now: Date) throws(StoreError) -> Value? {
        let checkPath = memory.withLock { $0.pathCheckDue(now: Kernel.monotonicNanoseconds()) }
        let current = try? files.currentTable(checkingPath: checkPath)
        var flush = false
        var expiredAt: CacheLocation?
        let found = memory.withLock { m -> Any? in
            guard var item = m.table[key] else { return nil }
            guard let (table, changes) = current, table.inode == item.location.table else {
                m.remove(key)
                return nil
            }
            if changes != m.trusted && changes != item.verified {
                guard (try? files.isCurrent(item.location)) == true else {
                    m.remove(key)
                    return nil
                }
                item.verified = changes
                m.table.update(key) { $0.verified = changes }
            }
            if let expires = item.expires, expires <= now {
                m.remove(key)
                expiredAt = item.location
                return nil
            }
            m.table.touch(key)
            m.statistics.memoryHits += 1
            flush = m.recordAccess(item.location)
            return item.value
        }
        if let expiredAt {
            memory.withLock { $0.statistics.expired += 1 }
            let hash = keyHash(key.text)
            discard(expiredAt, key: CacheDirectory.frameKey(Array(key.text.utf8), hash: hash), hash: hash)
        }
        // Only this cache puts values in its memory layer, all of them `Value`s.
        guard let found, let value = found as? Value else { return nil }
        if flush { flushAccessesIfFree() }
        return value
    }

    /// The bytes of `key`'s entry (an ordinary keyed archive, its checksums verified), when there is a live one.
    /// Does not count as a use.
    public func archivedEntry(forKey key: String) throws(StoreError) -> [UInt8]? {
        let hash = keyHash(key)
        guard case .found(let bytes, _) = try files.lookup(CacheDirectory.frameKey(Array(key.utf8), hash: hash), hash: hash,
                                                           limit: Self.largestEntry),
              let header = CacheEntryCoding.header(checked: bytes), header.key.utf8.elementsEqual(key.utf8)
        else { return nil }
        if let expires = header.expires, expires <= options.clock.now() { return nil }
        return bytes
    }

    /// The bytes of `key`'s value when it was stored as bytes (an `ArchiveCache<[UInt8]>`'s entry, as
    /// `keyedarchive cache set` writes one), when there is a live entry. Reads only: unlike
    /// ``value(forKey:)``, an entry of another value type is reported, never discarded as a miss.
    /// - Throws: ``StoreError/Code/invalidArchive`` when the entry's value is not bytes.
    package func storedBytes(forKey key: String) throws(StoreError) -> [UInt8]? {
        guard let entry = try archivedEntry(forKey: key) else { return nil }
        switch CacheEntryCoding.decode(entry, as: [UInt8].self, key: key, now: options.clock.now(), registry: registry) {
        case .value(let bytes, _): return bytes
        case .rejected(.expired): return nil
        case .rejected:
            throw StoreError(.invalidArchive, "the entry's value is not bytes (stored by 'cache set' or an ArchiveCache<[UInt8]>)",
                             path: directory, recordID: key)
        }
    }

    // MARK: Inspecting

    /// Counters of this cache object, and the directory's entry count and what it takes on disk (as `du`
    /// counts it).
    public var statistics: CacheStatistics {
        flushAccesses()
        let totals = (try? mutate { (writer: inout CacheWriter, state: inout CacheWriterState) throws(StoreError) -> (Int, Int) in
            (writer.header.count, try writer.diskUse(state))
        }) ?? (0, 0)
        var result = memory.withLock { $0.statistics }
        (result.entryCount, result.byteCount) = totals
        return result
    }

    /// Every entry on disk, in the order eviction would take them (those not read since they were written
    /// first, oldest first; then those read since, oldest first): key, size, creation, expiry, and when its
    /// segment was last written. Reads each entry whole (a listing costs a read of the cache).
    public func entries() throws(StoreError) -> [CacheEntryInfo] {
        flushAccesses()
        let slots = try mutate { (writer: inout CacheWriter, _: inout CacheWriterState) throws(StoreError) -> [CacheSlot] in
            try writer.liveSlots()
        }
        var segmentTimes: [UInt32: Date] = [:]
        var result: [CacheEntryInfo] = []
        // Eviction walks the segments oldest first and carries an entry used since it was written forward
        // instead: so every entry not used goes first, in the order written, then the used ones in that order.
        let order = slots.sorted { a, b in
            (a.isReferenced ? 1 : 0, a.segment, a.offset) < (b.isReferenced ? 1 : 0, b.segment, b.offset)
        }
        for slot in order {
            guard case .frame(let frame, let header) = try files.readFrame(slot) else { continue }
            let key = Array(header.key(in: frame, at: 0))
            guard case .entry(let bytes) = try files.entry(in: frame, header, hash: CacheDirectory.hash(ofFrameKey: key),
                                                           limit: Self.largestEntry),
                  let entry = CacheEntryCoding.header(checked: bytes)
            else { continue }
            if segmentTimes[slot.segment] == nil {
                let modified = (try? files.fileSystem.linkStatus(files.segments.file(slot.segment)))??.modified
                segmentTimes[slot.segment] = Date(timeIntervalSince1970: Double(modified?.nanosecondsSince1970 ?? 0) / 1e9)
            }
            result.append(CacheEntryInfo(key: entry.key, byteCount: bytes.count, created: entry.created, expires: entry.expires,
                                         lastAccess: segmentTimes[slot.segment] ?? entry.created))
        }
        return result
    }
}

/// One entry as ``ArchiveCache/entries()`` lists it.
public struct CacheEntryInfo: Sendable, Hashable {
    /// The entry's key.
    public var key: String
    /// The size of its keyed archive.
    public var byteCount: Int
    /// When the entry was stored.
    public var created: Date
    /// `nil`: never expires.
    public var expires: Date?
    /// When the segment that holds it was last written (the entry was written or carried forward then, or
    /// before): the order eviction follows.
    public var lastAccess: Date
}

// Sendable only when Value is. Invariant: every mutable field of the cache is behind a `Locked` (`memory`,
// `disk`, `flights`) or is a file object that guards itself (`files`); the rest is set once in `init`. The one
// thing a lock does not protect is a value handed out of the memory layer, which is shared by every caller: so
// the cache may cross isolation domains only when its values may. Exercised by the concurrent tests of
// `CacheDirectorySharingTests`, `CacheModelTests.concurrentReadersAndWritersNeverSeeAnotherKeysValue` and the
// get-or-load suite, under the thread sanitizer; `Scripts/check-sendability.sh` checks that a cache of a
// non-Sendable class cannot be shared across tasks.
extension ArchiveCache: @unchecked Sendable where Value: Sendable {}
