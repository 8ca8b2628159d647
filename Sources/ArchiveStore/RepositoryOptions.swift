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

    /// A failure to inject into the next writes, for tests of failed writes.
    package var writeFault: WriteFault?

    public init() {}
}
