import ArchivePlatform

/// The files of one cache directory and the reads every ``ArchiveCache`` on it shares.
///
/// Layout of `directory` (mode 0700, files 0600):
/// - `segments/<8 hex>.seg`: append-only files of frames (``CacheSegments``); an entry of at most
///   ``largeThreshold(segmentSize:)`` bytes is a `put` frame whose payload is its keyed archive;
/// - `large/<32 hex>.archive`: a larger entry, a file of its own named by the ``StableHash`` of its key (a keyed
///   archive with its checksum in the trailer, see `CacheEntryChecksum`), with an `external` frame in a segment
///   that stands for it in the order of eviction; `<32 hex>.1.archive` when it replaced a large entry under the
///   plain name (``ExternalPayload``);
/// - `cache.table`: where each key's frame is (``CacheTable``), the counts and the limits' figures;
/// - `cache.lock`: the writers' lock (``WriterLock``), never written.
///
/// Anything else in the directory is never touched.
final class CacheDirectory: @unchecked Sendable { // Sendable: `lock` is used only under the owning cache's disk mutex; `readerTable` is behind `Locked`; the rest is set once.
    static let lockName = "cache.lock"
    static let largeName = "large"

    let path: String
    let fileSystem: FileSystem
    let lockPath: String
    let tablePath: String
    let largePath: String
    let segments: CacheSegments
    /// The directory itself, open, for its size (a directory's blocks count in `du` too).
    let directoryFD: FileDescriptor
    /// The writers' lock: exclusive for every change.
    let lock: WriterLock
    /// The table as readers last opened it.
    private let readerTable = Locked<CacheTable?>(nil)

    /// Opens (creating it) the cache directory at `path`. What `fileSystem` creates gets its ``FileSystem/newItems``;
    /// the directory's protection class is checked and set again when it differs, and with `excludedFromBackup`
    /// its backup exclusion too.
    init(path: String, fileSystem: FileSystem, excludedFromBackup: Bool = false) throws(StoreError) {
        self.path = path
        self.fileSystem = fileSystem
        lockPath = PathName.join(path, Self.lockName)
        tablePath = PathName.join(path, CacheTable.fileName)
        largePath = PathName.join(path, Self.largeName)
        segments = CacheSegments(directory: path, fileSystem: fileSystem)
        try fileSystem.makeDirectories(path)
        try fileSystem.restoreAttributes(path, protection: fileSystem.newItems.protection, excludedFromBackup: excludedFromBackup)
        directoryFD = try fileSystem.open(path, [.readOnly, .directory])
        do throws(StoreError) {
            lock = try WriterLock(path: lockPath, fileSystem: fileSystem)
        } catch {
            fileSystem.close(directoryFD)
            throw error
        }
    }

    deinit { fileSystem.close(directoryFD) }

    /// Runs `body` holding the lock exclusively; `waiting: .never` returns `nil` at once when it is held.
    func exclusively<Result>(waiting: WriterLock.Waiting = .forever,
                             _ body: () throws(StoreError) -> Result) throws(StoreError) -> Result? {
        guard try lock.acquire(exclusive: true, waiting: waiting) else { return nil }
        defer { lock.release() }
        return try body()
    }

    /// Creates one of the cache's own directories (`segments/`, `large/`) when it is missing; with
    /// `.synchronous`, then syncs the cache directory, so that the new name (and every file later synced
    /// inside) survives a power cut.
    func makeSubdirectory(_ subdirectory: String, durability: Durability) throws(StoreError) {
        if try fileSystem.makeDirectory(subdirectory), durability == .synchronous { try fileSystem.syncDirectory(path) }
    }

    // MARK: Names

