import ArchivePlatform

/// What a store file is, opened.
enum OpenedStore {
    /// No file at the path.
    case absent
    /// A store written before the record log: one keyed archive holding every record.
    case singleArchive([UInt8])
    /// A record log, open.
    case log(StoreHandle)
}

/// An open record log (see ``RecordLog``): its descriptor, the last commit it has read, and the live records'
/// ``LiveTable``. A repository keeps one open and brings it up to date before each call with one read of the
/// commit slots (``refresh(unpublished:)``): frames that other processes committed since are read and applied,
/// nothing is read again. Readers take no lock and see whole commits: a commit is published by its slot,
/// written after its frames are synced.
///
/// A file that a rewrite (compaction, migration, recovery, ``ArchiveRepository/modify(_:)``) replaces is
/// marked retired first (a slot with ``RecordLog/retiredFlag``): a handle that reads the mark compares the
/// file at the path with its own and reopens when they differ. A writer compares them before every commit.
///
/// Not thread-safe: the repository holds it behind a lock.
final class StoreHandle {
    let path: String
    let fileSystem: FileSystem
    let fd: FileDescriptor
    /// The file's inode, to tell it from another file put at the path.
    let inode: UInt64
    /// A number no other handle of this process had: what a cache of what was read through the handle is kept
    /// under. The offsets of one log (one generation, one inode) name the same frames only as long as one handle
    /// follows it: a handle opened again after the log was found damaged or rewound (its commits fewer than the
    /// old handle had read) may see other frames written at the same offsets.
    let serial: UInt64
    private static let serials = Locked<UInt64>(0)
    /// Set when reading other processes' commits failed part way: the table may hold part of a commit, so
    /// the handle reports itself stale (the repository opens the store again) and is never used again.
    private(set) var isBroken = false
    /// The file's format (1, 2 or 3); only format 3 is written to.
    let format: UInt64
    /// Whether the file is open read-write.
    let writable: Bool
    let keyHash: KeyHash
    /// The commit the handle has read up to (counts, chain, end); `sequence` is that of the newest slot read.
    private(set) var state: LogState
    /// The newest slot on disk that the handle knows of (read, or written by it).
    private(set) var published: LogState
    private(set) var table: LiveTable
    /// The frames the on-disk index covered when the handle last read or wrote it.
    var indexedFrames: Int
    /// Whether the index on disk failed its checks (the next writer replaces it).
    var indexDamaged: Bool
    /// The header and slots as the last ``refresh()`` that found the handle current read them.
    private var lastSlots: [UInt8] = []
    /// Where ``refresh(unpublished:)`` reads the header and slots, and ``takeUnpublished(size:unpublished:)``
    /// a frame's header: storage kept from read to read (every new array costs an allocation and the runtime's
    /// lookup of its storage type).
    private var slotBuffer = [UInt8](repeating: 0, count: RecordLog.headerSize + 2 * RecordLog.slotSize)
    private var headerBuffer = [UInt8](repeating: 0, count: FrameHeader.size)
    /// The writer's view of the file's size: the log is kept written with zeros past its last commit, a chunk
    /// at a time, so that a commit overwrites blocks the file already has and its sync need not change the
    /// file's size (see ``appendAndSync(_:)``). Only writers, under the writer lock, touch it.
    private var allocatedEnd = 0
    /// Format 2: the prologue as read, to notice any change (such a log is read once, then migrated).
    private var legacyPrologue: [UInt8] = []
    /// Counters the repository reports (``RepositoryStatistics``).
    let counters: StoreCounters
    /// What each commit applied since the repository last took it (``takeJournal()``): kept while property
    /// indexes or observers follow the table, `nil` (nothing recorded) otherwise.
    private(set) var journal: [TableChange]?

    var indexPath: String { path + ".index" }
    var isChained: Bool { format >= 3 }
    var generation: UInt64 { state.generation }

    init(path: String, fileSystem: FileSystem, fd: FileDescriptor, inode: UInt64, format: UInt64, writable: Bool,
         state: LogState, counters: StoreCounters) {
        self.path = path
        self.fileSystem = fileSystem
        self.fd = fd
        self.inode = inode
        serial = Self.serials.withLock { last in
            last &+= 1
            return last
        }
        self.format = format
        self.writable = writable
        self.state = state
        self.counters = counters
        published = state
        keyHash = KeyHash(generation: state.generation)
        table = LiveTable()
        indexedFrames = 0
        indexDamaged = false
    }

    deinit { fileSystem.close(fd) }

    // MARK: Opening

    /// The largest store of one keyed archive (from before the record log) that is read: 1 GiB.
    static let largestSingleArchive = 1 << 30

