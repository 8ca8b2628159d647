/// The layout of a repository's store file: a log of framed keyed-archive records, appended to and never
/// changed in place except for its two commit slots.
///
/// ```
/// 0      header (64): "ARCHLOG1", format version u32 (3; 2 is read too), zero u32, generation u64
///        (the file's salt), CRC-32 of bytes 0..<24
/// 64     commit slot A (64)     } the valid slot with the higher sequence is the last published commit;
/// 128    commit slot B (64)     } a commit writes the other slot
/// 192    zero (64)
/// 256    frames, one after another
/// ```
///
/// Frame: see ``FrameHeader``: length u32, kind u8, flags u8 (bit 0: the last frame of a commit), key length
/// u16, expiry u64, CRC-32 u32, link u32, then the key (the record id's description, UTF-8) and, for a put,
/// the record as an ordinary keyed archive whose root object is the record.
///
/// **The chain.** Every frame's link is the log's chain before it: the chain starts at the CRC-32 of the
/// generation's eight little-endian bytes (the salt, new for every file) and after each frame is the CRC-32 of
/// that frame's checksum as four little-endian bytes, continued from the chain before it. A frame belongs to
/// the log when it matches its checksum and its link is the chain so far, so bytes left past the end by a
/// failed or torn write, or a frame of another file or of an earlier life of this one, never pass for the log.
///
/// **A commit** is its frames, the last flagged, appended after the last commit and synced once. Then one of
/// the two slots is written, without a sync of its own: it publishes the commit to readers in other processes
/// (who read only the slots to learn that the store changed) and is the checkpoint that later readers start
/// from. The slot is not what makes the commit durable: after a power cut, the slot may be the one before the
/// last commit (the next commit's sync makes it durable), and the commits past it are found by following the
/// chain from it up to the last flagged frame whose frames all belong. A damaged slot costs nothing but that
/// walk: the other slot is an older checkpoint.
///
/// Commit slot: sequence u64, committed length u64 (end of the last published frame), frame count u64, live
/// record count u64, live bytes u64 (the frames of live records), record format version u32, flags u32 (bit 0:
/// this file was replaced, see ``StoreHandle``), generation u64 (the header's), chain u32 (at the committed
/// length), CRC-32 of bytes 0..<60.
///
/// Format 2 (read, and rewritten as format 3 by the first change): frames carry no flags and no link, a commit
/// is the frames synced and then a slot, synced too, naming them; the chain starts at zero and is checked
/// against the slot's. A damaged newer slot with intact frames after the older one is
/// ``StoreError/Code/damagedCommit`` there. Format 1, written only by development builds, is refused.
///
/// All integers are little-endian. No Apple API: Core Data's SQLite store plays this part, with its
/// write-ahead log, whose frames carry a salt and a cumulative checksum in the same way.
enum RecordLog {
    static let magic: [UInt8] = Array("ARCHLOG1".utf8)
    /// The format this build writes.
    static let formatVersion: UInt64 = 3
    /// The oldest format this build reads (and rewrites as ``formatVersion`` on the first change).
    static let oldestReadableFormat: UInt64 = 2
    static let headerSize = 64
    static let slotSize = 64
    static let firstFrame = 256
    static let frameHeaderSize = FrameHeader.size
    /// The largest key (record id description) a frame can hold.
    static let largestKey = Int(UInt16.max)
    /// The largest frame (4 GiB - 1).
    static let largestFrame = Int(UInt32.max)
    /// The slot flag of a file that a rewrite replaced (see ``StoreHandle``).
    static let retiredFlag: UInt32 = 1

    /// Whether `prefix` (the first bytes of a file) starts like a record log.
    static func isLog(_ prefix: [UInt8]) -> Bool {
        prefix.count >= magic.count && prefix[0..<magic.count].elementsEqual(magic)
    }

    /// The chain before the first frame of a format 3 log of `generation`.
    static func seed(generation: UInt64) -> UInt32 {
        withUnsafeBytes(of: generation.littleEndian) { Checksum.crc32(continuing: 0, $0) }
    }

