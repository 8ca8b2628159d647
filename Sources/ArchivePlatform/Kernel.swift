#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
// `_NSGetEnviron()` is declared in <crt_externs.h>, an explicit submodule that `import Darwin` does not bring in.
import Darwin.crt_externs
#else
#error("ArchivePlatform has no branch for this platform: add one here (see README, Platforms)")
#endif

// The C calls under names that `Kernel`'s members do not shadow. This file is the only one of the package's
// libraries that imports the C library: what differs between Glibc, Musl and Darwin is decided here.
private func c_open(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func c_close(_ fd: Int32) -> Int32 { close(fd) }
private func c_read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }
private func c_write(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, buffer, count) }
private func c_rename(_ source: UnsafePointer<CChar>, _ destination: UnsafePointer<CChar>) -> Int32 { rename(source, destination) }
private func c_link(_ source: UnsafePointer<CChar>, _ destination: UnsafePointer<CChar>) -> Int32 { link(source, destination) }
private func c_unlink(_ path: UnsafePointer<CChar>) -> Int32 { unlink(path) }
private func c_exit(_ status: Int32) -> Never { exit(status) }
private func c_errno() -> Int32 { errno }

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

    // MARK: Process

    /// `getpid(2)`.
    package static var processID: Int32 { getpid() }

    /// `geteuid(2)`.
    package static var effectiveUserID: UInt32 { UInt32(truncatingIfNeeded: geteuid()) }

    /// The home directory of the effective user in the password database (`getpwuid_r(3)`), or `nil`.
    package static func homeDirectoryOfEffectiveUser() -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var size = 16_384
        while size <= 1 << 20 {
            var buffer = [CChar](repeating: 0, count: size)
            let status = getpwuid_r(geteuid(), &entry, &buffer, buffer.count, &result)
            if status == ERANGE {
                size *= 4
                continue
            }
            guard status == 0, result != nil, let directory = entry.pw_dir else { return nil }
            let home = String(cString: directory)
            return home.isEmpty ? nil : home
        }
        return nil
    }

    /// The process's environment entries (`NAME=value`), as their bytes. Mirrors `environ(7)`; on Darwin
    /// `environ` is not visible to Swift and `_NSGetEnviron()` gives it.
    package static func environmentEntries() -> [[UInt8]] {
        #if canImport(Darwin)
        let start: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = _NSGetEnviron().pointee
        #else
        let start: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        #endif
        guard var entry = start else { return [] }
        var entries: [[UInt8]] = []
        while let pointer = entry.pointee {
            entries.append(Array(UnsafeRawBufferPointer(start: pointer, count: strlen(pointer))))
            entry += 1
        }
        return entries
    }

    /// The environment as a dictionary; for a repeated name the first value wins. Mirrors `environ(7)` and
    /// `ProcessInfo.environment`.
    ///
    /// A value whose bytes are not UTF-8 cannot be a `String` as it is; it is given as U+0000 followed by its
    /// lossy decoding (invalid bytes as U+FFFD). No real value contains NUL, so such a value is never mistaken
    /// for another: a path made from it is refused rather than rewritten into another directory.
    package static func environment() -> [String: String] {
        var result: [String: String] = [:]
        for entry in environmentEntries() {
            guard let equals = entry.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = String(decoding: entry[..<equals], as: UTF8.self)
            let bytes = entry[(equals + 1)...]
            let value = String(decoding: bytes, as: UTF8.self)
            // Decoding is the identity exactly when the bytes are UTF-8 (anything else was replaced).
            let marked = value.utf8.elementsEqual(bytes) ? value : "\u{0}" + value
            if result[name] == nil { result[name] = marked }
        }
        return result
    }

    /// Ends the process. Mirrors `exit(3)`.
    package static func exit(_ status: Int32) -> Never { c_exit(status) }

    /// Sleeps at least `nanoseconds` (`nanosleep(2)`).
    package static func sleep(nanoseconds: Int) {
        var interval = timespec(tv_sec: nanoseconds / 1_000_000_000, tv_nsec: nanoseconds % 1_000_000_000)
        var left = timespec()
        while nanosleep(&interval, &left) != 0 && c_errno() == EINTR { interval = left }
    }

    /// Nanoseconds since 1970 by the real-time clock (`clock_gettime(CLOCK_REALTIME)`).
    package static func realTimeNanoseconds() -> UInt64 {
        var now = timespec()
        _ = clock_gettime(CLOCK_REALTIME, &now)
        return UInt64(max(0, now.tv_sec)) &* 1_000_000_000 &+ UInt64(max(0, now.tv_nsec))
    }

    /// Nanoseconds of a clock that never goes back (`clock_gettime(CLOCK_MONOTONIC)`).
    package static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        _ = clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(max(0, now.tv_sec)) &* 1_000_000_000 &+ UInt64(max(0, now.tv_nsec))
    }

    /// Whether `count` bytes at `a` and at `b` are equal (`memcmp(3)`).
    package static func bytesEqual(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Bool {
        memcmp(a, b, count) == 0
    }

    /// Whether `fd` is a terminal (`isatty(3)`).
    package static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// The width of the terminal at `fd` in columns (`ioctl(TIOCGWINSZ)`), or `nil`.
    package static func terminalColumns(_ fd: Int32) -> Int? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}

