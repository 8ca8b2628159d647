import ArchivePlatform

/// Where a live record's frame is.
struct FrameLocation: Hashable, Sendable {
    var kind: FrameKind
    var offset: Int
    var ordinal: Int
    var length: Int
    var expiryBits: UInt64

    var expiry: Double? { FrameHeader.expiry(fromBits: expiryBits) }
}

/// A consistent view of a record log: one committed state, the index (when it belongs to the log) and the
/// frames past it, read from the log. Valid while it lives; the log file stays open. A writer (holding the
/// store's lock, the file opened read-write) commits changes through it.
final class StoreSnapshot {
    let fd: FileDescriptor
    let path: String
    let fileSystem: FileSystem
    let tuning: StoreTuning
    /// Opened by a writer holding the store's lock.
    let writable: Bool
    private(set) var state: LogState
    private(set) var index: IndexReader?
    /// The latest frame of each key past the index.
    private(set) var tail: [[UInt8]: FrameLocation] = [:]
    private(set) var tailStart = RecordLog.firstFrame
    private(set) var tailFirstOrdinal = 0

    var indexPath: String { path + ".index" }
    var lockPath: String { path + ".lock" }

    init(fd: FileDescriptor, state: LogState, path: String, fileSystem: FileSystem, tuning: StoreTuning, writable: Bool) throws(StoreError) {
        self.fd = fd
        self.state = state
        self.path = path
        self.fileSystem = fileSystem
        self.tuning = tuning
        self.writable = writable
        // From here on the descriptor is ours: `deinit` closes it, also when this initializer throws.
        try attachIndex()
        do {
            try scanTail()
        } catch where index != nil && error.code == .corrupt {
            // The index's covered length is not a frame boundary of this log, or its chain is not this log's
            // (an index kept from another branch or copy of it): the log decides.
            try dropIndex()
        }
    }

    deinit { fileSystem.close(fd) }

    /// Uses the index when it belongs to this log; otherwise the whole log is the tail. A link or a
    /// non-regular file at the index path is refused (thrown) like one at the store's path.
    private func attachIndex() throws(StoreError) {
        index = nil
        tailStart = RecordLog.firstFrame
        tailFirstOrdinal = 0
        let candidate: IndexReader?
        do {
            candidate = try IndexReader.open(indexPath, fileSystem: fileSystem)
        } catch let error as StoreError {
            if error.code == .io { return }   // unreadable: read the log
            throw error   // a symbolic link, hard link or non-regular file: refused
        } catch {
            retireDamagedIndex()
            return   // damaged: read the log
        }
        guard let candidate, candidate.generation == state.generation else { return }
        if candidate.covered > state.committed {
            // The index was merged after this state was read: read the newer state once.
            let prologue = try fileSystem.read(fd, count: RecordLog.firstFrame, at: 0, path)
            state = try RecordLog.prologue(prologue, path: path).state
            let size = try StoreFile.fileSize(try fileSystem.status(fd, path), path)
            guard state.committed <= size else {
                throw StoreError(.corrupt, "the file (\(size) bytes) is shorter than its committed length \(state.committed)",
                                 path: path, offset: size)
            }
        }
        guard candidate.covered <= state.committed, candidate.coveredFrames <= state.frameCount,
              candidate.covered >= RecordLog.firstFrame, state.chain != nil
        else { return }
        index = candidate
        tailStart = candidate.covered
        tailFirstOrdinal = candidate.coveredFrames
    }

    /// Reads the frames past the index, verifying each and the chain they make with the index's.
    private func scanTail() throws(StoreError) {
        tail = [:]
        var chain = index?.chain ?? 0
        try forEachFrame(from: tailStart, firstOrdinal: tailFirstOrdinal) { header, offset, ordinal, bytes, start throws(StoreError) in
            let key = Array(bytes[start + RecordLog.frameHeaderSize..<start + RecordLog.frameHeaderSize + header.keyLength])
            tail[key] = FrameLocation(kind: header.kind, offset: offset, ordinal: ordinal, length: header.length,
                                      expiryBits: header.expiryBits)
            chain = LogState.chain(chain, after: header.checksum)
        }
        if let expected = state.chain, chain != expected {
            throw StoreError(.corrupt, index == nil
                ? "the log's frames are not the ones its commit names (their checksums chain to another value)"
                : "the index covers another history of the log", path: index == nil ? path : indexPath, offset: tailStart)
        }
    }

