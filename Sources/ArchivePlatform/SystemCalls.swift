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

// The raw call layer: the only file of the package's libraries that imports the C library, so what differs
// between Glibc, Musl and Darwin is decided here, once. Each `system_` function makes one C call and keeps its
// convention (-1, or `nil`, with `errno` set; read it with `system_errno()` before anything else runs); what
// it takes and gives are Swift values, with the C types (`mode_t`, `stat`, `timespec`, `dirent`, `passwd`,
// `winsize`, `pthread_mutex_t`) converted here. Retries, `Errno` and offset checks are the callers': ``Kernel``
// and ``FileDescriptor`` (FileDescriptor+Calls.swift, Kernel+Process.swift), ``KernelMutex``.
//
// Mirrors swift-system's `Internals/Syscalls.swift`, `Constants.swift` and `Exports.swift`.

// MARK: errno

/// `errno` of the calling thread.
func system_errno() -> CInt { errno }

/// `strerror(3)`: the text of `code`, or `nil`.
func system_strerror(_ code: CInt) -> String? {
    guard let text = strerror(code) else { return nil }
    return String(cString: text)
}

// MARK: Constants (the platforms' values differ; ``Errno`` and ``OpenFlags`` give them names)

var _EINTR: CInt { EINTR }
var _ENOENT: CInt { ENOENT }
var _EEXIST: CInt { EEXIST }
var _ENOSPC: CInt { ENOSPC }
var _EIO: CInt { EIO }
var _ELOOP: CInt { ELOOP }
var _ENOTDIR: CInt { ENOTDIR }
var _EISDIR: CInt { EISDIR }
var _EWOULDBLOCK: CInt { EWOULDBLOCK }
var _EAGAIN: CInt { EAGAIN }
var _EACCES: CInt { EACCES }
var _EROFS: CInt { EROFS }
var _EPERM: CInt { EPERM }
var _EINVAL: CInt { EINVAL }
var _EOVERFLOW: CInt { EOVERFLOW }
var _ENOTSUP: CInt { ENOTSUP }
var _EOPNOTSUPP: CInt { EOPNOTSUPP }
var _ENOTEMPTY: CInt { ENOTEMPTY }
var _ENOTTY: CInt { ENOTTY }
var _ERANGE: CInt { ERANGE }

var _O_RDONLY: CInt { O_RDONLY }
var _O_WRONLY: CInt { O_WRONLY }
var _O_RDWR: CInt { O_RDWR }
var _O_CREAT: CInt { O_CREAT }
var _O_EXCL: CInt { O_EXCL }
var _O_TRUNC: CInt { O_TRUNC }
var _O_APPEND: CInt { O_APPEND }
var _O_NONBLOCK: CInt { O_NONBLOCK }
var _O_NOFOLLOW: CInt { O_NOFOLLOW }
var _O_DIRECTORY: CInt { O_DIRECTORY }
var _O_CLOEXEC: CInt { O_CLOEXEC }

var _LOCK_SH: CInt { LOCK_SH }
var _LOCK_EX: CInt { LOCK_EX }
var _LOCK_NB: CInt { LOCK_NB }
var _LOCK_UN: CInt { LOCK_UN }

/// The platform's `off_t` (32 bits on some platforms): a file offset is checked against it before it is narrowed
/// (FileDescriptor+Calls.swift).
typealias COffset = off_t

/// `permissions & 0o7777` as the platform's `mode_t` (16 bits on Darwin, 32 on Linux).
private func mode(_ permissions: UInt32) -> mode_t { mode_t(truncatingIfNeeded: permissions & 0o7777) }

// MARK: Paths and names

/// `stat(2)`.
func system_stat(_ path: UnsafePointer<CChar>) -> FileStatus? { status { stat(path, &$0) } }
/// `lstat(2)`.
func system_lstat(_ path: UnsafePointer<CChar>) -> FileStatus? { status { lstat(path, &$0) } }
/// What ``system_identity(_:)`` gives: the fields of a file that say which file it is and how large.
struct SystemIdentity {
    var kind: FileStatus.Kind
    var inode: UInt64
    var size: Int64
    var linkCount: UInt64
}

