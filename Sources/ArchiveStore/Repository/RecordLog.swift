/// The layout of a repository's store file: a log of framed keyed-archive records, appended to and never
/// changed in place except for its two commit slots.
///
/// ```
/// 0      header (64): "ARCHLOG1", format version u32 (2; 1 is read too), zero u32, generation u64,
///        CRC-32 of bytes 0..<24
/// 64     commit slot A (64)     } the valid slot with the higher sequence is the state of the store;
/// 128    commit slot B (64)     } a commit writes the other slot, so a torn write leaves the old state
/// 192    zero (64)
/// 256    frames, one after another, up to the committed length of the current slot
/// ```
///
/// Commit slot: sequence u64, committed length u64 (end of the last committed frame), frame count u64,
/// live record count u64, live bytes u64 (the frames of live records), record format version u64,
/// generation u64 (the header's), chain u32, CRC-32 of bytes 0..<60 (u32). The chain is the CRC-32 of the
/// frames' own checksums, each as four little-endian bytes, in log order: it names the exact history of
/// frames a commit covers, so that an index (which records the chain at the length it covers) is used only
/// with the log it was made from, and a log whose frames are not those its commit names is refused.
/// (Format 1 slots have the CRC-32 of bytes 0..<56 in place of the chain and a zero u32 after it; a writer
/// rewrites such a log as format 2 on its first change.)
///
/// Frame: see ``FrameHeader``: length u32, kind u8, zero u8, key length u16, expiry u64, CRC-32 u32, zero u32,
/// then the key (the record id's description, UTF-8) and, for a put, the record as an ordinary keyed archive
/// whose root object is the record.
///
/// All integers are little-endian. Bytes past the committed length belong to a write that was never
/// committed (a crash or a failed write); readers ignore them and the next writer cuts them off, unless
/// the newer commit slot is damaged while they are intact frames: then the last commit may be what the
/// damage hides, and the store is reported (``StoreError/Code/damagedCommit``) instead of cut.
///
/// No Apple API: Core Data's SQLite store plays this part, with its write-ahead log.
enum RecordLog {
    static let magic: [UInt8] = Array("ARCHLOG1".utf8)
    /// The format this build writes.
    static let formatVersion: UInt64 = 2
    static let headerSize = 64
    static let slotSize = 64
    static let firstFrame = 256
    static let frameHeaderSize = FrameHeader.size
    /// The largest key (record id description) a frame can hold.
    static let largestKey = Int(UInt16.max)
    /// The largest frame (4 GiB - 1).
    static let largestFrame = Int(UInt32.max)

    /// Whether `prefix` (the first bytes of a file) starts like a record log.
    static func isLog(_ prefix: [UInt8]) -> Bool {
        prefix.count >= magic.count && prefix[0..<magic.count].elementsEqual(magic)
    }