    /// Gives up the index after it proved damaged or another history's: the whole log becomes the tail.
    private func dropIndex() throws(StoreError) {
        if index != nil { retireDamagedIndex() }
        index = nil
        tailStart = RecordLog.firstFrame
        tailFirstOrdinal = 0
        try scanTail()
    }

    /// Removes an index that a reader found damaged, so that the next writer builds a new one instead of every
    /// reader scanning the log until it happens to. Only when the store's lock is free now (a reader never
    /// waits) and the file at the index path is still the one read; any failure leaves it for the writer.
    private func retireDamagedIndex() {
        guard !writable else { return }   // a writer without an index builds one when it is done
        guard let lock = try? WriterLock(path: lockPath, fileSystem: fileSystem),
              (try? lock.acquire(exclusive: true, waiting: .never)) == true
        else { return }
        defer { lock.release() }
        guard let now = try? fileSystem.linkStatus(indexPath), now.isRegularFile else { return }
        if let index {
            guard let open = try? fileSystem.status(index.fd, indexPath), now.inode == open.inode else { return }
        }
        _ = try? fileSystem.unlink(indexPath)
    }

    /// The frames past the index, how many.
    var tailFrames: Int { state.frameCount - tailFirstOrdinal }
    var tailBytes: Int { state.committed - tailStart }

    // MARK: Frames

    /// Calls `body` for each committed frame from `start` (its header, file offset, ordinal, and a buffer
    /// holding the whole frame at an index), reading in chunks and verifying every checksum; from the first
    /// frame, the chain of their checksums is checked against the commit's too.
    /// - Throws: ``StoreError/Code/corrupt`` at the first damaged frame, with its offset.
    func forEachFrame(
        from start: Int, firstOrdinal: Int,
        _ body: (FrameHeader, Int, Int, [UInt8], Int) throws(StoreError) -> Void
    ) throws(StoreError) {
        let end = state.committed
        let chunk = 1 << 20
        var position = start
        var ordinal = firstOrdinal
        var chain: UInt32 = 0
        while position < end {
            let buffer = try fileSystem.read(fd, count: min(chunk, end - position), at: position, path)
            guard !buffer.isEmpty else {
                throw StoreError(.corrupt, "the file ends before its committed length \(end)", path: path, offset: position)
            }
            var i = 0
            while i < buffer.count {
                if buffer.count - i < RecordLog.frameHeaderSize && position + i + RecordLog.frameHeaderSize <= end {
                    if i > 0 { break }   // refill from this frame
                    throw StoreError(.corrupt, "the file ends before its committed length \(end)", path: path, offset: position)
                }
                let header = try FrameHeader(buffer, at: i, available: end - position - i, fileOffset: position + i, path: path)
                if i + header.length > buffer.count {
                    if i > 0 { break }   // refill from this frame
                    // A frame larger than a chunk: read it alone.
                    let whole = try fileSystem.read(fd, count: header.length, at: position, path)
                    guard whole.count == header.length, header.verify(whole, at: 0) else {
                        throw StoreError(.corrupt, "a frame fails its checksum", path: path, offset: position)
                    }
                    try body(header, position, ordinal, whole, 0)
                    chain = LogState.chain(chain, after: header.checksum)
                    ordinal += 1
                    i = header.length
                    break
                }
                guard header.verify(buffer, at: i) else {
                    throw StoreError(.corrupt, "a frame fails its checksum", path: path, offset: position + i)
                }
                try body(header, position + i, ordinal, buffer, i)
                chain = LogState.chain(chain, after: header.checksum)
                ordinal += 1
                i += header.length
            }
            position += i
        }
        guard ordinal == state.frameCount else {
            throw StoreError(.corrupt, "the log holds \(ordinal) frames, its commit says \(state.frameCount)", path: path,
                             offset: end)
        }
        if start == RecordLog.firstFrame, let expected = state.chain, chain != expected {
            throw StoreError(.corrupt, "the log's frames are not the ones its commit names (their checksums chain to another value)",
                             path: path, offset: end)
        }
    }

