import ArchivePlatform

/// The staging area of a cache directory (`staging/`): where every temporary file of the cache is written
/// before it is renamed into place, and where retired entry files wait to be written again.
///
/// Each open cache claims a writer number and an owner file `<writer, 8 hex>.owner` that it keeps locked
/// while it lives; its temporary files are `<writer>-<n>.tmp`. Writers of one directory write in parallel
/// without a common lock, so a writer that died is known by its owner file no longer being locked:
/// ``removeStaleTemporaryFiles()`` (at open and in `trim`) removes such writers' files. Names the cache does
/// not write are never touched.
final class CacheStaging: @unchecked Sendable { // Sendable: `pool` and `counter` are behind `Locked`; the rest is set once.
    static let directoryName = "staging"
    /// Retired entry files kept per writer, ready to be rewritten as temporary files.
    static let poolLimit = 64

    let path: String
    let writer: UInt32
    private let fileSystem: FileSystem
    private let ownerFD: Int32
    private let ownerPath: String
    private let counter = Locked<UInt64>(0)
    private let pool = Locked<[String]>([])

    /// Creates the staging directory if needed and claims an owner file.
    init(directory: String, fileSystem: FileSystem) throws(StoreError) {
        path = PathName.join(directory, Self.directoryName)
        self.fileSystem = fileSystem
        try fileSystem.makeDirectory(path)
        var claimed: (writer: UInt32, fd: Int32, path: String)?
        for _ in 0..<16 where claimed == nil {
            let candidate = UInt32.random(in: 1 ... .max)
            let ownerPath = PathName.join(path, Self.hex32(candidate) + ".owner")
            if let fd = try Self.claimOwner(fileSystem, ownerPath) { claimed = (candidate, fd, ownerPath) }
        }
        guard let claimed else { throw StoreError(.io, "cannot claim a staging owner file", path: path) }
        (writer, ownerFD, ownerPath) = claimed
    }

    deinit {
        // Other temporary files are gone (each is renamed or removed by the call that made it).
        for file in pool.withLock({ $0 }) { _ = try? fileSystem.unlink(file) }
        _ = try? fileSystem.unlink(ownerPath)
        fileSystem.unlock(ownerFD)
        fileSystem.close(ownerFD)
    }