    /// The first 256 bytes of a new log (format 3) of `state`'s generation, with `state` in slot A.
    static func prologue(_ state: LogState) -> [UInt8] {
        var bytes = magic
        appendLittleEndian(formatVersion, width: 4, to: &bytes)
        appendLittleEndian(0, width: 4, to: &bytes)
        appendLittleEndian(state.generation, width: 8, to: &bytes)
        appendLittleEndian(UInt64(Checksum.crc32(bytes)), width: 4, to: &bytes)
        bytes += [UInt8](repeating: 0, count: headerSize - bytes.count)
        var first = state
        first.sequence = 0
        bytes += first.serialized()
        bytes += [UInt8](repeating: 0, count: firstFrame - bytes.count)
        return bytes
    }

    /// What the first 256 bytes of a log say.
    struct Prologue {
        /// The format (2 or 3).
        var format: UInt64
        /// The valid slot with the higher sequence.
        var state: LogState
        /// The offset of the other slot when it fails its checksum although it was written (not all zero):
        /// damaged, or torn by a crash while it was written.
        var damagedSlot: Int?
    }

    /// The state recorded in the first 256 bytes of a log.
    /// - Throws: ``StoreError/Code/corrupt`` (with the offset) when the header or both slots are damaged,
    ///   ``StoreError/Code/unsupportedVersion`` for a format this build does not read (a newer one, or
    ///   format 1, which only development builds wrote).
    static func prologue(_ bytes: [UInt8], path: String) throws(StoreError) -> Prologue {
        guard bytes.count >= firstFrame else {
            throw StoreError(.corrupt, "the store file ends inside its header (\(bytes.count) bytes)", path: path, offset: bytes.count)
        }
        guard isLog(bytes) else { throw StoreError(.corrupt, "not a record log", path: path, offset: 0) }
        guard UInt64(Checksum.crc32(bytes, 0..<24)) == readLittleEndian(bytes, 24, width: 4) else {
            throw StoreError(.corrupt, "the header's checksum does not match", path: path, offset: 0)
        }
        let version = readLittleEndian(bytes, 8, width: 4)
        guard version >= oldestReadableFormat else {
            throw StoreError(.unsupportedVersion, "store file format \(version) is older than format \(oldestReadableFormat), the oldest this build reads (format 1 was written only by development builds)",
                             path: path, offset: 8)
        }
        guard version <= formatVersion else {
            throw StoreError(.unsupportedVersion, "store file format \(version) is not \(formatVersion); open it with a newer version of the program that wrote it",
                             path: path, offset: 8)
        }
        let generation = readLittleEndian(bytes, 16, width: 8)
        guard let (state, damaged) = slots(bytes, generation: generation, format: version) else {
            throw StoreError(.corrupt, "both commit slots are damaged", path: path, offset: headerSize)
        }
        return Prologue(format: version, state: state, damagedSlot: damaged)
    }

    /// The newer valid slot of `bytes` (at least the first 192 bytes of a log), and the offset of the other
    /// when it was written but fails its checksum; `nil` when neither is valid.
    static func slots(_ bytes: [UInt8], generation: UInt64, format: UInt64) -> (LogState, Int?)? {
        let offsets = [headerSize, headerSize + slotSize]
        let slots = offsets.map { LogState(parsing: bytes, at: $0, generation: generation, format: format) }
        guard let state = slots.compactMap({ $0 }).max(by: { $0.sequence < $1.sequence }) else { return nil }
        var damaged: Int?
        for (slot, offset) in zip(slots, offsets) where slot == nil {
            if bytes[offset..<offset + slotSize].contains(where: { $0 != 0 }) { damaged = offset }
        }
        return (state, damaged)
    }

    /// The file offset of the slot that the commit of `state` writes.
    static func slotOffset(of state: LogState) -> Int { headerSize + slotSize * Int(state.sequence % 2) }
}

/// One commit of a ``RecordLog``: how far the log is valid and what it holds.
struct LogState: Hashable, Sendable {
    var sequence: UInt64
    /// The end of the last committed frame.
    var committed: Int
    var frameCount: Int
    var liveCount: Int
    /// The bytes of the frames of live records.
    var liveBytes: Int
    var recordVersion: Int
    /// Slot flags (format 3): ``RecordLog/retiredFlag``.
    var flags: UInt32 = 0
    var generation: UInt64
    /// The chain of the frames' checksums up to `committed` (see ``RecordLog``).
    var chain: UInt32

