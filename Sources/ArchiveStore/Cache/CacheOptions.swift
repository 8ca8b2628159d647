/// Limits, expiry and durability of an ``ArchiveCache``.
///
/// ```swift
/// var options = CacheOptions()
/// options.byteLimit = 256 << 20          // bytes of entry files on disk; 0 = no limit
/// options.countLimit = 100_000           // entries on disk; 0 = no limit
/// options.defaultTimeToLive = .days(7)   // nil: entries never expire
/// options.memoryCostLimit = 32 << 20     // encoded bytes of the values kept decoded in memory; 0 = off
/// options.durability = .relaxed
/// ```
///
/// Plays the part of `NSCache.totalCostLimit` / `countLimit` and of PINCache's and Nuke's `DataCache`
/// size limits.
public struct CacheOptions: Sendable {
    /// Most bytes of entry files on disk. After any `set` returns, the entries on disk take at most this
    /// plus the entry just written (with several processes, plus one entry per writer). An entry larger
    /// than this is refused with ``StoreError/Code/entryTooLarge``. 0: no limit. Default 0.
    public var byteLimit: Int = 0
    /// Most entries on disk, held like ``byteLimit``. 0: no limit. Default 0.
    public var countLimit: Int = 0
    /// How long an entry lives when `set` names no time to live; `nil`: until evicted. Default `nil`.
    public var defaultTimeToLive: TimeToLive?
    /// Most bytes (counted as the size of each entry's file) of values kept decoded in memory, least
    /// recently used first out. 0: no memory layer. Default 0.
    public var memoryCostLimit: Int = 0
    /// Whether a `set` is durable when it returns. Default ``Durability/relaxed``.
    public var durability: Durability = .relaxed
    /// Where expiry reads the time. Default the system clock.
    public var clock: any StoreClock = SystemClock()

    public init() {}
}

/// Counters of an ``ArchiveCache``.
///
/// The hit, miss and write counters count this cache object's calls since it was opened; ``entryCount`` and
/// ``byteCount`` describe the whole directory as the shared index last recorded it (every process's writes).
///
/// Plays the part of python-diskcache's `stats()` and `volume()`.
public struct CacheStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Reads answered by the memory layer.
    public var memoryHits = 0
    /// Reads answered from an entry file.
    public var diskHits = 0
    /// Reads that found nothing (absent, expired, damaged, another key's file).
    public var misses = 0
    /// Expired entries met by a read or removed by ``ArchiveCache/removeExpired()``.
    public var expired = 0
    /// Entries removed to keep the limits.
    public var evictions = 0
    /// Successful `set` calls.
    public var writes = 0
    /// Entry files found damaged, truncated or of a foreign format (each removed, each also a miss).
    public var damaged = 0
    /// Entries on disk.
    public var entryCount = 0
    /// Bytes of entry files on disk.
    public var byteCount = 0

    public init() {}

    public var description: String {
        "memoryHits=\(memoryHits) diskHits=\(diskHits) misses=\(misses) expired=\(expired) evictions=\(evictions) "
            + "writes=\(writes) damaged=\(damaged) entries=\(entryCount) bytes=\(byteCount)"
    }
}
