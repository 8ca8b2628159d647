import ArchivePlatform

extension CacheDirectory {
    /// The largest entry file read (larger ones are misses): an entry is never larger than the byte limit,
    /// and a file claiming more (a sparse file of a terabyte) must not make the reader allocate it.
    static let largestEntry = 1 << 30

    /// An entry file as read: its bytes and which file it was.
    struct EntryRead {
        var bytes: [UInt8]
        var inode: UInt64
    }

    /// Writes `bytes` as the future entry file of `hash` (a temporary file, finished as `durability` asks);
    /// ``install(_:as:durability:)`` puts it in place.
    func prepareEntry(_ bytes: [UInt8], for hash: StableHash, durability: Durability) throws(StoreError) -> AtomicReplace {
        try staging.write(bytes, for: entryPath(hash), durability: durability)
    }

    /// Renames a prepared entry into place, creating its fan-out directory if needed; with `.synchronous`,
    /// syncs the fan-out directory (a failure then is ``StoreError/Code/durabilityUnknown``: it is in place).
    func install(_ file: AtomicReplace, as hash: StableHash, durability: Durability) throws(StoreError) {
        do {
            try file.install(durability)
        } catch where error.errno == Errno.noSuchFile.rawValue {
            try fileSystem.makeDirectory(entryDirectory(hash))
            try file.install(durability)
        }
    }

    /// Reads an entry file: `nil` when absent, not a regular file (never blocks on a FIFO), a symbolic link,
    /// larger than `limit`, or changing while read (a read shorter than the size it had).
    ///
    /// The file read must still be the entry afterwards (the same inode, with the same change time, at the
    /// entry path): a file moved away meanwhile (replaced, evicted, or reused by a write that then failed) is
    /// a miss.
    func readEntry(_ hash: StableHash, limit: Int = largestEntry) throws(StoreError) -> EntryRead? {
        let path = entryPath(hash)
        let file: (bytes: [UInt8], status: FileStatus)?
        do {
            file = try readFile(path, limit: limit)
        } catch where error.code == .symbolicLink {
            return nil
        }
        guard let file, let now = try fileSystem.linkStatus(path), now.inode == file.status.inode,
              now.changed == file.status.changed
        else { return nil }
        return EntryRead(bytes: file.bytes, inode: file.status.inode)
    }

    /// Reads a whole regular file without following a link: `nil` when absent, not a regular file, larger
    /// than `limit` or shorter when read than its size said.
    func readFile(_ path: String, limit: Int = largestEntry) throws(StoreError) -> (bytes: [UInt8], status: FileStatus)? {
        guard let fd = try fileSystem.openIfPresent(path, [.readOnly, .noFollow, .nonBlocking]) else { return nil }
        defer { fileSystem.close(fd) }
        let info = try fileSystem.status(fd, path)
        guard info.isRegularFile, let size = Int(exactly: info.size), size >= 0, size <= limit else { return nil }
        let bytes = try fileSystem.read(fd, count: size, at: 0, path)
        guard bytes.count == size else { return nil }
        return (bytes, info)
    }

    /// Removes the entry file of `hash`, only if it is still the file with `inode` (when given).
    @discardableResult
    func removeEntry(_ hash: StableHash, inode: UInt64? = nil) throws(StoreError) -> Bool {
        let path = entryPath(hash)
        if let inode {
            guard let info = try fileSystem.linkStatus(path), info.inode == inode else { return false }
        } else if let info = try fileSystem.linkStatus(path), !info.isRegularFile {
            return false
        }
        return try fileSystem.unlink(path)
    }

    /// Takes the entry file of `hash` out of service for eviction (into the staging pool, or removed);
    /// `false` when nothing was there.
    @discardableResult
    func evictEntry(_ hash: StableHash) throws(StoreError) -> Bool {
        let path = entryPath(hash)
        guard let info = try fileSystem.linkStatus(path), info.isRegularFile else { return false }
        if info.size <= 1 << 20 && staging.retire(path) != nil { return true }
        return try fileSystem.unlink(path)
    }

    /// Every entry file: its hash, size and modification time. The index rebuild.
    func scanEntries() throws(StoreError) -> [CacheIndex.Entry] {
        var found: [CacheIndex.Entry] = []
        for directory in (try fileSystem.list(path) ?? []).sorted() where Self.isFanOutDirectory(directory) {
            let directoryPath = PathName.join(path, directory)
            for name in try fileSystem.list(directoryPath) ?? [] {
                guard let hash = Self.entryHash(directory: directory, name: name),
                      let info = try fileSystem.linkStatus(PathName.join(directoryPath, name)), info.isRegularFile
                else { continue }
                found.append(CacheIndex.Entry(hash: hash, size: UInt64(clamping: info.size), tick: info.modified.nanosecondsSince1970,
                                              expires: CacheIndex.unknownExpiry))
            }
        }
        found.sort { ($0.tick, $0.hash) < ($1.tick, $1.hash) }
        return found
    }

    /// Empties the directory of entries (only files named as entries) and starts snapshot and journal over.
    /// The caller holds the lock file.
    func removeAllEntries() throws(StoreError) -> (removed: Int, stamp: CacheJournalFile.Stamp) {
        var removed = 0
        for directory in (try fileSystem.list(path) ?? []) where Self.isFanOutDirectory(directory) {
            let directoryPath = PathName.join(path, directory)
            for name in try fileSystem.list(directoryPath) ?? [] where Self.entryHash(directory: directory, name: name) != nil {
                let file = PathName.join(directoryPath, name)
                if let info = try fileSystem.linkStatus(file), info.isRegularFile, try fileSystem.unlink(file) {
                    removed += 1
                }
            }
            _ = try? fileSystem.removeDirectory(directoryPath)  // only if empty
        }
        _ = try startOver(with: [], after: currentGeneration())
        return (removed, try journal.stamp())
    }
}