/// Which file is at `path` (not following a link), without asking for its times: on Linux `statx(2)` with a
/// mask of the type, inode, size and link count. Asking for a file's times (as `stat(2)` does) makes the
/// kernel (Linux 6.13 and later, multigrain timestamps) give its next change a fine-grained time, and a file
/// whose time changed needs a journal commit at its next `fsync`: a writer that checks its file before each
/// commit would pay one per commit. `nil` with `errno` when the call fails; where `statx` is missing (Musl
/// before 1.2.5, old kernels) or on other systems, `lstat(2)`.
func system_identity(_ path: UnsafePointer<CChar>) -> SystemIdentity? {
    #if os(Linux)
    if let statx = statxFunction {
        return withUnsafeTemporaryAllocation(byteCount: 256, alignment: 8) { buffer -> SystemIdentity? in
            // STATX_TYPE | STATX_MODE | STATX_NLINK | STATX_INO | STATX_SIZE; AT_SYMLINK_NOFOLLOW.
            guard let base = buffer.baseAddress, statx(AT_FDCWD, path, 0x100, 0x1 | 0x2 | 0x4 | 0x100 | 0x200, base) == 0 else {
                return nil
            }
            // struct statx (linux/stat.h, a stable kernel interface): stx_nlink u32 at 16, stx_mode u16 at 28,
            // stx_ino u64 at 32, stx_size u64 at 40.
            let mode = mode_t(buffer.load(fromByteOffset: 28, as: UInt16.self))
            return SystemIdentity(kind: FileStatus.kind(ofMode: mode), inode: buffer.load(fromByteOffset: 32, as: UInt64.self),
                                  size: Int64(bitPattern: buffer.load(fromByteOffset: 40, as: UInt64.self)),
                                  linkCount: UInt64(buffer.load(fromByteOffset: 16, as: UInt32.self)))
        }
    }
    #endif
    guard let info = system_lstat(path) else { return nil }
    return SystemIdentity(kind: info.kind, inode: info.inode, size: info.size, linkCount: info.linkCount)
}

#if os(Linux)
/// `statx(2)` from the C library, looked up once (`nil` where it has none).
private let statxFunction: (@convention(c) (CInt, UnsafePointer<CChar>, CInt, UInt32, UnsafeMutableRawPointer) -> CInt)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "statx") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (CInt, UnsafePointer<CChar>, CInt, UInt32, UnsafeMutableRawPointer) -> CInt).self)
}()
#endif

/// `chmod(2)`.
func system_chmod(_ path: UnsafePointer<CChar>, _ permissions: UInt32) -> CInt { chmod(path, mode(permissions)) }
/// `rename(2)`.
func system_rename(_ source: UnsafePointer<CChar>, _ destination: UnsafePointer<CChar>) -> CInt { rename(source, destination) }
/// `link(2)`.
func system_link(_ source: UnsafePointer<CChar>, _ destination: UnsafePointer<CChar>) -> CInt { link(source, destination) }
/// `unlink(2)`.
func system_unlink(_ path: UnsafePointer<CChar>) -> CInt { unlink(path) }
/// `rmdir(2)`.
func system_rmdir(_ path: UnsafePointer<CChar>) -> CInt { rmdir(path) }
/// `mkdir(2)`.
func system_mkdir(_ path: UnsafePointer<CChar>, _ permissions: UInt32) -> CInt { mkdir(path, mode(permissions)) }

/// `opendir(3)`, `readdir(3)` and `closedir(3)`: every name in the directory at `path`, `.` and `..` included;
/// `nil` when it cannot be opened.
func system_directoryNames(_ path: UnsafePointer<CChar>) -> [String]? {
    guard let directory = opendir(path) else { return nil }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        // `d_name` is a fixed array (256 bytes on Linux, 1,024 on Darwin), NUL-terminated.
        names.append(withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        })
    }
    return names
}

// MARK: Open files

