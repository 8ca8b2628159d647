import ArchivePlatform

/// What a store file is, opened.
enum StoreFile {
    /// The largest store of one keyed archive (from before the record log) that is read: 1 GiB.
    static let largestSingleArchive = 1 << 30

    /// No file at the path.
    case absent
    /// A store written before the record log: one keyed archive holding every record.
    case singleArchive([UInt8])
    /// A record log, with a consistent view of it.
    case log(StoreSnapshot)

    /// Opens the store at `path` (read-only, or read-write for a writer holding the lock). A symbolic link,
    /// a FIFO or device, or a file with another hard link is refused without blocking; so is the same at the
    /// index path.
    /// - Throws: ``StoreError/Code/damagedCommit`` when the newer commit slot is damaged while intact frames
    ///   follow the older commit (the last commit may be what the damage hides: nothing is cut off).
    static func open(_ path: String, fileSystem: FileSystem, writable: Bool, tuning: StoreTuning) throws(StoreError) -> StoreFile {
        let flags: OpenFlags = [writable ? .readWrite : .readOnly, .noFollow, .nonBlocking]
        guard let fd = try fileSystem.openIfPresent(path, flags) else { return .absent }
        var owned = true
        defer { if owned { fileSystem.close(fd) } }
        let info = try fileSystem.status(fd, path)
        try info.requireOwnRegularFile(path)
        let bytes = try fileSystem.read(fd, count: RecordLog.firstFrame, at: 0, path)
        guard RecordLog.isLog(bytes) else {
            guard let whole = try fileSystem.readWhole(fd, path, limit: StoreFile.largestSingleArchive) else {
                throw StoreError(.corrupt, "not a record log, and too large (\(info.size) bytes) for a store of one archive",
                                 path: path, offset: 0)
            }
            return .singleArchive(whole)
        }
        let prologue = try RecordLog.prologue(bytes, path: path)
        let state = prologue.state
        // A writer may have committed between the status and the prologue read (readers take no lock): its
        // frames were written before its commit, so the size read after the prologue covers them.
        var size = try fileSize(info, path)
        if state.committed > size { size = try fileSize(try fileSystem.status(fd, path), path) }
        guard state.committed <= size else {
            throw StoreError(.corrupt, "the file (\(size) bytes) is shorter than its committed length \(state.committed)",
                             path: path, offset: size)
        }
        if let damaged = prologue.damagedSlot,
           try intactFrame(fd, at: state.committed, size: size, path: path, fileSystem: fileSystem) {
            throw StoreError(
                .damagedCommit,
                "the commit slot at byte \(damaged) fails its checksum while intact frames follow the last good commit (byte \(state.committed)): the newest commit may be lost; nothing was cut off",
                path: path, offset: damaged)
        }
        owned = false
        return .log(try StoreSnapshot(fd: fd, state: state, path: path, fileSystem: fileSystem, tuning: tuning, writable: writable))
    }

    /// The size of a file as an `Int`.
    static func fileSize(_ info: FileStatus, _ path: String) throws(StoreError) -> Int {
        guard let size = Int(exactly: info.size) else {
            throw StoreError(.corrupt, "the file (\(info.size) bytes) is too large for this platform", path: path)
        }
        return size
    }

    /// Whether a whole frame that matches its checksum starts at `offset`.
    private static func intactFrame(_ fd: FileDescriptor, at offset: Int, size: Int, path: String,
                                    fileSystem: FileSystem) throws(StoreError) -> Bool {
        guard size - offset >= RecordLog.frameHeaderSize else { return false }
        let prefix = try fileSystem.read(fd, count: RecordLog.frameHeaderSize, at: offset, path)
        guard let header = try? FrameHeader(prefix, at: 0, available: size - offset, fileOffset: offset, path: path) else {
            return false
        }
        let frame = try fileSystem.read(fd, count: header.length, at: offset, path)
        return frame.count == header.length && header.verify(frame, at: 0)
    }
}

/// Numbers that decide when the index is merged and the log compacted; tests make them small.
package struct StoreTuning: Sendable {
    /// The index is merged when this many frames are past it...
    package var mergeFrames = 1024
    /// ... or this many bytes.
    package var mergeBytes = 1 << 20
    /// The log is rewritten without its dead frames when they take more than the live ones and at least this.
    package var compactionFloor = 4 << 20

    package init() {}
}
