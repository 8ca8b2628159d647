#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#else
#error("ArchivePlatform has no branch for this platform: add one here (see README, Platforms)")
#endif

// The C calls under names that `FileDescriptor`'s members do not shadow.
private func c_open(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func c_close(_ fd: Int32) -> Int32 { close(fd) }
private func c_read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }
private func c_write(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, buffer, count) }

/// The calls on an open file, each wrapped once as ``Kernel``'s are: `EINTR` retried, `errno` returned as an
/// ``Errno``, offsets checked before they are narrowed to the platform's `off_t`.
///
/// Mirrors swift-system's `FileDescriptor` operations (`FileOperations.swift`).
extension FileDescriptor {
    /// `open(2)`, with `O_CLOEXEC` always added. Mirrors `open(2)`.
    package static func open(_ path: String, _ flags: OpenFlags, permissions: UInt32 = 0o600) throws(Errno) -> FileDescriptor {
        let mode = mode_t(truncatingIfNeeded: permissions & 0o7777)
        while true {
            let fd = c_open(path, flags.rawValue | O_CLOEXEC, mode)
            if fd >= 0 { return FileDescriptor(rawValue: fd) }
            let code = c_errno()
            if code != EINTR { throw Errno(code) }
        }
    }

    /// `close(2)`; the descriptor is gone whatever it returns (retrying would close another's).
    package func close() { _ = c_close(rawValue) }

    /// One `read(2)` into `buffer`: the number of bytes read, 0 at end of file.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try Self.counting { c_read(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// One `pread(2)` into `buffer` at `offset`.
    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(Errno) -> Int {
        let position = try Self.fileOffset(offset)
        return try Self.counting { pread(rawValue, buffer.baseAddress, buffer.count, position) }
    }

    /// One `write(2)` from `buffer` (appended for `O_APPEND`): the number of bytes written.
    package func write(from buffer: UnsafeRawBufferPointer) throws(Errno) -> Int {
        try Self.counting { c_write(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// One `pwrite(2)` from `buffer` at `offset`.
    package func write(from buffer: UnsafeRawBufferPointer, at offset: Int) throws(Errno) -> Int {
        let position = try Self.fileOffset(offset)
        return try Self.counting { pwrite(rawValue, buffer.baseAddress, buffer.count, position) }
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
    package func sync() throws(Errno) {
        #if canImport(Darwin)
        while true {
            if fcntl(rawValue, F_FULLFSYNC) != -1 { return }
            let code = c_errno()
            if code == EINTR { continue }
            // Unsupported by this file system: xnu's own fallback treats these three (and EOPNOTSUPP) so.
            guard code == ENOTSUP || code == EINVAL || code == ENOTTY || code == EOPNOTSUPP else { throw Errno(code) }
            break
        }
        #endif
        while fsync(rawValue) != 0 {
            let code = c_errno()
            if code != EINTR { throw Errno(code) }
        }
    }

    /// `ftruncate(2)`.
    package func truncate(to size: Int) throws(Errno) {
        let length = try Self.fileOffset(size)
        while ftruncate(rawValue, length) != 0 {
            let code = c_errno()
            if code != EINTR { throw Errno(code) }
        }
    }

    /// `fstat(2)`.
    package func status() throws(Errno) -> FileStatus {
        var info = stat()
        guard fstat(rawValue, &info) == 0 else { throw Errno(c_errno()) }
        return FileStatus(info)
    }

    /// `fstatat(2)` of one name in this open directory, not following a link; `nil` when nothing is there.
    package func status(ofEntry name: String) throws(Errno) -> FileStatus? {
        var info = stat()
        if fstatat(rawValue, name, &info, AT_SYMLINK_NOFOLLOW) == 0 { return FileStatus(info) }
        let code = c_errno()
        if code == ENOENT { return nil }
        throw Errno(code)
    }

    /// `fchmod(2)`.
    package func setPermissions(_ permissions: UInt32) throws(Errno) {
        guard fchmod(rawValue, mode_t(truncatingIfNeeded: permissions & 0o7777)) == 0 else { throw Errno(c_errno()) }
    }

    // MARK: Locks

    /// `flock(2)`: `true` when taken; `false` when `wait` is false and another open file description holds
    /// a conflicting lock.
    package func lock(exclusive: Bool, wait: Bool) throws(Errno) -> Bool {
        let operation = (exclusive ? LOCK_EX : LOCK_SH) | (wait ? 0 : LOCK_NB)
        while true {
            if flock(rawValue, operation) == 0 { return true }
            let code = c_errno()
            if code == EINTR { continue }
            if !wait && (code == EWOULDBLOCK || code == EAGAIN) { return false }
            throw Errno(code)
        }
    }

    /// Releases a `flock(2)` lock.
    package func unlock() { _ = flock(rawValue, LOCK_UN) }

    // MARK: Terminal

    /// Whether this descriptor is a terminal (`isatty(3)`).
    package var isTerminal: Bool { isatty(rawValue) == 1 }

    /// The width of the terminal at this descriptor in columns (`ioctl(TIOCGWINSZ)`), or `nil`.
    package var terminalColumns: Int? {
        var size = winsize()
        guard ioctl(rawValue, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