    /// The whole frame at `location`, verified.
    func frame(at location: FrameLocation) throws(StoreError) -> LogFrame {
        guard location.offset >= RecordLog.firstFrame, location.length <= state.committed - location.offset else {
            throw StoreError(.corrupt, "a frame lies outside the committed log", path: path, offset: location.offset)
        }
        let bytes = try fileSystem.read(fd, count: location.length, at: location.offset, path)
        let header = try FrameHeader(bytes, at: 0, available: bytes.count, fileOffset: location.offset, path: path)
        guard header.length == location.length, header.verify(bytes, at: 0) else {
            throw StoreError(.corrupt, "a frame fails its checksum", path: path, offset: location.offset)
        }
        let keyEnd = RecordLog.frameHeaderSize + header.keyLength
        return LogFrame(header: header, offset: location.offset, ordinal: location.ordinal,
                        key: Array(bytes[RecordLog.frameHeaderSize..<keyEnd]), payload: Array(bytes[keyEnd...]))
    }

    /// The bytes of the whole frame at `offset` (of `length` bytes), verified.
    func frameBytes(at offset: Int, length: Int) throws(StoreError) -> [UInt8] {
        let bytes = try fileSystem.read(fd, count: length, at: offset, path)
        let header = try FrameHeader(bytes, at: 0, available: bytes.count, fileOffset: offset, path: path)
        guard bytes.count == length, header.length == length, header.verify(bytes, at: 0) else {
            throw StoreError(.corrupt, "a frame fails its checksum", path: path, offset: offset)
        }
        return bytes
    }

    /// The header of the frame at `offset`.
    func frameHeader(at offset: Int) throws(StoreError) -> FrameHeader {
        guard offset >= RecordLog.firstFrame, offset < state.committed else {
            throw StoreError(.corrupt, "a frame lies outside the committed log", path: path, offset: offset)
        }
        let bytes = try fileSystem.read(fd, count: min(RecordLog.frameHeaderSize, state.committed - offset), at: offset, path)
        return try FrameHeader(bytes, at: 0, available: state.committed - offset, fileOffset: offset, path: path)
    }

    // MARK: Lookups

    /// The live frame of `key`, or `nil`.
    func locate(_ key: [UInt8]) throws(StoreError) -> FrameLocation? {
        if let found = tail[key] { return found.kind == .put ? found : nil }
        guard index != nil else { return nil }
        do {
            return try locateInIndex(key)
        } catch let error as StoreError {
            throw error
        } catch {
            try dropIndex()
            return try locate(key)
        }
    }

    /// The index entry of `key` (ignoring the tail), its frame's key compared.
    private func locateInIndex(_ key: [UInt8]) throws -> FrameLocation? {
        guard let index else { return nil }
        for entry in try index.candidates(RecordIndex.hash(key)) {
            guard entry.offset >= RecordLog.firstFrame, entry.offset < index.covered, entry.ordinal < index.coveredFrames else {
                throw IndexUnusable(reason: "entry outside the covered log")
            }
            let prefix = try fileSystem.read(fd, count: min(RecordLog.frameHeaderSize + key.count, index.covered - entry.offset),
                                             at: entry.offset, path)
            let header = try FrameHeader(prefix, at: 0, available: index.covered - entry.offset, fileOffset: entry.offset, path: path)
            guard header.kind == .put else { throw IndexUnusable(reason: "entry points at a delete") }
            if header.keyLength == key.count, prefix[RecordLog.frameHeaderSize...].elementsEqual(key) {
                return FrameLocation(kind: .put, offset: entry.offset, ordinal: entry.ordinal, length: header.length,
                                     expiryBits: header.expiryBits)
            }
        }
        return nil
    }

    /// Calls `body` with every live record's frame location, without reading frames (index entries, then the
    /// tail). Order: by key hash, then the tail's; callers sort by ordinal when order matters. Nothing is
    /// delivered until the number of live records is known to be the commit's: an index that disagrees is
    /// dropped (the log is read), a log that disagrees with its commit is corrupt.
    func forEachLiveLocation(_ body: (FrameLocation) throws(StoreError) -> Void) throws(StoreError) {
        try forEachLiveIndexEntry { entry throws(StoreError) in
            try body(FrameLocation(kind: .put, offset: entry.offset, ordinal: entry.ordinal, length: 0, expiryBits: entry.expiryBits))
        }
        for location in tail.values where location.kind == .put { try body(location) }
    }

