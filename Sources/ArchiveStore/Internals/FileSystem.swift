#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The C calls under names the seam's methods do not shadow.
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemClose(_ fd: Int32) { _ = close(fd) }
private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, bytes, count) }
private func systemRename(_ source: String, _ destination: String) -> Int32 { rename(source, destination) }
private func systemUnlink(_ path: String) -> Int32 { unlink(path) }
private func systemLink(_ source: String, _ destination: String) -> Int32 { link(source, destination) }

/// The one seam through which a storage engine reaches the file system: every open, read, write, fsync,
/// rename, unlink, lock, stat and directory listing of ``ArchiveCache`` goes through a value of this type.
///
/// Production code uses ``FileSystem/kernel``, which calls the kernel. Tests build a ``FileSystem`` whose
/// calls are counted and can fail on the Nth call (EIO, ENOSPC, a short write), so that "every acknowledged
/// write survives any single fault" is a loop over call numbers, as SQLite's test VFS does.
///
/// Mirrors the shape of swift-system's mocking layer: plain syscalls, `errno` reported as a ``StoreError``.
package struct FileSystem: Sendable {
    /// The kinds of call, for fault plans.
    package enum Call: String, Sendable, Hashable, CaseIterable {
        case open, read, write, sync, rename, link, unlink, makeDirectory, status, list, lock, truncate
    }

    /// Decides, before each call, whether it fails and how. `nil`: the call runs.
    package typealias FaultPlan = @Sendable (Call, String) -> Fault?

    /// An injected failure.
    package enum Fault: Sendable, Hashable {
        /// The call fails with this `errno`, doing nothing.
        case error(Int32)
        /// A write stores only this many bytes, then fails with `ENOSPC`.
        case shortWrite(Int)
    }

    private let plan: FaultPlan?

    /// The kernel, with no faults.
    package static let kernel = FileSystem(plan: nil)

    /// A file system whose calls consult `plan` first.
    package init(plan: FaultPlan?) { self.plan = plan }

    @inline(__always)
    private func injected(_ call: Call, _ path: String) throws(StoreError) -> Fault? {
        guard let plan, let fault = plan(call, path) else { return nil }
        if case .error(let code) = fault { throw SystemCalls.failure(call.rawValue, path, code) }
        return fault
    }

    // MARK: Files

    /// `open(2)` with `O_CLOEXEC`; `nil` for `ENOENT` when `missingIsNil`.
    package func open(_ path: String, _ flags: Int32, mode: mode_t = SystemCalls.fileMode,
                      missingIsNil: Bool = false) throws(StoreError) -> Int32? {
        _ = try injected(.open, path)
        while true {
            let fd = systemOpen(path, flags | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            let code = errno
            if code == EINTR { continue }
            if code == ENOENT && missingIsNil { return nil }
            throw SystemCalls.failure("open", path, code)
        }
    }

    package func close(_ fd: Int32) { systemClose(fd) }

    /// Reads up to `count` bytes at `offset`, looping until `count` bytes or end of file.
    package func read(_ fd: Int32, count: Int, at offset: Int, _ path: String) throws(StoreError) -> [UInt8] {
        _ = try injected(.read, path)
        guard count > 0 else { return [] }
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = 0
            while initialized < count {
                let n = pread(fd, buffer.baseAddress.map { $0 + initialized }, count - initialized, off_t(offset + initialized))
                if n > 0 { initialized += n } else if n == 0 { return } else if errno != EINTR { failure = errno; return }
            }
        }
        if failure != 0 { throw SystemCalls.failure("read", path, failure) }
        return bytes
    }

    /// Reads a whole regular file (at most `limit` bytes; more is `nil`).
    package func readFile(_ fd: Int32, _ path: String, limit: Int = Int.max) throws(StoreError) -> [UInt8]? {
        let info = try status(fd, path)
        guard SystemCalls.isRegularFile(info) else { throw StoreError(.io, "not a regular file", path: path) }
        let size = Int(info.st_size)
        guard size <= limit else { return nil }
        return try read(fd, count: size, at: 0, path)
    }

    /// Writes all of `bytes` at the file's current position (or appended, for `O_APPEND`).
    package func write(_ fd: Int32, _ bytes: [UInt8], _ path: String) throws(StoreError) {
        var limit = bytes.count
        if case .shortWrite(let n)? = try injected(.write, path) { limit = min(n, bytes.count) }
        var offset = 0
        while offset < limit {
            let n = bytes.withUnsafeBytes { systemWrite(fd, $0.baseAddress.map { $0 + offset }, limit - offset) }
            if n > 0 { offset += n } else if n == 0 { throw SystemCalls.failure("write", path, EIO) } else if errno != EINTR {
                throw SystemCalls.failure("write", path)
            }
        }
        if limit < bytes.count { throw SystemCalls.failure("write", path, ENOSPC) }
    }

    /// Writes all of `bytes` at `offset` (`pwrite(2)`), looping over short writes.
    package func write(_ fd: Int32, _ bytes: [UInt8], at offset: Int, _ path: String) throws(StoreError) {
        var limit = bytes.count
        if case .shortWrite(let n)? = try injected(.write, path) { limit = min(n, bytes.count) }
        var done = 0
        while done < limit {
            let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress.map { $0 + done }, limit - done, off_t(offset + done)) }
            if n > 0 { done += n } else if n == 0 { throw SystemCalls.failure("pwrite", path, EIO) } else if errno != EINTR {
                throw SystemCalls.failure("pwrite", path)
            }
        }
        if limit < bytes.count { throw SystemCalls.failure("pwrite", path, ENOSPC) }
    }

    package func sync(_ fd: Int32, _ path: String) throws(StoreError) {
        _ = try injected(.sync, path)
        try SystemCalls.sync(fd, path)
    }

    package func truncate(_ fd: Int32, to size: Int, _ path: String) throws(StoreError) {
        _ = try injected(.truncate, path)
        while ftruncate(fd, off_t(size)) != 0 {
            if errno != EINTR { throw SystemCalls.failure("ftruncate", path) }
        }
    }

    package func status(_ fd: Int32, _ path: String) throws(StoreError) -> stat {
        _ = try injected(.status, path)
        return try SystemCalls.fileStatus(fd, path)
    }

    /// `fstatat(2)` of `name` in the open directory `directory`, without following a link; `nil` when
    /// nothing is there. One name looked up, not a whole path.
    package func status(in directory: Int32, _ name: String, _ path: String) throws(StoreError) -> stat? {
        _ = try injected(.status, path)
        var info = stat()
        if fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0 { return info }
        if errno == ENOENT { return nil }
        throw SystemCalls.failure("fstatat", path)
    }

    /// `lstat(2)`; `nil` when nothing is there.
    package func linkStatus(_ path: String) throws(StoreError) -> stat? {
        _ = try injected(.status, path)
        return try SystemCalls.linkStatus(path)
    }

    // MARK: Names

    package func rename(_ source: String, _ destination: String) throws(StoreError) {
        _ = try injected(.rename, destination)
        guard systemRename(source, destination) == 0 else { throw SystemCalls.failure("rename", destination) }
    }

    /// `link(2)`: a second name for `source`'s file; `false` when `source` does not exist.
    @discardableResult
    package func link(_ source: String, _ destination: String) throws(StoreError) -> Bool {
        _ = try injected(.link, destination)
        if systemLink(source, destination) == 0 { return true }
        if errno == ENOENT { return false }
        throw SystemCalls.failure("link", destination)
    }

    /// `unlink(2)`; `false` when nothing was there.
    @discardableResult
    package func unlink(_ path: String) throws(StoreError) -> Bool {
        _ = try injected(.unlink, path)
        if systemUnlink(path) == 0 { return true }
        if errno == ENOENT { return false }
        throw SystemCalls.failure("unlink", path)
    }

    package func removeDirectory(_ path: String) {
        _ = rmdir(path)
    }

    /// `mkdir(2)` with mode 0700; an existing directory is fine.
    package func makeDirectory(_ path: String) throws(StoreError) {
        _ = try injected(.makeDirectory, path)
        if mkdir(path, SystemCalls.directoryMode) == 0 { return }
        let code = errno
        if code == EEXIST, let info = try SystemCalls.linkStatus(path), SystemCalls.isDirectory(info) { return }
        throw SystemCalls.failure("mkdir", path, code)
    }

    /// Creates `path` and its missing parents (0700).
    package func makeDirectories(_ path: String) throws(StoreError) {
        _ = try injected(.makeDirectory, path)
        try SystemCalls.makeDirectories(path)
    }

    /// The names in a directory (without `.` and `..`); `nil` when it does not exist.
    package func list(_ path: String) throws(StoreError) -> [String]? {
        _ = try injected(.list, path)
        guard let directory = opendir(path) else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw SystemCalls.failure("opendir", path)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// fsyncs a directory, so that renames and unlinks inside it are durable.
    package func syncDirectory(_ path: String) throws(StoreError) {
        _ = try injected(.sync, path)
        try SystemCalls.syncDirectory(path)
    }

    // MARK: Locks

    /// `flock(2)`: `true` when taken, `false` when `nonBlocking` and held elsewhere.
    package func lock(_ fd: Int32, _ operation: Int32, nonBlocking: Bool = false, _ path: String) throws(StoreError) -> Bool {
        _ = try injected(.lock, path)
        while true {
            if flock(fd, operation | (nonBlocking ? LOCK_NB : 0)) == 0 { return true }
            let code = errno
            if code == EINTR { continue }
            if nonBlocking && (code == EWOULDBLOCK || code == EAGAIN) { return false }
            throw SystemCalls.failure("flock", path, code)
        }
    }

    package func unlock(_ fd: Int32) { _ = flock(fd, LOCK_UN) }
}
