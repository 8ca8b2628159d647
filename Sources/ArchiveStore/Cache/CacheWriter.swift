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
    private(set) var table: CacheTable
    var header: CacheTableHeader
    let segmentSize: Int
    /// The cache's byte limit (0: none).
    let byteLimit: Int
    let largeThreshold: Int
    let durability: Durability
    private let changesAtStart: UInt64
    private var changed = false
    /// Frames eviction has chosen to carry forward, not yet written (see ``flushCarried(_:)``).
    private var carried: [(index: Int, slot: CacheSlot, frame: [UInt8])] = []
    private var carriedBytes = 0

    private var fileSystem: FileSystem { directory.fileSystem }

    /// Starts a section (the caller holds the lock): the table as it is, or a new one (rebuilt from the
    /// segments, after moving in a directory of the format before) when there is none or it is damaged.
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
        guard let (table, header) = opened else { throw StoreError(.io, "no cache table", path: directory.tablePath) }
        if state.table !== table { state.head = nil }
        state.table = table
        self.table = table
        self.header = header
        changesAtStart = header.changes
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

    /// Writes the header back when anything changed (`changes` bumped); with `.synchronous`, syncs the table.
    mutating func finish() throws(StoreError) {
        guard changed else { return }
        header.changes = changesAtStart &+ 1 == CacheTableHeader.retired ? 1 : changesAtStart &+ 1
        try table.write(header)
        if durability == .synchronous { try fileSystem.sync(table.fd, table.path) }
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
    private func slotNaming(tag: UInt32, segment: UInt32, offset: Int) throws(StoreError) -> (Int, CacheSlot)? {
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
    private func frameKey(_ slot: CacheSlot) throws(StoreError) -> [UInt8]? {
        guard let frame = try directory.segments.read(slot.segment, offset: Int(slot.offset), length: Int(slot.length)),
              let header = try? FrameHeader(frame, at: 0, available: frame.count, fileOffset: Int(slot.offset),
                                            path: directory.segments.file(slot.segment), allowsExternal: true),
              header.length == frame.count, header.verify(frame, at: 0)
        else { return nil }
        return Array(header.key(in: frame, at: 0))
    }

    /// Grows the table when one more slot would fill it past 70%: a new table with room for twice the entries,
    /// filled from the live slots' tags, renamed into place after the old one is marked retired.
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
        try table.retire()
        try CacheTable.create(directory.tablePath, bits: bits, header: fresh, slots: placed, fileSystem: fileSystem, durability: durability)
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
        try fileSystem.makeDirectory(directory.segments.path)
        let path = directory.segments.file(header.headSegment)
        let fd = try fileSystem.open(path, [.readWrite, .create, .noFollow, .nonBlocking])
        let handle = SegmentHandle(fd: fd, fileSystem: fileSystem)
        let info = try fileSystem.status(fd, path)
        try info.requireOwnRegularFile(path)
        if info.permissions != FileSystem.filePermissions { try fileSystem.setPermissions(fd, FileSystem.filePermissions, path) }
        // Bytes past the head length are a write that never finished: cut them off.
        if info.size > Int64(header.headLength) { try fileSystem.truncate(fd, to: header.headLength, path) }
        if info.size == 0 && header.headLength == 0 { state.directoryBytes = directory.directoryBytes() }
        state.head = handle
        state.headNumber = header.headSegment
        return handle
    }

    /// Starts a new head segment; the old one is sealed, its blocks counted once.
    private mutating func sealHead(_ state: inout CacheWriterState) throws(StoreError) {
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
    private mutating func append(_ frame: [UInt8], _ state: inout CacheWriterState) throws(StoreError) -> (UInt32, Int) {
        if header.headLength > 0 && header.headLength + frame.count > segmentSize { try sealHead(&state) }
        let offset = try writeAtHead(frame, &state)
        return (header.headSegment, offset)
    }

    /// Writes `frames` (whole frames, for which the head has room) at the end of the head segment; returns
    /// their offset.
    private mutating func writeAtHead(_ frames: [UInt8], _ state: inout CacheWriterState) throws(StoreError) -> Int {
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
        let largeFile = directory.largeFile(hash)
        var oldLarge = 0
        if old?.isExternal == true || external, let info = try fileSystem.linkStatus(largeFile), info.isRegularFile {
            oldLarge = Int(clamping: info.allocatedBytes)
        }
        var frame: [UInt8]
        if external {
            try fileSystem.makeDirectory(directory.largePath)
            try AtomicReplace.replace(largeFile, with: archive, durability: durability, fileSystem: fileSystem)
            state.directoryBytes = directory.directoryBytes()   // `large/` may be new, or have grown a block
            let allocated = Int(clamping: try fileSystem.linkStatus(largeFile)?.allocatedBytes ?? 0)
            header.sealedBytes += allocated - oldLarge
            var size: [UInt8] = []
            appendLittleEndian(UInt64(archive.count), width: 8, to: &size)
            frame = FrameHeader.encode(kind: .external, key: key, expiry: expiry, payload: size)
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
        if old?.isExternal == true && !external {
            if try fileSystem.unlink(largeFile) { header.sealedBytes -= oldLarge }
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
    private mutating func release(_ index: Int, _ slot: CacheSlot) throws(StoreError) {
        try table.write(CacheSlot(tag: CacheSlot.removedTag, segment: 0, offset: 0, length: 0, expiry: 0, flags: 0), at: index)
        header.count = max(0, header.count - 1)
        header.liveBytes = max(0, header.liveBytes - Int(slot.length))
        changed = true
    }

    /// Frees slot `index` (which holds `slot`, the entry of a key whose hash is `hash`).
    private mutating func free(_ index: Int, _ slot: CacheSlot, hash: StableHash) throws(StoreError) {
        try release(index, slot)
        if slot.isExternal {
            let file = directory.largeFile(hash)
            if let info = try fileSystem.linkStatus(file), info.isRegularFile, try fileSystem.unlink(file) {
                header.sealedBytes = max(0, header.sealedBytes - Int(clamping: info.allocatedBytes))
            }
        }
        changed = true
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

    // MARK: Space

    /// What the directory takes on disk now, as `du` counts it: the sealed segments' and large files' blocks
    /// (kept in the header), the head segment's, the table's and the directories'.
    func diskUse(_ state: CacheWriterState) throws(StoreError) -> Int {
        var total = header.sealedBytes + max(0, state.directoryBytes)
        total += Int(clamping: try fileSystem.status(table.fd, table.path).allocatedBytes)
        if let head = state.head, state.headNumber == header.headSegment {
            total += Int(clamping: try fileSystem.status(head.fd, directory.segments.file(header.headSegment)).allocatedBytes)
        } else if let info = try fileSystem.linkStatus(directory.segments.file(header.headSegment)) {
            total += Int(clamping: info.allocatedBytes)
        }
        return total
    }

    /// Evicts entries, oldest first, until the directory takes at most `byteLimit` bytes and holds at most
    /// `countLimit` entries (`nil` / 0: no limit). Eviction walks the oldest segment frame by frame from where
    /// it stopped last (the header's cursor): an entry used since it was written is carried forward once (its
    /// frame appended again at the head, its mark cleared), so the order stays close to least recently used;
    /// any other goes. Over the entry count it stops as soon as the count is within the limit; over the byte
    /// limit it goes through the whole segment, whose file is then removed (only that gives back disk). The
    /// entry `kept` (the one the current write made) is never evicted by it. Returns the hashes of the entries
    /// removed.
    ///
    /// Frames of replaced and removed entries stay in their segments until their segment goes. Over the byte
    /// limit, once they take more than a thirty-third of the room the live ones take, the oldest segment is
    /// compacted instead (every live frame carried forward, none evicted), so that dead space is given back
    /// before live entries are evicted for it. Without a byte limit, once they outweigh the live ones and four
    /// segments, a segment or two a write (the directory stays within about twice its live bytes).
    ///
    /// `progress` counts the bytes given back, of those over `byteLimit` at the start (without a byte limit,
    /// the entries evicted, of those over `countLimit`).
    mutating func evict(byteLimit: Int?, countLimit: Int, keeping kept: [UInt8]? = nil, progress: ProgressHandler? = nil,
                        _ state: inout CacheWriterState) throws(StoreError) -> [StableHash] {
        var evicted: [StableHash] = []
        let startBytes = progress != nil && byteLimit != nil ? try diskUse(state) : 0
        let startCount = header.count
        func report(_ writer: CacheWriter) throws(StoreError) {
            guard let progress else { return }
            if let byteLimit {
                let total = max(0, startBytes - byteLimit)
                progress(min(total, max(0, startBytes - (try writer.diskUse(state)))), total)
            } else {
                let total = max(0, startCount - countLimit)
                progress(min(total, max(0, startCount - writer.header.count)), total)
            }
        }
        var compactions = 0
        var repaired = false
        // Each segment there is now is walked at most twice (once to give its used entries a second chance,
        // once more to evict them), plus the segments those make: past that, nothing more can be given back
        // (the entry just written is all that is left, or the header's figures say more than the segments
        // hold: then, once, the table is rebuilt from the segments, which recounts them).
        func budget(_ header: CacheTableHeader) -> Int { 2 * Int(header.headSegment &- header.oldestSegment) + 4 }
        var walks = budget(header)
        while true {
            let overCount = countLimit > 0 && header.count > countLimit
            var overBytes = false
            if let byteLimit { overBytes = try diskUse(state) > byteLimit }
            // Under a byte limit, every dead byte is room an entry could have: compact once they pass a
            // thirty-third of the live ones (the cache benchmark's mixed workload: 0.9273 hits, against 0.9033
            // when waiting for them to outweigh the live ones). Without one, only once they outweigh the live
            // ones and four segments.
            let wasteful = byteLimit != nil ? header.deadBytes * 33 > header.liveBytes : header.deadBytes > header.liveBytes
            let compactDue = byteLimit == nil && wasteful && header.deadBytes > 4 * segmentSize && compactions < 2
            guard overCount || overBytes || compactDue else { break }
            let nothingLeft = header.oldestSegment == header.headSegment && header.headLength == 0
            if walks <= 0 || nothingLeft {
                guard !repaired, overCount || overBytes else { break }
                try rebuildTable(&state)
                repaired = true
                walks = budget(header)
                continue
            }
            walks -= 1
            // Compaction works on sealed segments only (copying the head into a new head gives nothing back).
            if (overBytes && wasteful) || !(overCount || overBytes), header.oldestSegment != header.headSegment {
                compactions += 1
                try evictFromOldest(until: { _ in false }, keeping: kept, carryingAll: true, &state)
                continue
            }
            guard overCount || overBytes else { break }
            if header.oldestSegment == header.headSegment { try sealHead(&state) }
            let countLimit = overBytes ? 0 : countLimit
            evicted += try evictFromOldest(until: { writer in countLimit > 0 && writer.header.count <= countLimit }, keeping: kept,
                                           carryingAll: false, &state)
            try report(self)
        }
        return evicted
    }

    /// Replaces the table with one rebuilt from the segments, the old one retired first.
    private mutating func rebuildTable(_ state: inout CacheWriterState) throws(StoreError) {
        let changes = header.changes
        try table.retire()
        try Self.rebuild(directory, segmentSize: segmentSize, largeThreshold: largeThreshold, durability: durability,
                         firstHead: header.headSegment)
        guard let reopened = try CacheTable.open(directory.tablePath, fileSystem: fileSystem, writable: true),
              let fresh = try reopened.header()
        else { throw StoreError(.io, "the rebuilt cache table cannot be read back", path: directory.tablePath) }
        table = reopened
        header = fresh
        header.changes = changes
        state.table = reopened
        state.head = nil
        state.directoryBytes = directory.directoryBytes()
        changed = true
    }

    /// Deals with the oldest segment's frames from the cursor on, until `done` or its end (then its file is
    /// removed and the next segment becomes the oldest).
    @discardableResult
    private mutating func evictFromOldest(until done: (CacheWriter) -> Bool, keeping kept: [UInt8]?, carryingAll: Bool,
                                          _ state: inout CacheWriterState) throws(StoreError) -> [StableHash] {
        let number = header.oldestSegment
        let path = directory.segments.file(number)
        var evicted: [StableHash] = []
        var allocated = 0
        var length = 0
        var finished = true
        var walked = true
        if let fd = try fileSystem.openIfPresent(path, [.readOnly, .noFollow, .nonBlocking]) {
            defer { fileSystem.close(fd) }
            let info = try fileSystem.status(fd, path)
            allocated = Int(clamping: info.allocatedBytes)
            let size = Int(clamping: info.size)
            length = size
            // The rest of the segment in one read (a segment is never longer than `largestFile`).
            let start = min(header.cursor, size)
            let rest = try fileSystem.read(fd, count: min(size, CacheSegments.largestFile) - min(start, CacheSegments.largestFile),
                                           at: start, path)
            var at = 0
            while at + FrameHeader.size <= rest.count {
                if done(self) {
                    finished = false
                    break
                }
                let offset = start + at
                guard let frame = try? FrameHeader(rest, at: at, available: rest.count - at, fileOffset: offset, path: path,
                                                   allowsExternal: true),
                      frame.length <= CacheSegments.largestFrame, frame.verify(rest, at: at)
                else {
                    walked = false   // damage: the rest cannot be walked frame by frame
                    break
                }
                defer {
                    at += frame.length
                    header.cursor = start + at
                    changed = true
                }
                guard frame.kind != .delete else { continue }
                let key = Array(frame.key(in: rest, at: at))
                let hash = CacheDirectory.hash(ofFrameKey: key)
                // The slot that names this very frame is its key's; none: replaced or removed since.
                guard let (index, slot) = try slotNaming(tag: CacheSlot.tag(hash), segment: number, offset: offset) else { continue }
                try dispose(Array(rest[at..<at + frame.length]), key: key, hash: hash, index: index, slot: slot, keeping: kept,
                            carryingAll: carryingAll, &evicted, &state)
            }
            if walked && finished && rest.count < size - start { walked = false }   // past the longest a segment is
        }
        try flushCarried(&state)
        guard finished else { return evicted }
        if !walked {
            // Damage stops the walk; the slots that still name frames of this segment are found from the table
            // (rare: a scan). Each frame still intact is dealt with as the walk would have; the others go (a
            // large entry's file stays, and counts, until a rebuild sweeps the files no frame names).
            var orphans: [(Int, CacheSlot)] = []
            try table.forEachSlot { (index, slot) throws(StoreError) in
                if slot.isLive && slot.segment == number { orphans.append((index, slot)) }
            }
            for (index, slot) in orphans.sorted(by: { $0.1.offset < $1.1.offset }) {
                guard let bytes = try directory.segments.read(number, offset: Int(slot.offset), length: Int(slot.length)),
                      let frame = try? FrameHeader(bytes, at: 0, available: bytes.count, fileOffset: Int(slot.offset), path: path,
                                                   allowsExternal: true),
                      frame.length == bytes.count, frame.kind != .delete, frame.verify(bytes, at: 0),
                      case let key = Array(frame.key(in: bytes, at: 0)), case let hash = CacheDirectory.hash(ofFrameKey: key),
                      CacheSlot.tag(hash) == slot.tag
                else {
                    try release(index, slot)
                    continue
                }
                try dispose(bytes, key: key, hash: hash, index: index, slot: slot, keeping: kept, carryingAll: carryingAll,
                            &evicted, &state)
            }
            try flushCarried(&state)
        }
        // Every live frame is dealt with: the file goes, then its blocks and frames leave the counts (a failed
        // unlink leaves them counted; the next eviction finds the cursor at the end and tries again).
        _ = try fileSystem.unlink(path)
        header.sealedBytes = max(0, header.sealedBytes - allocated)
        header.segmentBytes = max(0, header.segmentBytes - length)
        directory.segments.forget(number)
        header.oldestSegment &+= 1
        header.cursor = 0
        state.directoryBytes = directory.directoryBytes()
        changed = true
        return evicted
    }

    /// What eviction does with one live frame of the oldest segment (`bytes`, named by slot `index`): carried
    /// forward (appended again at the head) when compacting, when used since it was written (its mark cleared)
    /// or when it is the entry the current write made; otherwise freed, its hash added to `evicted`.
    private mutating func dispose(_ bytes: [UInt8], key: [UInt8], hash: StableHash, index: Int, slot: CacheSlot, keeping kept: [UInt8]?,
                                  carryingAll: Bool, _ evicted: inout [StableHash], _ state: inout CacheWriterState) throws(StoreError) {
        guard carryingAll || slot.isReferenced || key == kept else {
            try free(index, slot, hash: hash)
            evicted.append(hash)
            return
        }
        var moved = slot
        if !carryingAll { moved.flags &= ~CacheSlot.referenced }
        carried.append((index, moved, bytes))
        carriedBytes += bytes.count
        if carriedBytes >= 1 << 20 { try flushCarried(&state) }
    }

    /// Writes the frames eviction carries forward to the head, as few writes as the segments allow, then
    /// points their slots at them (a slot names a frame only once it is written).
    private mutating func flushCarried(_ state: inout CacheWriterState) throws(StoreError) {
        var i = 0
        while i < carried.count {
            if header.headLength > 0 && header.headLength + carried[i].frame.count > segmentSize { try sealHead(&state) }
            var chunk: [UInt8] = []
            var j = i
            while j < carried.count, header.headLength + chunk.count + carried[j].frame.count <= segmentSize || chunk.isEmpty {
                chunk += carried[j].frame
                j += 1
            }
            var offset = try writeAtHead(chunk, &state)
            for k in i..<j {
                var moved = carried[k].slot
                moved.segment = header.headSegment
                moved.offset = UInt32(offset)
                try table.write(moved, at: carried[k].index)
                offset += carried[k].frame.count
            }
            i = j
        }
        carried.removeAll(keepingCapacity: true)
        carriedBytes = 0
    }

    /// Removes every entry: segments, large files and table, and starts a new table whose segment numbers go on
    /// from the old ones (numbers are never reused: readers keep segments open by number). Returns how many
    /// entries there were.
    /// `progress` counts the files removed (segments and large entries), of those there are.
    mutating func removeAll(progress: ProgressHandler? = nil, _ state: inout CacheWriterState) throws(StoreError) -> Int {
        let removed = header.count
        let next = header.headSegment &+ 1
        let numbers = try directory.segments.numbers()
        let large = (try fileSystem.list(directory.largePath) ?? []).filter {
            $0.utf8.count == 40 && $0.hasSuffix(".archive") && StableHash(hex: $0.prefix(32)) != nil
        }
        var done = 0
        for number in numbers {
            _ = try fileSystem.unlink(directory.segments.file(number))
            directory.segments.forget(number)
            done += 1
            progress?(done, numbers.count + large.count)
        }
        for name in large {
            let file = PathName.join(directory.largePath, name)
            if let info = try fileSystem.linkStatus(file), info.isRegularFile { _ = try fileSystem.unlink(file) }
            done += 1
            progress?(done, numbers.count + large.count)
        }
        var fresh = CacheTableHeader.fresh(bits: 8, headSegment: next)
        fresh.changes = header.changes &+ 1
        try table.retire()
        try CacheTable.create(directory.tablePath, bits: 8, header: fresh, slots: [], fileSystem: fileSystem, durability: durability)
        guard let reopened = try CacheTable.open(directory.tablePath, fileSystem: fileSystem, writable: true) else {
            throw StoreError(.io, "the new cache table cannot be opened", path: directory.tablePath)
        }
        table = reopened
        header = fresh
        state = CacheWriterState()
        state.table = reopened
        state.directoryBytes = directory.directoryBytes()
        changed = false   // the new table's header is written already
        return removed
    }

    /// Removes the entries whose expiry (in the table, to the second, rounded up) is at or before `now`; returns
    /// their hashes.
    /// `progress` counts the expired entries removed, of those found.
    mutating func removeExpired(now: Double, progress: ProgressHandler? = nil,
                                _ state: inout CacheWriterState) throws(StoreError) -> [StableHash] {
        let limit = now.rounded(.down)
        var expired: [(Int, CacheSlot)] = []
        try table.forEachSlot { (index, slot) throws(StoreError) in
            if slot.isLive, slot.expiry != 0, Double(slot.expiry) <= limit { expired.append((index, slot)) }
        }
        var removed: [StableHash] = []
        for (index, slot) in expired {
            guard let key = try frameKey(slot) else {
                // The frame cannot be read: the slot goes (its entry could never be read again).
                try release(index, slot)
                continue
            }
            let hash = CacheDirectory.hash(ofFrameKey: key)
            _ = try append(FrameHeader.encode(kind: .delete, key: key, expiry: nil, payload: []), &state)
            try free(index, slot, hash: hash)
            removed.append(hash)
            progress?(removed.count, expired.count)
        }
        return removed
    }

    // MARK: Rebuild

    /// Writes a new table from what the segments hold (the last frame of each key wins; a delete frame removes
    /// it), after moving in the entries of a directory of the format before. Large entries whose file is gone
    /// are dropped, and large files no frame names are removed.
    ///
    /// `firstHead`: the least number the head segment may have (the table's own, when one is rebuilt that was
    /// there: numbers are never used twice).
    static func rebuild(_ directory: CacheDirectory, segmentSize: Int, largeThreshold: Int, durability: Durability,
                        firstHead: UInt32 = 0) throws(StoreError) {
        let fileSystem = directory.fileSystem
        try fileSystem.makeDirectory(directory.segments.path)
        var numbers = try directory.segments.numbers()
        // A fresh directory's numbers start anywhere, so that a number is not used again after the table and
        // every segment were lost while another process still has an old segment of that number open.
        var head = max(numbers.last ?? UInt32.random(in: 1 ... 1 << 30), firstHead)
        var headLength = 0
        if numbers.isEmpty && firstHead == 0 {
            try CacheLegacyMigration.moveIn(directory, firstSegment: head, segmentSize: segmentSize, largeThreshold: largeThreshold)
            numbers = try directory.segments.numbers()
            head = max(numbers.last ?? head, head)
        }
        struct Found { var segment: UInt32; var offset: Int; var length: Int; var expiry: Double?; var external: Bool }
        var entries: [[UInt8]: Found] = [:]
        var sealed = 0
        var segmentBytes = 0
        for number in numbers {
            let path = directory.segments.file(number)
            guard let fd = try fileSystem.openIfPresent(path, [.readOnly, .noFollow, .nonBlocking]) else { continue }
            defer { fileSystem.close(fd) }
            let info = try fileSystem.status(fd, path)
            guard info.isRegularFile else { continue }
            // A segment is never longer than this: what lies past it is not read (a hostile size is no allocation).
            let bytes = try fileSystem.read(fd, count: min(Int(clamping: info.size), CacheSegments.largestFile), at: 0, path)
            var offset = 0
            while offset + FrameHeader.size <= bytes.count {
                guard let frame = try? FrameHeader(bytes, at: offset, available: bytes.count - offset, fileOffset: offset, path: path,
                                                   allowsExternal: true),
                      frame.verify(bytes, at: offset)
                else { break }
                let key = Array(frame.key(in: bytes, at: offset))
                if frame.kind == .delete {
                    entries[key] = nil
                } else {
                    entries[key] = Found(segment: number, offset: offset, length: frame.length, expiry: frame.expiry,
                                         external: frame.kind == .external)
                }
                offset += frame.length
            }
            if number == head {
                headLength = offset
                segmentBytes += offset
                if info.size > Int64(offset) {
                    let writable = try fileSystem.open(path, [.writeOnly, .noFollow, .nonBlocking])
                    defer { fileSystem.close(writable) }
                    try fileSystem.truncate(writable, to: offset, path)
                }
            } else {
                sealed += Int(clamping: info.allocatedBytes)
                segmentBytes += bytes.count
            }
        }
        // Large files: each named by a live external frame's key hash is kept; the rest go.
        var external: Set<String> = []
        for (key, found) in entries where found.external {
            let name = CacheDirectory.hash(ofFrameKey: key).hex + ".archive"
            if let info = try fileSystem.linkStatus(PathName.join(directory.largePath, name)), info.isRegularFile {
                external.insert(name)
                sealed += Int(clamping: info.allocatedBytes)
            } else {
                entries[key] = nil
            }
        }
        for name in try fileSystem.list(directory.largePath) ?? [] where !external.contains(name) {
            // Only names the cache gives its files: `<32 hex>.archive` (temporary files go in `sweepTemporaries`).
            guard name.utf8.count == 40, name.hasSuffix(".archive"), StableHash(hex: name.prefix(32)) != nil else { continue }
            let file = PathName.join(directory.largePath, name)
            if let info = try fileSystem.linkStatus(file), info.isRegularFile { _ = try? fileSystem.unlink(file) }
        }
        var bits = 8
        while (1 << bits) < entries.count * 2 && bits < CacheTable.largestBits { bits += 1 }
        var taken = [Bool](repeating: false, count: 1 << bits)
        var slots: [(Int, CacheSlot)] = []
        slots.reserveCapacity(entries.count)
        for (key, found) in entries {
            let tag = CacheSlot.tag(CacheDirectory.hash(ofFrameKey: key))
            var index = CacheTable.home(tag, bits: bits)
            while taken[index] { index = (index + 1) & ((1 << bits) - 1) }
            taken[index] = true
            slots.append((index, CacheSlot(tag: tag, segment: found.segment, offset: UInt32(found.offset), length: UInt32(found.length),
                                           expiry: CacheSlot.expiry(found.expiry), flags: found.external ? CacheSlot.external : 0)))
        }
        var header = CacheTableHeader.fresh(bits: bits, headSegment: head)
        header.oldestSegment = numbers.first ?? head
        header.headLength = headLength
        header.count = slots.count
        header.used = slots.count
        header.sealedBytes = sealed
        header.segmentBytes = segmentBytes
        header.liveBytes = slots.reduce(0) { $0 + Int($1.1.length) }
        try CacheTable.create(directory.tablePath, bits: bits, header: header, slots: slots, fileSystem: fileSystem,
                              durability: durability)
    }
}
