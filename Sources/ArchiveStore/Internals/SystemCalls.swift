#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin, throwing wrappers over the POSIX calls the store needs. Every call retries on `EINTR` and reports
/// failure as a ``StoreError`` naming the call, the path and `strerror`.
package enum SystemCalls {
    static let fileMode: mode_t = 0o600
    static let directoryMode: mode_t = 0o700

    static func failure(_ call: String, _ path: String, _ code: Int32 = errno) -> StoreError {
        if code == ELOOP {
            return StoreError(.symbolicLink, "\(call): refusing to follow a symbolic link", path: path, errno: code)
        }
        return StoreError(.io, "\(call): \(describe(code))", path: path, errno: code)
    }

    static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }

    /// `open(2)` with `O_CLOEXEC` always added.
    package static func openFile(_ path: String, _ flags: Int32, mode: mode_t = 0) throws(StoreError) -> Int32 {
        while true {
            let fd = open(path, flags | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            if errno != EINTR { throw failure("open", path) }
        }
    }

    /// Opens `path` for reading without following a final symbolic link and without blocking (a FIFO at
    /// `path` would otherwise wait for a writer forever); `nil` when it does not exist.
    static func openForReading(_ path: String) throws(StoreError) -> Int32? {
        do {
            return try openFile(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        } catch where error.errno == ENOENT {
            return nil
        }
    }

    /// Refuses anything but a regular file with one link: a FIFO or device would block or never end, and
    /// a file with another hard link is shared with a place the store must not change.
    static func requireOwnRegularFile(_ info: stat, _ path: String) throws(StoreError) {
        guard isRegularFile(info) else { throw StoreError(.io, "not a regular file", path: path) }
        // No link at all is fine: the file was replaced (renamed over) after it was opened, and this
        // descriptor still reads the whole old one.
        guard info.st_nlink <= 1 else {
            throw StoreError(.hardLink, "refusing a file with \(info.st_nlink) hard links", path: path)
        }
    }

    package static func closeFile(_ fd: Int32) {
        _ = close(fd)
    }

    /// `fstat(2)`.
    static func fileStatus(_ fd: Int32, _ path: String) throws(StoreError) -> stat {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure("fstat", path) }
        return info
    }

    /// `lstat(2)`; `nil` when nothing is at `path`.
    static func linkStatus(_ path: String) throws(StoreError) -> stat? {
        var info = stat()
        if lstat(path, &info) == 0 { return info }
        if errno == ENOENT { return nil }
        throw failure("lstat", path)
    }

    static func isSymbolicLink(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFLNK }
    static func isRegularFile(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFREG }
    static func isDirectory(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFDIR }

    /// Reads the whole regular file open at `fd`.
    package static func readAll(_ fd: Int32, _ path: String) throws(StoreError) -> [UInt8] {
        let info = try fileStatus(fd, path)
        try requireOwnRegularFile(info, path)
        // Read straight into the result (one buffer touched, not a chunk and a copy), one byte more than the
        // size so that a file that grew meanwhile is noticed and read on.
        var failure: Int32 = 0
        var bytes = [UInt8](unsafeUninitializedCapacity: max(0, Int(info.st_size)) + 1) { buffer, initialized in
            initialized = 0
            while initialized < buffer.count {
                let count = read(fd, buffer.baseAddress.map { $0 + initialized }, buffer.count - initialized)
                if count > 0 {
                    initialized += count
                } else if count == 0 {
                    return
                } else if errno != EINTR {
                    failure = errno
                    return
                }
            }
        }
        guard failure == 0 else { throw Self.failure("read", path, failure) }
        guard bytes.count > info.st_size else { return bytes }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes.append(contentsOf: chunk[0..<count])
            } else if count == 0 {
                return bytes
            } else if errno != EINTR {
                throw Self.failure("read", path)
            }
        }
    }

    /// Writes all of `bytes` to `fd`, looping over short writes.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], _ path: String) throws(StoreError) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress.map { $0 + offset }, $0.count - offset) }
            if count > 0 {
                offset += count
            } else if count == 0 {
                throw failure("write", path, EIO)
            } else if errno != EINTR {
                throw failure("write", path)
            }
        }
    }

    static func sync(_ fd: Int32, _ path: String) throws(StoreError) {
        while fsync(fd) != 0 {
            if errno != EINTR { throw failure("fsync", path) }
        }
    }

    static func setMode(_ fd: Int32, _ mode: mode_t, _ path: String) throws(StoreError) {
        guard fchmod(fd, mode) == 0 else { throw failure("fchmod", path) }
    }

    static func replace(_ source: String, _ destination: String) throws(StoreError) {
        guard rename(source, destination) == 0 else { throw failure("rename", destination) }
    }

    static func remove(_ path: String) {
        _ = unlink(path)
    }

    /// Opens a directory and fsyncs it, so that a rename inside it is durable.
    static func syncDirectory(_ path: String) throws(StoreError) {
        let fd = try openFile(path, O_RDONLY | O_DIRECTORY)
        defer { closeFile(fd) }
        try sync(fd, path)
    }

    /// Creates `path` and any missing parents with mode 0700, whatever the umask. Existing directories are
    /// left as they are.
    static func makeDirectories(_ path: String) throws(StoreError) {
        if let info = try linkStatus(path) {
            if isDirectory(info) { return }
            if isSymbolicLink(info) {
                var target = stat()
                if stat(path, &target) == 0 && isDirectory(target) { return }
            }
            throw StoreError(.io, "exists and is not a directory", path: path)
        }
        let parent = PathName.directory(of: path)
        if parent != path { try makeDirectories(parent) }
        if mkdir(path, directoryMode) != 0 {
            if errno == EEXIST { return }
            throw failure("mkdir", path)
        }
        guard chmod(path, directoryMode) == 0 else { throw failure("chmod", path) }
    }

    /// Process id, for temporary-file names.
    static var processID: Int32 { getpid() }
}

/// String path helpers (no Foundation).
package enum PathName {
    /// The directory part of `path` (`"."` for a bare name, `"/"` for a top-level entry).
    static func directory(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        if slash == trimmed.startIndex { return "/" }
        return String(trimmed[..<slash])
    }

    /// The last component of `path`.
    static func lastComponent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return String(trimmed) }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    package static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