    /// Opens the store at `path`: read-write when the file allows it, else read-only. A symbolic link, a FIFO
    /// or device, or a file with another hard link is refused without blocking; so is the same at the index
    /// path. Commits found past the newest slot (a writer that died before publishing, or whose slot a power
    /// cut lost) are taken only inside `unpublished` (which runs its body holding the writer lock, or not at
    /// all when another process holds it), after a sync.
    /// - Throws: ``StoreError/Code/corrupt`` (with the offset) when the file cannot be read as a store,
    ///   ``StoreError/Code/damagedCommit`` when damage hides commits that later ones prove were made.
    static func open(_ path: String, fileSystem: FileSystem, counters: StoreCounters,
                     unpublished: Unpublished) throws(StoreError) -> OpenedStore {
        var writable = true
        var opened = try openFile(path, [.readWrite, .noFollow, .nonBlocking], fileSystem)
        if case .refused = opened {
            writable = false
            opened = try openFile(path, [.readOnly, .noFollow, .nonBlocking], fileSystem)
        }
        guard case .open(let fd) = opened else { return .absent }
        var owned = true
        defer { if owned { fileSystem.close(fd) } }
        let info = try fileSystem.status(fd, path)
        try info.requireOwnRegularFile(path)
        let bytes = try fileSystem.read(fd, count: RecordLog.firstFrame, at: 0, path)
        guard RecordLog.isLog(bytes) else {
            guard let whole = try fileSystem.readWhole(fd, path, limit: largestSingleArchive) else {
                throw StoreError(.corrupt, "not a record log, and too large (\(info.size) bytes) for a store of one archive",
                                 path: path, offset: 0)
            }
            return .singleArchive(whole)
        }
        let prologue = try RecordLog.prologue(bytes, path: path)
        owned = false
        let handle = StoreHandle(path: path, fileSystem: fileSystem, fd: fd, inode: info.inode, format: prologue.format,
                                 writable: writable, state: prologue.state, counters: counters)
        // A writer may have committed between the status and the prologue read (readers take no lock): its
        // frames were written before its slot, so the size read after the prologue covers them.
        var size = try fileSize(info, path)
        if prologue.state.committed > size { size = try fileSize(try fileSystem.status(fd, path), path) }
        guard prologue.state.committed <= size else {
            throw StoreError(.corrupt, "the file (\(size) bytes) is shorter than its committed length \(prologue.state.committed)",
                             path: path, offset: size)
        }
        if handle.isChained {
            try handle.load(size: size, unpublished: unpublished)
            handle.remember(Array(bytes[0..<RecordLog.headerSize + 2 * RecordLog.slotSize]))
        } else {
            handle.legacyPrologue = bytes
            try handle.loadLegacy(prologue, size: size)
        }
        return .log(handle)
    }

    /// How a reader may take commits that no slot publishes yet. (An enum, not a stored closure: a closure
    /// type with typed throws needs a runtime function Apple's platforms have only from macOS 15 and iOS 18.)
    enum Unpublished: Sendable {
        /// A writer, who holds the lock already.
        case held
        /// A reader that never takes them (the background index writer: they are not its to take).
        case never
        /// A reader that takes them holding the writer lock at `lockPath` when it is free now (no writer is in
        /// the middle of a commit then), never waiting for it.
        case whenLockIsFree(lockPath: String, fileSystem: FileSystem)

        /// Runs the body holding the writer lock; `false` without running it when another holds the lock.
        func withWriterLock(_ body: () throws(StoreError) -> Void) throws(StoreError) -> Bool {
            switch self {
            case .held:
                try body()
                return true
            case .never:
                return false
            case .whenLockIsFree(let lockPath, let fileSystem):
                guard let lock = try? WriterLock(path: lockPath, fileSystem: fileSystem),
                      (try? lock.acquire(exclusive: true, waiting: .never)) == true
                else { return false }
                defer { lock.release() }
                try body()
                return true
            }
        }
    }

    private enum OpenAttempt {
        case open(FileDescriptor)
        case absent
        /// Not opened for writing (a read-only file or file system); opened read-only instead.
        case refused
    }

    private static func openFile(_ path: String, _ flags: OpenFlags, _ fileSystem: FileSystem) throws(StoreError) -> OpenAttempt {
        do {
            guard let fd = try fileSystem.openIfPresent(path, flags) else { return .absent }
            return .open(fd)
        } catch where flags.contains(.readWrite) && (error.errno == Errno.permissionDenied.rawValue || error.errno == Errno.readOnlyFileSystem.rawValue) {
            return .refused
        }
    }

    /// The size of a file as an `Int`.
    static func fileSize(_ info: FileStatus, _ path: String) throws(StoreError) -> Int {
        guard let size = Int(exactly: info.size) else {
            throw StoreError(.corrupt, "the file (\(info.size) bytes) is too large for this platform", path: path)
        }
        return size
    }

    /// Format 3: the index (when it belongs to this log), the frames after it up to the newest slot, and the
    /// commits past the slot that `unpublished` lets the handle take.
    private func load(size: Int, unpublished: Unpublished) throws(StoreError) {
        let slot = state
        var usedIndex = false
        resetToStart(slot)
        if let snapshot = try usableIndex(slot: slot, size: size) {
            table = snapshot.table
            state.committed = snapshot.covered
            state.frameCount = snapshot.coveredFrames
            state.liveBytes = snapshot.liveBytes
            state.liveCount = snapshot.table.count
            state.chain = snapshot.chain
            indexedFrames = snapshot.coveredFrames
            usedIndex = true
        }
        if state.committed < slot.committed {
            do {
                try replayPublished(to: slot)
            } catch where usedIndex && error.code == .corrupt {
                // The frames after the index do not follow it, or do not add up to the slot: the log decides.
                indexDamaged = true
                resetToStart(slot)
                try replayPublished(to: slot)
            }
        }
        if size > state.committed {
            try takeUnpublished(size: size, unpublished: unpublished)
        }
    }

