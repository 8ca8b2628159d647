#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A point in ``AtomicFile/replace(_:with:fault:)`` where a test can make the write fail.
package enum WriteFault: Sendable, Hashable {
    /// The write of the temporary file fails after `bytes` bytes (as a full disk would).
    case writeFails(afterBytes: Int)
    /// `fsync` of the temporary file fails.
    case syncFails
    /// Everything is written and synced, then the rename fails.
    case renameFails
    /// The rename succeeds, then the fsync of the directory fails.
    case directorySyncFails
}

/// Replaces a file's contents atomically: a temporary file in the same directory (mode 0600, created with
/// `O_EXCL | O_NOFOLLOW`), `fsync`, `rename(2)` over the target, `fsync` of the directory. Readers see either
/// the old file or the new one, never a mix, and a crash at any point leaves one of the two.
///
/// Mirrors `Data.write(to:options: .atomic)`, with the syncs that it leaves out.
enum AtomicFile {
    /// Reads the file at `path`, refusing a symbolic link; `nil` when it does not exist.
    static func read(_ path: String) throws(StoreError) -> [UInt8]? {
        guard let fd = try SystemCalls.openForReading(path) else { return nil }
        defer { SystemCalls.closeFile(fd) }
        return try SystemCalls.readAll(fd, path)
    }

    /// Replaces the contents of `path` with `bytes`. On failure the old file is untouched and the temporary
    /// file is removed.
    static func replace(_ path: String, with bytes: [UInt8], fault: WriteFault? = nil) throws(StoreError) {
        let directory = PathName.directory(of: path)
        let temporary = PathName.join(
            directory, temporaryPrefix(of: path) + "\(SystemCalls.processID)-\(UInt32.random(in: 0 ... .max))")
        let fd = try SystemCalls.openFile(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: SystemCalls.fileMode)
        var open = true
        do throws(StoreError) {
            try SystemCalls.setMode(fd, SystemCalls.fileMode, temporary)
            if case .writeFails(let limit) = fault {
                try SystemCalls.writeAll(fd, Array(bytes.prefix(limit)), temporary)
                throw SystemCalls.failure("write", temporary, ENOSPC)
            }
            try SystemCalls.writeAll(fd, bytes, temporary)
            if fault == .syncFails { throw SystemCalls.failure("fsync", temporary, EIO) }
            try SystemCalls.sync(fd, temporary)
            SystemCalls.closeFile(fd)
            open = false
            if fault == .renameFails { throw SystemCalls.failure("rename", path, EIO) }
            try SystemCalls.replace(temporary, path)
        } catch {
            if open { SystemCalls.closeFile(fd) }
            SystemCalls.remove(temporary)
            throw error
        }
        do throws(StoreError) {
            if fault == .directorySyncFails { throw SystemCalls.failure("fsync", directory, EIO) }
            try SystemCalls.syncDirectory(directory)
        } catch {
            // The new file is in place: the change happened, only its durability is unknown.
            throw StoreError(.durabilityUnknown, "the change is in place, but fsync of the directory failed: \(error.reason)",
                             path: path, errno: error.errno)
        }
    }

    /// The prefix of the temporary files of `path` (`.<name>.tmp-`).
    static func temporaryPrefix(of path: String) -> String { ".\(PathName.lastComponent(of: path)).tmp-" }

    /// Removes the temporary files of `path` left by writers that died. The caller holds the store's lock,
    /// which every writer holds while its temporary file exists, so every such file is stale. Failures are
    /// ignored (the next write tries again).
    static func removeStaleTemporaries(of path: String) {
        let directory = PathName.directory(of: path)
        let prefix = temporaryPrefix(of: path)
        guard let names = try? FileSystem.kernel.list(directory) else { return }
        for name in names where name.hasPrefix(prefix) {
            let file = PathName.join(directory, name)
            if let info = try? SystemCalls.linkStatus(file), SystemCalls.isRegularFile(info) { SystemCalls.remove(file) }
        }
    }
}