    /// The first 256 bytes of a new log (format 2) of `state`'s generation, with `state` in slot A.
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
        /// The valid slot with the higher sequence.
        var state: LogState
        /// The offset of the other slot when it fails its checksum although it was written (not all zero):
        /// damaged, or torn by a crash while it was written.
        var damagedSlot: Int?
    }

    /// The state recorded in the first 256 bytes of a log.
    /// - Throws: ``StoreError/Code/corrupt`` (with the offset) when the header or both slots are damaged,
    ///   ``StoreError/Code/unsupportedVersion`` for a format this build does not know.
    static func prologue(_ bytes: [UInt8], path: String) throws(StoreError) -> Prologue {
        guard bytes.count >= firstFrame else {
            throw StoreError(.corrupt, "the store file ends inside its header (\(bytes.count) bytes)", path: path, offset: bytes.count)
        }
        guard isLog(bytes) else { throw StoreError(.corrupt, "not a record log", path: path, offset: 0) }
        guard UInt64(Checksum.crc32(bytes, 0..<24)) == readLittleEndian(bytes, 24, width: 4) else {
            throw StoreError(.corrupt, "the header's checksum does not match", path: path, offset: 0)
        }
        let version = readLittleEndian(bytes, 8, width: 4)
        guard version == 1 || version == formatVersion else {
            throw StoreError(.unsupportedVersion, "store file format \(version) is not \(formatVersion); open it with a newer version of the program that wrote it",
                             path: path, offset: 8)
        }
        let generation = readLittleEndian(bytes, 16, width: 8)
        let offsets = [headerSize, headerSize + slotSize]
        let slots = offsets.map { LogState(parsing: bytes, at: $0, generation: generation, format: version) }
        guard let state = slots.compactMap({ $0 }).max(by: { $0.sequence < $1.sequence }) else {
            throw StoreError(.corrupt, "both commit slots are damaged", path: path, offset: headerSize)
        }
        var damaged: Int?
        for (slot, offset) in zip(slots, offsets) where slot == nil {
            if bytes[offset..<offset + slotSize].contains(where: { $0 != 0 }) { damaged = offset }
        }
        return Prologue(state: state, damagedSlot: damaged)
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
    var generation: UInt64
    /// The chain of the frames' checksums up to `committed` (see ``RecordLog``); `nil` in a format 1 log.
    var chain: UInt32?

    /// An empty log of a new random generation.
    static func empty(recordVersion: Int) -> LogState {
        LogState(sequence: 0, committed: RecordLog.firstFrame, frameCount: 0, liveCount: 0, liveBytes: 0,
                 recordVersion: recordVersion, generation: UInt64.random(in: 1 ... .max), chain: 0)
    }

    /// The chain after a frame whose checksum is `checksum`.
    static func chain(_ chain: UInt32, after checksum: UInt32) -> UInt32 { Checksum.crc32(continuing: chain, word: checksum) }

    /// The slot's 64 bytes (format 2).
    func serialized() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(RecordLog.slotSize)
        for word in [sequence, UInt64(committed), UInt64(frameCount), UInt64(liveCount), UInt64(liveBytes),
                     UInt64(recordVersion), generation] {
            appendLittleEndian(word, width: 8, to: &bytes)
        }
        appendLittleEndian(UInt64(chain ?? 0), width: 4, to: &bytes)
        appendLittleEndian(UInt64(Checksum.crc32(bytes)), width: 4, to: &bytes)
        return bytes
    }

    /// Bytes of frames that no live record needs (replaced, removed, delete frames).
    var deadBytes: Int { committed - RecordLog.firstFrame - liveBytes }
}

extension LogState {
    /// The slot at `offset`, or `nil` when its checksum, generation or numbers are not those of a commit
    /// (numbers that do not fit an `Int` here, on a 32-bit platform too, are damage).
    init?(parsing bytes: [UInt8], at offset: Int, generation: UInt64, format: UInt64) {
        let checked = format == 1 ? 56 : 60
        guard UInt64(Checksum.crc32(bytes, offset..<offset + checked)) == readLittleEndian(bytes, offset + checked, width: 4),
              readLittleEndian(bytes, offset + 48, width: 8) == generation
        else { return nil }
        let words = (0..<6).map { readLittleEndian(bytes, offset + 8 * $0, width: 8) }
        let limit = UInt64(Int64.max / 2)
        let first = UInt64(RecordLog.firstFrame)
        guard words.allSatisfy({ $0 < limit }), words[1] >= first, words[4] <= words[1] - first, words[3] <= words[2],
              words[2] <= (words[1] - first) / UInt64(RecordLog.frameHeaderSize),
              let committed = intFromDisk(words[1]), let frameCount = intFromDisk(words[2]),
              let liveCount = intFromDisk(words[3]), let liveBytes = intFromDisk(words[4]),
              let recordVersion = intFromDisk(words[5])
        else { return nil }
        sequence = words[0]
        self.committed = committed
        self.frameCount = frameCount
        self.liveCount = liveCount
        self.liveBytes = liveBytes
        self.recordVersion = recordVersion
        self.generation = generation
        chain = format == 1 ? nil : UInt32(readLittleEndian(bytes, offset + 56, width: 4))
    }
}
