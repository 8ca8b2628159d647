import ArchivePlatform

/// One file replaced atomically: a temporary file (mode 0600, created with `O_EXCL | O_NOFOLLOW`), written,
/// synced as ``Durability`` asks, renamed over the destination, and the directory synced. Readers see the old
/// file or the new one, never a mix; a crash at any point leaves one of the two.
///
/// Both engines replace files only through this type: the repository's new logs, indexes, exports and
/// migration backups and recovery copies, and the cache's moving in of a directory the old format wrote. The outcome is explicit: the call
/// throws and nothing changed, or it returns and the change happened (durably, for `.synchronous`), or it
/// throws ``StoreError/Code/durabilityUnknown`` when the rename happened but the directory could not be
/// synced (the new file is there; a power loss may still undo it).
///
/// A temporary file sits beside its destination as `.<name>.tmp-<pid>-<random>` unless the caller names
/// another. Those left by a writer that died are removed by
/// ``sweepStaleTemporaries(of:fileSystem:)``, which writers call under their lock.
///
/// Mirrors `Data.write(to:options: .atomic)`, with the syncs it leaves out.
package struct AtomicReplace {
    package let destination: String
    package let temporary: String
    private let fd: FileDescriptor
    private let fileSystem: FileSystem
    private var open = true
    private var position = 0

    /// Creates the temporary file for `destination` (beside it, unless `temporary` is given).
    package init(replacing destination: String, temporary: String? = nil, fileSystem: FileSystem) throws(StoreError) {
        let temporary = temporary ?? Self.temporaryPath(for: destination)
        let fd = try fileSystem.open(temporary, [.readWrite, .create, .exclusive, .noFollow], permissions: FileSystem.filePermissions)
        do throws(StoreError) {
            try fileSystem.setPermissions(fd, FileSystem.filePermissions, temporary)
            // Held until the file is closed: a sweep removes only temporary files nobody holds (see
            // ``sweepStaleTemporaries(of:fileSystem:)``), so work that runs without the writer lock (an index
            // written in the background) keeps its file.
            _ = try fileSystem.lock(fd, exclusive: true, wait: false, temporary)
        } catch {
            fileSystem.close(fd)
            _ = try? fileSystem.unlink(temporary)
            throw error
        }
        self.fd = fd
        self.temporary = temporary
        self.destination = destination
        self.fileSystem = fileSystem
    }

    /// Writes `bytes` after what was written so far.
    package mutating func append(_ bytes: [UInt8]) throws(StoreError) {
        try fileSystem.write(fd, bytes, at: position, temporary)
        position += bytes.count
    }

    /// Reads back up to `count` bytes written at `offset`.
    package func read(count: Int, at offset: Int) throws(StoreError) -> [UInt8] {
        try fileSystem.read(fd, count: count, at: offset, temporary)
    }

    /// Writes `bytes` at `offset` (a header filled in last).
    package func write(_ bytes: [UInt8], at offset: Int) throws(StoreError) {
        try fileSystem.write(fd, bytes, at: offset, temporary)
    }

    /// Completes the temporary file: synced when `durability` is ``Durability/synchronous``, then closed.
    package mutating func finish(_ durability: Durability) throws(StoreError) {
        if durability == .synchronous { try fileSystem.sync(fd, temporary) }
        fileSystem.close(fd)
        open = false
    }

    /// Renames the finished temporary file over the destination; with `.synchronous`, syncs the destination's
    /// directory after it (unless `syncDirectory` is false: a caller that installs several files syncs once).
    /// - Throws: the rename's error (nothing changed; the temporary file is still there for ``abandon()``), or
    ///   ``StoreError/Code/durabilityUnknown`` when the directory sync failed after the rename.
    package func install(_ durability: Durability, syncDirectory: Bool = true) throws(StoreError) {
        try fileSystem.rename(temporary, destination)
        guard durability == .synchronous && syncDirectory else { return }
        try Self.syncDirectory(of: destination, fileSystem: fileSystem)
    }

    /// Closes and removes the temporary file. A failure to remove it is left to the sweep.
    package mutating func abandon() {
        if open { fileSystem.close(fd) }
        open = false
        _ = try? fileSystem.unlink(temporary)
    }

    /// Replaces `path` with `bytes` in one call. On failure the old file is untouched and the temporary file
    /// is gone (or left for the sweep when its removal failed too).
    package static func replace(_ path: String, with bytes: [UInt8], durability: Durability = .synchronous,
                                fileSystem: FileSystem) throws(StoreError) {
        var file = try AtomicReplace(replacing: path, fileSystem: fileSystem)
        do throws(StoreError) {
            try file.append(bytes)
            try file.finish(durability)
            try file.install(durability)
        } catch where error.code == .durabilityUnknown {
            throw error
        } catch {
            file.abandon()
            throw error
        }
    }

    /// Syncs the directory that holds `path`; a failure is ``StoreError/Code/durabilityUnknown`` (the change
    /// in it is made, its durability is what is unknown).
    package static func syncDirectory(of path: String, fileSystem: FileSystem) throws(StoreError) {
        do throws(StoreError) {
            try fileSystem.syncDirectory(PathName.directory(of: path))
        } catch {
            throw StoreError(.durabilityUnknown, "the change is in place, but the sync of its directory failed: \(error.reason)",
                             path: path, errno: error.errno)
        }
    }

    // MARK: Temporary files

    /// The prefix of the temporary files of `path` (`.<name>.tmp-`).
    package static func temporaryPrefix(of path: String) -> String { ".\(PathName.lastComponent(of: path)).tmp-" }

    /// A new temporary path for `path`, beside it.
    package static func temporaryPath(for path: String) -> String {
        PathName.join(PathName.directory(of: path),
                      temporaryPrefix(of: path) + "\(Kernel.processID)-\(UInt32.random(in: 0 ... .max))")
    }

    /// Removes the temporary files of `paths` (all in one directory) left by writers that died: regular files
    /// that nobody holds a lock on (a writer holds one on each temporary file it has open, see
    /// ``init(replacing:temporary:fileSystem:)``). Failures are ignored: the next writer tries again.
    package static func sweepStaleTemporaries(of paths: [String], fileSystem: FileSystem) {
        guard let first = paths.first else { return }
        let directory = PathName.directory(of: first)
        let prefixes = paths.map(temporaryPrefix(of:))
        guard let names = try? fileSystem.list(directory) else { return }
        for name in names where prefixes.contains(where: { name.hasPrefix($0) }) {
            let file = PathName.join(directory, name)
            guard let info = try? fileSystem.linkStatus(file), info.isRegularFile,
                  let fd = try? fileSystem.open(file, [.readOnly, .noFollow, .nonBlocking])
            else { continue }
            if (try? fileSystem.lock(fd, exclusive: true, wait: false, file)) == true { _ = try? fileSystem.unlink(file) }
            fileSystem.close(fd)
        }
    }
}
