import ArchivePlatform
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
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
/// on every read. Every entry carries a CRC-32 (in its binary plist trailer's unused bytes), checked on every
/// read from disk: a damaged entry is a miss, removed and counted in ``CacheStatistics/damaged``, never wrong
/// data. Writes go to a temporary file renamed into place: a reader sees the old entry, the new
/// one or none. A damaged, truncated or foreign entry file is a miss and is removed; an expired entry is
/// never returned and is removed when met. The sizes and use order of all entries live in a shared index
/// (snapshot + journal, rebuilt from the entry files when lost), so eviction survives restarts and
/// opening reads nothing but a few small files.
///
/// **In memory** decoded values are kept up to ``CacheOptions/memoryCostLimit`` (cost: the entry file's
/// size). A memory hit returns the same instance each time for a class, as `NSCache` does; a change made
/// by another process is seen before the next read answers, through the journal.
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
/// `.durabilityUnknown` when a `.synchronous` write is in place but its directory could not be fsynced.
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
    let disk = Locked(CacheIndexState())
    let flights = Locked<[CacheKey: CacheFlight<Value>]>([:])
    var memoryEnabled: Bool { options.memoryCostLimit > 0 }
    /// The largest entry written or read: the byte limit, and never more than 1 GiB.
    var entryReadLimit: Int {
        options.byteLimit > 0 ? min(options.byteLimit, CacheDirectory.largestEntry) : CacheDirectory.largestEntry
    }
    var limited: Bool { options.byteLimit > 0 || options.countLimit > 0 }

    /// The platform's directory for a cache named `name`: `~/Library/Caches/<name>` on Apple platforms (in an
    /// iOS, tvOS, watchOS or visionOS app, its container's), and elsewhere `$XDG_CACHE_HOME/<name>` when that
    /// variable is an absolute path, else `~/.cache/<name>`. Nothing is created; opening the cache creates it
    /// (mode 0700).
    ///
    /// ```swift
    /// let cache = try ArchiveCache<Drawing>(directory: ArchiveCache<Drawing>.standardDirectory(named: "com.example.drawings"))
    /// ```
    ///
    /// - Parameter environment: the variables to read (`HOME`, `XDG_CACHE_HOME`); `nil`, the process's own.
    /// - Throws: ``StoreError/Code/noDataDirectory`` where there is no home directory (no `HOME` and no
    ///   password-database entry: a service, Android, WASI), so give a directory explicitly;
    ///   ``StoreError/Code/invalidArgument`` for an empty name or a path that is not UTF-8.
    ///
    /// Mirrors `FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)`.
    public static func standardDirectory(named name: String, environment: [String: String]? = nil) throws(StoreError) -> String {
        guard !name.isEmpty, name != ".", name != ".." else {
            throw StoreError(.invalidArgument, "a cache directory needs a name")
        }
        return try UserDirectories.caches(name: name, environment: environment ?? UserDirectories.processEnvironment)
    }

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
        let stamp = try files.journal.stamp()
        let header = try files.journal.read(from: 0, to: 0)
        let end = stamp.size - max(0, stamp.size - CacheJournalRecord.size) % CacheJournalRecord.size
        memory = Locked(CacheMemoryLayer(stamp: stamp, generation: header.generation, offset: end))
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
        let (found, mutationsBefore) = memory.withLock { m -> (Any?, UInt64) in
            guard memoryEnabled else { return (nil, m.mutations) }
            m.refresh(from: files.journal, writer: files.writer)
            guard let item = m.table[cacheKey] else { return (nil, m.mutations) }
            if let expires = item.expires, expires <= now {
                m.remove(cacheKey)
                expiredInMemory = item.hash
                return (nil, m.mutations)
            }
            m.table.touch(cacheKey)
            m.statistics.memoryHits += 1
            flush = m.recordAccess(item.hash)
            return (item.value, m.mutations)
        }
        // Only this cache puts values in its memory layer, all of them `Value`s.
        if let found, let value = found as? Value {
            if flush { flushAccessesIfFree() }
            return value
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
                    m.refresh(from: files.journal, writer: files.writer)
                    if m.mutations == mutationsBefore {
                        m.insert(CacheMemoryItem(value: value, cost: file.bytes.count, expires: expires, hash: hash), for: cacheKey,
                                 costLimit: options.memoryCostLimit)
                    }
                }
                return m.recordAccess(hash)
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

    /// The bytes of `key`'s entry file (an ordinary keyed archive, its checksum verified), when it holds a live
    /// entry for `key`. Does not count as a use.
    public func archivedEntry(forKey key: String) throws(StoreError) -> [UInt8]? {
        guard let file = try files.readEntry(keyHash(key)), let header = CacheEntryCoding.header(file.bytes),
              header.key.utf8.elementsEqual(key.utf8)
        else { return nil }   // absent, another key's, or failing its checksum
        if let expires = header.expires, expires <= options.clock.now() { return nil }
        return file.bytes
    }

    // MARK: Inspecting

    /// Counters of this cache object and the directory's entry count and bytes.
    public var statistics: CacheStatistics {
        flushAccesses()
        let totals = (try? mutate { (d: inout CacheIndexState) throws(StoreError) -> (Int, Int) in
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
        let indexed = try mutate { (d: inout CacheIndexState) throws(StoreError) -> [CacheIndex.Entry] in
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

// Sendable only when Value is. Invariant: every mutable field of the cache is behind a `Locked` (`memory`,
// `disk`, `flights`) or is a file object that guards itself (`files`); the rest is set once in `init`. The one
// thing a lock does not protect is a value handed out of the memory layer, which is shared by every caller: so
// the cache may cross isolation domains only when its values may. Exercised by the concurrent tests of
// `CacheDirectorySharingTests`, `CacheModelTests.concurrentReadersAndWritersNeverSeeAnotherKeysValue` and the
// get-or-load suite, under the thread sanitizer; `Scripts/check-sendability.sh` checks that a cache of a
// non-Sendable class cannot be shared across tasks.
extension ArchiveCache: @unchecked Sendable where Value: Sendable {}