    /// Forgets the table: the whole log is to be read from its first frame.
    private func resetToStart(_ slot: LogState) {
        table = LiveTable()
        state = slot
        state.committed = RecordLog.firstFrame
        state.frameCount = 0
        state.liveCount = 0
        state.liveBytes = 0
        state.chain = RecordLog.seed(generation: slot.generation)
        indexedFrames = 0
        isBroken = false
    }

    /// The index on disk when it belongs to this log at or past the newest slot; `nil` (reading the log
    /// instead) when there is none or it fails its checks.
    private func usableIndex(slot: LogState, size: Int) throws(StoreError) -> IndexFile.Snapshot? {
        let snapshot: IndexFile.Snapshot
        do {
            snapshot = try IndexFile.load(indexPath, generation: slot.generation, fileSystem: fileSystem)
        } catch let error as StoreError {
            if error.code == .io || error.code == .protectedDataUnavailable { return nil }   // unreadable: read the log
            throw error   // a symbolic link, hard link or non-regular file: refused
        } catch IndexFile.Unusable.absent {
            return nil
        } catch {
            indexDamaged = true
            return nil
        }
        if snapshot.covered < slot.committed {
            // The frame after it must link to it (checked as the frames are replayed).
            return snapshot
        }
        if snapshot.covered == slot.committed {
            guard snapshot.chain == slot.chain, snapshot.coveredFrames == slot.frameCount,
                  snapshot.table.count == slot.liveCount, snapshot.liveBytes == slot.liveBytes
            else {
                indexDamaged = true
                return nil
            }
            return snapshot
        }
        // Past the newest slot: written after a commit whose slot a crash lost. Its frames must link from the
        // slot to the index's chain, exactly at its covered length.
        guard snapshot.covered <= size,
              let end = try? walk(from: slot.committed, to: snapshot.covered, chain: slot.chain, { _, _, _, _ throws(StoreError) in }),
              end.offset == snapshot.covered, end.chain == snapshot.chain, slot.frameCount + end.frames == snapshot.coveredFrames
        else {
            indexDamaged = true
            return nil
        }
        return snapshot
    }

    /// Applies the frames from the handle's commit up to `slot`'s, all committed, and checks that they end
    /// exactly there with the slot's chain and counts.
    /// - Throws: ``StoreError/Code/corrupt`` with the offset of the first frame that does not belong.
    private func replayPublished(to slot: LogState) throws(StoreError) {
        do throws(StoreError) {
            try replayFrames(to: slot)
        } catch {
            isBroken = true   // the table may hold part of the commit
            throw error
        }
    }

    private func replayFrames(to slot: LogState) throws(StoreError) {
        let start = state.committed
        let end = try walk(from: start, to: slot.committed, chain: state.chain) { header, offset, bytes, at throws(StoreError) in
            try apply(header, offset: offset, bytes: bytes, at: at)
        }
        guard end.offset == slot.committed, !end.stoppedEarly else {
            throw StoreError(.corrupt, end.stoppedEarly ? end.reason : "a frame runs past the committed length", path: path, offset: end.offset)
        }
        table.compactIfSparse()
        state.committed = end.offset
        state.chain = end.chain
        state.frameCount += end.frames
        guard state.chain == slot.chain, state.frameCount == slot.frameCount, table.count == slot.liveCount,
              state.liveBytes == slot.liveBytes
        else {
            throw StoreError(.corrupt, "the log's frames are not the ones its commit names (chain, frame count or live records differ)",
                             path: path, offset: slot.committed)
        }
        state.liveCount = table.count
        state.sequence = slot.sequence
        state.flags = slot.flags
        published = slot
    }

    /// Takes the whole commits past the handle's commit (they link to it and end with a flagged frame) when
    /// `unpublished` lets it: syncs the file first (a writer that died may have left them unsynced). Frames
    /// that do not belong are left (the next commit writes over them), unless intact commits follow them
    /// through their chain, which proves that they were committed: then ``StoreError/Code/damagedCommit``.
    private func takeUnpublished(size: Int, unpublished: Unpublished) throws(StoreError) {
        // Usually zeros written ahead: nothing to take, and no lock to ask for. A read that fails is an error
        // (taking it for "nothing there" would let a writer write over commits made past the slot).
        guard size - state.committed >= FrameHeader.size else { return }
        guard try fileSystem.read(fd, into: &headerBuffer, at: state.committed, path) == FrameHeader.size,
              let first = try? FrameHeader(headerBuffer, at: 0, available: size - state.committed, fileOffset: state.committed, path: path,
                                           chained: true),
              first.link == state.chain
        else { return }
        let taken = try unpublished.withWriterLock { () throws(StoreError) in
            let start = state.committed
            var commitEnd = start
            let end = try walk(from: start, to: size, chain: state.chain) { header, offset, _, _ throws(StoreError) in
                if header.endsCommit { commitEnd = offset + header.length }
            }
            if end.stoppedEarly { try checkForHiddenCommits(at: end.offset, chain: end.chain, size: size) }
            guard commitEnd > start else { return }
            try fileSystem.sync(fd, path)
            counters.syncs.add(1)
            let applied: WalkEnd
            do throws(StoreError) {
                applied = try walk(from: start, to: commitEnd, chain: state.chain) { header, offset, bytes, at throws(StoreError) in
                    try apply(header, offset: offset, bytes: bytes, at: at)
                }
                guard applied.offset == commitEnd, !applied.stoppedEarly else {
                    throw StoreError(.corrupt, "the log changed while it was read", path: path, offset: applied.offset)
                }
            } catch {
                isBroken = true   // the table may hold part of the commits
                throw error
            }
            table.compactIfSparse()
            state.committed = commitEnd
            state.chain = applied.chain
            state.frameCount += applied.frames
            state.liveCount = table.count
        }
        _ = taken
    }