    /// The tail's live records, how many.
    private var tailLiveCount: Int { tail.values.reduce(0) { $0 + ($1.kind == .put ? 1 : 0) } }

    /// Calls `body` with each index entry that the tail has not replaced. The whole index is checked first
    /// (every bucket's checksum, every entry's bounds, and that its live entries and the tail's make the
    /// commit's live count), so that damage found part way never hands `body` some entries twice: an index
    /// that fails is dropped before anything is delivered, and the log is read.
    private func forEachLiveIndexEntry(_ body: (IndexEntry) throws(StoreError) -> Void) throws(StoreError) {
        let superseded = try supersededOrdinals()
        guard let index else {
            guard tailLiveCount == state.liveCount else {
                throw StoreError(.corrupt, "the log holds \(tailLiveCount) live records, its commit says \(state.liveCount)",
                                 path: path, offset: state.committed)
            }
            return
        }
        var live = 0
        do {
            try index.forEachChunk { entries in
                for entry in entries where !superseded.contains(entry.ordinal) { live += 1 }
            }
        } catch let error as StoreError {
            throw error
        } catch {
            try dropIndex()
            return try forEachLiveIndexEntry(body)
        }
        guard live + tailLiveCount == state.liveCount else {
            // Checksums right, contents of another state of the log (a stale branch of it).
            try dropIndex()
            return try forEachLiveIndexEntry(body)
        }
        do {
            try index.forEachChunk { entries in
                for entry in entries where !superseded.contains(entry.ordinal) { try body(entry) }
            }
        } catch let error as StoreError {
            throw error
        } catch {
            // The file is immutable once in place and was just checked: this is a read that changed under us.
            throw StoreError(.corrupt, "the index changed while it was read: \(error)", path: indexPath)
        }
    }

    /// The ordinals of index entries whose keys have a newer frame in the tail.
    private func supersededOrdinals() throws(StoreError) -> Set<Int> {
        guard index != nil else { return [] }
        var result: Set<Int> = []
        do {
            for key in tail.keys {
                if let old = try locateInIndex(key) { result.insert(old.ordinal) }
            }
        } catch let error as StoreError {
            throw error
        } catch {
            try dropIndex()
            return []
        }
        return result
    }

    /// The ordinals of the live frames, as a bitmap of `frameCount` bits. An index that names one frame twice
    /// is dropped and the log read.
    func liveOrdinals() throws(StoreError) -> LiveBitmap {
        var bitmap = LiveBitmap(count: state.frameCount)
        var distinct = true
        try forEachLiveLocation { location throws(StoreError) in
            guard location.ordinal >= 0, location.ordinal < state.frameCount else {
                throw StoreError(.corrupt, "an index entry names frame \(location.ordinal) of \(state.frameCount)", path: indexPath)
            }
            if !bitmap.insert(location.ordinal) { distinct = false }
        }
        guard distinct || index == nil else {
            try dropIndex()
            return try liveOrdinals()
        }
        return bitmap
    }

    /// Calls `body` with each live record's frame, in log order, verifying every frame of the log.
    func forEachLiveFrame(_ body: (LogFrame) throws(StoreError) -> Void) throws(StoreError) {
        let live = try liveOrdinals()
        try forEachFrame(from: RecordLog.firstFrame, firstOrdinal: 0) { header, offset, ordinal, bytes, start throws(StoreError) in
            guard live.contains(ordinal) else { return }
            let keyEnd = start + RecordLog.frameHeaderSize + header.keyLength
            try body(LogFrame(header: header, offset: offset, ordinal: ordinal,
                              key: Array(bytes[start + RecordLog.frameHeaderSize..<keyEnd]),
                              payload: Array(bytes[keyEnd..<start + header.length])))
        }
    }

    // MARK: Writing (the caller holds the store's lock and opened the log read-write)