    /// The file of a large entry: `<hash>.archive`, or `<hash>.1.archive` for the `alternate` name. A large
    /// entry replaced by a large one is written under the name its old file does not have, so that the old file
    /// stays whole until the new entry's slot names the new one (see ``ExternalPayload``).
    func largeFile(_ hash: StableHash, alternate: Bool = false) -> String {
        PathName.join(largePath, hash.hex + (alternate ? ".1.archive" : ".archive"))
    }

    /// Whether `name` in `large/` is a name the cache gives its large files (temporary files aside).
    static func isLargeFileName(_ name: String) -> Bool {
        (name.utf8.count == 40 && name.hasSuffix(".archive") || name.utf8.count == 42 && name.hasSuffix(".1.archive"))
            && StableHash(hex: name.prefix(32)) != nil
    }

    /// The payload of an `external` frame: the large file's size, a little-endian `u64` whose top bit says the
    /// file has the alternate name (a size never reaches 2^63; a reader of the format before sees a size past
    /// any limit, a miss).
    struct ExternalPayload: Equatable {
        var size: Int
        var alternate: Bool

        /// The payload read from a frame's bytes.
        static func read(_ payload: ArraySlice<UInt8>) -> ExternalPayload {
            let raw = readLittleEndian(Array(payload), 0, width: 8)
            return ExternalPayload(size: Int(clamping: raw & ~(1 << 63)), alternate: raw & (1 << 63) != 0)
        }

        var bytes: [UInt8] {
            var bytes: [UInt8] = []
            appendLittleEndian(UInt64(clamping: size) | (alternate ? 1 << 63 : 0), width: 8, to: &bytes)
            return bytes
        }
    }