    /// At a frame that does not belong, past the published commits: whether commits that link through it
    /// follow (a frame damaged after its commit and a later one were made), which is ``StoreError/Code/damagedCommit``.
    private func checkForHiddenCommits(at offset: Int, chain: UInt32, size: Int) throws(StoreError) {
        guard size - offset >= FrameHeader.size else { return }
        let prefix = try fileSystem.read(fd, count: FrameHeader.size, at: offset, path)
        guard let header = try? FrameHeader(prefix, at: 0, available: size - offset, fileOffset: offset, path: path, chained: true),
              header.link == chain
        else { return }
        var flagged = header.endsCommit ? 1 : 0
        let after = try walk(from: offset + header.length, to: size, chain: header.chainAfter) { next, _, _, _ throws(StoreError) in
            if next.endsCommit { flagged += 1 }
        }
        _ = after
        if flagged >= 2 {
            throw StoreError(
                .damagedCommit,
                "the frame at byte \(offset) is damaged while later commits follow it: commits after the last good one (byte \(state.committed)) are hidden by the damage; nothing was cut off",
                path: path, offset: offset)
        }
    }

    /// Format 2: every frame up to the newer slot, checked against it.
    private func loadLegacy(_ prologue: RecordLog.Prologue, size: Int) throws(StoreError) {
        let slot = prologue.state
        if let damaged = prologue.damagedSlot, intactFrame(at: slot.committed, size: size) {
            throw StoreError(
                .damagedCommit,
                "the commit slot at byte \(damaged) fails its checksum while intact frames follow the last good commit (byte \(slot.committed)): the newest commit may be lost; nothing was cut off",
                path: path, offset: damaged)
        }
        state.committed = RecordLog.firstFrame
        state.frameCount = 0
        state.liveBytes = 0
        let end = try walk(from: RecordLog.firstFrame, to: slot.committed, chain: 0) { header, offset, bytes, at throws(StoreError) in
            try apply(header, offset: offset, bytes: bytes, at: at)
        }
        table.compactIfSparse()
        guard end.offset == slot.committed, !end.stoppedEarly else {
            throw StoreError(.corrupt, end.stoppedEarly ? end.reason : "a frame runs past the committed length", path: path, offset: end.offset)
        }
        guard end.frames == slot.frameCount else {
            throw StoreError(.corrupt, "the log holds \(end.frames) frames, its commit says \(slot.frameCount)", path: path,
                             offset: slot.committed)
        }
        guard end.chain == slot.chain else {
            throw StoreError(.corrupt, "the log's frames are not the ones its commit names (their checksums chain to another value)",
                             path: path, offset: slot.committed)
        }
        guard table.count == slot.liveCount, state.liveBytes == slot.liveBytes else {
            throw StoreError(.corrupt, "the log holds \(table.count) live records, its commit says \(slot.liveCount)",
                             path: path, offset: slot.committed)
        }
        state = slot
    }

    /// Whether a whole frame that matches its checksum starts at `offset` (format 2).
    private func intactFrame(at offset: Int, size: Int) -> Bool {
        guard size - offset >= FrameHeader.size,
              let prefix = try? fileSystem.read(fd, count: FrameHeader.size, at: offset, path),
              let header = try? FrameHeader(prefix, at: 0, available: size - offset, fileOffset: offset, path: path),
              let frame = try? fileSystem.read(fd, count: header.length, at: offset, path)
        else { return false }
        return frame.count == header.length && header.verify(frame, at: 0)
    }

    // MARK: Following the table

    /// Starts recording what commits apply to the table (the repository calls it once it has read the table).
    func startJournal() {
        if journal == nil { journal = [] }
    }

    /// Stops recording (and drops what was recorded).
    func stopJournal() {
        if journal != nil { journal = nil }
    }

    /// What commits applied since the last call, in order; recording goes on.
    func takeJournal() -> [TableChange] {
        guard let taken = journal, !taken.isEmpty else { return [] }
        journal = []
        return taken
    }

    // MARK: Keeping up

    /// What ``refresh(unpublished:)`` found.
    enum Freshness {
        /// The handle holds the newest published commit.
        case current
        /// The file at the path is another, or this one cannot be brought up to date: open the path again.
        case stale
    }

