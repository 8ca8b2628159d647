#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The files of one cache directory and the operations on them that every ``ArchiveCache`` shares:
/// entry paths, the staging area for temporary files, journal appends and reads, loading and compacting
/// the index. It holds open descriptors (lock file, journal, staging owner) for the cache's lifetime.
///
/// Layout of `directory` (mode 0700, files 0600):
/// - `<hh>/<32 hex>.archive`: one entry file per key, named by the ``StableHash`` of the key's UTF-8
///   bytes, `hh` its first two digits;
/// - `cache.index`, `cache.journal`, `cache.lock`: see ``CacheJournal``;
/// - `staging/`: temporary files, each writer's under a name that starts with its number, beside a
///   `<writer>.owner` file it keeps locked while it lives; files of writers whose owner file is no longer
///   locked are removed by the next open or trim. Among them, up to ``poolLimit`` retired entry files per
///   writer wait to be written again (see ``retire(_:move:)``).
///
/// Anything else in the directory is never touched.
final class CacheDirectory: @unchecked Sendable { // Sendable: immutable after init; descriptors are used under the owner's locks.
    let path: String
    let fileSystem: FileSystem
    let writer: UInt32
    let lockFD: Int32
    let journalFD: Int32
    private let ownerFD: Int32
    private let ownerPath: String
    let stagingPath: String
    let lockPath: String
    let journalPath: String
    let indexPath: String
    private let temporaryCounter = Locked<UInt64>(0)
    /// Retired entry files, ready to be rewritten as temporary files.
    private let pool = Locked<[String]>([])
    static let poolLimit = 64

    init(path: String, fileSystem: FileSystem) throws(StoreError) {
        self.path = path
        self.fileSystem = fileSystem
        lockPath = PathName.join(path, CacheJournal.lockName)
        journalPath = PathName.join(path, CacheJournal.journalName)
        indexPath = PathName.join(path, CacheJournal.indexName)
        stagingPath = PathName.join(path, CacheJournal.stagingName)
        try fileSystem.makeDirectories(path)
        lockFD = try Self.openOwnFile(fileSystem, lockPath, O_RDWR | O_CREAT)
        var opened: [Int32] = [lockFD]
        do throws(StoreError) {
            journalFD = try Self.openJournal(fileSystem, journalPath: journalPath, indexPath: indexPath,
                                             directory: path, lockFD: lockFD, lockPath: lockPath)
            opened.append(journalFD)
            try fileSystem.makeDirectory(stagingPath)
            var candidate: UInt32 = 0
            var owner: (fd: Int32, path: String)?
            for _ in 0..<16 where owner == nil {
                candidate = UInt32.random(in: 1 ... .max)
                owner = try Self.claimOwner(fileSystem, PathName.join(stagingPath, Self.hex32(candidate) + ".owner"))
            }
            guard let owner else { throw StoreError(.io, "cannot claim a staging owner file", path: stagingPath) }
            writer = candidate
            ownerFD = owner.fd
            ownerPath = owner.path
        } catch {
            for fd in opened { fileSystem.close(fd) }
            throw error
        }
        removeStaleTemporaryFiles()
    }

    deinit {
        // Other temporary files are gone (each is renamed or removed by the call that made it).
        for file in pool.withLock({ $0 }) { _ = try? fileSystem.unlink(file) }
        _ = try? fileSystem.unlink(ownerPath)
        fileSystem.unlock(ownerFD)
        fileSystem.close(ownerFD)
        fileSystem.close(journalFD)
        fileSystem.close(lockFD)
    }

    // MARK: Names

