import ArchivePlatform

/// One slot of a cache's table: where the entry of one key is.
///
/// 24 bytes, little-endian: tag u32 (the top 32 bits of the key's ``StableHash``, whose top bits also choose
/// the slot, so that a larger table is filled from the tags alone; 0 is an empty slot, 1 a removed one, and a
/// hash whose tag would be 0 or 1 takes 2 or 3), segment u32, offset u32 and length u32 of the entry's frame,
/// expiry u32 (seconds since 1970, rounded up; 0 for none), flags u16 (1: the entry is in a file of its own; 2:
/// used since it was written), zero u16.
struct CacheSlot: Hashable, Sendable {
    static let size = 24
    static let emptyTag: UInt32 = 0
    static let removedTag: UInt32 = 1
    static let external: UInt16 = 1
    static let referenced: UInt16 = 2

    var tag: UInt32
    var segment: UInt32
    var offset: UInt32
    var length: UInt32
    var expiry: UInt32
    var flags: UInt16

    /// The tag of a key's hash: its top 32 bits, never 0 or 1.
    static func tag(_ hash: StableHash) -> UInt32 {
        let tag = UInt32(truncatingIfNeeded: hash.high >> 32)
        return tag < 2 ? tag + 2 : tag
    }

    static let empty = CacheSlot(tag: emptyTag, segment: 0, offset: 0, length: 0, expiry: 0, flags: 0)

    var isEmpty: Bool { tag == Self.emptyTag }
    var isRemoved: Bool { tag == Self.removedTag }
    var isLive: Bool { tag >= 2 }
    var isExternal: Bool { flags & Self.external != 0 }
    var isReferenced: Bool { flags & Self.referenced != 0 }

    /// Whether both name the same frame.
    func sameFrame(as other: CacheSlot) -> Bool {
        tag == other.tag && segment == other.segment && offset == other.offset && length == other.length
    }

    func append(to bytes: inout [UInt8]) {
        appendLittleEndian(UInt64(tag), width: 4, to: &bytes)
        appendLittleEndian(UInt64(segment), width: 4, to: &bytes)
        appendLittleEndian(UInt64(offset), width: 4, to: &bytes)
        appendLittleEndian(UInt64(length), width: 4, to: &bytes)
        appendLittleEndian(UInt64(expiry), width: 4, to: &bytes)
        appendLittleEndian(UInt64(flags), width: 2, to: &bytes)
        appendLittleEndian(0, width: 2, to: &bytes)
    }

    var bytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.size)
        append(to: &bytes)
        return bytes
    }

    init(tag: UInt32, segment: UInt32, offset: UInt32, length: UInt32, expiry: UInt32, flags: UInt16) {
        (self.tag, self.segment, self.offset, self.length, self.expiry, self.flags) = (tag, segment, offset, length, expiry, flags)
    }

    /// The slot at `start` of `bytes` (the caller checked the bounds).
    init(_ bytes: [UInt8], at start: Int) {
        tag = UInt32(readLittleEndian(bytes, start, width: 4))
        segment = UInt32(readLittleEndian(bytes, start + 4, width: 4))
        offset = UInt32(readLittleEndian(bytes, start + 8, width: 4))
        length = UInt32(readLittleEndian(bytes, start + 12, width: 4))
        expiry = UInt32(readLittleEndian(bytes, start + 16, width: 4))
        flags = UInt16(readLittleEndian(bytes, start + 20, width: 2))
    }

    /// An expiry as slots keep it: seconds since 1970 rounded up (0 for none; an expiry at or before 1970 is 1,
    /// already past).
    static func expiry(_ seconds: Double?) -> UInt32 {
        guard let seconds else { return 0 }
        guard seconds.isFinite else { return seconds > 0 ? UInt32.max : 1 }
        let rounded = seconds.rounded(.up)
        if rounded <= 1 { return 1 }
        return rounded >= Double(UInt32.max) ? UInt32.max : UInt32(rounded)
    }
}