    /// Brings the handle up to the newest published commit: one read of the slots; the frames committed since,
    /// when there are any.
    func refresh(unpublished: Unpublished) throws(StoreError) -> Freshness {
        if isBroken { return .stale }
        guard isChained else {
            let bytes = try fileSystem.read(fd, count: RecordLog.firstFrame, at: 0, path)
            return bytes == legacyPrologue ? .current : .stale
        }
        let read = try fileSystem.read(fd, into: &slotBuffer, at: 0, path)
        counters.slotReads.add(1)
        // Not a byte changed since the last check that found it current.
        if read == slotBuffer.count && sameBytes(slotBuffer, lastSlots) { return .current }
        let bytes = read == slotBuffer.count ? slotBuffer : Array(slotBuffer[0..<read])
        // The header is checked again too (a few bytes): a file damaged or replaced in place since it was opened
        // is opened again, and reported then.
        guard bytes.count == RecordLog.headerSize + 2 * RecordLog.slotSize, RecordLog.isLog(bytes),
              UInt64(Checksum.crc32(bytes, 0..<24)) == readLittleEndian(bytes, 24, width: 4),
              readLittleEndian(bytes, 8, width: 4) == format, readLittleEndian(bytes, 16, width: 8) == state.generation,
              let (slot, _) = RecordLog.slots(bytes, generation: state.generation, format: format)
        else { return .stale }
        if slot.isRetired {
            // A rewrite is about to put another file at the path (or one failed and left its mark): the file
            // at the path decides, at every refresh until the mark is gone (see `remember(_:)`).
            guard let now = try fileSystem.identity(path), now.inode == inode else { return .stale }
        }
        if slot == published {
            // The slots changed, but not the newest valid one: a newer slot damaged, or one being written as it
            // was read. Commits may follow the handle's, found through the chain (taken as at an open).
            try takeUnpublished(size: try Self.fileSize(try fileSystem.status(fd, path), path), unpublished: unpublished)
            remember(bytes)
            return .current
        }
        guard slot.sequence > published.sequence, slot.committed >= state.committed, slot.recordVersion == state.recordVersion
        else { return .stale }
        if slot.committed > state.committed {
            do {
                try replayPublished(to: slot)
            } catch where error.code == .corrupt {
                return .stale
            }
        } else {
            // Nothing new past what the handle read (commits it took unpublished, now published, or a mark).
            guard slot.chain == state.chain, slot.frameCount == state.frameCount, slot.liveCount == table.count,
                  slot.liveBytes == state.liveBytes
            else { return .stale }
            state.sequence = slot.sequence
            state.flags = slot.flags
            published = slot
        }
        remember(bytes)
        return .current
    }

    /// Keeps `bytes` (the header and slots just read) as what the next refresh compares with, unless the newest
    /// slot is marked retired: then every refresh reads on and checks the file at the path, so that a handle
    /// that read the mark just before the rename (the same file still at the path) notices the rename at once.
    private func remember(_ bytes: [UInt8]) {
        lastSlots = published.isRetired ? [] : bytes
    }

    // MARK: Frames

    /// Where ``walk(from:to:chain:_:)`` stopped.
    struct WalkEnd {
        /// The offset after the last frame that belongs (or of the first that does not).
        var offset: Int
        var chain: UInt32
        var frames: Int
        /// Why a frame that does not belong stopped the walk before `end`; `nil` when it reached `end`.
        var problem: String?

        /// Whether a frame that does not belong (damaged, torn, not linked, cut off) stopped the walk before `end`.
        var stoppedEarly: Bool { problem != nil }

        /// The problem as an error's reason.
        var reason: String { "a frame " + (problem ?? "is damaged") }
    }

    /// Reads the frames from `start` up to `end` in chunks, each matching its checksum and, in a chained log,
    /// linking to the chain so far (from `chain`), and calls `body` with each (its header, file offset, and a
    /// buffer holding the whole frame at an index). Stops at `end` or at the first frame that does not belong.
    func walk(from start: Int, to end: Int, chain: UInt32,
              _ body: (FrameHeader, Int, [UInt8], Int) throws(StoreError) -> Void) throws(StoreError) -> WalkEnd {
        let chunk = 1 << 20
        var position = start
        var chain = chain
        var frames = 0
        while position < end {
            let buffer = try fileSystem.read(fd, count: min(chunk, end - position), at: position, path)
            guard !buffer.isEmpty else { return WalkEnd(offset: position, chain: chain, frames: frames, problem: "is cut off by the end of the file") }
            var i = 0
            while i < buffer.count {
                let available = end - position - i
                if buffer.count - i < FrameHeader.size {
                    if i > 0 && available >= FrameHeader.size { break }   // refill from this frame
                    return WalkEnd(offset: position + i, chain: chain, frames: frames, problem: "is cut off by the end of the file")
                }
                guard let header = try? FrameHeader(buffer, at: i, available: available, fileOffset: position + i, path: path,
                                                    chained: isChained)
                else { return WalkEnd(offset: position + i, chain: chain, frames: frames, problem: "has an impossible header") }
                guard !isChained || header.link == chain else {
                    return WalkEnd(offset: position + i, chain: chain, frames: frames, problem: "does not link to the one before it")
                }
                if i + header.length > buffer.count {
                    if i > 0 { break }   // refill from this frame
                    // A frame larger than a chunk: read it alone.
                    let whole = try fileSystem.read(fd, count: header.length, at: position, path)
                    guard whole.count == header.length, header.verify(whole, at: 0) else {
                        return WalkEnd(offset: position, chain: chain, frames: frames, problem: "fails its checksum")
                    }
                    try body(header, position, whole, 0)
                    chain = LogState.chain(chain, after: header.checksum)
                    frames += 1
                    i = header.length
                    break
                }
                guard header.verify(buffer, at: i) else {
                    return WalkEnd(offset: position + i, chain: chain, frames: frames, problem: "fails its checksum")
                }
                try body(header, position + i, buffer, i)
                chain = LogState.chain(chain, after: header.checksum)
                frames += 1
                i += header.length
            }
            position += i
        }
        return WalkEnd(offset: position, chain: chain, frames: frames, problem: nil)
    }

