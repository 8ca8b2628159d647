import ArchivePlatform

/// Rebuilding the table from the segments, when it is lost or damaged.
extension CacheWriter {
    /// Writes a new table from what the segments hold (the last frame of each key wins; a delete frame removes
    /// it). Large entries whose file is gone
    /// are dropped, and large files no frame names are removed.
    ///
    /// `firstHead`: the least number the head segment may have (the table's own, when one is rebuilt that was
    /// there: numbers are never used twice).
    static func rebuild(_ directory: CacheDirectory, segmentSize: Int, largeThreshold: Int, durability: Durability,
                        firstHead: UInt32 = 0) throws(StoreError) {
        let fileSystem = directory.fileSystem
        try directory.makeSubdirectory(directory.segments.path, durability: durability)
        let numbers = try directory.segments.numbers()
        // A fresh directory's numbers start anywhere, so that a number is not used again after the table and
        // every segment were lost while another process still has an old segment of that number open.
        let head = max(numbers.last ?? UInt32.random(in: 1 ... 1 << 30), firstHead)
        var headLength = 0
        struct Found { var segment: UInt32; var offset: Int; var length: Int; var expiry: Double?; var external: Bool; var alternate: Bool }
        var entries: [[UInt8]: Found] = [:]
        var sealed = 0
        var segmentBytes = 0
        for number in numbers {
            let path = directory.segments.file(number)
            guard let fd = try directory.segments.openFile(number) else { continue }   // gone, or no regular file
            defer { fileSystem.close(fd) }
            let info = try fileSystem.status(fd, path)
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
                    let external = frame.kind == .external
                    entries[key] = Found(segment: number, offset: offset, length: frame.length, expiry: frame.expiry, external: external,
                                         alternate: external && CacheDirectory.ExternalPayload.read(frame.payload(in: bytes, at: offset)).alternate)
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
            let name = CacheDirectory.hash(ofFrameKey: key).hex + (found.alternate ? ".1.archive" : ".archive")
            if let info = try fileSystem.linkStatus(PathName.join(directory.largePath, name)), info.isRegularFile {
                external.insert(name)
                sealed += Int(clamping: info.allocatedBytes)
            } else {
                entries[key] = nil
            }
        }
        var swept = false
        for name in try fileSystem.list(directory.largePath) ?? [] where !external.contains(name) {
            // Only names the cache gives its files: `<32 hex>.archive` and `<32 hex>.1.archive` (temporary files go
            // in `sweepTemporaries`).
            guard CacheDirectory.isLargeFileName(name) else { continue }
            let file = PathName.join(directory.largePath, name)
            if let info = try fileSystem.linkStatus(file), info.isRegularFile, (try? fileSystem.unlink(file)) == true { swept = true }
        }
        // With `.synchronous`, the files swept stay gone once the table that does not count them is in place.
        if swept && durability == .synchronous { try fileSystem.syncDirectory(directory.largePath) }
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
