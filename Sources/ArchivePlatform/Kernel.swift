/// The system calls of the package's libraries, each wrapped once: `EINTR` retried, `errno` returned as an
/// ``Errno``, sizes and offsets checked before they are narrowed to the platform's C types (a 32-bit
/// platform's `off_t` or `size_t` never truncates a value silently).
///
/// The calls on an open file are ``FileDescriptor``'s methods (FileDescriptor+Calls.swift), the process-level
/// ones are in Kernel+Process.swift. Under all of them, SystemCalls.swift makes the C calls: it is the one file
/// of the package's libraries that imports `Glibc`, `Musl` or `Darwin`, and the per-platform names and types
/// (`st_mtim` / `st_mtimespec`, a 16-bit `mode_t`, `environ` / `_NSGetEnviron()`, `F_FULLFSYNC`) are behind
/// one `#if` each there.
///
/// The storage engines reach these calls through `ArchiveStore`'s `FileSystem` seam (which tests can make
/// fail); the command-line support calls the few process-level ones directly.
///
/// Mirrors the shape of swift-system: its wrappers over `Internals/Syscalls.swift`.
package enum Kernel {
    // MARK: Paths

    /// `lstat(2)` (or `stat(2)` when `followingLinks`); `nil` when nothing is at `path` (`ENOENT`).
    package static func status(atPath path: String, followingLinks: Bool = false) throws(Errno) -> FileStatus? {
        if let status = followingLinks ? system_stat(path) : system_lstat(path) { return status }
        let error = Errno.current
        if error == .noSuchFile { return nil }
        throw error
    }

    /// Which file is at `path` (its kind, inode, size and link count; a link is not followed), without asking
    /// for its times (see `system_identity`: on Linux, asking for them costs a writer a journal commit at
    /// its file's next sync); `nil` when nothing is there.
    package static func identity(atPath path: String) throws(Errno) -> FileIdentity? {
        if let identity = system_identity(path) {
            return FileIdentity(kind: identity.kind, inode: identity.inode, size: identity.size, linkCount: identity.linkCount)
        }
        let error = Errno.current
        if error == .noSuchFile { return nil }
        throw error
    }

    /// `chmod(2)`.
    package static func setPermissions(atPath path: String, _ permissions: UInt32) throws(Errno) {
        guard system_chmod(path, permissions) == 0 else { throw .current }
    }

    // MARK: Names

    /// `rename(2)`.
    package static func rename(_ source: String, _ destination: String) throws(Errno) {
        guard system_rename(source, destination) == 0 else { throw .current }
    }

    /// `link(2)`.
    package static func link(_ source: String, _ destination: String) throws(Errno) {
        guard system_link(source, destination) == 0 else { throw .current }
    }

    /// `unlink(2)`.
    package static func unlink(_ path: String) throws(Errno) {
        guard system_unlink(path) == 0 else { throw .current }
    }

    /// `rmdir(2)`.
    package static func removeDirectory(_ path: String) throws(Errno) {
        guard system_rmdir(path) == 0 else { throw .current }
    }

    /// `mkdir(2)`.
    package static func makeDirectory(_ path: String, permissions: UInt32) throws(Errno) {
        guard system_mkdir(path, permissions) == 0 else { throw .current }
    }

    /// The names in a directory, without `.` and `..` (`opendir(3)`, `readdir(3)`).
    package static func directoryEntries(_ path: String) throws(Errno) -> [String] {
        guard var names = system_directoryNames(path) else { throw .current }
        names.removeAll { $0 == "." || $0 == ".." }
        return names
    }
}