    /// The key a frame holds for `key`: the key itself, or, for a key longer than a frame's key field holds
    /// (64 KiB), `FF FE` and its 16-byte hash (`FF` never occurs in UTF-8, so the two never meet). The value's
    /// own archive holds the whole key, which every read compares too.
    static func frameKey(_ key: [UInt8], hash: StableHash) -> [UInt8] {
        guard key.count > Int(UInt16.max) else { return key }
        var bytes: [UInt8] = [0xFF, 0xFE]
        for word in [hash.high, hash.low] {
            for i in (0..<8).reversed() { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(8 * i))) }
        }
        return bytes
    }

    /// The hash of the key a frame holds (see ``frameKey(_:hash:)``).
    static func hash(ofFrameKey key: [UInt8]) -> StableHash {
        guard key.count == 18, key[0] == 0xFF, key[1] == 0xFE else { return StableHash(key) }
        var words: (UInt64, UInt64) = (0, 0)
        for i in 0..<8 {
            words.0 = words.0 << 8 | UInt64(key[2 + i])
            words.1 = words.1 << 8 | UInt64(key[10 + i])
        }
        return StableHash(high: words.0, low: words.1)
    }

    /// The most a segment holds before the next one starts: a thirty-second of the byte limit (so that the head
    /// segment, which is never evicted, stays a small part of it), between 16 KiB and 8 MiB.
    static func segmentSize(byteLimit: Int) -> Int {
        byteLimit > 0 ? min(8 << 20, max(16 << 10, byteLimit / 32)) : 8 << 20
    }

    /// Entries larger than this get a file of their own: a quarter of a segment, at most 64 KiB (a file's
    /// block rounding then costs at most 6%; diskcache keeps values under 32 KiB in SQLite pages).
    static func largeThreshold(segmentSize: Int) -> Int { min(64 << 10, segmentSize / 4) }

    // MARK: Reading (no lock)

    /// The table to read now: the one already open unless it was retired (or, with `checkingPath`, is no longer
    /// the file at the path: removed or replaced behind the cache's back), else the one at the path (`nil`: none
    /// yet, or not a table). One read of its `changes` word per call, and one `fstatat` with `checkingPath`.
    func currentTable(checkingPath: Bool = true) throws(StoreError) -> (table: CacheTable, changes: UInt64)? {
        if let table = readerTable.withLock({ $0 }) {
            let atPath = checkingPath ? try fileSystem.status(in: directoryFD, CacheTable.fileName, tablePath)?.inode : table.inode
            let changes = try table.changes()
            if changes != CacheTableHeader.retired && atPath == table.inode { return (table, changes) }
        }
        guard let fresh = try CacheTable.open(tablePath, fileSystem: fileSystem, writable: false) else {
            readerTable.withLock { $0 = nil }
            return nil
        }
        readerTable.withLock { $0 = fresh }
        let changes = try fresh.changes()
        return changes == CacheTableHeader.retired ? nil : (fresh, changes)
    }

    /// What a read found.
    enum Lookup {
        case missing
        /// The entry's keyed archive (checksums and key checked) and where it is.
        case found([UInt8], CacheLocation)
        /// The slot named a frame that fails its checks: damage (or a slot read half written, which a writer
        /// tells apart under the lock).
        case damaged(CacheLocation)
    }

    /// The entry of `key`, read without any lock. `limit`: the largest entry read.
    func lookup(_ key: [UInt8], hash: StableHash, limit: Int) throws(StoreError) -> Lookup {
        guard let (table, changes) = try currentTable() else { return .missing }
        let tag = CacheSlot.tag(hash)
        var result = Lookup.missing
        try table.probe(tag) { (index, slot) throws(StoreError) -> Bool in
            guard slot.tag == tag else { return !slot.isEmpty }
            let location = CacheLocation(table: table.inode, index: index, slot: slot, changes: changes)
            switch try readEntry(slot, key: key, hash: hash, limit: limit) {
            case .otherKey: return true
            case .entry(let bytes): result = .found(bytes, location)
            case .gone: result = .missing
            case .damaged: result = .damaged(location)
            }
            return false
        }
        return result
    }

    /// What one slot names, for a given key.
    enum SlotRead {
        case entry([UInt8])
        /// A frame of another key with the same tag: look on.
        case otherKey
        /// The segment or the large file is gone (evicted or replaced meanwhile).
        case gone
        case damaged
    }

    /// Reads the frame a slot names and, for `key`, the entry it holds (from the frame, or from the large file).
    func readEntry(_ slot: CacheSlot, key: [UInt8], hash: StableHash, limit: Int) throws(StoreError) -> SlotRead {
        switch try readFrame(slot) {
        case .gone: return .gone
        case .damaged: return .damaged
        case .frame(let frame, let header):
            guard header.key(in: frame, at: 0).elementsEqual(key) else { return .otherKey }
            return try entry(in: frame, header, hash: hash, limit: limit)
        }
    }

    /// What the frame a slot names holds, read and checked once.
    enum FrameRead {
        case frame([UInt8], FrameHeader)
        case gone
        case damaged
    }

    /// The frame a slot names, its header parsed and its CRC checked: the one reader of a slot's frame.
    func readFrame(_ slot: CacheSlot) throws(StoreError) -> FrameRead {
        guard let frame = try segments.read(slot.segment, offset: Int(slot.offset), length: Int(slot.length)) else { return .gone }
        guard let header = try? FrameHeader(frame, at: 0, available: frame.count, fileOffset: Int(slot.offset),
                                            path: segments.file(slot.segment), allowsExternal: true),
              header.length == frame.count, header.kind != .delete, header.verify(frame, at: 0)
        else { return .damaged }
        return .frame(frame, header)
    }

    /// The entry a checked frame holds: its payload, or the large file it names (checked by its trailer).
    func entry(in frame: [UInt8], _ header: FrameHeader, hash: StableHash, limit: Int) throws(StoreError) -> SlotRead {
        if header.kind == .put {
            let payload = Array(header.payload(in: frame, at: 0))
            return payload.count <= limit ? .entry(payload) : .gone
        }
        let external = ExternalPayload.read(header.payload(in: frame, at: 0))
        let size = external.size
        guard size <= limit else { return .gone }
        let file: [UInt8]?
        do {
            file = try readLargeFile(largeFile(hash, alternate: external.alternate), limit: limit)
        } catch where error.code == .symbolicLink || error.code == .notRegularFile {
            return .damaged   // not a file the cache wrote: the entry is lost (the link itself is left alone)
        }
        guard let file else { return .gone }
        guard file.count == size, CacheEntryChecksum.verify(file) else { return .damaged }
        return .entry(file)
    }

    /// A whole regular file, not following a link: `nil` when absent, not a regular file, larger than `limit`
    /// or changing while read.
    func readLargeFile(_ path: String, limit: Int) throws(StoreError) -> [UInt8]? {
        guard let fd = try fileSystem.openIfPresent(path, [.readOnly, .noFollow, .nonBlocking]) else { return nil }
        defer { fileSystem.close(fd) }
        let info = try fileSystem.status(fd, path)
        guard info.isRegularFile, let size = Int(exactly: info.size), size <= limit else { return nil }
        let bytes = try fileSystem.read(fd, count: size, at: 0, path)
        return bytes.count == size ? bytes : nil
    }

    /// Runs the slot and frame readers once on bytes in memory (see ``ArchiveCache``'s opening).
    static func prepare() {
        let frame = FrameHeader.encode(kind: .put, key: [0x6B], expiry: nil, payload: [0])
        if let header = try? FrameHeader(frame, at: 0, available: frame.count, fileOffset: 0, path: "", allowsExternal: true),
           header.verify(frame, at: 0) {
            _ = header.key(in: frame, at: 0).elementsEqual([0x6B])
        }
        _ = CacheSlot(CacheSlot.empty.bytes, at: 0).sameFrame(as: .empty)
        _ = CacheSlot.tag(StableHash([0x6B]))
    }

    /// Whether `table` is the file at the table's path now.
    func isAtPath(_ table: CacheTable) throws(StoreError) -> Bool {
        try fileSystem.status(in: directoryFD, CacheTable.fileName, tablePath)?.inode == table.inode
    }

    /// Whether the entry a memory layer holds is still what the table says (the same frame in the same slot of
    /// the same table), as of `changes`.
    func isCurrent(_ location: CacheLocation) throws(StoreError) -> Bool {
        guard let table = readerTable.withLock({ $0 }), table.inode == location.table, location.index >= 0,
              let slot = try table.slot(location.index)
        else { return false }
        return slot.sameFrame(as: location.slot)
    }

    /// Removes the temporary files of large entries and of the table left by writers that died (the caller holds
    /// the lock, which every writer holds while its temporary file exists). Only names ``AtomicReplace`` gives them.
    func sweepTemporaries() {
        AtomicReplace.sweepStaleTemporaries(of: [tablePath], fileSystem: fileSystem)
        guard let names = try? fileSystem.list(largePath) else { return }
        for name in names where name.utf8.count > 47 && name.hasPrefix(".") && StableHash(hex: name.dropFirst().prefix(32)) != nil
            && (name.dropFirst(33).hasPrefix(".archive.tmp-") || name.dropFirst(33).hasPrefix(".1.archive.tmp-")) {
            let file = PathName.join(largePath, name)
            if let info = try? fileSystem.linkStatus(file), info.isRegularFile { _ = try? fileSystem.unlink(file) }
        }
    }

    /// The blocks the directories take (what `du` counts for them).
    func directoryBytes() -> Int {
        var total = 0
        for directory in [path, segments.path, largePath] {
            if let info = try? fileSystem.linkStatus(directory), info.isDirectory { total += Int(clamping: info.allocatedBytes) }
        }
        return total
    }
}

/// Where an entry was read from: its slot in a table file, as of a `changes` count of that table.
struct CacheLocation: Hashable, Sendable {
    /// The table file's inode.
    var table: UInt64
    var index: Int
    var slot: CacheSlot
    var changes: UInt64
}