    /// Applies one committed frame to the table and the live counts.
    private func apply(_ header: FrameHeader, offset: Int, bytes: [UInt8], at start: Int) throws(StoreError) {
        let key = Array(header.key(in: bytes, at: start))
        let hash = keyHash(key)
        let existing = try locate(key, hash: hash)
        switch header.kind {
        case .put:
            let entry = LiveEntry(hash: hash, offset: offset, length: header.length, expiryBits: header.expiryBits)
            journal?.append(TableChange(key: key, removed: existing.map { table.entries[$0].offset }, added: entry, values: nil))
            if let existing {
                state.liveBytes -= table.entries[existing].length
                table.replace(existing, with: entry)
            } else {
                table.insert(entry)
            }
            state.liveBytes += header.length
        case .delete:
            guard let existing else { return }
            journal?.append(TableChange(key: key, removed: table.entries[existing].offset, added: nil, values: nil))
            state.liveBytes -= table.entries[existing].length
            table.remove(existing)
        case .external:
            throw StoreError(.corrupt, "a record log holds an external frame", path: path, offset: offset)
        }
    }

    /// The index in the table of the live record filed under `key` (whose hash is `hash`), or `nil`: each entry
    /// with the hash is compared by the key its frame holds.
    func locate(_ key: [UInt8], hash: UInt64) throws(StoreError) -> Int? {
        try table.firstIndex(hash: hash) { index throws(StoreError) -> Bool in
            let entry = table.entries[index]
            let count = min(entry.length, FrameHeader.size + key.count)
            let prefix = try fileSystem.read(fd, count: count, at: entry.offset, path)
            guard prefix.count == count,
                  let header = try? FrameHeader(prefix, at: 0, available: entry.length, fileOffset: entry.offset, path: path,
                                                chained: isChained),
                  header.kind == .put, header.length == entry.length
            else { throw StoreError(.corrupt, "an index entry does not name a record frame", path: path, offset: entry.offset) }
            return FrameHeader.names(key, prefix: prefix[...])
        }
    }

    /// The live entry of `key`, or `nil`.
    func entry(for key: [UInt8]) throws(StoreError) -> LiveEntry? {
        try locate(key, hash: keyHash(key)).map { table.entries[$0] }
    }

    /// The frame of the live record filed under `key`, or `nil`: each entry with its hash is read whole (one
    /// read) and verified, and its key compared.
    func liveFrame(for key: [UInt8], kept: (Int) -> Bool = { _ in false }) throws(StoreError) -> LogFrame? {
        var found: LogFrame?
        _ = try table.firstIndex(hash: keyHash(key)) { index throws(StoreError) -> Bool in
            // A live entry whose record the caller keeps decoded (with this key) ends the search unread.
            if kept(table.entries[index].offset) { return true }
            let frame = try frame(table.entries[index])
            guard sameBytes(frame.key, key) else { return false }
            found = frame
            return true
        }
        return found
    }

    /// The whole frame of `entry`, verified.
    /// The payload is the bytes read, moved down over the header and key in their own storage: one array
    /// fewer made for each record read.
    func frame(_ entry: LiveEntry) throws(StoreError) -> LogFrame {
        var bytes = try fileSystem.read(fd, count: entry.length, at: entry.offset, path)
        let header = try Self.verifiedHeader(in: bytes, at: 0, of: entry, isChained: isChained, path: path)
        let keyEnd = FrameHeader.size + header.keyLength
        let key = Array(bytes[FrameHeader.size..<keyEnd])
        bytes.removeSubrange(0..<keyEnd)
        return LogFrame(header: header, offset: entry.offset, key: key, payload: bytes)
    }

    /// The frame of `entry` at `start` of `bytes`, verified.
    static func frame(in bytes: [UInt8], at start: Int, of entry: LiveEntry, isChained: Bool, path: String) throws(StoreError) -> LogFrame {
        let header = try verifiedHeader(in: bytes, at: start, of: entry, isChained: isChained, path: path)
        return verifiedFrame(header, in: bytes, at: start, offset: entry.offset)
    }

    /// The header of the frame of `entry` at `start` of `bytes`, the frame whole, a put of the entry's length
    /// matching its checksum.
    /// - Throws: ``StoreError/Code/corrupt`` with the frame's offset.
    private static func verifiedHeader(in bytes: [UInt8], at start: Int, of entry: LiveEntry, isChained: Bool,
                                       path: String) throws(StoreError) -> FrameHeader {
        guard bytes.count - start >= entry.length,
              let header = try? FrameHeader(bytes, at: start, available: entry.length, fileOffset: entry.offset, path: path,
                                            chained: isChained),
              header.length == entry.length, header.kind == .put, header.verify(bytes, at: start)
        else { throw StoreError(.corrupt, "a frame fails its checksum", path: path, offset: entry.offset) }
        return header
    }

