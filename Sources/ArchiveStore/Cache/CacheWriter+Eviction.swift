import ArchivePlatform

/// Space: what the directory takes on disk, and the eviction, compaction, expiry and clearing that give it back.
extension CacheWriter {
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
        // The segments counted are the files there are, not the numbers the header spans (a damaged table may
        // span a million): one listing, made only once eviction has to walk.
        func budget(_ header: CacheTableHeader) throws(StoreError) -> Int {
            2 * min(Int(header.headSegment &- header.oldestSegment), try directory.segments.numbers().count) + 4
        }
        var walks = -1
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
            if walks < 0 { walks = try budget(header) }
            if walks <= 0 || nothingLeft {
                guard !repaired, overCount || overBytes else { break }
                try rebuildTable(&state)
                repaired = true
                walks = try budget(header)
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

    /// Gives back at least `bytes` of disk, when the disk is full: the oldest sealed segments are evicted whole
    /// (never the head, which holds the newest entries), and nothing is carried forward (carrying would write,
    /// which a full disk refuses). Returns the hashes of the entries evicted; none when only the head holds
    /// entries.
    mutating func giveBackRoom(atLeast bytes: Int, _ state: inout CacheWriterState) throws(StoreError) -> [StableHash] {
        var evicted: [StableHash] = []
        var freed = 0
        while freed < bytes && header.count > 0 && header.oldestSegment != header.headSegment {
            let before = try diskUse(state)
            evicted += try evictFromOldest(until: { _ in false }, keeping: nil, carryingAll: false, carryingUsed: false, &state)
            freed += max(0, before - (try diskUse(state)))
        }
        return evicted
    }

    /// Replaces the table with one rebuilt from the segments, the old one retired once the new one is in place.
    /// The files this section removed are gone for good first: the new table counts only the files there are,
    /// and carries no unfinished mark that would recount them after a power cut.
    private mutating func rebuildTable(_ state: inout CacheWriterState) throws(StoreError) {
        try syncUnlinks()
        let changes = header.changes
        try Self.rebuild(directory, segmentSize: segmentSize, largeThreshold: largeThreshold, durability: durability,
                         firstHead: header.headSegment)
        try table.retire()
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
        // The new table has no mark yet: the next change marks it (and syncs the mark) again.
        markIsDurable = false
        movedSlotsAwaitSync = false
    }

    /// Deals with the oldest segment's frames from the cursor on, until `done` or its end (then its file is
    /// removed and the next segment becomes the oldest).
    ///
    /// When it fails (a full disk refuses the frames it carries forward, say), the cursor goes back to the
    /// first frame it had queued to carry: those entries are still in this segment, and the next eviction must
    /// walk them again rather than remove the segment under them.
    @discardableResult
    private mutating func evictFromOldest(until done: (CacheWriter) -> Bool, keeping kept: [UInt8]?, carryingAll: Bool,
                                          carryingUsed: Bool = true, _ state: inout CacheWriterState) throws(StoreError) -> [StableHash] {
        do {
            return try walkOldest(until: done, keeping: kept, carryingAll: carryingAll, carryingUsed: carryingUsed, &state)
        } catch {
            let number = header.oldestSegment
            if let first = carried.lazy.filter({ $0.slot.segment == number }).map({ Int($0.slot.offset) }).min() {
                header.cursor = min(header.cursor, first)
            }
            carried.removeAll(keepingCapacity: true)
            carriedBytes = 0
            throw error
        }
    }

    /// ``evictFromOldest(until:keeping:carryingAll:carryingUsed:_:)``, a failure left to it.
    private mutating func walkOldest(until done: (CacheWriter) -> Bool, keeping kept: [UInt8]?, carryingAll: Bool,
                                     carryingUsed: Bool, _ state: inout CacheWriterState) throws(StoreError) -> [StableHash] {
        let number = header.oldestSegment
        let path = directory.segments.file(number)
        var evicted: [StableHash] = []
        var allocated = 0
        var length = 0
        var finished = true
        var walked = true
        var present = false
        let opened = try directory.segments.openFile(number)
        if opened == nil, let planted = try fileSystem.linkStatus(path) {
            // Something that is no segment file has the oldest segment's name (a symbolic link, a device, an
            // empty directory): the name goes (never what a link points to), and the table is recounted from
            // the segments there are, which forgets the entries it held and the blocks it was counted for. A
            // directory with files in it stays, passed over as a segment gone.
            try willChangeFiles(durably: true)
            if planted.isDirectory ? try fileSystem.removeDirectory(path) : try fileSystem.unlink(path) {
                didUnlink(in: directory.segments.path)
                directory.segments.forget(number)
                try rebuildTable(&state)
                return evicted
            }
        }
        if let fd = opened {
            present = true
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
                            carryingAll: carryingAll, carryingUsed: carryingUsed, &evicted, &state)
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
                            carryingUsed: carryingUsed, &evicted, &state)
            }
            try flushCarried(&state)
        }
        // Every live frame is dealt with: the file goes, then its blocks and frames leave the counts (a failed
        // unlink leaves them counted; the next eviction finds the cursor at the end and tries again).
        try willChangeFiles(durably: true)
        if try fileSystem.unlink(path) { didUnlink(in: directory.segments.path) }
        header.sealedBytes = max(0, header.sealedBytes - allocated)
        header.segmentBytes = max(0, header.segmentBytes - length)
        var next = number &+ 1
        if !present && next < header.headSegment {
            // Absent segments (a table that names more than the directory holds: up to a million numbers) are
            // passed over together, up to the next file there is: one listing, not calls for every number.
            next = try directory.segments.numbers().first { $0 > number && $0 <= header.headSegment } ?? header.headSegment
        }
        if next > number { directory.segments.forget(number..<next) } else { directory.segments.forget(number) }
        header.oldestSegment = next
        header.cursor = 0
        state.directoryBytes = directory.directoryBytes()
        changed = true
        return evicted
    }

    /// What eviction does with one live frame of the oldest segment (`bytes`, named by slot `index`): carried
    /// forward (appended again at the head) when compacting, when used since it was written (its mark cleared;
    /// unless not `carryingUsed`) or when it is the entry the current write made; otherwise freed, its hash
    /// added to `evicted`.
    private mutating func dispose(_ bytes: [UInt8], key: [UInt8], hash: StableHash, index: Int, slot: CacheSlot, keeping kept: [UInt8]?,
                                  carryingAll: Bool, carryingUsed: Bool, _ evicted: inout [StableHash],
                                  _ state: inout CacheWriterState) throws(StoreError) {
        guard carryingAll || (carryingUsed && slot.isReferenced) || key == kept else {
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
    mutating func flushCarried(_ state: inout CacheWriterState) throws(StoreError) {
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
            if durability == .synchronous { movedSlotsAwaitSync = true }
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
        let large = (try fileSystem.list(directory.largePath) ?? []).filter(CacheDirectory.isLargeFileName)
        var done = 0
        try willChangeFiles(durably: true)
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
        // The files gone for good before the new table, which counts none of them, is.
        if !numbers.isEmpty { didUnlink(in: directory.segments.path) }
        if !large.isEmpty { didUnlink(in: directory.largePath) }
        try syncUnlinks()
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
}
