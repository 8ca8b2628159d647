import ArchivePlatform

/// What one cache object keeps between its writes (behind its disk mutex): the table and head segment it has
/// open, and the blocks its directories take.
struct CacheWriterState {
    var table: CacheTable?
    var head: SegmentHandle?
    var headNumber: UInt32 = 0
    var directoryBytes = -1
}

/// One exclusive section of a writer: the table's header as of the start, changed as the section goes, and
/// written back by ``finish()``. Every change to the directory goes through here, holding its lock.
///
/// The order of each change makes a crash at any point leave the old entry or the new one: a large entry's file
/// is renamed into place first, then its frame is appended, then its slot written, then the header. A frame
/// without a slot is dead space; a slot whose frame did not reach the disk fails its checksum and reads as a
/// miss; a damaged or missing table is rebuilt from the segments (where every change, removals included, is a
/// frame).
struct CacheWriter {
    let directory: CacheDirectory
    var table: CacheTable
    var header: CacheTableHeader
    let segmentSize: Int
    /// The cache's byte limit (0: none).
    let byteLimit: Int
    let largeThreshold: Int
    let durability: Durability
    private let changesAtStart: UInt64
    var changed = false
    /// Frames eviction has chosen to carry forward, not yet written (see ``flushCarried(_:)``).
    var carried: [(index: Int, slot: CacheSlot, frame: [UInt8])] = []
    var carriedBytes = 0
    /// Whether this section's ``CacheTableHeader/unfinished`` mark is synced (see ``willChangeFiles(durably:)``).
    var markIsDurable = false
    /// With `.synchronous`, whether slots that moved an entry off a file still to be removed (an entry eviction
    /// carried forward, a large entry replaced) were written since the table was last synced: they are synced
    /// before a file is removed (see ``willChangeFiles(durably:)``).
    var movedSlotsAwaitSync = false
    /// With `.synchronous`, the directories a file was unlinked from in this section, synced before the header
    /// that no longer counts the files is written (``syncUnlinks()``).
    private var unlinkedFrom: [String] = []

    var fileSystem: FileSystem { directory.fileSystem }

    /// Starts a section (the caller holds the lock): the table as it is, or a new one (rebuilt from the
    /// segments) when there is none or it is damaged.
    init(directory: CacheDirectory, state: inout CacheWriterState, byteLimit: Int, durability: Durability) throws(StoreError) {
        self.directory = directory
        self.byteLimit = byteLimit
        segmentSize = CacheDirectory.segmentSize(byteLimit: byteLimit)
        largeThreshold = CacheDirectory.largeThreshold(segmentSize: segmentSize)
        self.durability = durability
        var opened: (CacheTable, CacheTableHeader)?
        if let table = state.table, try directory.isAtPath(table), let header = try table.header() { opened = (table, header) }
        if opened == nil, let table = try CacheTable.open(directory.tablePath, fileSystem: directory.fileSystem, writable: true),
           let header = try table.header() {
            opened = (table, header)
        }
        if opened == nil {
            state = CacheWriterState()
            try Self.rebuild(directory, segmentSize: segmentSize, largeThreshold: largeThreshold, durability: durability)
            guard let table = try CacheTable.open(directory.tablePath, fileSystem: directory.fileSystem, writable: true),
                  let header = try table.header()
            else { throw StoreError(.io, "the cache table cannot be read back after it was written", path: directory.tablePath) }
            opened = (table, header)
        }
        guard var (table, header) = opened else { throw StoreError(.io, "no cache table", path: directory.tablePath) }
        var recovered = false
        if header.unfinished {
            // The writer before died between its first change to the files and writing the header back: the
            // header's figures may not match the files (a large file renamed in and never counted, a segment
            // started past the head), and what `du` shows would drift from what the limit counts. The files are
            // the truth: the table is rebuilt from them, the old one retired once the new one is in place.
            state = CacheWriterState()
            directory.sweepTemporaries()
            try Self.rebuild(directory, segmentSize: segmentSize, largeThreshold: largeThreshold, durability: durability,
                             firstHead: header.headSegment)
            try table.retire()
            guard let reopened = try CacheTable.open(directory.tablePath, fileSystem: directory.fileSystem, writable: true),
                  var fresh = try reopened.header()
            else { throw StoreError(.io, "the rebuilt cache table cannot be read back", path: directory.tablePath) }
            fresh.changes = header.changes
            (table, header) = (reopened, fresh)
            recovered = true
        }
        if state.table !== table { state.head = nil }
        state.table = table
        self.table = table
        self.header = header
        changesAtStart = header.changes
        changed = recovered
        if state.directoryBytes < 0 {
            // The first section of this cache object: temporary files of writers that died go (every writer
            // holds the lock while its temporary file exists).
            directory.sweepTemporaries()
            state.directoryBytes = directory.directoryBytes()
        }
        if state.headNumber != header.headSegment { state.head = nil }
    }