/// The flags of `open(2)`, with each platform's values (they differ between Linux and Darwin).
package struct OpenFlags: OptionSet, Sendable {
    package let rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }

    package static let readOnly = OpenFlags(rawValue: O_RDONLY)
    package static let writeOnly = OpenFlags(rawValue: O_WRONLY)
    package static let readWrite = OpenFlags(rawValue: O_RDWR)
    package static let create = OpenFlags(rawValue: O_CREAT)
    package static let exclusive = OpenFlags(rawValue: O_EXCL)
    package static let truncate = OpenFlags(rawValue: O_TRUNC)
    package static let append = OpenFlags(rawValue: O_APPEND)
    /// Never blocks in `open` itself (a FIFO with no writer would wait forever).
    package static let nonBlocking = OpenFlags(rawValue: O_NONBLOCK)
    /// A symbolic link as the last component fails with `ELOOP`.
    package static let noFollow = OpenFlags(rawValue: O_NOFOLLOW)
    package static let directory = OpenFlags(rawValue: O_DIRECTORY)
}

/// An `errno` value, with the names the package tests for.
package struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: Int32
    package init(_ rawValue: Int32) { self.rawValue = rawValue }

    package static let interrupted = Errno(EINTR)
    package static let noSuchFile = Errno(ENOENT)
    package static let exists = Errno(EEXIST)
    package static let noSpace = Errno(ENOSPC)
    package static let io = Errno(EIO)
    package static let tooManyLinks = Errno(ELOOP)
    package static let notDirectory = Errno(ENOTDIR)
    package static let isDirectory = Errno(EISDIR)
    package static let wouldBlock = Errno(EWOULDBLOCK)
    package static let permissionDenied = Errno(EACCES)
    package static let notPermitted = Errno(EPERM)
    package static let badDescriptor = Errno(EBADF)
    package static let invalid = Errno(EINVAL)
    package static let overflow = Errno(EOVERFLOW)
    package static let fileTooLarge = Errno(EFBIG)
    package static let crossDevice = Errno(EXDEV)
    package static let notSupported = Errno(ENOTSUP)
    package static let notEmpty = Errno(ENOTEMPTY)

    /// `strerror(3)`.
    package var description: String {
        guard let text = strerror(rawValue) else { return "errno \(rawValue)" }
        return String(cString: text)
    }
}

extension FileStatus {
    /// The fields of a `stat` the package uses, in types of the same width on every platform.
    fileprivate init(_ info: stat) {
        let kind: Kind
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        case S_IFIFO: kind = .fifo
        case S_IFCHR: kind = .characterDevice
        case S_IFBLK: kind = .blockDevice
        case S_IFSOCK: kind = .socket
        default: kind = .unknown
        }
        #if canImport(Darwin)
        let modified = info.st_mtimespec
        let changed = info.st_ctimespec
        #else
        let modified = info.st_mtim
        let changed = info.st_ctim
        #endif
        self.init(kind: kind, permissions: UInt32(info.st_mode) & 0o7777, size: Int64(info.st_size),
                  allocatedBlocks: Int64(info.st_blocks), inode: UInt64(info.st_ino), linkCount: UInt64(info.st_nlink),
                  ownerID: UInt32(truncatingIfNeeded: info.st_uid),
                  modified: FileTime(seconds: Int64(modified.tv_sec), nanoseconds: Int64(modified.tv_nsec)),
                  changed: FileTime(seconds: Int64(changed.tv_sec), nanoseconds: Int64(changed.tv_nsec)))
    }
}

/// A mutual-exclusion lock over a pthread mutex, allocated once and never moved.
package final class KernelMutex: @unchecked Sendable { // Sendable: the mutex is what serializes its users.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init() {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    package func lock() { pthread_mutex_lock(mutex) }
    package func unlock() { pthread_mutex_unlock(mutex) }
    /// `true` when taken without waiting.
    package func tryLock() -> Bool { pthread_mutex_trylock(mutex) == 0 }
}
