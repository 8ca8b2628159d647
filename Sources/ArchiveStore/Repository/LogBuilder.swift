/// Writes a whole new record log (and its index) to temporary files and puts them in place of the store:
/// the first write of a store, the migration of a single-archive store, compaction, and whole rewrites.
struct LogBuilder {
    let path: String
    let fileSystem: FileSystem
    private var log: AtomicReplace
    private var state: LogState
    private var pending: [UInt8] = []
    private var entries: [IndexEntry] = []

    init(path: String, fileSystem: FileSystem, recordVersion: Int) throws(StoreError) {
        self.path = path
        self.fileSystem = fileSystem
        log = try AtomicReplace(replacing: path, fileSystem: fileSystem)
        state = LogState.empty(recordVersion: recordVersion)
        do throws(StoreError) {
            try log.append(RecordLog.prologue(state))
        } catch {
            log.abandon()
            throw error
        }
    }

    /// Adds a live record's frame (already encoded and checked; `checksum` is its header's).
    mutating func add(frame: [UInt8], checksum: UInt32, hash: UInt64, expiryBits: UInt64) throws(StoreError) {
        entries.append(IndexEntry(hash: hash, offset: state.committed, ordinal: state.frameCount, expiryBits: expiryBits))
        state.committed += frame.count
        state.frameCount += 1
        state.liveCount += 1
        state.liveBytes += frame.count
        state.chain = LogState.chain(state.chain ?? 0, after: checksum)
        pending += frame
        if pending.count >= 1 << 20 { try flush() }
    }

    /// Adds a record.
    mutating func add(key: [UInt8], expiry: Double?, payload: [UInt8]) throws(StoreError) {
        guard key.count <= RecordLog.largestKey else {
            throw StoreError(.invalidArgument, "a record id takes \(key.count) bytes; at most \(RecordLog.largestKey)", path: path)
        }
        let frame = FrameHeader.encode(kind: .put, key: key, expiry: expiry, payload: payload)
        guard frame.count <= RecordLog.largestFrame else {
            throw StoreError(.invalidArgument, "a record archives to \(frame.count) bytes; at most 4 GiB", path: path)
        }
        let header = try FrameHeader(frame, at: 0, available: frame.count, fileOffset: state.committed, path: path)
        try add(frame: frame, checksum: header.checksum, hash: RecordIndex.hash(key), expiryBits: header.expiryBits)
    }

    private mutating func flush() throws(StoreError) {
        guard !pending.isEmpty else { return }
        try log.append(pending)
        pending.removeAll(keepingCapacity: true)
    }

    /// Commits the new log, writes its index, and renames both into place (the index first), then syncs the
    /// directory. On failure the store is as it was and the temporary files are gone (or left for the sweep).
    /// - Throws: ``StoreError/Code/durabilityUnknown`` when everything is in place but the directory sync
    ///   failed.
    mutating func install() throws(StoreError) {
        let indexPath = path + ".index"
        do throws(StoreError) {
            try flush()
            try log.write(RecordLog.prologue(state), at: 0)
            try log.finish(.synchronous)
            if try IndexReader.mayReplace(indexPath, fileSystem: fileSystem) {
                try RecordIndex.write(entries.sorted(), of: state, to: indexPath, fileSystem: fileSystem)
            }
            try log.install(.synchronous, syncDirectory: false)
        } catch {
            log.abandon()
            throw error
        }
        try AtomicReplace.syncDirectory(of: path, fileSystem: fileSystem)
    }

    /// Closes and removes the temporary log.
    mutating func abandon() { log.abandon() }
}
