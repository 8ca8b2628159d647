/// The files of one cache directory and the operations on them that every ``ArchiveCache`` shares: the lock,
/// the journal (``CacheJournalFile``), the staging area (``CacheStaging``), the entry files and the index
/// snapshot. It holds open descriptors for the cache's lifetime.
///
/// Layout of `directory` (mode 0700, files 0600):
/// - `<hh>/<32 hex>.archive`: one entry file per key, named by the ``StableHash`` of the key's UTF-8 bytes,
///   `hh` its first two digits (see `CacheEntryFile` for what it holds and where its checksum sits);
/// - `cache.index` (``CacheIndexSnapshot``), `cache.journal` (``CacheJournalFile``), `cache.lock`;
/// - `staging/`: temporary files (``CacheStaging``).
///
/// Anything else in the directory is never touched.
final class CacheDirectory: @unchecked Sendable { // Sendable: `lock` is used only under the owning cache's disk mutex; journal and staging guard themselves; the rest is set once.
    static let indexName = "cache.index"
    static let lockName = "cache.lock"

    let path: String
    let fileSystem: FileSystem
    let lockPath: String
    let indexPath: String
    /// The directory itself, open, for looking up the journal by name.
    private let directoryFD: Int32
    /// The writers' lock (`cache.lock`): shared for appends of uses, exclusive for every change to entry
    /// files with its journal record, and for loading, compacting and resetting the index.
    private let lock: WriterLock
    let journal: CacheJournalFile
    let staging: CacheStaging

    /// This open cache's writer number, in its journal records and temporary file names.
    var writer: UInt32 { staging.writer }

    init(path: String, fileSystem: FileSystem) throws(StoreError) {
        self.path = path
        self.fileSystem = fileSystem
        lockPath = PathName.join(path, Self.lockName)
        indexPath = PathName.join(path, Self.indexName)
        try fileSystem.makeDirectories(path)
        let directoryFD = try fileSystem.open(path, [.readOnly, .directory])
        self.directoryFD = directoryFD
        do throws(StoreError) {
            lock = try WriterLock(path: lockPath, fileSystem: fileSystem)
            let indexPath = self.indexPath
            journal = try CacheJournalFile(directory: path, directoryFD: directoryFD, lock: lock, hasEntries: { () throws(StoreError) -> Bool in
                if try fileSystem.linkStatus(indexPath) != nil { return true }
                return (try fileSystem.list(path) ?? []).contains(where: Self.isFanOutDirectory)
            }, fileSystem: fileSystem)
            staging = try CacheStaging(directory: path, fileSystem: fileSystem)
        } catch {
            fileSystem.close(directoryFD)
            throw error
        }
        staging.removeStaleTemporaryFiles()
    }

    deinit { fileSystem.close(directoryFD) }

    // MARK: Locking

    /// Runs `body` holding the lock file exclusively: every change to entry files and the journal record
    /// that says so happen inside, so that the journal's order is the order of the changes on disk in every
    /// process (a removal and a set of one entry by two processes can never leave a file the index lost).
    /// Loading, compacting and resetting the index also run inside.
    func exclusively<Result>(_ body: () throws(StoreError) -> Result) throws(StoreError) -> Result {
        _ = try lock.acquire(exclusive: true, waiting: .forever)
        defer { lock.release() }
        try journal.follow(creating: true)
        return try body()
    }

    /// ``exclusively(_:)`` when the lock file is free now; `nil` without waiting when another process holds
    /// it (a reader must never wait for a writer).
    func exclusivelyIfAvailable<Result>(_ body: () throws(StoreError) -> Result) throws(StoreError) -> Result? {
        guard try lock.acquire(exclusive: true, waiting: .never) else { return nil }
        defer { lock.release() }
        try journal.follow(creating: true)
        return try body()
    }

    /// Appends records that change no file (uses), holding the lock file shared: they may go in beside
    /// other processes' appends, never into a compaction. `false` when not written (the lock was busy and
    /// `nonBlocking`, or there is no journal).
    func appendShared(_ records: [CacheJournalRecord], nonBlocking: Bool = false) throws(StoreError) -> Bool {
        guard !records.isEmpty else { return true }
        guard try lock.acquire(exclusive: false, waiting: nonBlocking ? .never : .forever) else { return false }
        defer { lock.release() }
        try journal.follow(creating: false)
        guard try journal.exists else { return false }
        try journal.append(records)
        return true
    }

    // MARK: Names

    func entryDirectory(_ hash: StableHash) -> String { PathName.join(path, String(hash.hex.prefix(2))) }

    func entryPath(_ hash: StableHash) -> String {
        let hex = hash.hex
        return PathName.join(PathName.join(path, String(hex.prefix(2))), hex + ".archive")
    }

    /// The hash an entry file name stands for, when `name` in fan-out directory `directory` is one.
    static func entryHash(directory: String, name: String) -> StableHash? {
        guard name.utf8.count == 40, name.hasSuffix(".archive"), directory.utf8.count == 2,
              let hash = StableHash(hex: name.prefix(32)), name.hasPrefix(directory)
        else { return nil }
        return hash
    }

    static func isFanOutDirectory(_ name: String) -> Bool {
        name.utf8.count == 2 && name.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