    /// The `changes` count before and after the section (equal when nothing changed).
    var changes: (before: UInt64, after: UInt64) { (changesAtStart, header.changes) }

    /// Writes the header back when anything changed (`changes` bumped, the ``CacheTableHeader/unfinished`` mark
    /// cleared); with `.synchronous`, syncs the table.
    mutating func finish() throws(StoreError) {
        guard changed else { return }
        try syncUnlinks()
        header.unfinished = false
        header.changes = changesAtStart &+ 1 == CacheTableHeader.retired ? 1 : changesAtStart &+ 1
        try table.write(header)
        if durability == .synchronous { try fileSystem.sync(table.fd, table.path) }
    }

    /// Marks the table's header ``CacheTableHeader/unfinished`` before the section's first change to the files
    /// (a frame appended, a large file written or removed, a segment started or removed): the files change at
    /// once, the header's figures only in ``finish()``, so a writer that dies in between leaves the mark, and the
    /// next section rebuilds the table from the files. One write of the header page a section.
    ///
    /// `durably`: the change is one a power cut could keep while losing the header (a file that appears or
    /// goes), so with `.synchronous` the mark is synced before it, once a section; the next open then finds the
    /// mark and recounts from the files, and what the byte limit is held to stays what `du` shows. Frames
    /// appended to an existing head segment need no synced mark: bytes past the header's head length are cut
    /// off when the head is next opened. The slots that moved entries since the last sync are synced with it:
    /// the file they left may be the one that goes, and a reader (which never rebuilds) must find the entries
    /// where their slots now point.
    mutating func willChangeFiles(durably: Bool = false) throws(StoreError) {
        if !header.unfinished {
            header.unfinished = true
            try table.write(header)
            changed = true
        }
        if durably && durability == .synchronous && (!markIsDurable || movedSlotsAwaitSync) {
            try fileSystem.sync(table.fd, table.path)
            markIsDurable = true
            movedSlotsAwaitSync = false
        }
    }

    /// Notes an unlink from `directoryPath` (synced before the section's header, with `.synchronous`).
    mutating func didUnlink(in directoryPath: String) {
        guard durability == .synchronous, !unlinkedFrom.contains(directoryPath) else { return }
        unlinkedFrom.append(directoryPath)
    }

    /// With `.synchronous`, syncs the directories files were unlinked from this section: a file the header no
    /// longer counts must not come back after a power cut.
    mutating func syncUnlinks() throws(StoreError) {
        for path in unlinkedFrom { try fileSystem.syncDirectory(path) }
        unlinkedFrom.removeAll()
    }

    // MARK: Slots

