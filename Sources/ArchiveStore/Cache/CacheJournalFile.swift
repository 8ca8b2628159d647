import ArchivePlatform

/// The journal of a cache directory (`cache.journal`), open: appends, reads from an offset, and the stamp
/// that says whether anyone changed it since a given look.
///
/// With the snapshot (`cache.index`, ``CacheIndexSnapshot``) it is the cache's index on disk. Entry files are
/// the truth; these two files only remember, for every process sharing the directory, which entries exist,
/// their sizes, expiries and the order in which they were last used, so that eviction needs no scan of the
/// directory. When either is damaged or lost, the index is rebuilt from the entry files.
///
/// The journal is a sequence of fixed-size records (``CacheJournalRecord``), the first a header naming its
/// generation (format 2: records checked by CRC-32; a journal of format 1 reads as damaged, so the index is
/// rebuilt from the entry files). Every process appends with `O_APPEND` while holding the lock file shared or
/// exclusively; compaction holds it exclusively, writes a new snapshot (generation + 1) by atomic rename, then
/// starts the journal over as a new file renamed into place. A reader notices others' changes by the file's
/// identity, size and modification time and its header's generation.
///
/// The descriptor follows the file at the journal's path: one replaced by another process's compaction, or
/// removed and created again, is opened in its place. Descriptors of files left behind stay open until the
/// owner calls ``closeLeftDescriptors()`` holding both of its locks, since a read on another thread may still
/// be using one.
///
/// No Apple API; the layout of SQLite's write-ahead log in miniature.
final class CacheJournalFile: @unchecked Sendable { // Sendable: the descriptors that change are behind `handles`; the rest is set once.
    static let journalName = "cache.journal"
    /// A journal generation that no snapshot has: the journal was created over existing entries whose
    /// index was lost, so the index must be rebuilt from the entry files.
    static let unknownGeneration = UInt64.max
    /// The most journal bytes read at once (about 4.8 million records).
    static let largestRead = 256 << 20

    let path: String
    private let fileSystem: FileSystem
    /// The cache directory, open, for looking the journal up by name (one `fstatat`, not a path walk).
    private let directoryFD: Int32
    private let handles: Locked<Handles>

    private struct Handles {
        var fd: Int32
        var inode: UInt64
        /// Bumped whenever the descriptor changes: a view of the journal taken before is void.
        var identity: UInt64 = 0
        var left: [Int32] = []
    }

    /// What identifies the journal's current state without reading it: which file (a new one after a
    /// compaction or a loss), its size and modification time.
    struct Stamp: Equatable {
        var identity: UInt64
        var size: Int
        var modified: FileTime
    }

    /// Opens the journal in the directory open at `directoryFD`, creating it (holding `lock` exclusively) with
    /// a header: generation 0 for a new directory, ``unknownGeneration`` when entries or an index exist
    /// without a journal.
    init(directory: String, directoryFD: Int32, lock: WriterLock, hasEntries: () throws(StoreError) -> Bool,
         fileSystem: FileSystem) throws(StoreError) {
        path = PathName.join(directory, Self.journalName)
        self.fileSystem = fileSystem
        self.directoryFD = directoryFD
        let fd: Int32
        if let existing = try fileSystem.openIfPresent(path, [.readWrite, .append, .noFollow, .nonBlocking]) {
            fileSystem.close(existing)
            fd = try Self.openOwnFile(fileSystem, path, [.readWrite, .append])
        } else {
            _ = try lock.acquire(exclusive: true, waiting: .forever)
            defer { lock.release() }
            fd = try Self.openOwnFile(fileSystem, path, [.readWrite, .append, .create])
            do throws(StoreError) {
                if try fileSystem.status(fd, path).size == 0 {
                    let generation = try hasEntries() ? Self.unknownGeneration : 0
                    try fileSystem.write(fd, Self.header(generation: generation), path)
                }
            } catch {
                fileSystem.close(fd)
                throw error
            }
        }
        do throws(StoreError) {
            handles = Locked(Handles(fd: fd, inode: try fileSystem.status(fd, path).inode))
        } catch {
            fileSystem.close(fd)
            throw error
        }
    }

    deinit {
        let all = handles.withLock { [$0.fd] + $0.left }
        for fd in all { fileSystem.close(fd) }
    }

    /// The bytes of a header record of `generation`.
    static func header(generation: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        CacheJournalRecord.header(generation: generation).append(to: &bytes)
        return bytes
    }

    /// Opens (creating, with `.create`) one of the cache's own files, refusing links and anything but a
    /// regular file, with the one code for each refusal.
    static func openOwnFile(_ fileSystem: FileSystem, _ path: String, _ flags: OpenFlags) throws(StoreError) -> Int32 {
        let fd = try fileSystem.open(path, flags.union([.noFollow, .nonBlocking]))
        do throws(StoreError) {
            try fileSystem.status(fd, path).requireOwnRegularFile(path)
            return fd
        } catch {
            fileSystem.close(fd)
            throw error
        }
    }

    private var fd: Int32 { handles.withLock { $0.fd } }

    /// Closes the descriptors of files left behind. The caller holds both of the owning cache's locks, so
    /// no other thread is using one.
    func closeLeftDescriptors() {
        let left = handles.withLock { h -> [Int32] in
            defer { h.left.removeAll() }
            return h.left
        }
        for fd in left { fileSystem.close(fd) }
    }