    static func hex32(_ value: UInt32) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 8 - text.count) + text
    }

    /// Creates and locks an owner file; `nil` when the name is taken or was removed under us.
    private static func claimOwner(_ fileSystem: FileSystem, _ path: String) throws(StoreError) -> Int32? {
        let fd: Int32
        do {
            fd = try fileSystem.open(path, [.readWrite, .create, .exclusive, .noFollow])
        } catch where error.errno == Errno.exists.rawValue {
            return nil
        }
        do throws(StoreError) {
            _ = try fileSystem.lock(fd, exclusive: true, wait: true, path)
            // A cleaner may have taken the file for a dead writer's between create and lock.
            guard try fileSystem.status(fd, path).linkCount == 1 else {
                fileSystem.close(fd)
                return nil
            }
            return fd
        } catch {
            fileSystem.close(fd)
            _ = try? fileSystem.unlink(path)
            throw error
        }
    }

    /// The writer number a staging name starts with, when the name is one the cache writes: `<8 hex>.owner`
    /// or `<8 hex>-<digits>.tmp`. Any other name is not the cache's and is never touched.
    static func writerPrefix(_ name: String, owner: Bool) -> String? {
        let bytes = Array(name.utf8)
        guard bytes.count >= 9, bytes[0..<8].allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        if owner { return bytes.count == 14 && name.hasSuffix(".owner") ? String(name.prefix(8)) : nil }
        guard bytes[8] == UInt8(ascii: "-"), name.hasSuffix(".tmp"), bytes.count > 13,
              bytes[9..<(bytes.count - 4)].allSatisfy({ (48...57).contains($0) })
        else { return nil }
        return String(name.prefix(8))
    }

    /// Removes the temporary files of writers that no longer live (their owner file is not locked).
    /// Failures are ignored: they only leave files for the next try.
    func removeStaleTemporaryFiles() {
        guard let names = try? fileSystem.list(path) else { return }
        let own = Self.hex32(writer)
        var dead: Set<String> = []
        var owners: Set<String> = []
        for name in names {
            guard let prefix = Self.writerPrefix(name, owner: true) else { continue }
            owners.insert(prefix)
            guard prefix != own,
                  let fd = try? fileSystem.open(PathName.join(path, name), [.readWrite, .noFollow, .nonBlocking])
            else { continue }
            if (try? fileSystem.lock(fd, exclusive: true, wait: false, name)) == true { dead.insert(prefix) }
            fileSystem.close(fd)
        }
        for name in names {
            guard let prefix = Self.writerPrefix(name, owner: false) else { continue }
            if prefix != own && (dead.contains(prefix) || !owners.contains(prefix)) {
                _ = try? fileSystem.unlink(PathName.join(path, name))
            }
        }
        for prefix in dead { _ = try? fileSystem.unlink(PathName.join(path, prefix + ".owner")) }
    }

    /// A new temporary file name of this writer.
    func temporaryName() -> String {
        let number = counter.withLock { value -> UInt64 in
            value &+= 1
            return value
        }
        return PathName.join(path, Self.hex32(writer) + "-" + String(number) + ".tmp")
    }

    /// Keeps a file being replaced or evicted as a future temporary file, by renaming it into the staging
    /// area while the pool has room. Returns its new path when it left `file` (`nil`: nothing there, or the
    /// pool is full).
    ///
    /// Two ext4 behaviours make this worth two renames. Without a journal, allocating an inode scans every
    /// inode freed in the last minutes, on every create, so a cache that churns would pay a growing scan on
    /// every `set`; a pooled file needs no new inode and frees none. With `auto_da_alloc` (the default),
    /// renaming over an existing file or truncating one to zero starts writeback of the data at once; moving
    /// the old entry away first means the new one is renamed onto a free name, and a pooled file is rewritten
    /// in place and cut to length, never truncated to zero. A reader meanwhile sees the old entry, none, or
    /// the new one.
    @discardableResult
    func retire(_ file: String) -> String? {
        guard pool.withLock({ $0.count }) < Self.poolLimit else { return nil }
        let temporary = temporaryName()
        guard (try? fileSystem.rename(file, temporary)) != nil else { return nil }
        pool.withLock { $0.append(temporary) }
        return temporary
    }

    /// Puts a retired file back where it was (a write that replaced it failed); `false` when it cannot.
    func restore(_ retired: String, to file: String) -> Bool {
        guard pool.withLock({ pool -> Bool in
            guard let index = pool.lastIndex(of: retired) else { return false }
            pool.remove(at: index)
            return true
        }) else { return false }
        if (try? fileSystem.rename(retired, file)) != nil { return true }
        _ = try? fileSystem.unlink(retired)
        return false
    }

    /// A temporary file for `destination`, written with `bytes` and finished as `durability` asks: a retired
    /// file when one is at hand and still only ours (the oldest first: the longer since it was an entry, the
    /// less likely that a reader still has it open), else a new one.
    ///
    /// A reader that opened a retired file while it was an entry may still be reading it while it is
    /// rewritten in place. Such a read is never used: an entry read is kept only if, after the read, it is
    /// still the file at the entry path with the change time it had before (writing changes it).
    func write(_ bytes: [UInt8], for destination: String, durability: Durability) throws(StoreError) -> AtomicReplace {
        var file: AtomicReplace
        var oldSize = 0
        if let (fd, temporary, size) = reusableFile() {
            file = AtomicReplace(adopting: fd, temporary: temporary, destination: destination, fileSystem: fileSystem)
            oldSize = size
        } else {
            file = try AtomicReplace(replacing: destination, temporary: temporaryName(), fileSystem: fileSystem)
        }
        do throws(StoreError) {
            try file.append(bytes)
            if oldSize > bytes.count { try file.truncateToWritten() }
            try file.finish(durability)
        } catch {
            file.abandon()
            throw error
        }
        return file
    }

    private func reusableFile() -> (Int32, String, Int)? {
        while let candidate = pool.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            if let fd = try? fileSystem.open(candidate, [.writeOnly, .noFollow, .nonBlocking]) {
                if let info = try? fileSystem.status(fd, candidate), info.isRegularFile, info.linkCount == 1,
                   let size = Int(exactly: info.size) {
                    return (fd, candidate, size)
                }
                fileSystem.close(fd)
            }
            _ = try? fileSystem.unlink(candidate)
        }
        return nil
    }
}