/// `open(2)`.
func system_open(_ path: UnsafePointer<CChar>, _ flags: CInt, _ permissions: UInt32) -> CInt {
    open(path, flags, mode(permissions))
}
/// `close(2)`.
func system_close(_ fd: CInt) -> CInt { close(fd) }
/// `read(2)`.
func system_read(_ fd: CInt, _ buffer: UnsafeMutableRawBufferPointer) -> Int { read(fd, buffer.baseAddress, buffer.count) }
/// `pread(2)`.
func system_pread(_ fd: CInt, _ buffer: UnsafeMutableRawBufferPointer, _ offset: COffset) -> Int {
    pread(fd, buffer.baseAddress, buffer.count, offset)
}
/// `write(2)`.
func system_write(_ fd: CInt, _ buffer: UnsafeRawBufferPointer) -> Int { write(fd, buffer.baseAddress, buffer.count) }
/// `pwrite(2)`.
func system_pwrite(_ fd: CInt, _ buffer: UnsafeRawBufferPointer, _ offset: COffset) -> Int {
    pwrite(fd, buffer.baseAddress, buffer.count, offset)
}
/// `fsync(2)`.
func system_fsync(_ fd: CInt) -> CInt { fsync(fd) }
/// `fdatasync(2)` where there is one (Linux): the data and the metadata needed to read it back (the size), not
/// the times; `fsync(2)` elsewhere.
func system_fdatasync(_ fd: CInt) -> CInt {
    #if os(Linux)
    fdatasync(fd)
    #else
    fsync(fd)
    #endif
}
/// `fcntl(F_FULLFSYNC)` on Apple platforms, where `fsync(2)` leaves the data in the drive's cache; `nil` where
/// there is no such request (everywhere else, whose `fsync` flushes the drive's cache too).
func system_fullfsync(_ fd: CInt) -> CInt? {
    #if canImport(Darwin)
    fcntl(fd, F_FULLFSYNC)
    #else
    nil
    #endif
}
/// `ftruncate(2)`.
func system_ftruncate(_ fd: CInt, _ length: COffset) -> CInt { ftruncate(fd, length) }
/// `fstat(2)`.
func system_fstat(_ fd: CInt) -> FileStatus? { status { fstat(fd, &$0) } }
/// `fstatat(2)` with `AT_SYMLINK_NOFOLLOW`: `name` in the open directory `fd`, a link itself rather than its target.
func system_fstatat(_ fd: CInt, _ name: UnsafePointer<CChar>) -> FileStatus? {
    status { fstatat(fd, name, &$0, AT_SYMLINK_NOFOLLOW) }
}
/// `fchmod(2)`.
func system_fchmod(_ fd: CInt, _ permissions: UInt32) -> CInt { fchmod(fd, mode(permissions)) }
/// `flock(2)`, `operation` from `_LOCK_SH`, `_LOCK_EX`, `_LOCK_NB`, `_LOCK_UN`.
func system_flock(_ fd: CInt, _ operation: CInt) -> CInt { flock(fd, operation) }
/// `isatty(3)`.
func system_isatty(_ fd: CInt) -> CInt { isatty(fd) }
/// `ioctl(TIOCGWINSZ)`: the terminal's width in columns (`ws_col`), or `nil` when the call fails.
func system_terminalColumns(_ fd: CInt) -> Int? {
    var size = winsize()
    guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0 else { return nil }
    return Int(size.ws_col)
}

// MARK: Process

/// `getpid(2)`.
func system_getpid() -> Int32 { getpid() }
/// `geteuid(2)`.
func system_geteuid() -> UInt32 { UInt32(truncatingIfNeeded: geteuid()) }

/// `getpwuid_r(3)` with a buffer of `bufferSize` bytes: its result (0, or an error number such as `ERANGE` when
/// the buffer is too small) and the entry's home directory (`pw_dir`), `nil` when there is no entry or no
/// directory.
func system_getpwuid_r(_ user: UInt32, bufferSize: Int) -> (result: CInt, homeDirectory: String?) {
    var entry = passwd()
    var found: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: bufferSize)
    let result = getpwuid_r(uid_t(truncatingIfNeeded: user), &entry, &buffer, buffer.count, &found)
    // `pw_dir` points into `buffer`: it is read while `buffer` lives.
    guard result == 0, found != nil, let directory = entry.pw_dir else { return (result, nil) }
    return (result, String(cString: directory))
}

