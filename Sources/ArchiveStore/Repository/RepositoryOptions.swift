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

    /// The file system the store goes through; tests inject faults with it.
    package var fileSystem: FileSystem = .kernel

    /// When the index is merged and the log compacted; tests make them small.
    package var tuning = StoreTuning()

    /// The defaults: a lock timeout of 10 seconds.
    public init() {}
}
