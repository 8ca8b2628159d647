/// Writes a whole new record log (format 3) to a temporary file and puts it in place of the store: the first
/// write of a store, the migration of a single-archive store or of an older log, compaction, recovery and
/// ``ArchiveRepository/modify(_:)``. The new log is one commit (its last frame flagged) of a new generation;
/// frames copied from another log are linked into the new chain, byte for byte otherwise.
struct LogBuilder {
    let path: String
    let fileSystem: FileSystem
    private var log: AtomicReplace
    private(set) var state: LogState
    let keyHash: KeyHash
    /// The new log's live records.
    private(set) var table = LiveTable()
    private var pending: [UInt8] = []
    /// Bytes appended to the temporary file.
    private var flushed = 0
    /// The last frame's position in `pending` and the chain before it.
    private var last: (at: Int, link: UInt32)?

    init(path: String, fileSystem: FileSystem, recordVersion: Int) throws(StoreError) {
        self.path = path
        self.fileSystem = fileSystem
        log = try AtomicReplace(replacing: path, fileSystem: fileSystem)
        state = LogState.empty(recordVersion: recordVersion)
        keyHash = KeyHash(generation: state.generation)
        pending.reserveCapacity(1 << 20)
        pending += RecordLog.prologue(state)
    }

    /// Copies a live record's whole frame (verified), found at `start` of `bytes`.
    mutating func add(frameIn bytes: [UInt8], at start: Int, header: FrameHeader) throws(StoreError) {
        let at = pending.count
        pending += bytes[start..<start + header.length]
        let checksum = FrameHeader.relink(&pending, at: at, length: header.length, link: state.chain, endsCommit: false)
        let key = Array(header.key(in: bytes, at: start))
        added(at: at, length: header.length, checksum: checksum, hash: keyHash(key), expiryBits: header.expiryBits)
        try flushIfFull()
    }

    /// Whether the new log holds a record under `key` (the frames with its hash compared, in memory or read back).
    func holds(_ key: [UInt8]) throws(StoreError) -> Bool {
        try table.firstIndex(hash: keyHash(key)) { index throws(StoreError) -> Bool in
            let entry = table.entries[index]
            let count = min(entry.length, FrameHeader.size + key.count)
            if entry.offset >= flushed {
                let at = entry.offset - flushed
                return FrameHeader.names(key, prefix: pending[at..<at + count])
            }
            return FrameHeader.names(key, prefix: try log.read(count: count, at: entry.offset)[...])
        } != nil
    }

    /// Adds a record.
    mutating func add(key: [UInt8], expiryBits: UInt64, payload: [UInt8]) throws(StoreError) {
        // The key is the id's description in UTF-8: what an error names it by.
        guard key.count <= RecordLog.largestKey else {
            throw StoreError(.invalidArgument, "a record id takes \(key.count) bytes; at most \(RecordLog.largestKey)", path: path,
                             recordID: String(decoding: key, as: UTF8.self))
        }
        let length = FrameHeader.size + key.count + payload.count
        guard length <= RecordLog.largestFrame else {
            throw StoreError(.invalidArgument, "a record archives to \(length) bytes; at most 4 GiB", path: path,
                             recordID: String(decoding: key, as: UTF8.self))
        }
        let at = pending.count
        let checksum = FrameHeader.append(kind: .put, key: key, expiryBits: expiryBits, payload: payload, link: state.chain,
                                          endsCommit: false, to: &pending)
        added(at: at, length: length, checksum: checksum, hash: keyHash(key), expiryBits: expiryBits)
        try flushIfFull()
    }

    private mutating func added(at: Int, length: Int, checksum: UInt32, hash: UInt64, expiryBits: UInt64) {
        table.insert(LiveEntry(hash: hash, offset: flushed + at, length: length, expiryBits: expiryBits))
        last = (at, state.chain)
        state.chain = LogState.chain(state.chain, after: checksum)
        state.committed += length
        state.frameCount += 1
        state.liveCount += 1
        state.liveBytes += length
    }

    /// Writes out what is pending but the last frame (whose commit flag is set last).
    private mutating func flushIfFull() throws(StoreError) {
        guard pending.count >= 1 << 20, let last, last.at > 0 else { return }
        try log.append(Array(pending[0..<last.at]))
        flushed += last.at
        pending.removeSubrange(0..<last.at)
        self.last = (0, last.link)
    }

    /// Completes the new log (its last frame flagged, its slot written), syncs it and renames it over the
    /// store, calling `retire` (which marks the file it replaces, when open) just before the rename; then syncs
    /// the directory and, when `writesIndex`, writes its index (derived data: a failure there is left to the next writer). On
    /// failure before the rename the store is as it was and the temporary file is gone (or left for the sweep).
    /// - Throws: ``StoreError/Code/durabilityUnknown`` when the new log is in place but the directory sync failed.
    mutating func install(retiring retire: () -> Void, writesIndex: Bool) throws(StoreError) {
        do throws(StoreError) {
            if let last {
                let length = pending.count - last.at
                let checksum = FrameHeader.relink(&pending, at: last.at, length: length, link: last.link, endsCommit: true)
                state.chain = LogState.chain(last.link, after: checksum)
            }
            try log.append(pending)
            pending = []
            try log.write(RecordLog.prologue(state), at: 0)
            try log.finish(.synchronous)
            retire()
            try log.install(.synchronous, syncDirectory: false)
        } catch {
            log.abandon()
            throw error
        }
        try AtomicReplace.syncDirectory(of: path, fileSystem: fileSystem)
        if writesIndex { _ = try? IndexFile.write(table, of: state, to: path + ".index", fileSystem: fileSystem) }
    }

    /// Closes and removes the temporary log.
    mutating func abandon() { log.abandon() }
}
