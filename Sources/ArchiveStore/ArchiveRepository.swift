/// A collection of records kept in one keyed-archive file, safe to use from many threads and many processes.
///
/// Any ``ArchiveRecord`` (a ``KeyedArchivable`` type with an `id`) gets the whole API; operations that only make
/// sense for one record type are extensions constrained to it, with no new repository code:
///
/// ```swift
/// let repository = ArchiveRepository<Workout>(path: directory + "/Workouts.archive")
/// try repository.add(Workout(id: "w1", count: 12))
/// extension ArchiveRepository where Record == Workout {
///     func maximumCount() throws(StoreError) -> Int? { try all().map(\.count).max() }
/// }
/// ```
///
/// Every change is a read-modify-write done while holding an in-process mutex and an exclusive `flock` on
/// `<path>.lock`, re-reading the file under the lock, then replacing the file atomically (temporary file in the
/// same directory, `fsync`, `rename`, `fsync` of the directory). Reads take no lock: a rename is atomic, so a
/// reader sees the old file or the new one. A file that cannot be decoded is reported as
/// ``StoreError/Code/corrupt`` and never overwritten; ``moveAside(suffix:)`` renames it out of the way on request.
///
/// After each write the lock file records a digest of the file written. While the file still matches it, and
/// the record type reads ids alone (``ArchiveRecord/decodeID(from:)``), `get` decodes only the record it
/// returns and `add` appends to the file in place; any other file is decoded in full first.
///
/// Plays the part of a Core Data persistent store or an `NSKeyedArchiver.archiveRootObject(_:toFile:)` cache.
public final class ArchiveRepository<Record: ArchiveRecord>: Sendable {
    /// The archive file.
    public let path: String
    /// The options the repository was created with.
    public let options: RepositoryOptions
    private let writers = Locked(())

    /// A repository kept in the archive file at `path` (created, with its directory, on the first write).
    public init(path: String, options: RepositoryOptions = RepositoryOptions()) {
        self.path = path
        self.options = options
    }

    /// The lock file next to the archive (`<path>.lock`).
    public var lockPath: String { path + ".lock" }

    // MARK: Reading

    /// Every record, in insertion order.
    public func all() throws(StoreError) -> [Record] {
        try load()
    }

    /// The record with `id`, or `nil`. When the record type reads ids alone (``ArchiveRecord/decodeID(from:)``)
    /// and the file is as this library last wrote it (``isUnchangedSinceLastWrite(_:)``), only the ids and the
    /// record found are decoded; otherwise the whole file is, and any damage is reported.
    public func get(_ id: Record.ID) throws(StoreError) -> Record? {
        guard let bytes = try AtomicFile.read(path) else { return nil }
        if isUnchangedSinceLastWrite(bytes), case .found(let record) = RepositoryFile<Record>.find(id, in: bytes) {
            return record
        }
        return try RepositoryFile<Record>.decode(bytes, path: path).records.first { $0.id == id }
    }

    /// The number of records.
    public func count() throws(StoreError) -> Int {
        try load().count
    }

    /// The records for which `isIncluded` is true, in insertion order.
    public func filter(_ isIncluded: (Record) -> Bool) throws(StoreError) -> [Record] {
        try load().filter(isIncluded)
    }

    /// The first record for which `predicate` is true.
    public func first(where predicate: (Record) -> Bool) throws(StoreError) -> Record? {
        try load().first(where: predicate)
    }

    /// The number of records for which `predicate` is true.
    public func count(where predicate: (Record) -> Bool) throws(StoreError) -> Int {
        try load().count(where: predicate)
    }

    // MARK: Writing

    /// Appends `record`; throws ``StoreError/Code/duplicateID`` if its id is taken.
    ///
    /// When the record type reads ids alone (``ArchiveRecord/decodeID(from:)``) and the file is a binary
    /// store at the current version, exactly as this library last wrote it (``isUnchangedSinceLastWrite(_:)``),
    /// the record is appended to the file as it is: the ids are checked, the record's objects are added after
    /// the stored ones, and every stored object is copied byte for byte (the result is read back before it
    /// replaces the file). Otherwise every record is decoded, which reports any damage, and the file is
    /// archived anew.
    public func add(_ record: Record) throws(StoreError) {
        try transact { stored throws(StoreError) in
            if let stored, isUnchangedSinceLastWrite(stored),
               let appended = try RepositoryFile.appending(record, to: stored, path: path) {
                return appended
            }
            return try rewritten(stored) { records throws(StoreError) in
                guard !records.contains(where: { $0.id == record.id }) else {
                    throw RepositoryFile<Record>.duplicateID(record.id, path: path)
                }
                records.append(record)
                return true
            }
        }
    }

    /// Replaces the record with `record`'s id; throws ``StoreError/Code/notFound`` if there is none.
    public func update(_ record: Record) throws(StoreError) {
        try modify { records throws(StoreError) in
            guard let index = records.firstIndex(where: { $0.id == record.id }) else {
                throw StoreError(.notFound, "no record has this id", path: path, recordID: "\(record.id)")
            }
            records[index] = record
            return true
        }
    }

    /// Replaces the record with `record`'s id, or appends `record` if there is none.
    public func upsert(_ record: Record) throws(StoreError) {
        try modify { records throws(StoreError) in
            if let index = records.firstIndex(where: { $0.id == record.id }) {
                records[index] = record
            } else {
                records.append(record)
            }
            return true
        }
    }