    /// The frame whose `header`, at `start` of `bytes`, was verified (its checksum matched).
    private static func verifiedFrame(_ header: FrameHeader, in bytes: [UInt8], at start: Int, offset: Int) -> LogFrame {
        let keyEnd = start + FrameHeader.size + header.keyLength
        return LogFrame(header: header, offset: offset, key: Array(bytes[start + FrameHeader.size..<keyEnd]),
                        payload: Array(bytes[keyEnd..<start + header.length]))
    }

    /// Calls `body` with the frame of each of `entries` (in log order), verified, reading neighbouring frames
    /// together.
    func forEachFrame(_ entries: [LiveEntry], _ body: (LogFrame) throws(StoreError) -> Bool) throws(StoreError) {
        // `forEachRawFrame` has verified each header and checksum: the frame is made from them, not read again.
        try forEachRawFrame(entries) { entry, bytes, start, header throws(StoreError) -> Bool in
            try body(Self.verifiedFrame(header, in: bytes, at: start, offset: entry.offset))
        }
    }

    /// Calls `body` with each of `entries` (in log order), a buffer holding its whole frame at an index, and the
    /// frame's header, verified (a put of the entry's length matching its checksum), reading neighbouring frames
    /// in reads of up to a megabyte. `body` returns whether to go on: `false` ends the walk there.
    func forEachRawFrame(_ entries: [LiveEntry],
                         _ body: (LiveEntry, [UInt8], Int, FrameHeader) throws(StoreError) -> Bool) throws(StoreError) {
        let span = 1 << 20
        var i = 0
        while i < entries.count {
            // The frames from entries[i] that lie within one read of `span` bytes (a frame larger than it alone),
            // with gaps of dead frames between them of at most 4 KiB.
            let first = entries[i].offset
            var j = i + 1
            while j < entries.count, entries[j].offset >= entries[j - 1].offset + entries[j - 1].length,
                  entries[j].offset + entries[j].length - first <= span,
                  entries[j].offset - (entries[j - 1].offset + entries[j - 1].length) <= 4096 {
                j += 1
            }
            let length = entries[j - 1].offset + entries[j - 1].length - first
            let bytes = try fileSystem.read(fd, count: length, at: first, path)
            for entry in entries[i..<j] {
                let start = entry.offset - first
                guard bytes.count - start >= entry.length,
                      let header = try? FrameHeader(bytes, at: start, available: entry.length, fileOffset: entry.offset, path: path,
                                                    chained: isChained),
                      header.length == entry.length, header.kind == .put, header.verify(bytes, at: start)
                else { throw StoreError(.corrupt, "a frame fails its checksum", path: path, offset: entry.offset) }
                guard try body(entry, bytes, start, header) else { return }
            }
            i = j
        }
    }

    // MARK: Writing (the caller holds the writer lock)

    /// Readies the handle for a commit: the file at the path must still be this one; commits published or
    /// left unpublished by writers before are taken (and published), and bytes past the last commit cut off.
    /// `.stale`: open the path again.
    func prepareForWriting() throws(StoreError) -> Freshness {
        guard isChained, writable, !isBroken else { return .stale }
        // The file at the path, without its times (see `Kernel.identity(atPath:)`: asking for them would cost
        // this commit's sync a journal commit).
        guard let now = try fileSystem.identity(path), now.inode == inode, now.isRegularFile else { return .stale }
        guard try refresh(unpublished: .held) == .current else { return .stale }
        guard let size = Int(exactly: now.size) else {
            throw StoreError(.corrupt, "the file (\(now.size) bytes) is too large for this platform", path: path)
        }
        if size > state.committed { try takeUnpublished(size: size, unpublished: .held) }
        // What lies past the last commit (zeros written ahead, or frames of a commit that failed) is written
        // over by the next commit; the chain keeps any of it from being read as part of the log. Commits taken
        // past the slot, and a retired mark left by a rewrite that did not happen, are published by the next
        // commit's slot: a writer that fails before it changes no byte of the file.
        allocatedEnd = size
        return .current
    }

    /// Writes the handle's state in the next slot (no sync: see ``RecordLog``). Failures are left: the
    /// commits are durable, and found through the chain by whoever reads next.
    func publish(flags: UInt32 = 0) throws(StoreError) {
        var next = state
        next.sequence = published.sequence &+ 1
        next.flags = flags
        let slot = next.serialized()
        let offset = RecordLog.slotOffset(of: next)
        try fileSystem.write(fd, slot, at: offset, path)
        // What the next refresh will read, so that the handle's own slot is not taken for another's change.
        if next.isRetired {
            lastSlots = []
        } else if lastSlots.count == RecordLog.headerSize + 2 * RecordLog.slotSize {
            lastSlots.replaceSubrange(offset..<offset + RecordLog.slotSize, with: slot)
        }
        state.sequence = next.sequence
        state.flags = flags
        published = next
    }

    /// One commit's frames, built by ``CommitBuilder``.
    struct Commit {
        /// Where the frames go: the end of the last commit when they were built.
        var start: Int
        /// The bytes already written from `start` with ``writeAhead(_:at:)``; ``bytes`` follow them.
        var writtenAhead: Int
        var bytes: [UInt8]
        var frames: Int
        var chain: UInt32
        /// What the commit does to the table, in order.
        var changes: [CommitBuilder.Applied]
    }