    /// One change to commit.
    enum Change {
        case put(key: [UInt8], expiry: Double?, payload: [UInt8], replacing: FrameLocation?)
        case delete(key: [UInt8], replacing: FrameLocation)
    }

    /// Appends the frames of `changes` after the committed log, syncs them, then commits them in the other
    /// slot and syncs again. On failure before the commit nothing is visible; a failed sync after the commit
    /// is ``StoreError/Code/durabilityUnknown`` (visible, durability unknown).
    func commit(_ changes: [Change]) throws(StoreError) {
        guard !changes.isEmpty else { return }
        var next = state
        next.sequence += 1
        var bytes: [UInt8] = []
        var located: [([UInt8], FrameLocation)] = []
        var chain = state.chain ?? 0
        for change in changes {
            let frame: [UInt8]
            let key: [UInt8]
            switch change {
            case .put(let k, let expiry, let payload, let replacing):
                guard k.count <= RecordLog.largestKey else {
                    throw StoreError(.invalidArgument, "the record id takes \(k.count) bytes; at most \(RecordLog.largestKey)", path: path)
                }
                frame = FrameHeader.encode(kind: .put, key: k, expiry: expiry, payload: payload)
                guard frame.count <= RecordLog.largestFrame else {
                    throw StoreError(.invalidArgument, "the record archives to \(frame.count) bytes; at most 4 GiB", path: path)
                }
                key = k
                if let replacing { next.liveBytes -= replacing.length } else { next.liveCount += 1 }
                next.liveBytes += frame.count
            case .delete(let k, let replacing):
                frame = FrameHeader.encode(kind: .delete, key: k, expiry: nil, payload: [])
                key = k
                next.liveCount -= 1
                next.liveBytes -= replacing.length
            }
            let header = try FrameHeader(frame, at: 0, available: frame.count, fileOffset: next.committed, path: path)
            located.append((key, FrameLocation(kind: header.kind, offset: state.committed + bytes.count,
                                               ordinal: next.frameCount, length: frame.count, expiryBits: header.expiryBits)))
            chain = LogState.chain(chain, after: header.checksum)
            bytes += frame
            next.frameCount += 1
        }
        next.committed += bytes.count
        next.chain = chain
        guard next.liveCount >= 0, next.liveBytes >= 0, next.liveBytes <= next.committed - RecordLog.firstFrame else {
            throw StoreError(.corrupt, "the commit's counts do not match the log (live records \(next.liveCount), live bytes \(next.liveBytes))",
                             path: path, offset: RecordLog.slotOffset(of: state))
        }
        // Bytes past the committed length are an uncommitted write's: cut them off (StoreFile.open has
        // refused a store whose damaged commit slot may hide a commit of them).
        let size = try StoreFile.fileSize(try fileSystem.status(fd, path), path)
        if size > state.committed { try fileSystem.truncate(fd, to: state.committed, path) }
        do throws(StoreError) {
            try fileSystem.write(fd, bytes, at: state.committed, path)
            try fileSystem.sync(fd, path)
        } catch {
            // Nothing is committed; give back the space if possible (the next writer cuts it off otherwise).
            _ = try? fileSystem.truncate(fd, to: state.committed, path)
            throw error
        }
        do throws(StoreError) {
            try fileSystem.write(fd, next.serialized(), at: RecordLog.slotOffset(of: next), path)
        } catch {
            // The slot may be in place or not: what the file now says is what readers see.
            let prologue = try? fileSystem.read(fd, count: RecordLog.firstFrame, at: 0, path)
            if let prologue, let now = try? RecordLog.prologue(prologue, path: path).state, now == next {
                state = next
                for (key, location) in located { tail[key] = location }
                throw StoreError(.durabilityUnknown, "the change is in the store, but writing its commit failed: \(error.reason)",
                                 path: path, errno: error.errno)
            }
            undoFailedCommit(slot: RecordLog.slotOffset(of: next))
            throw error
        }
        state = next
        for (key, location) in located { tail[key] = location }
        do {
            try fileSystem.sync(fd, path)
        } catch {
            throw StoreError(.durabilityUnknown, "the change is in the store, but the sync after its commit failed: \(error.reason)",
                             path: path, errno: error.errno)
        }
    }

