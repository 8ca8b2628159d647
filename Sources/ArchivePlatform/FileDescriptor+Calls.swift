/// The calls on an open file, each wrapped once as ``Kernel``'s are: `EINTR` retried, `errno` returned as an
/// ``Errno``, offsets checked before they are narrowed to the platform's `off_t`. The C calls are
/// SystemCalls.swift's.
///
/// Mirrors swift-system's `FileDescriptor` operations (`FileOperations.swift`).
extension FileDescriptor {
    /// `open(2)`, with `O_CLOEXEC` always added. Mirrors `open(2)`.
    package static func open(_ path: String, _ flags: OpenFlags, permissions: UInt32 = 0o600) throws(Errno) -> FileDescriptor {
        FileDescriptor(rawValue: try retryingInterrupts { system_open(path, flags.union(.closeOnExec).rawValue, permissions) })
    }

    /// `close(2)`; the descriptor is gone whatever it returns (retrying would close another's).
    package func close() { _ = system_close(rawValue) }

    /// One `read(2)` into `buffer`: the number of bytes read, 0 at end of file.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try Self.retryingInterrupts { system_read(rawValue, buffer) }
    }

    /// One `pread(2)` into `buffer` at `offset`.
    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(Errno) -> Int {
        let position = try Self.fileOffset(offset)
        return try Self.retryingInterrupts { system_pread(rawValue, buffer, position) }
    }

    /// One `write(2)` from `buffer` (appended for `O_APPEND`): the number of bytes written.
    package func write(from buffer: UnsafeRawBufferPointer) throws(Errno) -> Int {
        try Self.retryingInterrupts { system_write(rawValue, buffer) }
    }

    /// One `pwrite(2)` from `buffer` at `offset`.
    package func write(from buffer: UnsafeRawBufferPointer, at offset: Int) throws(Errno) -> Int {
        let position = try Self.fileOffset(offset)
        return try Self.retryingInterrupts { system_pwrite(rawValue, buffer, position) }
    }

    /// A call that returns a count, a descriptor or 0, or -1 with `errno`, run again after `EINTR`.
    @inline(__always)
    private static func retryingInterrupts<Result: FixedWidthInteger>(_ call: () -> Result) throws(Errno) -> Result {
        while true {
            let result = call()
            if result >= 0 { return result }
            let error = Errno.current
            if error != .interrupted { throw error }
        }
    }

    /// `offset` as the platform's `off_t` (32 bits on some platforms), or `EOVERFLOW`.
    @inline(__always)
    private static func fileOffset(_ offset: Int) throws(Errno) -> COffset {
        guard let position = COffset(exactly: offset), position >= 0 else { throw .overflow }
        return position
    }

    /// Flushes a file's (or a directory's) data and metadata to stable storage.
    ///
    /// On Apple platforms `fsync(2)` leaves the data in the drive's cache, so this asks for
    /// `fcntl(F_FULLFSYNC)` (as SQLite's full sync and Rust's `File::sync_all` do), and falls back to `fsync`
    /// where the file system refuses it (`ENOTSUP`, `EINVAL`, `ENOTTY`: some network and FUSE file systems). Elsewhere
    /// it is `fsync(2)`, which flushes the drive's cache too. Mirrors `fsync(2)` / `fcntl(F_FULLFSYNC)`.
    package func sync() throws(Errno) {
        // `nil` where there is no `F_FULLFSYNC` (everywhere but Apple's platforms).
        while let result = system_fullfsync(rawValue) {
            if result != -1 { return }
            let error = Errno.current
            if error == .interrupted { continue }
            // Unsupported by this file system: xnu's own fallback treats these three (and EOPNOTSUPP) so.
            guard error == .notSupported || error == .invalid || error == .notTerminal || error == .notSupportedOnSocket else {
                throw error
            }
            break
        }
        _ = try Self.retryingInterrupts { system_fsync(rawValue) }
    }

    /// Flushes a file's data, and the metadata needed to read it back (its size, its blocks), to stable
    /// storage: ``sync()`` without the file's times. On Apple platforms the same `F_FULLFSYNC` as ``sync()``;
    /// on Linux `fdatasync(2)`, as SQLite syncs its write-ahead log. Mirrors `fdatasync(2)`.
    package func syncData() throws(Errno) {
        #if os(Linux)
        _ = try Self.retryingInterrupts { system_fdatasync(rawValue) }
        #else
        try sync()
        #endif
    }

    /// `ftruncate(2)`.
    package func truncate(to size: Int) throws(Errno) {
        let length = try Self.fileOffset(size)
        _ = try Self.retryingInterrupts { system_ftruncate(rawValue, length) }
    }

    /// `fstat(2)`.
    package func status() throws(Errno) -> FileStatus {
        guard let status = system_fstat(rawValue) else { throw .current }
        return status
    }

    /// `fstatat(2)` of one name in this open directory, not following a link; `nil` when nothing is there.
    package func status(ofEntry name: String) throws(Errno) -> FileStatus? {
        if let status = system_fstatat(rawValue, name) { return status }
        let error = Errno.current
        if error == .noSuchFile { return nil }
        throw error
    }

    /// `fchmod(2)`.
    package func setPermissions(_ permissions: UInt32) throws(Errno) {
        guard system_fchmod(rawValue, permissions) == 0 else { throw .current }
    }

    // MARK: Locks

    /// `flock(2)`: `true` when taken; `false` when `wait` is false and another open file description holds
    /// a conflicting lock.
    package func lock(exclusive: Bool, wait: Bool) throws(Errno) -> Bool {
        let operation = (exclusive ? _LOCK_EX : _LOCK_SH) | (wait ? 0 : _LOCK_NB)
        while true {
            if system_flock(rawValue, operation) == 0 { return true }
            let error = Errno.current
            if error == .interrupted { continue }
            if !wait && (error == .wouldBlock || error == .tryAgain) { return false }
            throw error
        }
    }

    /// Releases a `flock(2)` lock.
    package func unlock() { _ = system_flock(rawValue, _LOCK_UN) }

    // MARK: Terminal

    /// Whether this descriptor is a terminal (`isatty(3)`).
    package var isTerminal: Bool { system_isatty(rawValue) == 1 }

    /// The width of the terminal at this descriptor in columns (`ioctl(TIOCGWINSZ)`), or `nil`.
    package var terminalColumns: Int? {
        guard let columns = system_terminalColumns(rawValue), columns > 0 else { return nil }
        return columns
    }
}