    /// The slot of `key`: its index and contents, or `nil` with the index a new entry would take.
    func find(_ key: [UInt8], tag: UInt32) throws(StoreError) -> (index: Int, slot: CacheSlot?) {
        var found: (Int, CacheSlot?)?
        var firstRemoved: Int?
        try table.probe(tag) { (index, slot) throws(StoreError) -> Bool in
            if slot.isEmpty {
                found = (firstRemoved ?? index, nil)
                return false
            }
            if slot.isRemoved {
                if firstRemoved == nil { firstRemoved = index }
                return true
            }
            guard slot.tag == tag, try frameKey(slot).map({ $0 == key }) ?? true else { return true }
            found = (index, slot)   // this key's (or an unreadable frame, taken as this key's: it is lost anyway)
            return false
        }
        if let found { return found }
        guard let firstRemoved else { throw StoreError(.io, "the cache table is full", path: table.path) }
        return (firstRemoved, nil)
    }

    /// The live slot of tag `tag` that names the frame at `offset` of segment `segment`, if any (that frame's
    /// key is the slot's: no frame need be read).
    func slotNaming(tag: UInt32, segment: UInt32, offset: Int) throws(StoreError) -> (Int, CacheSlot)? {
        var found: (Int, CacheSlot)?
        try table.probe(tag) { (index, slot) throws(StoreError) -> Bool in
            if slot.tag == tag && slot.segment == segment && Int(slot.offset) == offset {
                found = (index, slot)
                return false
            }
            return !slot.isEmpty
        }
        return found
    }

    /// The key of the frame a slot names; `nil` when it cannot be read whole and intact.
    func frameKey(_ slot: CacheSlot) throws(StoreError) -> [UInt8]? {
        guard let frame = try directory.segments.read(slot.segment, offset: Int(slot.offset), length: Int(slot.length)),
              let header = try? FrameHeader(frame, at: 0, available: frame.count, fileOffset: Int(slot.offset),
                                            path: directory.segments.file(slot.segment), allowsExternal: true),
              header.length == frame.count, header.verify(frame, at: 0)
        else { return nil }
        return Array(header.key(in: frame, at: 0))
    }

    /// Grows the table when one more slot would fill it past 70%: a new table with room for twice the entries,
    /// filled from the live slots' tags, renamed into place; then the old one is marked retired.
    private mutating func growIfNeeded() throws(StoreError) {
        guard (header.used + 1) * 10 > table.capacity * 7 else { return }
        // Room for twice the live entries (counted, not taken from the header); at the same size when removed
        // slots are what fills it.
        var live: [CacheSlot] = []
        try table.forEachSlot { (_, slot) throws(StoreError) in if slot.isLive { live.append(slot) } }
        var bits = 8
        while (1 << bits) < (live.count + 1) * 2 && bits < CacheTable.largestBits { bits += 1 }
        guard (live.count + 1) * 10 <= (1 << bits) * 7 else {
            throw StoreError(.io, "the cache table holds as many entries as it can (\(live.count))", path: table.path)
        }
        var placed: [(Int, CacheSlot)] = []
        placed.reserveCapacity(live.count)
        var taken = [Bool](repeating: false, count: 1 << bits)
        for slot in live {
            var index = CacheTable.home(slot.tag, bits: bits)
            while taken[index] { index = (index + 1) & ((1 << bits) - 1) }
            taken[index] = true
            placed.append((index, slot))
        }
        var fresh = header
        fresh.bits = bits
        fresh.used = placed.count
        fresh.count = placed.count
        fresh.generation = UInt64.random(in: 1 ... .max)
        fresh.changes = header.changes &+ 1
        try CacheTable.create(directory.tablePath, bits: bits, header: fresh, slots: placed, fileSystem: fileSystem, durability: durability)
        // Retired once the new table is in place (the old file, now unlinked, is still open here): marked
        // before, a failed or lost rename would leave a retired table at the path, which readers cannot use.
        try table.retire()
        guard let reopened = try CacheTable.open(directory.tablePath, fileSystem: fileSystem, writable: true) else {
            throw StoreError(.io, "the grown cache table cannot be opened", path: directory.tablePath)
        }
        table = reopened
        header = fresh
        changed = true
    }

