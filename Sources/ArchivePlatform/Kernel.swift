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
// library: what differs between Glibc, Musl and Darwin is decided here and in FileDescriptor+Calls.swift,
// Kernel+Process.swift, Errno.swift, OpenFlags.swift, FileStatus.swift and KernelMutex.swift.
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
/// The calls on an open file are ``FileDescriptor``'s methods (FileDescriptor+Calls.swift).
///
/// Nothing else in the package imports `Glibc`, `Musl` or `Darwin`. The storage engines reach these calls
/// through `ArchiveStore`'s `FileSystem` seam (which tests can make fail); the command-line support calls the
/// few process-level ones directly.
///
/// Mirrors the shape of swift-system's `Internals/Syscalls.swift`.
package enum Kernel {
    // MARK: Paths

    /// `lstat(2)` (or `stat(2)` when `followingLinks`); `nil` when nothing is at `path` (`ENOENT`).
    package static func status(atPath path: String, followingLinks: Bool = false) throws(Errno) -> FileStatus? {
        var info = stat()
        let result = followingLinks ? stat(path, &info) : lstat(path, &info)
        if result == 0 { return FileStatus(info) }
        let code = c_errno()
        if code == ENOENT { return nil }
        throw Errno(code)
    }

    /// `chmod(2)`.
    package static func setPermissions(atPath path: String, _ permissions: UInt32) throws(Errno) {
        guard chmod(path, mode_t(truncatingIfNeeded: permissions & 0o7777)) == 0 else { throw Errno(c_errno()) }
    }

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