    /// An empty format 3 log of a new random generation.
    static func empty(recordVersion: Int) -> LogState {
        let generation = UInt64.random(in: 1 ... .max)
        return LogState(sequence: 0, committed: RecordLog.firstFrame, frameCount: 0, liveCount: 0, liveBytes: 0,
                        recordVersion: recordVersion, generation: generation, chain: RecordLog.seed(generation: generation))
    }

    /// The chain after a frame whose checksum is `checksum`.
    static func chain(_ chain: UInt32, after checksum: UInt32) -> UInt32 { Checksum.crc32(continuing: chain, word: checksum) }

    /// The slot's 64 bytes (format 3).
    func serialized() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(RecordLog.slotSize)
        // Word by word: a loop over an array literal would make the array each time (a slot is written each commit).
        appendLittleEndian(sequence, width: 8, to: &bytes)
        appendLittleEndian(UInt64(committed), width: 8, to: &bytes)
        appendLittleEndian(UInt64(frameCount), width: 8, to: &bytes)
        appendLittleEndian(UInt64(liveCount), width: 8, to: &bytes)
        appendLittleEndian(UInt64(liveBytes), width: 8, to: &bytes)
        appendLittleEndian(UInt64(UInt32(truncatingIfNeeded: recordVersion)), width: 4, to: &bytes)
        appendLittleEndian(UInt64(flags), width: 4, to: &bytes)
        appendLittleEndian(generation, width: 8, to: &bytes)
        appendLittleEndian(UInt64(chain), width: 4, to: &bytes)
        appendLittleEndian(UInt64(Checksum.crc32(bytes)), width: 4, to: &bytes)
        return bytes
    }

    /// Bytes of frames that no live record needs (replaced, removed, delete frames).
    var deadBytes: Int { committed - RecordLog.firstFrame - liveBytes }

    /// Whether a rewrite replaced the file that holds this slot.
    var isRetired: Bool { flags & RecordLog.retiredFlag != 0 }
}

extension LogState {
    /// The slot at `offset`, or `nil` when its checksum, generation or numbers are not those of a commit
    /// (numbers that do not fit an `Int` here, on a 32-bit platform too, are damage).
    init?(parsing bytes: [UInt8], at offset: Int, generation: UInt64, format: UInt64) {
        guard UInt64(Checksum.crc32(bytes, offset..<offset + 60)) == readLittleEndian(bytes, offset + 60, width: 4),
              readLittleEndian(bytes, offset + 48, width: 8) == generation
        else { return nil }
        let words = (0..<6).map { readLittleEndian(bytes, offset + 8 * $0, width: 8) }
        // Format 3 keeps the record version in 32 bits and flags in the other 32.
        let version = format >= 3 ? words[5] & 0xFFFF_FFFF : words[5]
        let flags = format >= 3 ? UInt32(truncatingIfNeeded: words[5] >> 32) : 0
        let limit = UInt64(Int64.max / 2)
        let first = UInt64(RecordLog.firstFrame)
        guard words[0..<5].allSatisfy({ $0 < limit }), version < limit, words[1] >= first, words[4] <= words[1] - first,
              words[3] <= words[2], words[2] <= (words[1] - first) / UInt64(RecordLog.frameHeaderSize),
              flags & ~RecordLog.retiredFlag == 0,
              let committed = intFromDisk(words[1]), let frameCount = intFromDisk(words[2]),
              let liveCount = intFromDisk(words[3]), let liveBytes = intFromDisk(words[4]),
              let recordVersion = intFromDisk(version)
        else { return nil }
        sequence = words[0]
        self.committed = committed
        self.frameCount = frameCount
        self.liveCount = liveCount
        self.liveBytes = liveBytes
        self.recordVersion = recordVersion
        self.flags = flags
        self.generation = generation
        chain = UInt32(readLittleEndian(bytes, offset + 56, width: 4))
    }
}
