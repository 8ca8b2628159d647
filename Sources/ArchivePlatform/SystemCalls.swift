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
var _EPERM: CInt { EPERM }
var _EBADF: CInt { EBADF }
var _EINVAL: CInt { EINVAL }
var _EOVERFLOW: CInt { EOVERFLOW }
var _EFBIG: CInt { EFBIG }
var _EXDEV: CInt { EXDEV }
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
