/// How an ``ArchiveRepository`` waits for its lock and writes its file.
///
/// ```swift
/// var options = RepositoryOptions()
/// options.lockTimeout = .seconds(2)
/// ```
public struct RepositoryOptions: Sendable {
    /// How long a change waits for another process's lock before failing with ``StoreError/Code/locked``.
    /// Default: 10 seconds.
    public var lockTimeout: Duration = .seconds(10)

    /// The file system the store goes through; tests inject faults with it.
    package var fileSystem: FileSystem = .kernel

    /// When the index is merged and the log compacted; tests make them small.
    package var tuning = StoreTuning()

    public init() {}
}