/// The first page of a cache's table: what the writers keep in common. 104 bytes used, little-endian:
///
/// `ACTABLE1` (8), slot bits u32 (the table has 2^bits slots), slot size u32 (24), head segment u32, oldest
/// segment u32, head length u64 (the bytes of the head segment that hold whole frames), entry count u64, used
/// slots u64 (live and removed), sealed bytes u64 (what the sealed segments and the large entries' files take on
/// disk), changes u64 (bumped by every change; all ones when the table was replaced by a larger one: look again),
/// generation u64 (random, one per table file), eviction cursor u64 (how far into the oldest segment eviction has
/// gone), live bytes u64 (the frames the slots name), segment bytes u64 (every frame in the segments there are,
/// dead ones included: the difference is what compaction can give back), CRC-32 of bytes 0..<96 (u32), unfinished
/// u32 (1 while a writer's section is changing files: see ``unfinished``; outside the CRC, 0 from writers before it).
struct CacheTableHeader: Hashable, Sendable {
    static let magic: [UInt8] = Array("ACTABLE1".utf8)
    /// Where the slots start: the header has a page of its own.
    static let pageSize = 4096
    static let usedSize = 104
    /// The most bytes a header's figures (sealed, live and segment bytes) may claim: 2^53, 8 PiB, far past any
    /// directory (a million segments of the largest). A header that claims more is damaged: arithmetic on its
    /// figures (a frame added, dead bytes weighed against thirty-three times the live) then never overflows.
    static let largestByteFigure = 1 << 53
    static let checksumOffset = 96
    /// The offset of the `changes` word, which a memory hit reads alone.
    static let changesOffset = 56
    /// The offset of the `unfinished` word.
    static let unfinishedOffset = 100
    static let retired = UInt64.max

    var bits: Int
    var headSegment: UInt32
    var oldestSegment: UInt32
    var headLength: Int
    var count: Int
    var used: Int
    var sealedBytes: Int
    var changes: UInt64
    var generation: UInt64
    /// The offset in the oldest segment before which eviction has dealt with every frame.
    var cursor: Int = 0
    /// The bytes of the frames live slots name (not the large files).
    var liveBytes: Int = 0
    /// The bytes of every frame in the segment files there are, dead ones included.
    var segmentBytes: Int = 0
    /// Set (and written) by a writer's section before its first change to the files, cleared when it writes the
    /// header back: the files changed at once, the figures above only then. Found set by the next writer, the one
    /// before died in between (killed, crashed), and the figures may not match the files (a large file renamed
    /// in but never counted, segments past the head): the table is rebuilt from the files.
    var unfinished = false

    /// Frame bytes no slot names: what compacting the segments would give back.
    var deadBytes: Int { max(0, segmentBytes - liveBytes) }

    var capacity: Int { 1 << bits }

    /// A new, empty table's header.
    static func fresh(bits: Int, headSegment: UInt32) -> CacheTableHeader {
        CacheTableHeader(bits: bits, headSegment: headSegment, oldestSegment: headSegment, headLength: 0, count: 0, used: 0,
                         sealedBytes: 0, changes: 1, generation: UInt64.random(in: 1 ... .max))
    }

    var bytes: [UInt8] {
        var bytes = Self.magic
        bytes.reserveCapacity(Self.usedSize)
        appendLittleEndian(UInt64(bits), width: 4, to: &bytes)
        appendLittleEndian(UInt64(CacheSlot.size), width: 4, to: &bytes)
        appendLittleEndian(UInt64(headSegment), width: 4, to: &bytes)
        appendLittleEndian(UInt64(oldestSegment), width: 4, to: &bytes)
        for word in [UInt64(headLength), UInt64(count), UInt64(used), UInt64(sealedBytes), changes, generation, UInt64(cursor),
                     UInt64(max(0, liveBytes)), UInt64(max(0, segmentBytes))] {
            appendLittleEndian(word, width: 8, to: &bytes)
        }
        appendLittleEndian(UInt64(Checksum.crc32(bytes)), width: 4, to: &bytes)
        appendLittleEndian(unfinished ? 1 : 0, width: 4, to: &bytes)
        return bytes
    }

}