    static func hex32(_ value: UInt32) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 8 - text.count) + text
    }

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

    // MARK: Opening

    /// Opens (creating) one of the cache's own files, refusing links and anything but a regular file.
    private static func openOwnFile(_ fs: FileSystem, _ path: String, _ flags: Int32) throws(StoreError) -> Int32 {
        guard let fd = try fs.open(path, flags | O_NOFOLLOW | O_NONBLOCK) else {
            throw StoreError(.io, "cannot open", path: path)
        }
        do throws(StoreError) {
            let info = try fs.status(fd, path)
            guard SystemCalls.isRegularFile(info) else { throw StoreError(.io, "not a regular file", path: path) }
            guard info.st_nlink == 1 else { throw StoreError(.io, "refusing a file with \(info.st_nlink) hard links", path: path) }
            return fd
        } catch {
            fs.close(fd)
            throw error
        }
    }

    /// Opens the journal, creating it (under the exclusive lock) with a header: generation 0 for a new
    /// directory, ``CacheJournal/unknownGeneration`` when entries or an index exist without a journal.
    private static func openJournal(_ fs: FileSystem, journalPath: String, indexPath: String, directory: String,
                                    lockFD: Int32, lockPath: String) throws(StoreError) -> Int32 {
        do {
            if let fd = try fs.open(journalPath, O_RDWR | O_APPEND | O_NOFOLLOW | O_NONBLOCK, missingIsNil: true) {
                fs.close(fd)
                return try openOwnFile(fs, journalPath, O_RDWR | O_APPEND)
            }
        }
        _ = try fs.lock(lockFD, LOCK_EX, lockPath)
        defer { fs.unlock(lockFD) }
        let fd: Int32
        do {
            fd = try openOwnFile(fs, journalPath, O_RDWR | O_APPEND | O_CREAT)
        }
        do throws(StoreError) {
            if try fs.status(fd, journalPath).st_size == 0 {
                let hasIndex = try fs.linkStatus(indexPath) != nil
                let names = try fs.list(directory) ?? []
                let existing = hasIndex || names.contains(where: isFanOutDirectory)
                var header: [UInt8] = []
                CacheJournalRecord.header(generation: existing ? CacheJournal.unknownGeneration : 0).append(to: &header)
                try fs.write(fd, header, journalPath)
            }
            return fd
        } catch {
            fs.close(fd)
            throw error
        }
    }

    /// Creates and locks a staging owner file; `nil` when the name is taken or was removed under us.
    private static func claimOwner(_ fs: FileSystem, _ path: String) throws(StoreError) -> (fd: Int32, path: String)? {
        let fd: Int32
        do {
            guard let opened = try fs.open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW) else { return nil }
            fd = opened
        } catch where error.errno == EEXIST {
            return nil
        }
        do throws(StoreError) {
            _ = try fs.lock(fd, LOCK_EX, path)
            // A cleaner may have taken the file for a dead writer's between create and lock.
            guard try fs.status(fd, path).st_nlink == 1 else {
                fs.close(fd)
                return nil
            }
            return (fd, path)
        } catch {
            fs.close(fd)
            throw error
        }
    }

    // MARK: Staging

    /// Removes the temporary files of writers that no longer live (their owner file is not locked).
    /// Failures are ignored: they only leave files for the next try.
    /// The writer number a staging name starts with, when the name is one the cache writes: `<8 hex>.owner`
    /// or `<8 hex>-<digits>.tmp`. Any other name is not the cache's and is never touched.
    static func stagingWriter(_ name: String, owner: Bool) -> String? {
        let bytes = Array(name.utf8)
        guard bytes.count >= 9, bytes[0..<8].allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        if owner { return bytes.count == 14 && name.hasSuffix(".owner") ? String(name.prefix(8)) : nil }
        guard bytes[8] == UInt8(ascii: "-"), name.hasSuffix(".tmp"), bytes.count > 13,
              bytes[9..<(bytes.count - 4)].allSatisfy({ (48...57).contains($0) })
        else { return nil }
        return String(name.prefix(8))
    }

    func removeStaleTemporaryFiles() {
        guard let names = try? fileSystem.list(stagingPath) else { return }
        let own = Self.hex32(writer)
        var dead: Set<String> = []
        var owners: Set<String> = []
        for name in names {
            guard let prefix = Self.stagingWriter(name, owner: true) else { continue }
            owners.insert(prefix)
            guard prefix != own,
                  let fd = try? fileSystem.open(PathName.join(stagingPath, name), O_RDWR | O_NOFOLLOW | O_NONBLOCK)
            else { continue }
            if (try? fileSystem.lock(fd, LOCK_EX, nonBlocking: true, name)) == true { dead.insert(prefix) }
            fileSystem.close(fd)
        }
        for name in names {
            guard let prefix = Self.stagingWriter(name, owner: false) else { continue }
            if prefix != own && (dead.contains(prefix) || !owners.contains(prefix)) {
                _ = try? fileSystem.unlink(PathName.join(stagingPath, name))
            }
        }
        for prefix in dead { _ = try? fileSystem.unlink(PathName.join(stagingPath, prefix + ".owner")) }
    }

    private func temporaryName() -> String {
        let number = temporaryCounter.withLock { value -> UInt64 in
            value &+= 1
            return value
        }
        return PathName.join(stagingPath, Self.hex32(writer) + "-" + String(number) + ".tmp")
    }

    /// Keeps the file of an entry being replaced or evicted as a future temporary file, by renaming it into
    /// the staging area while the pool has room. Returns the file's new path when it left its entry path
    /// (`nil`: nothing there, or the pool is full).
    ///
    /// Two ext4 behaviours make this worth two renames. Without a journal, allocating an inode scans every
    /// inode freed in the last minutes, on every create, so a cache that churns would pay a growing scan
    /// on every `set`; a pooled file needs no new inode and frees none. With `auto_da_alloc` (the default),
    /// renaming over an existing file or truncating one to zero starts writeback of the data at once; moving
    /// the old entry away first means the new one is renamed onto a free name, and a pooled file is
    /// rewritten in place and cut to length, never truncated to zero. A reader meanwhile sees the old
    /// entry, none, or the new one.
    @discardableResult
    func retire(_ path: String) -> String? {
        guard pool.withLock({ $0.count }) < Self.poolLimit else { return nil }
        let temporary = temporaryName()
        guard (try? fileSystem.rename(path, temporary)) != nil else { return nil }
        pool.withLock { $0.append(temporary) }
        return temporary
    }

    /// Puts a retired file back where it was (a write that replaced it failed); `false` when it cannot.
    func restore(_ retired: String, to path: String) -> Bool {
        guard pool.withLock({ pool -> Bool in
            guard let index = pool.lastIndex(of: retired) else { return false }
            pool.remove(at: index)
            return true
        }) else { return false }
        if (try? fileSystem.rename(retired, path)) != nil { return true }
        _ = try? fileSystem.unlink(retired)
        return false
    }

    /// A retired file to write again, emptied and opened, when one is at hand and still only ours.
    ///
    /// A reader that opened the file while it was an entry may still be reading it. The file is emptied
    /// first (and that descriptor closed at once, so ext4 has nothing to flush), which drops its old pages:
    /// such a reader then gets the old bytes whole, a short read, or new bytes, never a mix of the two; a
    /// short read is a miss, and new bytes are used only if the file is by then that key's entry again
    /// (``readEntry(_:limit:)`` checks).
    private func reusableTemporary() -> (fd: Int32, path: String, size: Int)? {
        while let candidate = pool.withLock({ $0.popLast() }) {
            if let emptied = try? fileSystem.open(candidate, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_NONBLOCK) {
                let info = try? fileSystem.status(emptied, candidate)
                fileSystem.close(emptied)
                if let info, SystemCalls.isRegularFile(info), info.st_nlink == 1,
                   let fd = try? fileSystem.open(candidate, O_WRONLY | O_NOFOLLOW | O_NONBLOCK) {
                    return (fd, candidate, 0)
                }
            }
            _ = try? fileSystem.unlink(candidate)
        }
        return nil
    }

    /// Writes `bytes` to a temporary file in the staging area (fsynced when `sync`) and returns its path.
    func writeTemporary(_ bytes: [UInt8], sync: Bool) throws(StoreError) -> String {
        let fd: Int32
        let temporary: String
        var oldSize = 0
        if let reused = reusableTemporary() {
            (fd, temporary, oldSize) = reused
        } else {
            temporary = temporaryName()
            guard let created = try fileSystem.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW) else {
                throw StoreError(.io, "cannot create", path: temporary)
            }
            fd = created
        }
        do throws(StoreError) {
            try fileSystem.write(fd, bytes, temporary)
            if oldSize > bytes.count { try fileSystem.truncate(fd, to: bytes.count, temporary) }
            if sync { try fileSystem.sync(fd, temporary) }
            fileSystem.close(fd)
        } catch {
            fileSystem.close(fd)
            _ = try? fileSystem.unlink(temporary)
            throw error
        }
        return temporary
    }

    /// Renames a temporary file to the entry file of `hash`, creating its fan-out directory if needed.
    func install(_ temporary: String, as hash: StableHash) throws(StoreError) {
        let destination = entryPath(hash)
        do {
            try fileSystem.rename(temporary, destination)
        } catch where error.errno == ENOENT {
            try fileSystem.makeDirectory(entryDirectory(hash))
            try fileSystem.rename(temporary, destination)
        }
    }

    // MARK: Entry files

    /// The largest entry file read (larger ones are misses): an entry is never larger than the byte limit,
    /// and a file claiming more (a sparse file of a terabyte) must not make the reader allocate it.
    static let largestEntry = 1 << 30

    /// Reads an entry file: `nil` when absent, not a regular file (never blocks on a FIFO), a symbolic
    /// link, larger than `limit`, or changing while read (a read shorter than the size it had).
    ///
    /// The file read must still be the entry afterwards (the same inode at the entry path): a file moved
    /// away meanwhile (replaced, evicted, or reused by a write that then failed) is a miss.
    func readEntry(_ hash: StableHash, limit: Int = largestEntry) throws(StoreError) -> (bytes: [UInt8], inode: UInt64)? {
        let path = entryPath(hash)
        let file: (bytes: [UInt8], inode: UInt64)?
        do {
            file = try readFile(path, limit: limit)
        } catch where error.errno == ELOOP {
            return nil
        }
        guard let file, let info = try fileSystem.linkStatus(path), UInt64(info.st_ino) == file.inode else { return nil }
        return file
    }

    /// Reads a whole regular file without following a link: `nil` when absent, not a regular file, larger
    /// than `limit` or shorter when read than its size said.
    func readFile(_ path: String, limit: Int = largestEntry) throws(StoreError) -> (bytes: [UInt8], inode: UInt64)? {
        guard let fd = try fileSystem.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, missingIsNil: true) else { return nil }
        defer { fileSystem.close(fd) }
        let info = try fileSystem.status(fd, path)
        guard SystemCalls.isRegularFile(info), info.st_size >= 0, info.st_size <= limit else { return nil }
        let bytes = try fileSystem.read(fd, count: Int(info.st_size), at: 0, path)
        guard bytes.count == Int(info.st_size) else { return nil }
        return (bytes, UInt64(info.st_ino))
    }

    /// Removes the entry file of `hash`, only if it is still the file with `inode` (when given).
    @discardableResult
    func removeEntry(_ hash: StableHash, inode: UInt64? = nil) throws(StoreError) -> Bool {
        let path = entryPath(hash)
        if let inode {
            guard let info = try fileSystem.linkStatus(path), UInt64(info.st_ino) == inode else { return false }
        } else if let info = try fileSystem.linkStatus(path), !SystemCalls.isRegularFile(info) {
            return false
        }
        return try fileSystem.unlink(path)
    }

    /// Takes the entry file of `hash` out of service for eviction (into the pool, or removed); `false` when
    /// nothing was there.
    @discardableResult
    func evictEntry(_ hash: StableHash) throws(StoreError) -> Bool {
        let path = entryPath(hash)
        guard let info = try fileSystem.linkStatus(path), SystemCalls.isRegularFile(info) else { return false }
        if info.st_size <= 1 << 20 && retire(path) != nil { return true }
        return try fileSystem.unlink(path)
    }

    /// Every entry file: its hash, size and modification time (nanoseconds since 1970). The index rebuild.
    func scanEntries() throws(StoreError) -> [CacheIndex.Entry] {
        var found: [CacheIndex.Entry] = []
        for directory in (try fileSystem.list(path) ?? []).sorted() where Self.isFanOutDirectory(directory) {
            let directoryPath = PathName.join(path, directory)
            for name in try fileSystem.list(directoryPath) ?? [] {
                guard let hash = Self.entryHash(directory: directory, name: name),
                      let info = try fileSystem.linkStatus(PathName.join(directoryPath, name)),
                      SystemCalls.isRegularFile(info)
                else { continue }
                let tick = UInt64(max(0, info.st_mtim.tv_sec)) &* 1_000_000_000 &+ UInt64(max(0, info.st_mtim.tv_nsec))
                found.append(CacheIndex.Entry(hash: hash, size: UInt64(info.st_size), tick: tick, expires: CacheIndex.unknownExpiry))
            }
        }
        found.sort { ($0.tick, $0.hash) < ($1.tick, $1.hash) }
        return found
    }

    // MARK: Journal

    /// Appends records (one `write`, `O_APPEND`) while holding the lock file shared.
    /// Runs `body` holding the lock file exclusively: every change to entry files and the journal record
    /// that says so happen inside, so that the journal's order is the order of the changes on disk in every
    /// process (a removal and a set of one entry by two processes can never leave a file the index lost).
    /// Loading, compacting and resetting the index also run inside.
    func exclusively<Result>(_ body: () throws(StoreError) -> Result) throws(StoreError) -> Result {
        _ = try fileSystem.lock(lockFD, LOCK_EX, lockPath)
        defer { fileSystem.unlock(lockFD) }
        return try body()
    }

    /// ``exclusively(_:)`` when the lock file is free now; `nil` without waiting when another process
    /// holds it (a reader must never wait for a writer).
    func exclusivelyIfAvailable<Result>(_ body: () throws(StoreError) -> Result) throws(StoreError) -> Result? {
        guard try fileSystem.lock(lockFD, LOCK_EX, nonBlocking: true, lockPath) else { return nil }
        defer { fileSystem.unlock(lockFD) }
        return try body()
    }

    /// Appends records (one `write`, `O_APPEND`); the caller holds the lock file (``exclusively(_:)``).
    func appendHoldingLock(_ records: [CacheJournalRecord]) throws(StoreError) {
        guard !records.isEmpty else { return }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(records.count * CacheJournalRecord.size)
        for record in records { record.append(to: &bytes) }
        try fileSystem.write(journalFD, bytes, journalPath)
    }

    /// Appends records that change no file (uses), holding the lock file shared: they may go in beside
    /// other processes' appends, never into a compaction.
    func appendShared(_ records: [CacheJournalRecord], nonBlocking: Bool = false) throws(StoreError) -> Bool {
        guard !records.isEmpty else { return true }
        guard try fileSystem.lock(lockFD, LOCK_SH, nonBlocking: nonBlocking, lockPath) else { return false }
        defer { fileSystem.unlock(lockFD) }
        try appendHoldingLock(records)
        return true
    }

    /// What identifies the journal's current state without reading it: size and modification time.
    struct JournalStamp: Equatable {
        var size: Int
        var seconds: Int
        var nanoseconds: Int
    }

    func journalStamp() throws(StoreError) -> JournalStamp {
        let info = try fileSystem.status(journalFD, journalPath)
        return JournalStamp(size: Int(info.st_size), seconds: Int(info.st_mtim.tv_sec), nanoseconds: Int(info.st_mtim.tv_nsec))
    }

    /// The journal's records from `offset` to `end`, its header's generation, where reading stopped, and
    /// whether a damaged record was skipped. A trailing partial record is left for the next read.
    func readJournal(from offset: Int, to end: Int) throws(StoreError)
        -> (generation: UInt64?, records: [CacheJournalRecord], consumed: Int, damaged: Bool)
    {
        let headerBytes = try fileSystem.read(journalFD, count: CacheJournalRecord.size, at: 0, journalPath)
        var generation: UInt64?
        if let header = CacheJournalRecord(headerBytes, at: 0), header.kind == .header,
           header.size == CacheJournalRecord.formatVersion {
            generation = header.tick
        }
        let start = max(offset, CacheJournalRecord.size)
        guard end > start else { return (generation, [], max(start, offset), false) }
        guard end - start <= Self.largestJournalRead else {
            // More than any journal this cache lets grow: read nothing of it, report it damaged (the index
            // is then rebuilt from the entry files and the journal started over).
            return (generation, [], start, true)
        }
        let bytes = try fileSystem.read(journalFD, count: end - start, at: start, journalPath)
        let parsed = Self.parse(bytes)
        return (generation, parsed.records, start + parsed.consumed, parsed.damaged)
    }

    /// The most journal bytes read at once (about 4.8 million records).
    static let largestJournalRead = 256 << 20

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

    // MARK: Index

    /// The index as the snapshot and journal give it; `nil` when they do not agree (a compaction or rebuild
    /// is needed). The caller holds the lock file.
    func loadIndex() throws(StoreError) -> (index: CacheIndex, generation: UInt64, offset: Int, stamp: JournalStamp)? {
        try readIndex(requireAgreement: true)
    }

    private func readSnapshot() throws(StoreError) -> CacheIndexSnapshot?? {
        guard let fd = try fileSystem.open(indexPath, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, missingIsNil: true) else {
            return .some(nil)  // no snapshot: generation 0, empty
        }
        defer { fileSystem.close(fd) }
        // The header says how long the file must be; anything else, or more entries than a cache keeps,
        // is damage, found before the body is allocated.
        let header = try fileSystem.read(fd, count: CacheIndexSnapshot.headerSize, at: 0, indexPath)
        let info = try fileSystem.status(fd, indexPath)
        guard header.count == CacheIndexSnapshot.headerSize, SystemCalls.isRegularFile(info) else { return nil }
        let count = readLittleEndian(header, 32, width: 8)
        guard count <= CacheIndexSnapshot.largestCount,
              Int(info.st_size) == CacheIndexSnapshot.headerSize + Int(count) * CacheIndexSnapshot.lineSize
        else { return nil }
        let bytes = try fileSystem.read(fd, count: Int(info.st_size), at: 0, indexPath)
        guard let snapshot = CacheIndexSnapshot(bytes) else { return nil }  // damaged
        return .some(snapshot)
    }

    /// Reads snapshot + journal. With `requireAgreement`, `nil` unless the journal is the snapshot's own
    /// generation; without, applies what can be trusted and returns `nil` only when a rebuild is needed.
    private func readIndex(requireAgreement: Bool) throws(StoreError)
        -> (index: CacheIndex, generation: UInt64, offset: Int, stamp: JournalStamp)?
    {
        let stamp = try journalStamp()
        guard let snapshotOrNone = try readSnapshot() else { return nil }
        let snapshot = snapshotOrNone ?? CacheIndexSnapshot(generation: 0, baseGeneration: 0, mergedLength: 0, entries: [])
        let journal = try readJournal(from: 0, to: stamp.size)
        guard let generation = journal.generation, !journal.damaged else { return nil }
        var index = CacheIndex(entries: snapshot.entries)
        if generation == snapshot.generation {
            for record in journal.records { index.apply(record) }
        } else if !requireAgreement && generation == snapshot.baseGeneration && snapshotOrNone != nil {
            // Crashed between the snapshot's rename and the journal's reset: what came after the merge.
            guard snapshot.mergedLength <= UInt64(stamp.size) else { return nil }   // longer than the journal: damage
            let skip = max(0, (Int(snapshot.mergedLength) - CacheJournalRecord.size) / CacheJournalRecord.size)
            for record in journal.records.dropFirst(skip) { index.apply(record) }
        } else {
            return nil
        }
        return (index, generation, journal.consumed, stamp)
    }

    /// Rewrites the snapshot from snapshot + journal (or from the entry files when those cannot be trusted)
    /// and starts the journal over. The caller holds the lock file (``exclusively(_:)``).
    func compact() throws(StoreError)
        -> (index: CacheIndex, generation: UInt64, offset: Int, stamp: JournalStamp, rebuilt: Bool, merged: Int)
    {
        var rebuilt = false
        var index: CacheIndex
        var previous: UInt64
        if let read = try readIndex(requireAgreement: false) {
            index = read.index
            previous = read.generation
        } else {
            index = CacheIndex(entries: try scanEntries())
            rebuilt = true
            previous = currentGeneration()
        }
        let merged = try journalStamp().size
        let generation = try startOver(with: index.entries, after: previous)
        return (index, generation, CacheJournalRecord.size, try journalStamp(), rebuilt, merged)
    }

    /// The generation a new snapshot follows: the larger of the journal's and the snapshot's.
    private func currentGeneration() -> UInt64 {
        var previous: UInt64 = 0
        if let read = try? readJournal(from: 0, to: 0), let generation = read.generation, generation != CacheJournal.unknownGeneration {
            previous = generation
        }
        if case .some(.some(let snapshot)) = try? readSnapshot() { previous = max(previous, snapshot.generation) }
        return previous
    }

    /// Writes a snapshot of `entries` as generation `previous + 1` (fsynced, renamed into place), then
    /// resets the journal to that generation's header. The caller holds the lock file exclusively.
    private func startOver(with entries: [CacheIndex.Entry], after previous: UInt64) throws(StoreError) -> UInt64 {
        let merged = try journalStamp().size
        let generation = previous &+ 1
        let snapshot = CacheIndexSnapshot(generation: generation, baseGeneration: previous,
                                          mergedLength: UInt64(merged), entries: entries)
        let temporary = try writeTemporary(snapshot.serialized(), sync: true)
        do {
            try fileSystem.rename(temporary, indexPath)
        } catch {
            _ = try? fileSystem.unlink(temporary)
            throw error
        }
        try? fileSystem.syncDirectory(path)
        try fileSystem.truncate(journalFD, to: 0, journalPath)
        var header: [UInt8] = []
        CacheJournalRecord.header(generation: generation).append(to: &header)
        try fileSystem.write(journalFD, header, journalPath)
        return generation
    }

    /// Empties the directory of entries (only files named as entries) and starts snapshot and journal over.
    /// The caller holds the lock file.
    func removeAllEntries() throws(StoreError) -> (removed: Int, stamp: JournalStamp) {
        var removed = 0
        for directory in (try fileSystem.list(path) ?? []) where Self.isFanOutDirectory(directory) {
            let directoryPath = PathName.join(path, directory)
            for name in try fileSystem.list(directoryPath) ?? [] where Self.entryHash(directory: directory, name: name) != nil {
                let file = PathName.join(directoryPath, name)
                if let info = try fileSystem.linkStatus(file), SystemCalls.isRegularFile(info), try fileSystem.unlink(file) {
                    removed += 1
                }
            }
            fileSystem.removeDirectory(directoryPath)  // only if empty
        }
        _ = try startOver(with: [], after: currentGeneration())
        return (removed, try journalStamp())
    }
}

/// Nanoseconds since 1970 by the system's real-time clock: the order of uses across processes.
func realTimeNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return UInt64(max(0, now.tv_sec)) &* 1_000_000_000 &+ UInt64(max(0, now.tv_nsec))
}
