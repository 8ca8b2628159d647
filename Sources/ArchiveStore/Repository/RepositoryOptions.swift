/// How an ``ArchiveRepository`` waits for its lock and writes its file.
///
/// ```swift
/// var options = RepositoryOptions()
/// options.lockTimeout = 2   // seconds
/// ```
public struct RepositoryOptions: Sendable {
    /// How long, in seconds, a change waits for another process's lock before failing with
    /// ``StoreError/Code/locked``. Default: 10. (Seconds rather than `Duration`, which needs macOS 13 / iOS 16.)
    public var lockTimeout: Double = 10

    /// The Data Protection class of every file and directory the repository creates (the store, its index, its
    /// lock file, their temporary files, a missing data directory), on iOS, iPadOS, tvOS, watchOS and visionOS
    /// (elsewhere there are no classes, and this does nothing); `nil`: the system's default, nothing set. The
    /// store's files are checked at the first change a repository object makes, and set again when they differ.
    /// Default ``FileProtection/completeUntilFirstUserAuthentication``, so that background work reads and writes
    /// the store while the device is locked; a call refused because the device is locked throws
    /// ``StoreError/Code/protectedDataUnavailable``.
    public var fileProtection: FileProtection? = .completeUntilFirstUserAuthentication

    /// A locked device for the app's tests: while it is locked, the store's files are refused as a device
    /// refuses files of ``fileProtection`` (see ``LockedDeviceSimulation``), on every platform. `nil` (the
    /// default): the device's own protection, where there is one.
    public var lockedDeviceSimulation: LockedDeviceSimulation?

    /// Whether the store's files (the store, its index and lock file) are excluded from backups on Apple
    /// platforms: set on each as it is created, and again at the first change a repository object makes when
    /// one was cleared. Only the files: the directory may hold other things. Linux has no such attribute: there
    /// this does nothing. Default `false`: a repository holds what a user made, which backups should keep.
    public var excludedFromBackup = false

    /// Whether every record is decoded again right after it is archived, before anything is written: a record
    /// whose `init(coder:)` cannot read what its `encode(with:)` writes is then refused with
    /// ``StoreError/Code/invalidArgument`` instead of stored. A check for development and tests (it costs a
    /// decode per write); values the archiver itself would write unreadably (a date of infinity) are refused
    /// either way. Default `false`.
    public var verifiesRecords = false

    /// How many decoded records the repository keeps, by where they are in the store, so that a query or `get`
    /// returning a record it returned lately does not decode it again (records are values: each caller gets
    /// its own copy; records of a class type are never kept). Whatever the capacity, the records kept come from
    /// at most 4 MiB of archives (about what SQLite's page cache holds by default), the oldest dropped first.
    /// 0 keeps none. Default: 8,192.
    public var decodedRecordCacheCapacity = 8192

    /// The file system the store goes through; tests inject faults with it.
    package var fileSystem: FileSystem = .kernel

    /// When the index is merged and the log compacted; tests make them small.
    package var tuning = StoreTuning()

    /// The defaults: a lock timeout of 10 seconds, files readable after the first unlock, kept in backups.
    public init() {}
}
