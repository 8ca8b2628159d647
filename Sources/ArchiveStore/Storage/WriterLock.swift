import ArchivePlatform

/// The exclusive (or shared) advisory lock that writers of one store or cache directory hold: `flock(2)` on a
/// lock file beside the data, which is never replaced by the engines (data files are replaced by rename, which
/// would leave a lock on the old inode).
///
/// Opening the lock file refuses, before anything is written through it, a symbolic link
/// (``StoreError/Code/symbolicLink``), a file with another hard link (``StoreError/Code/hardLink``) and anything
/// but a regular file (``StoreError/Code/notRegularFile``): a link planted there must not let the engines change
/// another file. A lock file removed or replaced at its path while held would exclude nobody who opens the new
/// one, so ``acquire(exclusive:waiting:)`` checks, once it holds the lock, that the file is still the one at the
/// path, and takes the lock again on the new one otherwise.
///
/// `flock` locks belong to the open file description: two `WriterLock`s in one process exclude each other as
/// two processes do, but one `WriterLock` must be used by one thread at a time (its owner serializes).
///
/// Mirrors `NSDistributedLock`, with the kernel's lock instead of a lock directory.
package final class WriterLock {
    /// How long ``acquire(exclusive:waiting:)`` waits for another holder.
    package enum Waiting: Sendable, Hashable {
        /// Until the lock is free.
        case forever
        /// Not at all: `false` at once when the lock is held.
        case never
        /// At most this many seconds, then ``StoreError/Code/locked``.
        case atMost(seconds: Double)
    }

    package let path: String
    private let fileSystem: FileSystem
    private var fd: FileDescriptor
    private var inode: UInt64

    /// Opens (creating, mode 0600) the lock file at `path`.
    package init(path: String, fileSystem: FileSystem) throws(StoreError) {
        self.path = path
        self.fileSystem = fileSystem
        (fd, inode) = try Self.openLockFile(path, fileSystem)
    }

    deinit { fileSystem.close(fd) }

    private static func openLockFile(_ path: String, _ fileSystem: FileSystem) throws(StoreError) -> (FileDescriptor, UInt64) {
        let fd = try fileSystem.open(path, [.readWrite, .create, .noFollow, .nonBlocking])
        do throws(StoreError) {
            let info = try fileSystem.status(fd, path)
            try info.requireOwnRegularFile(path)
            if info.permissions != FileSystem.filePermissions, info.ownerID == Kernel.effectiveUserID {
                try fileSystem.setPermissions(fd, FileSystem.filePermissions, path)
            }
            return (fd, info.inode)
        } catch {
            fileSystem.close(fd)
            throw error
        }
    }

    /// Takes the lock on the file at the path now: `true` when taken, `false` only for ``Waiting/never`` when
    /// another holds it.
    /// - Throws: ``StoreError/Code/locked`` when ``Waiting/atMost(seconds:)`` runs out; the refusals of
    ///   ``init(path:fileSystem:)`` when the file at the path was replaced by a link or a non-regular file.
    package func acquire(exclusive: Bool, waiting: Waiting) throws(StoreError) -> Bool {
        for _ in 0..<8 {
            guard try lock(exclusive: exclusive, waiting: waiting) else { return false }
            let info: FileStatus?
            do {
                info = try fileSystem.linkStatus(path)
            } catch {
                fileSystem.unlock(fd)   // the check failed: the caller never holds the lock, so it must not stay taken
                throw error
            }
            if let info, info.inode == inode { return true }
            fileSystem.unlock(fd)
            let (fresh, freshInode) = try Self.openLockFile(path, fileSystem)
            fileSystem.close(fd)
            (fd, inode) = (fresh, freshInode)
        }
        throw StoreError(.io, "the lock file keeps being replaced", path: path)
    }

    /// Releases the lock.
    package func release() { fileSystem.unlock(fd) }

    private func lock(exclusive: Bool, waiting: Waiting) throws(StoreError) -> Bool {
        switch waiting {
        case .forever:
            return try fileSystem.lock(fd, exclusive: exclusive, wait: true, path)
        case .never:
            return try fileSystem.lock(fd, exclusive: exclusive, wait: false, path)
        case .atMost(let seconds):
            // flock has no timeout: try, then back off from 0.5 ms to 20 ms between attempts.
            let nanoseconds = (max(0, seconds.isNaN ? 0 : seconds) * 1e9).rounded()
            let budget = nanoseconds < 1.8e19 ? UInt64(nanoseconds) : UInt64.max
            let start = Kernel.monotonicNanoseconds()
            let deadline = start.addingReportingOverflow(budget).overflow ? UInt64.max : start + budget
            var pause = 500_000
            while true {
                if try fileSystem.lock(fd, exclusive: exclusive, wait: false, path) { return true }
                if Kernel.monotonicNanoseconds() >= deadline {
                    throw StoreError(.locked, "another process held the lock for more than \(seconds) seconds", path: path)
                }
                Kernel.sleep(nanoseconds: pause)
                pause = min(pause * 2, 20_000_000)
            }
        }
    }

    /// Opens the lock file at `path`, holds it exclusively while `body` runs, then releases and closes it.
    package static func holding<Result>(
        _ path: String, waiting: Waiting, fileSystem: FileSystem, _ body: () throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        let lock = try WriterLock(path: path, fileSystem: fileSystem)
        _ = try lock.acquire(exclusive: true, waiting: waiting)
        defer { lock.release() }
        return try body()
    }
}