    // MARK: Segments

    /// The head segment open for writing, created when it is new. A head shorter than the header says (frames
    /// lost: the file was cut or removed behind the cache's back) is sealed as it is and a new one started, so
    /// that a frame is never written past a hole, where no walk of the segment would find it.
    private mutating func headFile(_ state: inout CacheWriterState) throws(StoreError) -> SegmentHandle {
        if let head = state.head, state.headNumber == header.headSegment { return head }
        if header.headLength > 0 {
            let size = try fileSystem.linkStatus(directory.segments.file(header.headSegment))?.size ?? 0
            if size < Int64(header.headLength) { try sealHead(&state) }
        }
        try directory.makeSubdirectory(directory.segments.path, durability: durability)
        let path = directory.segments.file(header.headSegment)
        let fd = try fileSystem.open(path, [.readWrite, .create, .noFollow, .nonBlocking])
        let handle = SegmentHandle(fd: fd, fileSystem: fileSystem)
        let info = try fileSystem.status(fd, path)
        try info.requireOwnRegularFile(path)
        if info.permissions != FileSystem.filePermissions { try fileSystem.setPermissions(fd, FileSystem.filePermissions, path) }
        // Bytes past the head length are a write that never finished: cut them off.
        if info.size > Int64(header.headLength) { try fileSystem.truncate(fd, to: header.headLength, path) }
        if info.size == 0 && header.headLength == 0 {
            // A new segment: with `.synchronous`, its name is made durable before any slot names a frame in it.
            if durability == .synchronous { try fileSystem.syncDirectory(directory.segments.path) }
            state.directoryBytes = directory.directoryBytes()
        }
        state.head = handle
        state.headNumber = header.headSegment
        return handle
    }

    /// Starts a new head segment; the old one is sealed, its blocks counted once.
    mutating func sealHead(_ state: inout CacheWriterState) throws(StoreError) {
        if let head = state.head, state.headNumber == header.headSegment {
            header.sealedBytes += Int(clamping: try fileSystem.status(head.fd, directory.segments.file(header.headSegment)).allocatedBytes)
        } else if let info = try fileSystem.linkStatus(directory.segments.file(header.headSegment)) {
            header.sealedBytes += Int(clamping: info.allocatedBytes)
        }
        header.headSegment &+= 1
        header.headLength = 0
        state.head = nil
        changed = true
    }

    /// Appends a frame to the head segment (starting a new one when it is full) and returns where it is.
    mutating func append(_ frame: [UInt8], _ state: inout CacheWriterState) throws(StoreError) -> (UInt32, Int) {
        if header.headLength > 0 && header.headLength + frame.count > segmentSize { try sealHead(&state) }
        let offset = try writeAtHead(frame, &state)
        return (header.headSegment, offset)
    }

    /// Writes `frames` (whole frames, for which the head has room) at the end of the head segment; returns
    /// their offset.
    mutating func writeAtHead(_ frames: [UInt8], _ state: inout CacheWriterState) throws(StoreError) -> Int {
        try willChangeFiles(durably: header.headLength == 0)   // an empty head may be a segment file still to make
        let head = try headFile(&state)
        let path = directory.segments.file(header.headSegment)
        try fileSystem.write(head.fd, frames, at: header.headLength, path)
        if durability == .synchronous { try fileSystem.sync(head.fd, path) }
        let offset = header.headLength
        header.headLength += frames.count
        header.segmentBytes += frames.count
        changed = true
        return offset
    }

    // MARK: Changes