extension CacheTableHeader {
    /// The header in `bytes`; `nil` when it is damaged, retired or impossible (every number checked against
    /// what an `Int` on this platform holds).
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= Self.usedSize, bytes.starts(with: Self.magic),
              readLittleEndian(bytes, Self.checksumOffset, width: 4) == UInt64(Checksum.crc32(bytes, 0..<Self.checksumOffset)),
              readLittleEndian(bytes, 12, width: 4) == UInt64(CacheSlot.size)
        else { return nil }
        let bits = Int(readLittleEndian(bytes, 8, width: 4))
        guard (1...CacheTable.largestBits).contains(bits),
              let headLength = intFromDisk(readLittleEndian(bytes, 24, width: 8)),
              let count = intFromDisk(readLittleEndian(bytes, 32, width: 8)),
              let used = intFromDisk(readLittleEndian(bytes, 40, width: 8)),
              let sealed = intFromDisk(readLittleEndian(bytes, 48, width: 8)),
              count <= used, used <= 1 << bits, headLength <= CacheSegments.largestFile, sealed <= Self.largestByteFigure
        else { return nil }
        let changes = readLittleEndian(bytes, Self.changesOffset, width: 8)
        guard changes != Self.retired else { return nil }
        self.bits = bits
        headSegment = UInt32(readLittleEndian(bytes, 16, width: 4))
        oldestSegment = UInt32(readLittleEndian(bytes, 20, width: 4))
        // At most a million segments (8 TiB of the largest): a count of segments to walk, never more.
        guard oldestSegment <= headSegment, headSegment - oldestSegment < 1 << 20 else { return nil }
        self.headLength = headLength
        self.count = count
        self.used = used
        sealedBytes = sealed
        self.changes = changes
        generation = readLittleEndian(bytes, 64, width: 8)
        guard let cursor = intFromDisk(readLittleEndian(bytes, 72, width: 8)),
              let live = intFromDisk(readLittleEndian(bytes, 80, width: 8)),
              let segment = intFromDisk(readLittleEndian(bytes, 88, width: 8)),
              cursor <= CacheSegments.largestFile, live <= Self.largestByteFigure, segment <= Self.largestByteFigure
        else { return nil }
        self.cursor = cursor
        liveBytes = live
        segmentBytes = segment
        unfinished = readLittleEndian(bytes, Self.unfinishedOffset, width: 4) != 0
    }
}

/// An open cache table (`cache.table`): the header page, then 2^bits slots of ``CacheSlot``, each key in the
/// slot its hash's top bits choose or the first free one after it (linear probing).
///
/// Writers change slots and the header in place, holding the directory's lock; readers read them without any
/// lock. A read that races with a write may see a slot half written: what it names is then checked (the frame's
/// checksum and key), so such a read is a miss, never wrong data. A table that grows is written whole to a new
/// file renamed into place; the old one is then marked retired (its `changes` set to all ones), so a reader
/// that watches it looks again.
final class CacheTable {
    static let fileName = "cache.table"
    /// The most slots a table has: 2^28 (6 GiB of table, 188 million entries at the 70% load it grows at); 2^24
    /// where an `Int` has 32 bits (a table's size must fit one).
    static let largestBits = Int.bitWidth == 64 ? 28 : 24

    let fd: FileDescriptor
    let path: String
    let fileSystem: FileSystem
    let inode: UInt64
    /// The slot bits, from the file's size (readers need no header for it).
    let bits: Int

    var capacity: Int { 1 << bits }

    private init(fd: FileDescriptor, path: String, fileSystem: FileSystem, inode: UInt64, bits: Int) {
        self.fd = fd
        self.path = path
        self.fileSystem = fileSystem
        self.inode = inode
        self.bits = bits
    }

    deinit { fileSystem.close(fd) }

    /// Opens the table at `path`; `nil` when there is none or its size is no table's (a writer rebuilds it).
    /// A link or a non-regular file there is refused like any of the cache's own files.
    static func open(_ path: String, fileSystem: FileSystem, writable: Bool) throws(StoreError) -> CacheTable? {
        guard let fd = try fileSystem.openIfPresent(path, [writable ? .readWrite : .readOnly, .noFollow, .nonBlocking]) else {
            return nil
        }
        let info: FileStatus
        do throws(StoreError) {
            info = try fileSystem.status(fd, path)
            try info.requireOwnRegularFile(path)
        } catch {
            fileSystem.close(fd)
            throw error
        }
        let slotBytes = Int(clamping: info.size) - CacheTableHeader.pageSize
        guard slotBytes >= CacheSlot.size * 2, slotBytes % CacheSlot.size == 0,
              case let slots = slotBytes / CacheSlot.size, slots & (slots - 1) == 0, slots <= 1 << largestBits
        else {
            fileSystem.close(fd)
            return nil
        }
        return CacheTable(fd: fd, path: path, fileSystem: fileSystem, inode: info.inode, bits: slots.trailingZeroBitCount)
    }