    /// Writes `commit`'s frames after the last commit and syncs them; touches only the file, so readers of the
    /// handle go on meanwhile (the caller holds the writer lock, so nothing else writes there).
    /// - Throws: the write's or sync's error with nothing changed (the frames cut off again), or
    ///   ``StoreError/Code/durabilityUnknown`` when a failed sync's frames could not be cut off.
    func appendAndSync(_ commit: Commit) throws(StoreError) {
        guard !commit.bytes.isEmpty else { return }
        let end = commit.start + commit.writtenAhead + commit.bytes.count
        do throws(StoreError) {
            try fileSystem.write(fd, commit.bytes, at: commit.start + commit.writtenAhead, path)
            counters.bytesWritten.add(commit.bytes.count)
        } catch {
            allocatedEnd = commit.start
            _ = try? fileSystem.truncate(fd, to: commit.start, path)
            throw error
        }
        if end > allocatedEnd { extend(past: end) }
        do throws(StoreError) {
            try fileSystem.syncData(fd, path)
            counters.syncs.add(1)
        } catch {
            allocatedEnd = commit.start
            do throws(StoreError) {
                try fileSystem.truncate(fd, to: commit.start, path)
            } catch {
                throw StoreError(.durabilityUnknown, "the sync of the change failed and its frames could not be cut off: \(error.reason)",
                                 path: path, errno: error.errno)
            }
            throw error
        }
    }

    /// Writes zeros past `end` (a commit's last byte), an eighth of the log at a time (from 64 KiB to 8 MiB),
    /// synced with the commit: later commits then overwrite blocks the file has, and their syncs need not
    /// change its size, as SQLite's write-ahead log is reused. Without room for it, the file is left as it is.
    private func extend(past end: Int) {
        let chunk = min(max(end / 8, 64 << 10), 8 << 20)
        let target = (end + chunk + 4095) & ~4095
        let start = max(end, allocatedEnd)
        guard target > start else { return }
        do throws(StoreError) {
            try fileSystem.write(fd, [UInt8](repeating: 0, count: target - start), at: start, path)
            allocatedEnd = target
        } catch {
            _ = try? fileSystem.truncate(fd, to: end, path)
            allocatedEnd = end
        }
    }

    /// Applies a commit that ``appendAndSync(_:)`` made durable to the table, then publishes it.
    func applyCommitted(_ commit: Commit) {
        guard !commit.bytes.isEmpty, commit.start == state.committed else { return }
        counters.commits.add(1)
        state.committed += commit.writtenAhead + commit.bytes.count
        state.frameCount += commit.frames
        state.chain = commit.chain
        for change in commit.changes {
            let entry = LiveEntry(hash: change.hash, offset: commit.start + change.offset, length: change.length,
                                  expiryBits: change.expiryBits)
            if journal != nil {
                let removed = change.replacing.map { table.entries[$0].offset }
                if removed != nil || !change.isDelete {
                    journal?.append(TableChange(key: change.key, removed: removed, added: change.isDelete ? nil : entry,
                                                values: change.values))
                }
            }
            if let index = change.replacing {
                state.liveBytes -= table.entries[index].length
                if change.isDelete { table.remove(index) } else { table.replace(index, with: entry) }
            } else if !change.isDelete {
                table.insert(entry)
            }
            if !change.isDelete { state.liveBytes += change.length }
        }
        table.compactIfSparse()
        state.liveCount = table.count
        // Published for other processes; the commit is durable whether or not this write lands.
        _ = try? publish()
    }

    /// Marks the file retired: a rewrite is about to put another at its path. Not synced: after a power cut
    /// nobody has the file open, and the next writer clears a mark left on a file that was not replaced.
    func retire() {
        // Only format 3 has the flag: a slot written into an older file would read there as another version.
        guard isChained else { return }
        _ = try? publish(flags: RecordLog.retiredFlag)
    }

    /// Writes part of a transaction too large to hold in memory at `offset`, past the last commit, before the
    /// commit that ends it (not synced, not published: no reader takes it before the flagged frame).
    func writeAhead(_ bytes: [UInt8], at offset: Int) throws(StoreError) {
        try fileSystem.write(fd, bytes, at: offset, path)
        counters.bytesWritten.add(bytes.count)
    }

    /// Cuts off what a failed transaction wrote past `end` (the last commit).
    func abandonWriteAhead(after end: Int) {
        _ = try? fileSystem.truncate(fd, to: end, path)
    }
}

/// One change a commit made to the live table: the record under `key` put at `added` (replacing the frame at
/// `removed`, if it had one) or removed (the frame at `removed`).
struct TableChange: Sendable {
    var key: [UInt8]
    var removed: Int?
    var added: LiveEntry?
    /// The added record's property index values when its writer (this process) computed them.
    var values: [IndexValue]?
}

/// A whole frame read from the log.
struct LogFrame: Sendable {
    var header: FrameHeader
    /// The frame's file offset.
    var offset: Int
    var key: [UInt8]
    /// The keyed archive of the record (empty for a delete).
    var payload: [UInt8]
}