    /// Stores `archive` (an entry's sealed keyed archive) for `key`, replacing its entry. Returns the slot
    /// written and, for a replaced entry, the frame it had.
    @discardableResult
    mutating func put(_ key: [UInt8], hash: StableHash, archive: [UInt8], expiry: Double?,
                      _ state: inout CacheWriterState) throws(StoreError) -> (index: Int, slot: CacheSlot) {
        try growIfNeeded()
        if byteLimit > 0 {
            // The entry alone, in the directory emptied of every other (its directories and table, a block of
            // rounding), must fit the limit, or no eviction could bring the directory within it.
            let fixed = max(0, state.directoryBytes) + Int(clamping: try fileSystem.status(table.fd, table.path).allocatedBytes) + 4_096
            guard archive.count + fixed <= byteLimit else {
                throw StoreError(.entryTooLarge, "the entry takes \(archive.count) bytes, and the cache's own files \(fixed): more than "
                                 + "the cache's byte limit of \(byteLimit)", path: directory.path)
            }
        }
        let tag = CacheSlot.tag(hash)
        let (index, old) = try find(key, tag: tag)
        let external = archive.count > largeThreshold
        // A large entry replacing a large one goes under the name the old file does not have: until the new
        // slot is written, the old slot still names a whole old file, whatever fails or is cut.
        var oldAlternate: Bool?
        if let old { oldAlternate = try largeFileName(of: old) }
        let alternate = external && oldAlternate.map { !$0 } ?? false
        var frame: [UInt8]
        if external {
            let file = directory.largeFile(hash, alternate: alternate)
            try willChangeFiles(durably: true)
            try directory.makeSubdirectory(directory.largePath, durability: durability)
            let replaced = try largeFileBlocks(file)   // a file left under that name (a failed write's) is replaced
            try AtomicReplace.replace(file, with: archive, durability: durability, fileSystem: fileSystem)
            state.directoryBytes = directory.directoryBytes()   // `large/` may be new, or have grown a block
            header.sealedBytes += try largeFileBlocks(file) - replaced
            frame = FrameHeader.encode(kind: .external, key: key, expiry: expiry,
                                       payload: CacheDirectory.ExternalPayload(size: archive.count, alternate: alternate).bytes)
        } else {
            frame = FrameHeader.encode(kind: .put, key: key, expiry: expiry, payload: archive)
        }
        let (segment, offset) = try append(frame, &state)
        let slot = CacheSlot(tag: tag, segment: segment, offset: UInt32(offset), length: UInt32(frame.count),
                             expiry: CacheSlot.expiry(expiry), flags: external ? CacheSlot.external : 0)
        let wasEmpty = try table.slot(index)?.isEmpty ?? true
        try table.write(slot, at: index)
        header.liveBytes = max(0, header.liveBytes + frame.count - Int(old?.length ?? 0))
        if old == nil {
            header.count += 1
            if wasEmpty { header.used += 1 }
        }
        if let oldAlternate {
            // The new slot is written (and with `.synchronous` synced first): the old entry's file goes (for a
            // small entry, any file of the key).
            if durability == .synchronous { movedSlotsAwaitSync = true }
            try willChangeFiles(durably: true)
            try removeLargeFile(hash, alternate: oldAlternate)
            if !external { try removeLargeFile(hash, alternate: !oldAlternate) }
        }
        header.sealedBytes = max(0, header.sealedBytes)
        changed = true
        return (index, slot)
    }

    /// Removes the entry of `key`: its slot is freed and a delete frame appended (so that a rebuild of the
    /// table forgets it too). Returns the slot it had.
    @discardableResult
    mutating func remove(_ key: [UInt8], hash: StableHash, _ state: inout CacheWriterState) throws(StoreError) -> CacheSlot? {
        let (index, old) = try find(key, tag: CacheSlot.tag(hash))
        guard let old else { return nil }
        _ = try append(FrameHeader.encode(kind: .delete, key: key, expiry: nil, payload: []), &state)
        try free(index, old, hash: hash)
        return old
    }