    /// Makes the descriptor the file at the journal's path, when that is another file (removed and created
    /// again, or replaced by another process's compaction); with `creating` (the lock held exclusively) a
    /// missing journal is created, its header saying the index must be rebuilt. Returns whether it changed.
    @discardableResult
    func follow(creating: Bool) throws(StoreError) -> Bool {
        let inode = handles.withLock { $0.inode }
        let info = try fileSystem.status(in: directoryFD, Self.journalName, path)
        if let info, info.inode == inode { return false }
        let fresh: Int32
        if info != nil {
            fresh = try Self.openOwnFile(fileSystem, path, [.readWrite, .append])
        } else {
            guard creating else { return false }
            fresh = try Self.openOwnFile(fileSystem, path, [.readWrite, .append, .create])
            do throws(StoreError) {
                if try fileSystem.status(fresh, path).size == 0 {
                    try fileSystem.write(fresh, Self.header(generation: Self.unknownGeneration), path)
                }
            } catch {
                fileSystem.close(fresh)
                throw error
            }
        }
        let freshInode: UInt64
        do throws(StoreError) { freshInode = try fileSystem.status(fresh, path).inode } catch {
            fileSystem.close(fresh)
            throw error
        }
        handles.withLock { h in
            h.left.append(h.fd)
            h.fd = fresh
            h.inode = freshInode
            h.identity &+= 1
        }
        return true
    }

    /// Whether a journal is at its path now.
    var exists: Bool {
        get throws(StoreError) { try fileSystem.status(in: directoryFD, Self.journalName, path) != nil }
    }

    /// Appends records (one `write`, `O_APPEND`); the caller holds the lock file.
    func append(_ records: [CacheJournalRecord]) throws(StoreError) {
        guard !records.isEmpty else { return }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(records.count * CacheJournalRecord.size)
        for record in records { record.append(to: &bytes) }
        try fileSystem.write(fd, bytes, path)
    }

    /// The journal's stamp, after following it to the file at its path (see ``follow(creating:)``). One
    /// `fstatat` when the journal is the file already open (every read of the memory layer asks).
    func stamp() throws(StoreError) -> Stamp {
        let (inode, identity) = handles.withLock { ($0.inode, $0.identity) }
        if let info = try fileSystem.status(in: directoryFD, Self.journalName, path), info.inode == inode {
            return Stamp(identity: identity, size: try StoreFile.fileSize(info, path), modified: info.modified)
        }
        try follow(creating: false)
        let (fd, followed) = handles.withLock { ($0.fd, $0.identity) }
        let info = try fileSystem.status(fd, path)
        return Stamp(identity: followed, size: try StoreFile.fileSize(info, path), modified: info.modified)
    }

    /// What a read of the journal found.
    struct Read {
        /// The header's generation; `nil` when the header is damaged or of another format.
        var generation: UInt64?
        var records: [CacheJournalRecord]
        /// Where reading stopped (a trailing partial record is left for the next read).
        var consumed: Int
        /// Whether a damaged record was skipped.
        var damaged: Bool
    }

    /// The records from `offset` to `end` and the header's generation.
    func read(from offset: Int, to end: Int) throws(StoreError) -> Read {
        let fd = self.fd
        let headerBytes = try fileSystem.read(fd, count: CacheJournalRecord.size, at: 0, path)
        var generation: UInt64?
        if let header = CacheJournalRecord(headerBytes, at: 0), header.kind == .header,
           header.size == CacheJournalRecord.formatVersion {
            generation = header.tick
        }
        let start = max(offset, CacheJournalRecord.size)
        guard end > start else { return Read(generation: generation, records: [], consumed: max(start, offset), damaged: false) }
        guard end - start <= Self.largestRead else {
            // More than any journal this cache lets grow: read nothing of it, report it damaged (the index
            // is then rebuilt from the entry files and the journal started over).
            return Read(generation: generation, records: [], consumed: start, damaged: true)
        }
        let bytes = try fileSystem.read(fd, count: end - start, at: start, path)
        let parsed = Self.parse(bytes)
        return Read(generation: generation, records: parsed.records, consumed: start + parsed.consumed, damaged: parsed.damaged)
    }

    /// Parses records, skipping forward past damage to the next record whose check holds.
    static func parse(_ bytes: [UInt8]) -> (records: [CacheJournalRecord], consumed: Int, damaged: Bool) {
        var records: [CacheJournalRecord] = []
        records.reserveCapacity(bytes.count / CacheJournalRecord.size)
        var offset = 0
        var damaged = false
        while offset + CacheJournalRecord.size <= bytes.count {
            if let record = CacheJournalRecord(bytes, at: offset) {
                if record.kind != .header { records.append(record) }
                offset += CacheJournalRecord.size
                continue
            }
            var next = offset + 1
            while next + CacheJournalRecord.size <= bytes.count, CacheJournalRecord(bytes, at: next) == nil { next += 1 }
            if next + CacheJournalRecord.size > bytes.count { break }  // maybe a record still being written
            damaged = true
            offset = next
        }
        return (records, offset, damaged)
    }
}
