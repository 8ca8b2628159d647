import ArchivePlatform

/// What an ``ArchiveRepository`` object has done to its store so far: commits made, the syncs they cost, bytes
/// written, and reads of the commit slots (one per call that checked for other processes' commits).
///
/// ```swift
/// let before = repository.statistics
/// try repository.add(record)
/// let syncs = repository.statistics.syncs - before.syncs   // 1: one sync per commit
/// ```
///
/// No Apple API; SQLite's `sqlite3_db_status` plays this part.
public struct RepositoryStatistics: Sendable, Hashable {
    /// Commits made (a transaction, a single-record change, an import).
    public var commits: Int
    /// Syncs of the store file (`fsync`, `F_FULLFSYNC` on Apple platforms) that commits and recovery made.
    /// Whole rewrites (the first write, compaction, migration) sync through their own files and are not counted.
    public var syncs: Int
    /// Bytes of frames appended to the store file.
    public var bytesWritten: Int
    /// Reads of the commit slots: how each call learns whether the store changed.
    public var refreshes: Int
    /// Times the property indexes were built by decoding every record (a store without index files, or whose
    /// files were damaged or of another build's declarations); zero when they were read from their files or
    /// kept up by commits.
    public var indexBuilds: Int = 0
    /// Records decoded: by reads, queries and index builds (a query answered from its indexes decodes only
    /// the records it returns).
    public var recordsDecoded: Int = 0
}

/// The counters behind ``RepositoryStatistics``, shared by a repository and its open handles.
final class StoreCounters: Sendable {
    let commits = Counter()
    let syncs = Counter()
    let bytesWritten = Counter()
    let slotReads = Counter()
    let indexBuilds = Counter()
    let decoded = Counter()

    var statistics: RepositoryStatistics {
        RepositoryStatistics(commits: commits.value, syncs: syncs.value, bytesWritten: bytesWritten.value, refreshes: slotReads.value,
                             indexBuilds: indexBuilds.value, recordsDecoded: decoded.value)
    }

    /// One count.
    final class Counter: Sendable {
        private let count = Locked(0)
        func add(_ n: Int) { count.withLock { $0 += n } }
        var value: Int { count.withLock { $0 } }
    }
}
