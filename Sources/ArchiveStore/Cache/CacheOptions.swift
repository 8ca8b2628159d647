/// Limits, expiry and durability of an ``ArchiveCache``.
///
/// ```swift
/// var options = CacheOptions()
/// options.byteLimit = 256 << 20          // what `du -s` shows for the directory; 0 = no limit
/// options.countLimit = 100_000           // entries on disk; 0 = no limit
/// options.defaultTimeToLive = .days(7)   // nil: entries never expire
/// options.memoryCostLimit = 32 << 20     // encoded bytes of the values kept decoded in memory; 0 = off
/// options.durability = .relaxed
/// ```
///
/// Plays the part of `NSCache.totalCostLimit` / `countLimit` and of PINCache's and Nuke's `DataCache`
/// size limits.
public struct CacheOptions: Sendable {
    /// Most bytes the cache directory takes on disk, as `du -s` counts them: the allocated blocks of the
    /// segments, the large entries' files, the table and the directories themselves. After any `set` returns,
    /// the directory takes at most this (an entry is written before eviction makes room, so for a moment it
    /// takes one entry more; files of the directory's that are not the cache's do not count). At least
    /// 64 KiB (the directory's own files take 24 KiB or more: directories, table, lock); an entry
    /// that would not fit with them alone is refused with ``StoreError/Code/entryTooLarge``. 0: no limit.
    /// Default 0.
    public var byteLimit: Int = 0
    /// The smallest ``byteLimit`` a cache accepts: 64 KiB.
    package static let smallestByteLimit = 64 << 10
    /// Most entries on disk, held like ``byteLimit``. 0: no limit. Default 0.
    public var countLimit: Int = 0
    /// How long an entry lives when `set` names no time to live; `nil`: until evicted. Default `nil`.
    public var defaultTimeToLive: TimeToLive?
    /// Most bytes (counted as the size of each entry's keyed archive) of values kept decoded in memory, least
    /// recently used first out. 0: no memory layer. Default 0.
    public var memoryCostLimit: Int = 0
    /// Whether a `set` is durable when it returns. Default ``Durability/relaxed``.
    public var durability: Durability = .relaxed
    /// Where expiry reads the time. Default the system clock.
    public var clock: any StoreClock = SystemClock()
    /// The Data Protection class of every file and directory the cache creates, on iOS, iPadOS, tvOS, watchOS
    /// and visionOS (elsewhere there are no classes, and this does nothing); `nil`: the system's default, nothing
    /// set. The directory's class is checked each time a cache opens on it and set again when it differs.
    /// Default ``FileProtection/completeUntilFirstUserAuthentication``, so that background work (a fetch, a push,
    /// an extension) reads the cache while the device is locked; a read refused because the device is locked
    /// is a miss.
    public var fileProtection: FileProtection? = .completeUntilFirstUserAuthentication
    /// A locked device for the app's tests: while it is locked, the cache's files are refused as a device
    /// refuses files of ``fileProtection`` (see ``LockedDeviceSimulation``), on every platform: a read is a
    /// miss, a `set` throws ``StoreError/Code/protectedDataUnavailable``. `nil` (the default): the device's own
    /// protection, where there is one.
    public var lockedDeviceSimulation: LockedDeviceSimulation?
    /// Whether the cache's directory is excluded from backups: iCloud and device backups on iOS, iPadOS, tvOS,
    /// watchOS and visionOS, Time Machine on macOS (Apple asks that what an app can download or make again stay
    /// out of them). Set when the directory is created, and set again when a cache opens on it and finds it
    /// cleared; `false` leaves the directory as it is. Linux has no such attribute: there this does nothing.
    /// Default `true`.
    public var excludedFromBackup = true

    /// The defaults: no limits, no expiry, no memory layer, relaxed durability, the system clock, files readable
    /// after the first unlock, the directory excluded from backups.
    public init() {}
}