    /// Removes and returns the record with `id`, or returns `nil` (and writes nothing) if there is none.
    @discardableResult
    public func remove(_ id: Record.ID) throws(StoreError) -> Record? {
        var removed: Record?
        try modify { records throws(StoreError) in
            removed = nil
            guard let index = records.firstIndex(where: { $0.id == id }) else { return false }
            removed = records.remove(at: index)
            return true
        }
        return removed
    }

    /// Removes and returns every record for which `shouldBeRemoved` is true (writes nothing if none is).
    @discardableResult
    public func removeAll(where shouldBeRemoved: (Record) -> Bool) throws(StoreError) -> [Record] {
        var removed: [Record] = []
        try modify { records throws(StoreError) in
            removed = []
            var kept: [Record] = []
            kept.reserveCapacity(records.count)
            for record in records {
                if shouldBeRemoved(record) { removed.append(record) } else { kept.append(record) }
            }
            guard !removed.isEmpty else { return false }
            records = kept
            return true
        }
        return removed
    }

    /// A read-modify-write transaction: `body` gets every record under both locks and returns whether it
    /// changed them; the file is rewritten only if it did. Throwing from `body` writes nothing. `body` may be
    /// called more than once (when the store appears while its directory is being created), so it must
    /// derive everything from the records it is given.
    public func modify(_ body: (inout [Record]) throws(StoreError) -> Bool) throws(StoreError) {
        try transact { stored throws(StoreError) in try rewritten(stored, body) }
    }

    /// The full path of a change: every record of `stored` (none when there is no file) decoded, `body` run
    /// on them, and the file archived anew when `body` changed them or the file was at an older version;
    /// `nil` (nothing to write) otherwise.
    private func rewritten(_ stored: [UInt8]?, _ body: (inout [Record]) throws(StoreError) -> Bool) throws(StoreError)
        -> [UInt8]?
    {
        var (records, version) = try stored.map { bytes throws(StoreError) in try RepositoryFile<Record>.decode(bytes, path: path) }
            ?? ([], Record.archiveFormatVersion)
        let changed = try body(&records)
        guard changed || version != Record.archiveFormatVersion else { return nil }
        return try RepositoryFile.encode(records, path: path)
    }

    /// Runs `change` on the stored bytes (`nil` when there is no file) under both locks and replaces the file
    /// with what it returns (nothing is written when it returns `nil`). When the directory does not exist,
    /// `change` first runs without the lock to see whether it writes at all, so that a change that writes
    /// nothing creates nothing.
    private func transact(_ change: ([UInt8]?) throws(StoreError) -> [UInt8]?) throws(StoreError) {
        try writers.withLock { _ throws(StoreError) in
            let directory = PathName.directory(of: path)
            if try SystemCalls.linkStatus(directory) == nil {
                guard try change(nil) != nil else { return }
                try SystemCalls.makeDirectories(directory)
            }
            try FileLock.holding(lockPath, timeout: options.lockTimeout) { () throws(StoreError) in
                guard let bytes = try change(try AtomicFile.read(path)) else { return }
                AtomicFile.removeStaleTemporaries(of: path)
                do throws(StoreError) {
                    try AtomicFile.replace(path, with: bytes, fault: options.writeFault)
                } catch where error.code == .durabilityUnknown {
                    StoreDigest.record(StoreDigest.of(bytes), at: lockPath)
                    throw error
                }
                StoreDigest.record(StoreDigest.of(bytes), at: lockPath)
            }
        }
    }

    /// Whether `bytes` are exactly what this library last wrote to the file (their digest is the one recorded
    /// in the lock file, see ``StoreDigest``). Only then do `get` and `add` read part of the file; a file
    /// damaged or changed by anything else is read in full.
    func isUnchangedSinceLastWrite(_ bytes: [UInt8]) -> Bool {
        guard let recorded = StoreDigest.recorded(at: lockPath) else { return false }
        return recorded == StoreDigest.of(bytes)
    }

    // MARK: Corrupt stores

    /// Renames an unreadable archive to `<path>.<suffix>` so that a fresh one can be started, and returns the
    /// new path. Throws ``StoreError/Code/invalidArgument`` if the archive can be read (nothing is moved), and
    /// ``StoreError/Code/notFound`` if there is no archive.
    public func moveAside(suffix: String) throws(StoreError) -> String {
        try writers.withLock { _ throws(StoreError) in
            guard try SystemCalls.linkStatus(path) != nil else {
                throw StoreError(.notFound, "there is no store file to move aside", path: path)
            }
            return try FileLock.holding(lockPath, timeout: options.lockTimeout) { () throws(StoreError) in
                do throws(StoreError) {
                    _ = try loadWithVersion()
                } catch where error.code == .corrupt || error.code == .unsupportedVersion {
                    let destination = path + "." + suffix
                    guard try SystemCalls.linkStatus(destination) == nil else {
                        throw StoreError(.io, "cannot move the store aside: the destination exists", path: destination)
                    }
                    try SystemCalls.replace(path, destination)
                    try SystemCalls.syncDirectory(PathName.directory(of: path))
                    return destination
                }
                throw StoreError(.invalidArgument, "the store file is readable; nothing was moved", path: path)
            }
        }
    }

    // MARK: Loading

    private func load() throws(StoreError) -> [Record] {
        try loadWithVersion().records
    }

    /// Reads and decodes the archive; an absent file is an empty store at the current version.
    private func loadWithVersion() throws(StoreError) -> (records: [Record], version: Int) {
        guard let bytes = try AtomicFile.read(path) else { return ([], Record.archiveFormatVersion) }
        return try RepositoryFile<Record>.decode(bytes, path: path)
    }
}
