import ArchivePlatform

/// The one seam through which the storage engines reach the file system: every open, read, write, sync,
/// truncate, stat, rename, link, unlink, mkdir, rmdir, directory listing and lock of ``ArchiveRepository``,
/// ``ArchiveCache`` and the `FormCache` layer above them goes through a value of this type.
///
/// Production code uses ``kernel``, which calls the kernel (through `ArchivePlatform`'s `Kernel` and
/// `FileDescriptor`). Tests build a ``FileSystem`` whose calls consult a fault plan first: a call can fail with an
/// `errno` (EIO, ENOSPC...) or a write can stop short, so that "every acknowledged write survives any single fault" is a loop over call
/// numbers, as SQLite's test VFS does. Cleanup calls (removing a temporary file after a failure) go through
/// the seam too: a fault there must leave the store as intact as a fault anywhere else.
///
/// Every failure is a ``StoreError`` naming the call, the path and `strerror`, with the `errno`; a symbolic
/// link met where `O_NOFOLLOW` refuses one is ``StoreError/Code/symbolicLink``.
///
/// Mirrors the shape of swift-system's mocking layer.
package struct FileSystem: Sendable {
    /// The kinds of call, for fault plans.
    package enum Call: String, Sendable, Hashable, CaseIterable {
        case open, read, write, sync, truncate, status, setPermissions, lock
        case rename, link, unlink, makeDirectory, removeDirectory, list
        /// Setting a Data Protection class or a backup exclusion (only where the platform has them, see
        /// ``FileAttributeCalls``).
        case setAttributes
        /// Reading one of those.
        case getAttributes
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

    /// The permissions of every file the engines create.
    package static let filePermissions: UInt32 = 0o600
    /// The permissions of every directory the engines create.
    package static let directoryPermissions: UInt32 = 0o700

    private var plan: FaultPlan?
    /// The calls behind the Apple file attributes (the platform's, or a test's recorder).
    package var attributes: any FileAttributeCalls
    /// What every file and directory created through this value is given (see ``open(_:_:permissions:)`` and
    /// ``makeDirectory(_:)``).
    package var newItems = NewItemAttributes()
    /// Told every change this file system makes (tests' crash simulator); `nil` in production, where nothing is
    /// built for it.
    package var observer: (any FileSystemObserver)?

    /// Whether `EPERM` from a call on a file's contents is a locked device's refusal even where the platform has
    /// no protection classes (an engine given a ``LockedDeviceSimulation``).
    private var simulatesProtection = false

    /// The kernel, with no faults.
    package static let kernel = FileSystem(plan: nil)

    /// A file system whose calls consult `plan` first, with `attributes` for the Apple file attributes.
    package init(plan: FaultPlan?, attributes: any FileAttributeCalls = PlatformFileAttributes(), observer: (any FileSystemObserver)? = nil) {
        self.plan = plan
        self.attributes = attributes
        self.observer = observer
    }

    /// This file system, refusing the calls `simulation` refuses on files of class `protection` (the engine's)
    /// before its own plan runs; `nil`: this file system.
    package func simulating(_ simulation: LockedDeviceSimulation?, protection: FileProtection?) -> FileSystem {
        guard let simulation else { return self }
        var copy = self
        let plan = self.plan
        copy.plan = { call, path in
            simulation.refuses(call, protection: protection) ? .error(Errno.notPermitted.rawValue) : plan?(call, path)
        }
        copy.simulatesProtection = true
        return copy
    }

    /// This file system, giving what it creates `attributes`.
    package func creating(_ attributes: NewItemAttributes) -> FileSystem {
        var copy = self
        copy.newItems = attributes
        return copy
    }

    @inline(__always)
    private func injected(_ call: Call, _ path: String) throws(StoreError) -> Fault? {
        guard let plan, let fault = plan(call, path) else { return nil }
        if case .error(let code) = fault { throw failure(call.rawValue, path, Errno(code)) }
        return fault
    }

    /// The error of a failed call through this file system: as ``failure(_:_:_:)-swift.type.method``, except that
    /// where files have Data Protection classes, `EPERM` from a call that reads or writes a file's contents is
    /// the system refusing them while the device is locked (``StoreError/Code/protectedDataUnavailable``).
    package func failure(_ call: String, _ path: String, _ errno: Errno) -> StoreError {
        if errno == .notPermitted && (attributes.protects || simulatesProtection) && Self.touchesContents.contains(call) {
            return StoreError(.protectedDataUnavailable,
                              "\(call): the file's data is protected while the device is locked (\(errno)); try again once it is unlocked",
                              path: path, errno: errno.rawValue)
        }
        return Self.failure(call, path, errno)
    }

    /// The calls whose `EPERM` means protected data (the names of ``Call`` and of the C functions).
    private static let touchesContents: Set<String> = [
        "open", "read", "write", "sync", "fsync", "truncate", "ftruncate", "setAttributes", "getAttributes",
    ]

    /// The error of a failed call.
    package static func failure(_ call: String, _ path: String, _ errno: Errno) -> StoreError {
        if errno == .tooManyLinks {
            return StoreError(.symbolicLink, "\(call): refusing to follow a symbolic link", path: path, errno: errno.rawValue)
        }
        if errno == .isDirectory || (errno == .notDirectory && call != "read") {
            return StoreError(.notRegularFile, "\(call): \(errno)", path: path, errno: errno.rawValue)
        }
        return StoreError(.io, "\(call): \(errno)", path: path, errno: errno.rawValue)
    }

    /// The text of an `errno` (`strerror(3)`).
    package static func describe(errno: Int32) -> String { Errno(errno).description }

    // MARK: Files

    /// `open(2)` with `O_CLOEXEC`; new files get mode 0600 whatever the umask only through
    /// ``setPermissions(_:_:_:)``, which creators call.
    ///
    /// A file this call creates (`.create`) is given ``newItems`` where the platform has such attributes: then a
    /// `.create` without `.exclusive` opens an existing file as it is and creates a missing one with `O_EXCL`, so
    /// that only a file this call made is changed. When that fails, the new file is removed again and the open
    /// fails.
    package func open(_ path: String, _ flags: OpenFlags, permissions: UInt32 = filePermissions) throws(StoreError) -> FileDescriptor {
        _ = try injected(.open, path)
        if let observer { return try observedOpen(path, flags, permissions: permissions, observer) }
        return try openFile(path, flags, permissions: permissions)
    }

    /// ``open(_:_:permissions:)`` told to `observer`: whether the file was there before decides `created`.
    private func observedOpen(_ path: String, _ flags: OpenFlags, permissions: UInt32,
                              _ observer: any FileSystemObserver) throws(StoreError) -> FileDescriptor {
        let existed = flags.contains(.create) ? ((try? Kernel.status(atPath: path)) ?? nil) != nil : true
        let fd = try openFile(path, flags, permissions: permissions)
        observer.observe(.open(path: path, fd: fd, created: !existed))
        if existed && flags.contains(.truncate) { observer.observe(.truncate(fd: fd, path: path, size: 0)) }
        return fd
    }

    private func openFile(_ path: String, _ flags: OpenFlags, permissions: UInt32) throws(StoreError) -> FileDescriptor {
        guard flags.contains(.create), givesNewFilesAttributes else {
            do {
                return try FileDescriptor.open(path, flags, permissions: permissions)
            } catch {
                throw failure("open", path, error)
            }
        }
        let (fd, created) = try openCreating(path, flags, permissions: permissions)
        guard created else { return fd }
        do throws(StoreError) {
            try giveNewItemAttributes(path, isDirectory: false)
        } catch {
            close(fd)
            _ = try? unlink(path)
            throw error
        }
        return fd
    }

    /// Whether a file created through this value is given anything here.
    private var givesNewFilesAttributes: Bool {
        (attributes.protects && newItems.protection != nil) || (attributes.excludesFromBackup && newItems.excludedFromBackup)
    }

    /// Opens `path` with `.create` in `flags`, telling whether this call created the file.
    private func openCreating(_ path: String, _ flags: OpenFlags, permissions: UInt32) throws(StoreError) -> (FileDescriptor, Bool) {
        do throws(Errno) {
            if flags.contains(.exclusive) { return (try FileDescriptor.open(path, flags, permissions: permissions), true) }
            // Open what is there, else create it exclusively; a file made or removed meanwhile by another process
            // sends the loop round again (a few times at most: then the plain open decides).
            for _ in 0..<4 {
                do {
                    return (try FileDescriptor.open(path, flags.subtracting(.create), permissions: permissions), false)
                } catch where error == .noSuchFile {
                    do {
                        return (try FileDescriptor.open(path, flags.union(.exclusive), permissions: permissions), true)
                    } catch where error == .exists {
                        continue
                    }
                }
            }
            return (try FileDescriptor.open(path, flags, permissions: permissions), false)
        } catch {
            throw failure("open", path, error)
        }
    }

    /// Gives a file or directory this value just created its ``newItems``: the protection class, and for a file
    /// the backup exclusion.
    private func giveNewItemAttributes(_ path: String, isDirectory: Bool) throws(StoreError) {
        if let protection = newItems.protection { try setProtection(protection, path) }
        if newItems.excludedFromBackup && !isDirectory { try setExcludedFromBackup(true, path) }
    }

    /// ``open(_:_:permissions:)``, or `nil` when nothing is at `path` (`ENOENT`).
    package func openIfPresent(_ path: String, _ flags: OpenFlags) throws(StoreError) -> FileDescriptor? {
        do {
            return try open(path, flags)
        } catch where error.errno == Errno.noSuchFile.rawValue {
            return nil
        }
    }

    /// `close(2)`.
    package func close(_ fd: FileDescriptor) {
        observer?.observe(.close(fd: fd))
        fd.close()
    }

    /// Reads up to `count` bytes at `offset` (`pread(2)`), looping until `count` bytes or the end of the file.
    package func read(_ fd: FileDescriptor, count: Int, at offset: Int, _ path: String) throws(StoreError) -> [UInt8] {
        _ = try injected(.read, path)
        guard count > 0 else { return [] }
        var readError: Errno?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = 0
            let raw = UnsafeMutableRawBufferPointer(buffer)
            while initialized < count {
                do throws(Errno) {
                    let n = try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[initialized...]),
                                            at: offset + initialized)
                    if n == 0 { return }
                    initialized += n
                } catch {
                    readError = error
                    return
                }
            }
        }
        if let readError { throw failure("read", path, readError) }
        return bytes
    }

    /// Reads `buffer.count` bytes at `offset` into `buffer` (its storage reused: no array is made), and returns
    /// how many were read, fewer only at the end of the file. The same call as ``read(_:count:at:_:)`` for the
    /// seam's faults.
    package func read(_ fd: FileDescriptor, into buffer: inout [UInt8], at offset: Int, _ path: String) throws(StoreError) -> Int {
        _ = try injected(.read, path)
        var readError: Errno?
        let count = buffer.count
        let initialized = buffer.withUnsafeMutableBytes { raw -> Int in
            var initialized = 0
            while initialized < count {
                do throws(Errno) {
                    let n = try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[initialized...]), at: offset + initialized)
                    if n == 0 { break }
                    initialized += n
                } catch {
                    readError = error
                    break
                }
            }
            return initialized
        }
        if let readError { throw failure("read", path, readError) }
        return initialized
    }

    /// Reads from the current position to the end (`read(2)`): a regular file, a pipe, a FIFO or a
    /// terminal, as `cat` reads them. `nil` when more than `limit` bytes come.
    package func readToEnd(_ fd: FileDescriptor, _ path: String, limit: Int) throws(StoreError) -> [UInt8]? {
        _ = try injected(.read, path)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { buffer -> Result<Int, Errno> in
                do throws(Errno) { return .success(try fd.read(into: buffer)) } catch { return .failure(error) }
            }
            switch n {
            case .failure(let error): throw failure("read", path, error)
            case .success(0): return bytes
            case .success(let n):
                guard n <= limit - bytes.count else { return nil }
                bytes.append(contentsOf: chunk[0..<n])
            }
        }
    }

    /// Writes all of `bytes` at the file's position (appended, for `O_APPEND`), looping over short writes.
    package func write(_ fd: FileDescriptor, _ bytes: [UInt8], _ path: String) throws(StoreError) {
        try write(fd, bytes, at: nil, path)
    }

    /// Writes all of `bytes` at `offset` (`pwrite(2)`), looping over short writes.
    package func write(_ fd: FileDescriptor, _ bytes: [UInt8], at offset: Int, _ path: String) throws(StoreError) {
        try write(fd, bytes, at: Optional(offset), path)
    }

    private func write(_ fd: FileDescriptor, _ bytes: [UInt8], at offset: Int?, _ path: String) throws(StoreError) {
        var limit = bytes.count
        if case .shortWrite(let n)? = try injected(.write, path) { limit = min(max(0, n), bytes.count) }
        var done = 0
        defer {
            if let observer, done > 0 { observer.observe(.write(fd: fd, path: path, offset: offset, bytes: Array(bytes[0..<done]))) }
        }
        while done < limit {
            let written = bytes.withUnsafeBytes { raw -> Result<Int, Errno> in
                let part = UnsafeRawBufferPointer(rebasing: raw[done..<limit])
                do throws(Errno) {
                    if let offset { return .success(try fd.write(from: part, at: offset + done)) }
                    return .success(try fd.write(from: part))
                } catch {
                    return .failure(error)
                }
            }
            switch written {
            case .failure(let error): throw failure("write", path, error)
            case .success(let n) where n <= 0: throw failure("write", path, .io)
            case .success(let n): done += n
            }
        }
        if limit < bytes.count { throw failure("write", path, .noSpace) }
    }

    /// Flushes the file to stable storage (`F_FULLFSYNC` on Apple platforms; see `FileDescriptor.sync()`).
    package func sync(_ fd: FileDescriptor, _ path: String) throws(StoreError) {
        _ = try injected(.sync, path)
        do { try fd.sync() } catch { throw failure("fsync", path, error) }
        observer?.observe(.sync(fd: fd, path: path))
    }

    /// Flushes the file's data and size to stable storage, not its times (`fdatasync` on Linux, `F_FULLFSYNC` on
    /// Apple platforms; see `FileDescriptor.syncData()`). A fault plan and an observer see it as a sync.
    package func syncData(_ fd: FileDescriptor, _ path: String) throws(StoreError) {
        _ = try injected(.sync, path)
        do { try fd.syncData() } catch { throw failure("fdatasync", path, error) }
        observer?.observe(.sync(fd: fd, path: path))
    }

    /// `ftruncate(2)`.
    package func truncate(_ fd: FileDescriptor, to size: Int, _ path: String) throws(StoreError) {
        _ = try injected(.truncate, path)
        do { try fd.truncate(to: size) } catch { throw failure("ftruncate", path, error) }
        observer?.observe(.truncate(fd: fd, path: path, size: size))
    }

    /// `fstat(2)`.
    package func status(_ fd: FileDescriptor, _ path: String) throws(StoreError) -> FileStatus {
        _ = try injected(.status, path)
        do { return try fd.status() } catch { throw failure("fstat", path, error) }
    }

    /// `fstatat(2)` of `name` in the open directory `directory`, not following a link; `nil` when nothing is
    /// there. One name looked up, not a whole path.
    package func status(in directory: FileDescriptor, _ name: String, _ path: String) throws(StoreError) -> FileStatus? {
        _ = try injected(.status, path)
        do { return try directory.status(ofEntry: name) } catch { throw failure("fstatat", path, error) }
    }

    /// `lstat(2)`; `nil` when nothing is there.
    package func linkStatus(_ path: String) throws(StoreError) -> FileStatus? {
        _ = try injected(.status, path)
        do { return try Kernel.status(atPath: path) } catch { throw failure("lstat", path, error) }
    }

    /// Which file is at `path` (``Kernel/identity(atPath:)``: not following a link, without its times); `nil`
    /// when nothing is there. A fault plan sees it as a `status` call.
    package func identity(_ path: String) throws(StoreError) -> FileIdentity? {
        _ = try injected(.status, path)
        do { return try Kernel.identity(atPath: path) } catch { throw failure("statx", path, error) }
    }

    /// `stat(2)`, following links; `nil` when nothing is there.
    package func status(_ path: String) throws(StoreError) -> FileStatus? {
        _ = try injected(.status, path)
        do { return try Kernel.status(atPath: path, followingLinks: true) } catch { throw failure("stat", path, error) }
    }

    /// `fchmod(2)`.
    package func setPermissions(_ fd: FileDescriptor, _ permissions: UInt32, _ path: String) throws(StoreError) {
        _ = try injected(.setPermissions, path)
        do { try fd.setPermissions(permissions) } catch { throw failure("fchmod", path, error) }
    }

    // MARK: Names

    /// `rename(2)`.
    package func rename(_ source: String, _ destination: String) throws(StoreError) {
        _ = try injected(.rename, destination)
        do { try Kernel.rename(source, destination) } catch { throw failure("rename", destination, error) }
        observer?.observe(.rename(from: source, to: destination))
    }

    /// `link(2)`: a second name for `source`'s file; `false` when `source` does not exist.
    @discardableResult
    package func link(_ source: String, _ destination: String) throws(StoreError) -> Bool {
        let linked = try attempt(.link, "link", destination, falseFor: [.noSuchFile]) { () throws(Errno) in try Kernel.link(source, destination) }
        if linked { observer?.observe(.link(from: source, to: destination)) }
        return linked
    }

    /// `unlink(2)`; `false` when nothing was there.
    @discardableResult
    package func unlink(_ path: String) throws(StoreError) -> Bool {
        let removed = try attempt(.unlink, "unlink", path, falseFor: [.noSuchFile]) { () throws(Errno) in try Kernel.unlink(path) }
        if removed { observer?.observe(.unlink(path: path)) }
        return removed
    }

    /// `rmdir(2)`; `false` when the directory is not empty or not there.
    @discardableResult
    package func removeDirectory(_ path: String) throws(StoreError) -> Bool {
        let removed = try attempt(.removeDirectory, "rmdir", path, falseFor: [.noSuchFile, .notEmpty, .exists]) { () throws(Errno) in
            try Kernel.removeDirectory(path)
        }
        if removed { observer?.observe(.removeDirectory(path: path)) }
        return removed
    }

    /// Runs a call that changes a name: `true` when it did, `false` when it failed with one of `falseFor`.
    private func attempt(_ call: Call, _ name: String, _ path: String, falseFor: Set<Errno>,
                         _ body: () throws(Errno) -> Void) throws(StoreError) -> Bool {
        _ = try injected(call, path)
        do {
            try body()
            return true
        } catch where falseFor.contains(error) {
            return false
        } catch {
            throw failure(name, path, error)
        }
    }

    /// `mkdir(2)` with mode 0700 (set again with `chmod`, whatever the umask); an existing directory is fine.
    /// Returns whether this call created it: then its name is durable only once its parent is synced (see
    /// ``makeDirectories(_:)``, which does that).
    @discardableResult
    package func makeDirectory(_ path: String) throws(StoreError) -> Bool {
        _ = try injected(.makeDirectory, path)
        do {
            try Kernel.makeDirectory(path, permissions: Self.directoryPermissions)
        } catch where error == .exists {
            guard let info = try linkStatus(path), info.isDirectory else {
                throw StoreError(.notRegularFile, "exists and is not a directory", path: path)
            }
            return false
        } catch {
            throw failure("mkdir", path, error)
        }
        observer?.observe(.makeDirectory(path: path))
        do { try Kernel.setPermissions(atPath: path, Self.directoryPermissions) } catch { throw failure("chmod", path, error) }
        guard attributes.protects, newItems.protection != nil else { return true }
        do throws(StoreError) {
            try giveNewItemAttributes(path, isDirectory: true)
        } catch {
            _ = try? removeDirectory(path)
            throw error
        }
        return true
    }

    /// Creates `path` and its missing parents (0700), syncing the parent of each directory it creates, so that
    /// what is written inside survives a power cut (a `mkdir` is durable only once its parent directory is
    /// synced; syncing the new directory or a file in it does not make its own name durable). Existing
    /// directories, and symbolic links to directories, are left as they are.
    package func makeDirectories(_ path: String) throws(StoreError) {
        if let info = try linkStatus(path) {
            if info.isDirectory { return }
            if info.isSymbolicLink, let target = try status(path), target.isDirectory { return }
            throw StoreError(.notRegularFile, "exists and is not a directory", path: path)
        }
        let parent = PathName.directory(of: path)
        if parent != path { try makeDirectories(parent) }
        if try makeDirectory(path) { try syncDirectory(parent) }
    }

    /// The names in a directory (without `.` and `..`); `nil` when it does not exist.
    package func list(_ path: String) throws(StoreError) -> [String]? {
        _ = try injected(.list, path)
        do {
            return try Kernel.directoryEntries(path)
        } catch where error == .noSuchFile || error == .notDirectory {
            return nil
        } catch {
            throw failure("opendir", path, error)
        }
    }

    /// Syncs a directory, so that the renames, creations and removals inside it are durable.
    package func syncDirectory(_ path: String) throws(StoreError) {
        let fd = try open(path, [.readOnly, .directory])
        defer { close(fd) }
        try sync(fd, path)
    }

    // MARK: Apple file attributes

    /// Sets the Data Protection class of the file or directory at `path`; nothing where there are no classes.
    /// Mirrors `FileManager.setAttributes([.protectionKey: ...], ofItemAtPath:)`.
    package func setProtection(_ protection: FileProtection, _ path: String) throws(StoreError) {
        guard attributes.protects else { return }
        _ = try injected(.setAttributes, path)
        do { try attributes.setProtection(protection.rawValue, path) } catch { throw failure("setAttributes", path, error) }
    }

    /// The Data Protection class of the file or directory at `path`; `nil` where there are none (or it has none).
    package func protection(_ path: String) throws(StoreError) -> FileProtection? {
        guard attributes.protects else { return nil }
        _ = try injected(.getAttributes, path)
        do { return try attributes.protection(path).map(FileProtection.init(rawValue:)) } catch { throw failure("getAttributes", path, error) }
    }

    /// Sets or clears the backup exclusion of the file or directory at `path`; nothing where backups have none.
    /// Mirrors `URL.setResourceValues(_:)` with `isExcludedFromBackup`.
    package func setExcludedFromBackup(_ excluded: Bool, _ path: String) throws(StoreError) {
        guard attributes.excludesFromBackup else { return }
        _ = try injected(.setAttributes, path)
        do { try attributes.setExcludedFromBackup(excluded, path) } catch { throw failure("setAttributes", path, error) }
    }

    /// Whether the file or directory at `path` is excluded from backups; `nil` where backups have no exclusion.
    package func isExcludedFromBackup(_ path: String) throws(StoreError) -> Bool? {
        guard attributes.excludesFromBackup else { return nil }
        _ = try injected(.getAttributes, path)
        do { return try attributes.isExcludedFromBackup(path) } catch { throw failure("getAttributes", path, error) }
    }

    /// Checks an engine's file or directory at `path` when the engine opens it, and restores what differs: its
    /// protection class (to `protection`, when not `nil`) and its backup exclusion (when `excludedFromBackup`;
    /// `false` leaves it as it is). A refusal because the device is locked is left for the next opening.
    package func restoreAttributes(_ path: String, protection: FileProtection?, excludedFromBackup: Bool) throws(StoreError) {
        do throws(StoreError) {
            if let protection, attributes.protects, try self.protection(path) != protection {
                try setProtection(protection, path)
            }
            if excludedFromBackup, attributes.excludesFromBackup, try isExcludedFromBackup(path) != true {
                try setExcludedFromBackup(true, path)
            }
        } catch where error.code == .protectedDataUnavailable {
            return
        }
    }

    // MARK: Locks

    /// `flock(2)`: `true` when taken; `false` when `wait` is false and the lock is held elsewhere.
    package func lock(_ fd: FileDescriptor, exclusive: Bool, wait: Bool, _ path: String) throws(StoreError) -> Bool {
        _ = try injected(.lock, path)
        do { return try fd.lock(exclusive: exclusive, wait: wait) } catch { throw failure("flock", path, error) }
    }

    /// Releases a `flock(2)` lock.
    package func unlock(_ fd: FileDescriptor) { fd.unlock() }

    // MARK: Whole files

    /// The bytes of the regular file at `path`, not following a link and never blocking on a FIFO: `nil` when
    /// nothing is there, ``StoreError/Code/notRegularFile`` for anything but a regular file, `nil` too when it
    /// holds more than `limit` bytes.
    package func readFile(_ path: String, limit: Int = Int.max) throws(StoreError) -> [UInt8]? {
        guard let fd = try openIfPresent(path, [.readOnly, .noFollow, .nonBlocking]) else { return nil }
        defer { close(fd) }
        try status(fd, path).requireRegularFile(path)
        return try readWhole(fd, path, limit: limit)
    }

    /// The whole regular file open at `fd`, from its start; `nil` when it holds more than `limit` bytes.
    package func readWhole(_ fd: FileDescriptor, _ path: String, limit: Int = Int.max) throws(StoreError) -> [UInt8]? {
        let info = try status(fd, path)
        guard let size = Int(exactly: info.size), size <= limit else { return nil }
        // One byte more than the size, so that a file that grew meanwhile is read on to its end.
        let bytes = try read(fd, count: size < limit ? size + 1 : size, at: 0, path)
        guard bytes.count > size else { return bytes }
        var rest = bytes
        while true {
            let more = try read(fd, count: 1 << 16, at: rest.count, path)
            if more.isEmpty { return rest }
            guard more.count <= limit - rest.count else { return nil }
            rest += more
        }
    }

    /// The bytes of the file at `path`, followed as a user names it (a symbolic link, `/dev/stdin`, a pipe
    /// from `<(...)`, a FIFO): read to its end as `cat` reads it. A directory fails its read (`EISDIR`); more
    /// than `limit` bytes is ``StoreError/Code/invalidArgument``.
    package func readInput(_ path: String, limit: Int) throws(StoreError) -> [UInt8] {
        let fd = try open(path, [.readOnly])
        defer { close(fd) }
        guard let bytes = try readToEnd(fd, path, limit: limit) else {
            throw StoreError(.invalidArgument, "the input holds more than \(limit) bytes", path: path)
        }
        return bytes
    }
}

extension FileStatus {
    /// Refuses anything but a regular file (a FIFO or device would block or never end):
    /// ``StoreError/Code/notRegularFile``.
    package func requireRegularFile(_ path: String) throws(StoreError) {
        guard isRegularFile else { throw StoreError(.notRegularFile, "not a regular file (\(kind))", path: path) }
    }

    /// Refuses anything but a regular file with at most one link: a file with another hard link is shared
    /// with a place the engines must not change (``StoreError/Code/hardLink``). No link at all is fine: the
    /// file was replaced after it was opened, and its descriptor still reads the whole old one.
    package func requireOwnRegularFile(_ path: String) throws(StoreError) {
        try requireRegularFile(path)
        guard linkCount <= 1 else { throw StoreError(.hardLink, "refusing a file with \(linkCount) hard links", path: path) }
    }
}
