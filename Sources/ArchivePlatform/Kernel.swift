#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#else
#error("ArchivePlatform has no branch for this platform: add one here (see README, Platforms)")
#endif

// The C calls under names that `Kernel`'s members do not shadow. Only the files of this target import the C
// library: what differs between Glibc, Musl and Darwin is decided here and in Kernel+Process.swift, Errno.swift,
// OpenFlags.swift, FileStatus.swift and KernelMutex.swift.
private func c_open(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func c_close(_ fd: Int32) -> Int32 { close(fd) }
private func c_read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }
private func c_write(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, buffer, count) }
private func c_rename(_ source: UnsafePointer<CChar>, _ destination: UnsafePointer<CChar>) -> Int32 { rename(source, destination) }
private func c_link(_ source: UnsafePointer<CChar>, _ destination: UnsafePointer<CChar>) -> Int32 { link(source, destination) }
private func c_unlink(_ path: UnsafePointer<CChar>) -> Int32 { unlink(path) }
/// `errno` of the calling thread (internal: the process calls read it too).
func c_errno() -> Int32 { errno }

/// The system calls of the package's libraries, each wrapped once: `EINTR` retried, `errno` returned as an
/// ``Errno``, sizes and offsets checked before they are narrowed to the platform's C types (a 32-bit
/// platform's `off_t` or `size_t` never truncates a value silently), and the per-platform names and types
/// (`st_mtim` / `st_mtimespec`, a 16-bit `mode_t`, `environ` / `_NSGetEnviron()`, `F_FULLFSYNC`) behind one
/// `#if` each.
///
/// Nothing else in the package imports `Glibc`, `Musl` or `Darwin`. The storage engines reach these calls
/// through `ArchiveStore`'s `FileSystem` seam (which tests can make fail); the command-line support calls the
/// few process-level ones directly.
///
/// Mirrors the shape of swift-system's `Internals/Syscalls.swift`.
package enum Kernel {
    // MARK: Descriptors

    /// `open(2)`, with `O_CLOEXEC` always added. Mirrors `open(2)`.
    package static func open(_ path: String, _ flags: OpenFlags, permissions: UInt32 = 0o600) throws(Errno) -> Int32 {
        let mode = mode_t(truncatingIfNeeded: permissions & 0o7777)
        while true {
            let fd = c_open(path, flags.rawValue | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            let code = c_errno()
            if code != EINTR { throw Errno(code) }
        }
    }

    /// `close(2)`; the descriptor is gone whatever it returns (retrying would close another's).
    package static func close(_ fd: Int32) { _ = c_close(fd) }

    /// One `read(2)` into `buffer`: the number of bytes read, 0 at end of file.
    package static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try counting { c_read(fd, buffer.baseAddress, buffer.count) }
    }

    /// One `pread(2)` into `buffer` at `offset`.
    package static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(Errno) -> Int {
        let position = try fileOffset(offset)
        return try counting { pread(fd, buffer.baseAddress, buffer.count, position) }
    }

    /// One `write(2)` from `buffer` (appended for `O_APPEND`): the number of bytes written.
    package static func write(_ fd: Int32, from buffer: UnsafeRawBufferPointer) throws(Errno) -> Int {
        try counting { c_write(fd, buffer.baseAddress, buffer.count) }
    }

    /// One `pwrite(2)` from `buffer` at `offset`.
    package static func write(_ fd: Int32, from buffer: UnsafeRawBufferPointer, at offset: Int) throws(Errno) -> Int {
        let position = try fileOffset(offset)
        return try counting { pwrite(fd, buffer.baseAddress, buffer.count, position) }
    }

    /// A call that returns a byte count or -1 with `errno`, run again after `EINTR`.
    @inline(__always)
    private static func counting(_ call: () -> Int) throws(Errno) -> Int {
        while true {
            let n = call()
            if n >= 0 { return n }
            let code = c_errno()
            if code != EINTR { throw Errno(code) }
        }
    }

    /// `offset` as the platform's `off_t` (32 bits on some platforms), or `EOVERFLOW`.
    @inline(__always)
    private static func fileOffset(_ offset: Int) throws(Errno) -> off_t {
        guard let position = off_t(exactly: offset), position >= 0 else { throw Errno(EOVERFLOW) }
        return position
    }

    /// Flushes a file's (or a directory's) data and metadata to stable storage.
    ///
    /// On Apple platforms `fsync(2)` leaves the data in the drive's cache, so this asks for
    /// `fcntl(F_FULLFSYNC)` (as SQLite's full sync and Rust's `File::sync_all` do), and falls back to `fsync`
    /// where the file system refuses it (`ENOTSUP`, `EINVAL`, `ENOTTY`: some network and FUSE file systems). Elsewhere
    /// it is `fsync(2)`, which flushes the drive's cache too. Mirrors `fsync(2)` / `fcntl(F_FULLFSYNC)`.
    package static func synchronize(_ fd: Int32) throws(Errno) {
        #if canImport(Darwin)
        while true {
            if fcntl(fd, F_FULLFSYNC) != -1 { return }
            let code = c_errno()
            if code == EINTR { continue }
            // Unsupported by this file system: xnu's own fallback treats these three (and EOPNOTSUPP) so.
            guard code == ENOTSUP || code == EINVAL || code == ENOTTY || code == EOPNOTSUPP else { throw Errno(code) }
            break
        }
        #endif
        while fsync(fd) != 0 {
            let code = c_errno()
            if code != EINTR { throw Errno(code) }
        }
    }

    /// `ftruncate(2)`.
    package static func truncate(_ fd: Int32, to size: Int) throws(Errno) {
        let length = try fileOffset(size)
        while ftruncate(fd, length) != 0 {
            let code = c_errno()
            if code != EINTR { throw Errno(code) }
        }
    }

    /// `fstat(2)`.
    package static func status(_ fd: Int32) throws(Errno) -> FileStatus {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Errno(c_errno()) }
        return FileStatus(info)
    }

    /// `lstat(2)` (or `stat(2)` when `followingLinks`); `nil` when nothing is at `path` (`ENOENT`).
    package static func status(atPath path: String, followingLinks: Bool = false) throws(Errno) -> FileStatus? {
        var info = stat()
        let result = followingLinks ? stat(path, &info) : lstat(path, &info)
        if result == 0 { return FileStatus(info) }
        let code = c_errno()
        if code == ENOENT { return nil }
        throw Errno(code)
    }

    /// `fstatat(2)` of one name in the open directory `directory`, not following a link; `nil` when nothing
    /// is there.
    package static func status(in directory: Int32, name: String) throws(Errno) -> FileStatus? {
        var info = stat()
        if fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0 { return FileStatus(info) }
        let code = c_errno()
        if code == ENOENT { return nil }
        throw Errno(code)
    }

    /// `fchmod(2)`.
    package static func setPermissions(_ fd: Int32, _ permissions: UInt32) throws(Errno) {
        guard fchmod(fd, mode_t(truncatingIfNeeded: permissions & 0o7777)) == 0 else { throw Errno(c_errno()) }
    }

    /// `chmod(2)`.
    package static func setPermissions(atPath path: String, _ permissions: UInt32) throws(Errno) {
        guard chmod(path, mode_t(truncatingIfNeeded: permissions & 0o7777)) == 0 else { throw Errno(c_errno()) }
    }

    // MARK: Locks

    /// `flock(2)`: `true` when taken; `false` when `wait` is false and another open file description holds
    /// a conflicting lock.
    package static func lock(_ fd: Int32, exclusive: Bool, wait: Bool) throws(Errno) -> Bool {
        let operation = (exclusive ? LOCK_EX : LOCK_SH) | (wait ? 0 : LOCK_NB)
        while true {
            if flock(fd, operation) == 0 { return true }
            let code = c_errno()
            if code == EINTR { continue }
            if !wait && (code == EWOULDBLOCK || code == EAGAIN) { return false }
            throw Errno(code)
        }
    }

    /// Releases a `flock(2)` lock.
    package static func unlock(_ fd: Int32) { _ = flock(fd, LOCK_UN) }

    // MARK: Names

    /// `rename(2)`.
    package static func rename(_ source: String, _ destination: String) throws(Errno) {
        guard c_rename(source, destination) == 0 else { throw Errno(c_errno()) }
    }

    /// `link(2)`.
    package static func link(_ source: String, _ destination: String) throws(Errno) {
        guard c_link(source, destination) == 0 else { throw Errno(c_errno()) }
    }

    /// `unlink(2)`.
    package static func unlink(_ path: String) throws(Errno) {
        guard c_unlink(path) == 0 else { throw Errno(c_errno()) }
    }

    /// `rmdir(2)`.
    package static func removeDirectory(_ path: String) throws(Errno) {
        guard rmdir(path) == 0 else { throw Errno(c_errno()) }
    }

    /// `mkdir(2)`.
    package static func makeDirectory(_ path: String, permissions: UInt32) throws(Errno) {
        guard mkdir(path, mode_t(truncatingIfNeeded: permissions & 0o7777)) == 0 else { throw Errno(c_errno()) }
    }

    /// The names in a directory, without `.` and `..` (`opendir(3)`, `readdir(3)`).
    package static func directoryEntries(_ path: String) throws(Errno) -> [String] {
        guard let directory = opendir(path) else { throw Errno(c_errno()) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            // `d_name` is a fixed array (256 bytes on Linux, 1,024 on Darwin), NUL-terminated.
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