    /// Takes back a commit whose slot write failed (a full disk: part of the slot written, then `ENOSPC`), so
    /// that the store reads as it was, with no recovery step: the frames past the committed length are cut
    /// off first (a call that needs no room; then a damaged slot hides nothing, and readers open the store),
    /// then the slot, which may be torn, is written again as a copy of the current commit, and the file synced.
    /// Each step is best effort. Only when the cut fails as well does the torn slot, with the failed change's
    /// frames after it, read as ``StoreError/Code/damagedCommit`` (the format cannot tell it from damage
    /// then); a power cut never tears a slot (it lies inside one sector), so a writer that dies here leaves
    /// the old slot or the new one.
    private func undoFailedCommit(slot offset: Int) {
        _ = try? fileSystem.truncate(fd, to: state.committed, path)
        _ = try? fileSystem.write(fd, state.serialized(), at: offset, path)
        _ = try? fileSystem.sync(fd, path)
    }

    /// Merges the tail into a new index when it has grown past the tuning, or when there is no usable index.
    /// Failures are left for the next writer: the log is already committed.
    func maintainIndex(force: Bool = false) {
        guard force || index == nil || tailFrames >= tuning.mergeFrames || tailBytes >= tuning.mergeBytes,
              (try? IndexReader.mayReplace(indexPath, fileSystem: fileSystem)) == true
        else { return }
        do {
            try RecordIndex.write(try liveEntries().sorted(), of: state, to: indexPath, fileSystem: fileSystem)
        } catch {
            return
        }
    }

    /// The index entry of every live record: the index's, less those the tail replaced, and the tail's puts.
    func liveEntries() throws(StoreError) -> [IndexEntry] {
        var entries: [IndexEntry] = []
        entries.reserveCapacity(state.liveCount)
        try forEachLiveIndexEntry { entry throws(StoreError) in entries.append(entry) }
        for (key, location) in tail where location.kind == .put {
            entries.append(IndexEntry(hash: RecordIndex.hash(key), offset: location.offset, ordinal: location.ordinal,
                                      expiryBits: location.expiryBits))
        }
        return entries
    }

    /// Rewrites the log with only its live frames (copied byte for byte, in log order) and a new index. Also
    /// how a format 1 log becomes format 2.
    func compact() throws(StoreError) {
        let entries = try liveEntries().sorted { $0.ordinal < $1.ordinal }
        var builder = try LogBuilder(path: path, fileSystem: fileSystem, recordVersion: state.recordVersion)
        do throws(StoreError) {
            var next = 0
            try forEachFrame(from: RecordLog.firstFrame, firstOrdinal: 0) { header, _, ordinal, bytes, start throws(StoreError) in
                guard next < entries.count, entries[next].ordinal == ordinal else { return }
                try builder.add(frame: Array(bytes[start..<start + header.length]), checksum: header.checksum,
                                hash: entries[next].hash, expiryBits: header.expiryBits)
                next += 1
            }
            guard next == entries.count else {
                throw StoreError(.corrupt, "the index names frames the log does not have", path: indexPath)
            }
        } catch {
            builder.abandon()
            throw error
        }
        try builder.install()
    }

    /// Whether the dead frames now outweigh the live ones enough to rewrite the log.
    var needsCompaction: Bool {
        state.deadBytes > max(state.liveBytes, tuning.compactionFloor)
    }
}

/// A set of frame ordinals, one bit each.
struct LiveBitmap {
    private var words: [UInt64]

    init(count: Int) { words = [UInt64](repeating: 0, count: (count + 63) / 64) }

    /// Adds `ordinal`, and says whether it was new; one outside the bitmap is ignored (callers check bounds
    /// first).
    @discardableResult
    mutating func insert(_ ordinal: Int) -> Bool {
        guard ordinal >= 0, ordinal >> 6 < words.count else { return false }
        let bit: UInt64 = 1 << UInt64(ordinal & 63)
        defer { words[ordinal >> 6] |= bit }
        return words[ordinal >> 6] & bit == 0
    }

    func contains(_ ordinal: Int) -> Bool {
        ordinal >= 0 && ordinal >> 6 < words.count && words[ordinal >> 6] & (1 << UInt64(ordinal & 63)) != 0
    }
}
