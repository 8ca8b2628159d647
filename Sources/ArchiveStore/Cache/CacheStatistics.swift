/// Counters of an ``ArchiveCache``.
///
/// The hit, miss and write counters count this cache object's calls since it was opened; ``entryCount`` and
/// ``byteCount`` describe the whole directory (every process's writes) as its table says now.
///
/// Plays the part of python-diskcache's `stats()` and `volume()`.
public struct CacheStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Reads answered by the memory layer.
    public var memoryHits = 0
    /// Reads answered from disk.
    public var diskHits = 0
    /// Reads that found nothing (absent, expired, damaged).
    public var misses = 0
    /// Expired entries met by a read or removed by ``ArchiveCache/removeExpired(progress:)``.
    public var expired = 0
    /// Entries removed to keep the limits.
    public var evictions = 0
    /// Successful `set` calls.
    public var writes = 0
    /// Entries found damaged (a checksum that fails, a truncated or foreign archive; each removed, each also a
    /// miss).
    public var damaged = 0
    /// Entries on disk.
    public var entryCount = 0
    /// What the directory takes on disk, as `du -s` counts it (the figure ``CacheOptions/byteLimit`` holds).
    public var byteCount = 0

    /// Counters at zero.
    init() {}

    /// The counters on one line: `memoryHits=2 diskHits=0 misses=1 ... entries=2 bytes=24576`.
    public var description: String {
        "memoryHits=\(memoryHits) diskHits=\(diskHits) misses=\(misses) expired=\(expired) evictions=\(evictions) "
            + "writes=\(writes) damaged=\(damaged) entries=\(entryCount) bytes=\(byteCount)"
    }
}
