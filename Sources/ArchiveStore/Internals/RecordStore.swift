#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a live record's frame is.
struct FrameLocation: Hashable, Sendable {
    var kind: FrameKind
    var offset: Int
    var ordinal: Int
    var length: Int
    var expiryBits: UInt64

    var expiry: Double? { RecordLog.expiry(fromBits: expiryBits) }
}

/// What a store file is.
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
    /// a FIFO or device, or a file with another hard link is refused without blocking.
    static func open(_ path: String, fileSystem: FileSystem, writable: Bool, tuning: StoreTuning) throws(StoreError) -> StoreFile {
        let flags = (writable ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_NONBLOCK
        guard let fd = try fileSystem.open(path, flags, missingIsNil: true) else { return .absent }
        var owned = true
        defer { if owned { fileSystem.close(fd) } }
        let info = try fileSystem.status(fd, path)
        try SystemCalls.requireOwnRegularFile(info, path)
        let prologue = try fileSystem.read(fd, count: RecordLog.firstFrame, at: 0, path)
        guard RecordLog.isLog(prologue) else {
            guard let bytes = try fileSystem.readFile(fd, path, limit: StoreFile.largestSingleArchive) else {
                throw StoreError(.corrupt, "not a record log, and too large (\(info.st_size) bytes) for a store of one archive",
                                 path: path, offset: 0)
            }
            return .singleArchive(bytes)
        }
        let state = try RecordLog.state(fromPrologue: prologue, path: path)
        // A writer may have committed between the status and the prologue read (readers take no lock): its
        // frames were written before its commit, so the size read after the prologue covers them.
        let size = state.committed <= Int(info.st_size) ? Int(info.st_size) : Int(try fileSystem.status(fd, path).st_size)
        guard state.committed <= size else {
            throw StoreError(.corrupt, "the file (\(size) bytes) is shorter than its committed length \(state.committed)",
                             path: path, offset: size)
        }
        owned = false
        return .log(try StoreSnapshot(fd: fd, state: state, path: path, fileSystem: fileSystem, tuning: tuning))
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

/// A consistent view of a record log for reading: one committed state, the index (when it belongs to the
/// log) and the frames past it, read from the log. Valid while it lives; the log file stays open.
final class StoreSnapshot {
    let fd: Int32
    let path: String
    let fileSystem: FileSystem
    let tuning: StoreTuning
    private(set) var state: LogState
    private(set) var index: IndexReader?
    /// The latest frame of each key past the index.
    private(set) var tail: [[UInt8]: FrameLocation] = [:]
    private(set) var tailStart = RecordLog.firstFrame
    private(set) var tailFirstOrdinal = 0

    var indexPath: String { path + ".index" }

    init(fd: Int32, state: LogState, path: String, fileSystem: FileSystem, tuning: StoreTuning) throws(StoreError) {
        self.fd = fd
        self.state = state
        self.path = path
        self.fileSystem = fileSystem
        self.tuning = tuning
        // From here on the descriptor is ours: `deinit` closes it, also when this initializer throws.
        try attachIndex()
        do {
            try scanTail()
        } catch where index != nil && error.code == .corrupt {
            // The index's covered length is not a frame boundary of this log (an index kept from another
            // branch of it, as when the log alone is restored from a backup): the log decides.
            try dropIndex()
        }
    }

    deinit { fileSystem.close(fd) }

    /// Uses the index when it belongs to this log; otherwise the whole log is the tail.
    private func attachIndex() throws(StoreError) {
        index = nil
        tailStart = RecordLog.firstFrame
        tailFirstOrdinal = 0
        let candidate: IndexReader?
        do {
            candidate = try IndexReader.open(indexPath, fileSystem: fileSystem)
        } catch {
            return   // damaged or unreadable: scan the log
        }
        guard let candidate, candidate.generation == state.generation else { return }
        if candidate.covered > state.committed {
            // The index was merged after this state was read: read the newer state once.
            let prologue = try fileSystem.read(fd, count: RecordLog.firstFrame, at: 0, path)
            state = try RecordLog.state(fromPrologue: prologue, path: path)
            let size = Int(try fileSystem.status(fd, path).st_size)
            guard state.committed <= size else {
                throw StoreError(.corrupt, "the file (\(size) bytes) is shorter than its committed length \(state.committed)",
                                 path: path, offset: size)
            }
        }
        guard candidate.covered <= state.committed, candidate.coveredFrames <= state.frameCount,
              candidate.covered >= RecordLog.firstFrame
        else { return }
        index = candidate
        tailStart = candidate.covered
        tailFirstOrdinal = candidate.coveredFrames
    }

    /// Reads the frames past the index, verifying each.
    private func scanTail() throws(StoreError) {
        tail = [:]
        try forEachFrame(from: tailStart, firstOrdinal: tailFirstOrdinal) { header, offset, ordinal, bytes, start throws(StoreError) in
            let key = Array(bytes[start + RecordLog.frameHeaderSize..<start + RecordLog.frameHeaderSize + header.keyLength])
            tail[key] = FrameLocation(kind: header.kind, offset: offset, ordinal: ordinal, length: header.length,
                                      expiryBits: header.expiryBits)
        }
    }

    /// Gives up the index after it proved damaged: the whole log becomes the tail.
    private func dropIndex() throws(StoreError) {
        index = nil
        tailStart = RecordLog.firstFrame
        tailFirstOrdinal = 0
        try scanTail()
    }

    /// The frames past the index, how many.
    var tailFrames: Int { state.frameCount - tailFirstOrdinal }
    var tailBytes: Int { state.committed - tailStart }

    // MARK: Frames

    /// Calls `body` for each committed frame from `start` (its header, file offset, ordinal, and a buffer
    /// holding the whole frame at an index), reading in chunks and verifying every checksum.
    /// - Throws: ``StoreError/Code/corrupt`` at the first damaged frame, with its offset.
    func forEachFrame(
        from start: Int, firstOrdinal: Int,
        _ body: (FrameHeader, Int, Int, [UInt8], Int) throws(StoreError) -> Void
    ) throws(StoreError) {
        let end = state.committed
        let chunk = 1 << 20
        var position = start
        var ordinal = firstOrdinal
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
                    ordinal += 1
                    i = header.length
                    break
                }
                guard header.verify(buffer, at: i) else {
                    throw StoreError(.corrupt, "a frame fails its checksum", path: path, offset: position + i)
                }
                try body(header, position + i, ordinal, buffer, i)
                ordinal += 1
                i += header.length
            }
            position += i
        }
        guard ordinal == state.frameCount else {
            throw StoreError(.corrupt, "the log holds \(ordinal) frames, its commit says \(state.frameCount)", path: path,
                             offset: end)
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
    /// dropped (the log is scanned), a log that disagrees with its commit is corrupt.
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
    /// that fails is dropped before anything is delivered, and the log is scanned.
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
    /// is dropped and the log scanned.
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
            bytes += frame
            next.frameCount += 1
        }
        next.committed += bytes.count
        guard next.liveCount >= 0, next.liveBytes >= 0, next.liveBytes <= next.committed - RecordLog.firstFrame else {
            throw StoreError(.corrupt, "the commit's counts do not match the log (live records \(next.liveCount), live bytes \(next.liveBytes))",
                             path: path, offset: RecordLog.slotOffset(of: state))
        }
        let size = Int(try fileSystem.status(fd, path).st_size)
        if size > state.committed { try fileSystem.truncate(fd, to: state.committed, path) }
        do throws(StoreError) {
            try fileSystem.write(fd, bytes, at: state.committed, path)
            try fileSystem.sync(fd, path)
        } catch {
            // Nothing is committed; give back the space if possible (the next writer cuts it off otherwise).
            _ = try? FileSystem.kernel.truncate(fd, to: state.committed, path)
            throw error
        }
        do throws(StoreError) {
            try fileSystem.write(fd, next.serialized(), at: RecordLog.slotOffset(of: next), path)
        } catch {
            // The slot may be in place or not: what the file now says is what readers see.
            let prologue = try? FileSystem.kernel.read(fd, count: RecordLog.firstFrame, at: 0, path)
            if let prologue, let now = try? RecordLog.state(fromPrologue: prologue, path: path), now == next {
                state = next
                for (key, location) in located { tail[key] = location }
                throw StoreError(.durabilityUnknown, "the change is in the store, but writing its commit failed: \(error.reason)",
                                 path: path, errno: error.errno)
            }
            throw error
        }
        state = next
        for (key, location) in located { tail[key] = location }
        do {
            try fileSystem.sync(fd, path)
        } catch {
            throw StoreError(.durabilityUnknown, "the change is in the store, but fsync after its commit failed: \(error.reason)",
                             path: path, errno: error.errno)
        }
    }

    /// Merges the tail into a new index when it has grown past the tuning, or when there is no usable index.
    /// Failures are left for the next writer: the log is already committed.
    func maintainIndex(force: Bool = false) {
        guard force || index == nil || tailFrames >= tuning.mergeFrames || tailBytes >= tuning.mergeBytes,
              StoreFiles.mayReplaceIndex(indexPath, fileSystem: fileSystem)
        else { return }
        do {
            var entries = try liveEntries()
            entries.sort()
            let bytes = RecordIndex.serialized(entries, generation: state.generation, covered: state.committed,
                                               coveredFrames: state.frameCount)
            try StoreFiles.writeReplacing(indexPath, bytes, fileSystem: fileSystem, syncDirectory: false)
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

    /// Rewrites the log with only its live frames (copied byte for byte, in log order) and a new index.
    func compact() throws(StoreError) {
        let entries = try liveEntries().sorted { $0.ordinal < $1.ordinal }
        var builder = try LogBuilder(path: path, fileSystem: fileSystem, recordVersion: state.recordVersion)
        do throws(StoreError) {
            var next = 0
            try forEachFrame(from: RecordLog.firstFrame, firstOrdinal: 0) { header, _, ordinal, bytes, start throws(StoreError) in
                guard next < entries.count, entries[next].ordinal == ordinal else { return }
                try builder.add(frame: Array(bytes[start..<start + header.length]), hash: entries[next].hash,
                                expiryBits: header.expiryBits)
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

/// Whole files written beside the store: temporary file, fsync, rename.
enum StoreFiles {
    /// The prefix of the temporary files of `path` (`.<name>.tmp-`).
    static func temporaryPrefix(of path: String) -> String { ".\(PathName.lastComponent(of: path)).tmp-" }

    static func temporaryPath(for path: String) -> String {
        PathName.join(PathName.directory(of: path),
                      temporaryPrefix(of: path) + "\(SystemCalls.processID)-\(UInt32.random(in: 0 ... .max))")
    }

    /// Replaces `path` with `bytes` (mode 0600).
    static func writeReplacing(_ path: String, _ bytes: [UInt8], fileSystem: FileSystem, syncDirectory: Bool) throws(StoreError) {
        let temporary = temporaryPath(for: path)
        let fd = try fileSystem.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: SystemCalls.fileMode) ?? -1
        var open = true
        do throws(StoreError) {
            try SystemCalls.setMode(fd, SystemCalls.fileMode, temporary)
            try fileSystem.write(fd, bytes, temporary)
            try fileSystem.sync(fd, temporary)
            fileSystem.close(fd)
            open = false
            try fileSystem.rename(temporary, path)
        } catch {
            if open { fileSystem.close(fd) }
            _ = try? FileSystem.kernel.unlink(temporary)
            throw error
        }
        if syncDirectory { try fileSystem.syncDirectory(PathName.directory(of: path)) }
    }

    /// Whether the index at `path` may be replaced: nothing is there, or an index (or an empty file). Anything
    /// else (another store named like our index, say) is left alone, and the store is read without an index.
    static func mayReplaceIndex(_ path: String, fileSystem: FileSystem) -> Bool {
        let status: stat?
        do { status = try fileSystem.linkStatus(path) } catch { return false }
        guard let info = status else { return true }
        guard SystemCalls.isRegularFile(info) else { return false }
        if info.st_size == 0 { return true }
        guard let fd = try? fileSystem.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK) else { return false }
        defer { fileSystem.close(fd) }
        guard let magic = try? fileSystem.read(fd, count: RecordIndex.magic.count, at: 0, path) else { return false }
        return magic == RecordIndex.magic
    }

    /// Removes the temporary files of `path` left by writers that died. The caller holds the store's lock,
    /// which every writer holds while its temporary files exist, so every such file is stale. Failures are
    /// ignored (the next write tries again).
    static func removeStaleTemporaries(of path: String) {
        let directory = PathName.directory(of: path)
        let prefixes = [temporaryPrefix(of: path), temporaryPrefix(of: path + ".index")]
        guard let names = try? FileSystem.kernel.list(directory) else { return }
        for name in names where prefixes.contains(where: { name.hasPrefix($0) }) {
            let file = PathName.join(directory, name)
            if let info = try? SystemCalls.linkStatus(file), SystemCalls.isRegularFile(info) { SystemCalls.remove(file) }
        }
    }
}

/// Writes a whole new record log (and its index) to temporary files and puts them in place of the store:
/// the first write of a store, the migration of a single-archive store, compaction, and whole rewrites.
struct LogBuilder {
    let path: String
    let fileSystem: FileSystem
    private let temporary: String
    private let fd: Int32
    private var state: LogState
    private var pending: [UInt8] = []
    private var written: Int
    private var entries: [IndexEntry] = []
    private var closed = false

    init(path: String, fileSystem: FileSystem, recordVersion: Int) throws(StoreError) {
        self.path = path
        self.fileSystem = fileSystem
        temporary = StoreFiles.temporaryPath(for: path)
        guard let fd = try fileSystem.open(temporary, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, mode: SystemCalls.fileMode) else {
            throw StoreError(.io, "cannot create a temporary file", path: temporary)
        }
        self.fd = fd
        state = LogState.empty(recordVersion: recordVersion)
        written = RecordLog.firstFrame
        do throws(StoreError) {
            try SystemCalls.setMode(fd, SystemCalls.fileMode, temporary)
            try fileSystem.write(fd, RecordLog.prologue(state), at: 0, temporary)
        } catch {
            fileSystem.close(fd)
            _ = try? FileSystem.kernel.unlink(temporary)
            throw error
        }
    }

    /// Adds a live record's frame (already encoded and checked).
    mutating func add(frame: [UInt8], hash: UInt64, expiryBits: UInt64) throws(StoreError) {
        entries.append(IndexEntry(hash: hash, offset: state.committed, ordinal: state.frameCount, expiryBits: expiryBits))
        state.committed += frame.count
        state.frameCount += 1
        state.liveCount += 1
        state.liveBytes += frame.count
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
        try add(frame: frame, hash: RecordIndex.hash(key), expiryBits: (expiry ?? .nan).bitPattern)
    }

    private mutating func flush() throws(StoreError) {
        guard !pending.isEmpty else { return }
        try fileSystem.write(fd, pending, at: written, temporary)
        written += pending.count
        pending.removeAll(keepingCapacity: true)
    }

    /// Commits the new log, writes its index, and renames both into place (the index first), then syncs the
    /// directory. On failure the store is as it was and the temporary files are gone.
    mutating func install() throws(StoreError) {
        do throws(StoreError) {
            try flush()
            try fileSystem.write(fd, RecordLog.prologue(state), at: 0, temporary)
            try fileSystem.sync(fd, temporary)
            entries.sort()
            let index = RecordIndex.serialized(entries, generation: state.generation, covered: state.committed,
                                               coveredFrames: state.frameCount)
            if StoreFiles.mayReplaceIndex(path + ".index", fileSystem: fileSystem) {
                try StoreFiles.writeReplacing(path + ".index", index, fileSystem: fileSystem, syncDirectory: false)
            }
            fileSystem.close(fd)
            closed = true
            try fileSystem.rename(temporary, path)
        } catch {
            abandon()
            throw error
        }
        do throws(StoreError) {
            try fileSystem.syncDirectory(PathName.directory(of: path))
        } catch {
            throw StoreError(.durabilityUnknown, "the store is in place, but fsync of the directory failed: \(error.reason)",
                             path: path, errno: error.errno)
        }
    }

    /// Closes and removes the temporary log.
    mutating func abandon() {
        if !closed { fileSystem.close(fd) }
        closed = true
        _ = try? FileSystem.kernel.unlink(temporary)
    }
}