/// The process's environment entries (`NAME=value`), as their bytes: `environ(7)`; on Darwin `environ` is not
/// visible to Swift and `_NSGetEnviron()` gives it.
func system_environ() -> [[UInt8]] {
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

/// `exit(3)`.
func system_exit(_ status: Int32) -> Never { exit(status) }

/// `nanosleep(2)` for `interval`; when it is interrupted, `interval` becomes the time that was left.
func system_nanosleep(_ interval: inout (seconds: Int, nanoseconds: Int)) -> CInt {
    var requested = timespec(tv_sec: interval.seconds, tv_nsec: interval.nanoseconds)
    var left = timespec()
    let result = nanosleep(&requested, &left)
    interval = (left.tv_sec, left.tv_nsec)
    return result
}

/// The clocks ``system_clock_gettime(_:)`` reads.
enum SystemClock {
    /// `CLOCK_REALTIME`: the time since 1970.
    case realTime
    /// `CLOCK_MONOTONIC`: a clock that never goes back, from an unspecified start.
    case monotonic
}

/// `clock_gettime(2)`: nanoseconds of `clock` (a negative part counts as 0).
func system_clock_gettime(_ clock: SystemClock) -> UInt64 {
    var now = timespec()
    switch clock {
    case .realTime: _ = clock_gettime(CLOCK_REALTIME, &now)
    case .monotonic: _ = clock_gettime(CLOCK_MONOTONIC, &now)
    }
    return FileTime(now).nanosecondsSince1970
}

/// `memcmp(3)`.
func system_memcmp(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> CInt { memcmp(a, b, count) }

// MARK: Mutex

/// A pthread mutex in storage of its own, so that it is never moved (a `pthread_mutex_t` must stay where it was
/// initialized). ``KernelMutex`` owns one: `allocate()` once, `deallocate()` once.
struct SystemMutex {
    private let storage: UnsafeMutablePointer<pthread_mutex_t>

    /// `pthread_mutex_init(3)` of newly allocated storage.
    static func allocate() -> SystemMutex {
        let storage = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        storage.initialize(to: pthread_mutex_t())
        pthread_mutex_init(storage, nil)
        return SystemMutex(storage: storage)
    }

    /// `pthread_mutex_destroy(3)`, and the storage freed.
    func deallocate() {
        pthread_mutex_destroy(storage)
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// `pthread_mutex_lock(3)`.
    func lock() { pthread_mutex_lock(storage) }
    /// `pthread_mutex_unlock(3)`.
    func unlock() { pthread_mutex_unlock(storage) }
    /// `pthread_mutex_trylock(3)`: `true` when taken without waiting.
    func tryLock() -> Bool { pthread_mutex_trylock(storage) == 0 }
}

// MARK: C structs as Swift values

/// A `stat` call into fresh storage: its fields as a ``FileStatus``, or `nil` (with `errno`) when it fails.
private func status(_ call: (inout stat) -> CInt) -> FileStatus? {
    var info = stat()
    return call(&info) == 0 ? FileStatus(info) : nil
}

extension FileStatus {
    /// The kind of file that the `S_IFMT` bits of `mode` name.
    fileprivate static func kind(ofMode mode: mode_t) -> Kind {
        switch mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        case S_IFLNK: return .symbolicLink
        case S_IFIFO: return .fifo
        case S_IFCHR: return .characterDevice
        case S_IFBLK: return .blockDevice
        case S_IFSOCK: return .socket
        default: return .unknown
        }
    }

    /// The fields of a `stat` the package uses, in types of the same width on every platform.
    fileprivate init(_ info: stat) {
        let kind = Self.kind(ofMode: info.st_mode)
        #if canImport(Darwin)
        let modified = info.st_mtimespec
        let changed = info.st_ctimespec
        #else
        let modified = info.st_mtim
        let changed = info.st_ctim
        #endif
        self.init(kind: kind, permissions: UInt32(info.st_mode) & 0o7777, size: Int64(info.st_size),
                  allocatedBlocks: Int64(info.st_blocks), inode: UInt64(info.st_ino), linkCount: UInt64(info.st_nlink),
                  ownerID: UInt32(truncatingIfNeeded: info.st_uid), modified: FileTime(modified), changed: FileTime(changed))
    }
}

extension FileTime {
    /// A `timespec`'s seconds and nanoseconds.
    fileprivate init(_ time: timespec) {
        self.init(seconds: Int64(time.tv_sec), nanoseconds: Int64(time.tv_nsec))
    }
}

// MARK: Watching a directory (see ``FileWatch``)

#if canImport(Darwin)
/// `kqueue(2)` watching the directory at `path` (opened `O_EVTONLY`) for `NOTE_WRITE` (entries added, removed or
/// renamed): the queue and the directory's descriptor, or `nil`.
func system_watchDirectory(_ path: UnsafePointer<CChar>) -> (queue: CInt, directory: CInt)? {
    let queue = kqueue()
    guard queue >= 0 else { return nil }
    let directory = open(path, O_EVTONLY | O_CLOEXEC)
    guard directory >= 0, system_watchRegister(queue, directory, UInt32(NOTE_WRITE)) else {
        if directory >= 0 { close(directory) }
        close(queue)
        return nil
    }
    return (queue, directory)
}

/// Adds the file at `path` (opened `O_EVTONLY`) to `queue`, for writes, growth, attribute changes, removal and
/// renames: its descriptor, or -1.
func system_watchFile(_ queue: CInt, _ path: UnsafePointer<CChar>) -> CInt {
    let file = open(path, O_EVTONLY | O_CLOEXEC | O_NOFOLLOW)
    guard file >= 0 else { return -1 }
    guard system_watchRegister(queue, file, UInt32(NOTE_WRITE | NOTE_EXTEND | NOTE_ATTRIB | NOTE_DELETE | NOTE_RENAME)) else {
        close(file)
        return -1
    }
    return file
}

private func system_watchRegister(_ queue: CInt, _ fd: CInt, _ notes: UInt32) -> Bool {
    var change = kevent(ident: UInt(fd), filter: Int16(EVFILT_VNODE), flags: UInt16(EV_ADD | EV_CLEAR), fflags: notes, data: 0, udata: nil)
    return kevent(queue, &change, 1, nil, 0, nil) == 0
}

/// `kevent(2)` waiting at most `milliseconds` on `queue`: how many events came (-1 on error), and whether one
/// said the file `file` was removed or renamed (its watch is then to be made again).
func system_watchWait(_ queue: CInt, _ file: CInt, _ milliseconds: Int) -> (count: CInt, fileGone: Bool) {
    // `kevent` names both the call and its struct: the struct is named where a type is expected.
    let events = UnsafeMutablePointer<kevent>.allocate(capacity: 8)
    events.initialize(repeating: .init(), count: 8)
    defer {
        events.deinitialize(count: 8)
        events.deallocate()
    }
    var timeout = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
    let count = kevent(queue, nil, 0, events, 8, &timeout)
    var gone = false
    var i = 0
    while i < Int(count) {
        if Int32(truncatingIfNeeded: events[i].ident) == file && events[i].fflags & UInt32(NOTE_DELETE | NOTE_RENAME) != 0 { gone = true }
        i += 1
    }
    return (count, gone)
}
#else
/// `inotify_init1(2)` and `inotify_add_watch(2)` on the directory at `path`, for changes to its files' contents
/// and names: the inotify descriptor (non-blocking), or -1.
func system_watchDirectory(_ path: UnsafePointer<CChar>) -> CInt {
    let fd = inotify_init1(CInt(IN_NONBLOCK | IN_CLOEXEC))
    guard fd >= 0 else { return -1 }
    let mask = UInt32(IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF)
    guard inotify_add_watch(fd, path, mask) >= 0 else {
        close(fd)
        return -1
    }
    return fd
}

/// `poll(2)` on the inotify descriptor `fd` for at most `milliseconds`, then `read(2)` of every event queued:
/// 1 when one names `name` (or the directory itself, or the queue overflowed), 0 when none does, -1 on error.
func system_watchWait(_ fd: CInt, _ milliseconds: Int, _ name: [UInt8]) -> CInt {
    var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    let ready = poll(&descriptor, 1, CInt(clamping: milliseconds))
    guard ready > 0 else { return ready }
    var found: CInt = 0
    var buffer = [UInt8](repeating: 0, count: 8192)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { break }
        // struct inotify_event: wd i32, mask u32, cookie u32, len u32, name[len] (NUL-padded).
        var at = 0
        while count - at >= 16 {
            let mask = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self) }
            let length = Int(buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at + 12, as: UInt32.self) })
            guard count - at - 16 >= length else { break }
            let eventName = buffer[at + 16..<at + 16 + length].prefix(while: { $0 != 0 })
            if mask & UInt32(IN_Q_OVERFLOW | IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 || eventName.elementsEqual(name) { found = 1 }
            at += 16 + length
        }
    }
    return found
}
#endif