    /// Marks slot `index` (which holds `slot`) removed, and takes it out of the counts.
    mutating func release(_ index: Int, _ slot: CacheSlot) throws(StoreError) {
        try table.write(CacheSlot(tag: CacheSlot.removedTag, segment: 0, offset: 0, length: 0, expiry: 0, flags: 0), at: index)
        header.count = max(0, header.count - 1)
        header.liveBytes = max(0, header.liveBytes - Int(slot.length))
        changed = true
    }

    /// Frees slot `index` (which holds `slot`, the entry of a key whose hash is `hash`).
    mutating func free(_ index: Int, _ slot: CacheSlot, hash: StableHash) throws(StoreError) {
        if slot.isExternal { try willChangeFiles(durably: true) }   // before the slot goes: else its file could outlive it unnamed
        try release(index, slot)
        if slot.isExternal {
            try removeLargeFile(hash, alternate: false)
            try removeLargeFile(hash, alternate: true)
        }
        changed = true
    }

    /// Which name the large file of the entry in `slot` has (``CacheDirectory/largeFile(_:alternate:)``), as
    /// its frame says; `nil` for an entry that has no large file. A frame that cannot be read says the plain name.
    func largeFileName(of slot: CacheSlot) throws(StoreError) -> Bool? {
        guard slot.isExternal else { return nil }
        guard case .frame(let bytes, let frame) = try directory.readFrame(slot), frame.kind == .external else { return false }
        return CacheDirectory.ExternalPayload.read(frame.payload(in: bytes, at: 0)).alternate
    }

    /// The blocks the regular file at `file` takes (0 when there is none).
    func largeFileBlocks(_ file: String) throws(StoreError) -> Int {
        guard let info = try fileSystem.linkStatus(file), info.isRegularFile else { return 0 }
        return Int(clamping: info.allocatedBytes)
    }

    /// Removes `hash`'s large file under the plain or the `alternate` name, when there is one, and takes its
    /// blocks out of the counts (the caller marked the change, durably).
    mutating func removeLargeFile(_ hash: StableHash, alternate: Bool) throws(StoreError) {
        let file = directory.largeFile(hash, alternate: alternate)
        guard let info = try fileSystem.linkStatus(file), info.isRegularFile else { return }
        if try fileSystem.unlink(file) { header.sealedBytes = max(0, header.sealedBytes - Int(clamping: info.allocatedBytes)) }
        didUnlink(in: directory.largePath)
    }

    /// Frees the slot at `location` if it still names the same frame (an entry a reader found damaged or
    /// expired); returns whether it did.
    mutating func free(_ location: CacheLocation, key: [UInt8], hash: StableHash, _ state: inout CacheWriterState) throws(StoreError) -> Bool {
        guard location.table == table.inode, location.index >= 0, let slot = try table.slot(location.index),
              slot.sameFrame(as: location.slot)
        else { return false }
        _ = try append(FrameHeader.encode(kind: .delete, key: key, expiry: nil, payload: []), &state)
        try free(location.index, slot, hash: hash)
        return true
    }

    /// Marks the entries read at `locations` as used since they were written (they are carried forward once
    /// when their segment is evicted).
    mutating func markReferenced(_ locations: [CacheLocation]) throws(StoreError) {
        for location in locations where location.table == table.inode && location.index >= 0 {
            guard var slot = try table.slot(location.index), slot.sameFrame(as: location.slot), !slot.isReferenced else { continue }
            slot.flags |= CacheSlot.referenced
            try table.write(slot, at: location.index)
        }
    }

    /// Every live slot, in table order; the header's counts are corrected when they disagree with the slots
    /// (a damaged header: the count limit goes by them).
    mutating func liveSlots() throws(StoreError) -> [CacheSlot] {
        var slots: [CacheSlot] = []
        var used = 0
        try table.forEachSlot { (_, slot) throws(StoreError) in
            if !slot.isEmpty { used += 1 }
            if slot.isLive { slots.append(slot) }
        }
        if header.count != slots.count || header.used != used {
            header.count = slots.count
            header.used = used
            changed = true
        }
        return slots
    }
}