    /// Writes a new table file of 2^`bits` slots holding `slots` (index, slot) and `header`, renamed over `path`.
    static func create(_ path: String, bits: Int, header: CacheTableHeader, slots: [(Int, CacheSlot)],
                       fileSystem: FileSystem, durability: Durability) throws(StoreError) {
        var bytes = [UInt8](repeating: 0, count: CacheTableHeader.pageSize + (1 << bits) * CacheSlot.size)
        let head = header.bytes
        bytes.replaceSubrange(0..<head.count, with: head)
        for (index, slot) in slots {
            let start = CacheTableHeader.pageSize + index * CacheSlot.size
            bytes.replaceSubrange(start..<start + CacheSlot.size, with: slot.bytes)
        }
        try AtomicReplace.replace(path, with: bytes, durability: durability, fileSystem: fileSystem)
    }

    // MARK: Header

    /// The header; `nil` when it is damaged, the table was retired, or it says another size than the file's.
    func header() throws(StoreError) -> CacheTableHeader? {
        guard let header = CacheTableHeader(try fileSystem.read(fd, count: CacheTableHeader.usedSize, at: 0, path)),
              header.bits == bits
        else { return nil }
        return header
    }

    /// The `changes` word alone (one small read: what a memory hit asks).
    func changes() throws(StoreError) -> UInt64 {
        let bytes = try fileSystem.read(fd, count: 8, at: CacheTableHeader.changesOffset, path)
        guard bytes.count == 8 else { return CacheTableHeader.retired }
        return readLittleEndian(bytes, 0, width: 8)
    }

    func write(_ header: CacheTableHeader) throws(StoreError) {
        try fileSystem.write(fd, header.bytes, at: 0, path)
    }

    /// Marks the table replaced: readers that watch it look for the new one.
    func retire() throws(StoreError) {
        var word: [UInt8] = []
        appendLittleEndian(CacheTableHeader.retired, width: 8, to: &word)
        try fileSystem.write(fd, word, at: CacheTableHeader.changesOffset, path)
    }

    // MARK: Slots

    /// The slot a tag starts probing at: its top `bits` bits.
    func home(_ tag: UInt32) -> Int { Self.home(tag, bits: bits) }

    static func home(_ tag: UInt32, bits: Int) -> Int { Int(tag >> UInt32(32 - bits)) }

    /// `count` slots from `index` (not past the end of the table; the caller wraps).
    func slots(from index: Int, count: Int) throws(StoreError) -> [CacheSlot] {
        let n = min(count, capacity - index)
        let bytes = try fileSystem.read(fd, count: n * CacheSlot.size, at: CacheTableHeader.pageSize + index * CacheSlot.size, path)
        let whole = bytes.count / CacheSlot.size
        return (0..<whole).map { CacheSlot(bytes, at: $0 * CacheSlot.size) }
    }

    func slot(_ index: Int) throws(StoreError) -> CacheSlot? {
        try slots(from: index, count: 1).first
    }

    func write(_ slot: CacheSlot, at index: Int) throws(StoreError) {
        try fileSystem.write(fd, slot.bytes, at: CacheTableHeader.pageSize + index * CacheSlot.size, path)
    }

    /// Every slot, in order (for growth, expiry and listing; a chunk at a time).
    func forEachSlot(_ body: (Int, CacheSlot) throws(StoreError) -> Void) throws(StoreError) {
        let chunk = 8_192
        var index = 0
        while index < capacity {
            let slots = try slots(from: index, count: chunk)
            guard !slots.isEmpty else { break }
            for (i, slot) in slots.enumerated() { try body(index + i, slot) }
            index += slots.count
        }
    }

    /// Calls `body` with each slot along the probe sequence of `tag`, from its home slot, until `body` says
    /// to stop or an empty slot ends the sequence (then `body` sees the empty slot last). Reads eight slots at
    /// a time.
    func probe(_ tag: UInt32, _ body: (Int, CacheSlot) throws(StoreError) -> Bool) throws(StoreError) {
        var index = home(tag)
        var seen = 0
        while seen < capacity {
            let window = try slots(from: index, count: 8)
            guard !window.isEmpty else { return }
            for (i, slot) in window.enumerated() {
                if try !body(index + i, slot) || slot.isEmpty { return }
                seen += 1
                if seen == capacity { return }
            }
            index = (index + window.count) & (capacity - 1)
        }
    }
}
