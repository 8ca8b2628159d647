/// The layout of a repository's store file: a log of framed keyed-archive records, appended to and never
/// changed in place except for its two commit slots.
///
/// ```
/// 0      header (64): "ARCHLOG1", format version u32 = 1, zero u32, generation u64, CRC-32 of bytes 0..<24
/// 64     commit slot A (64)     } the valid slot with the higher sequence is the state of the store;
/// 128    commit slot B (64)     } a commit writes the other slot, so a torn write leaves the old state
/// 192    zero (64)
/// 256    frames, one after another, up to the committed length of the current slot
/// ```
///
/// Commit slot: sequence u64, committed length u64 (end of the last committed frame), frame count u64,
/// live record count u64, live bytes u64 (the frames of live records), record format version u64,
/// generation u64 (the header's), CRC-32 of bytes 0..<56 (u32), zero u32.
///
/// Frame: length u32 (the whole frame), kind u8 (1 put, 2 delete), zero u8, key length u16, expiry u64
/// (IEEE double, seconds since 1970; NaN when the record has none), CRC-32 u32 of the frame's bytes other
/// than these four, zero u32, then the key (the record id's description, UTF-8) and, for a put, the record
/// as an ordinary keyed archive whose root object is the record.
///
/// All integers are little-endian. Bytes past the committed length belong to a write that was never
/// committed (a crash or a failed write); readers ignore them and the next writer cuts them off.
///
/// No Apple API: Core Data's SQLite store plays this part, with its write-ahead log.
enum RecordLog {
    static let magic: [UInt8] = Array("ARCHLOG1".utf8)
    static let formatVersion: UInt64 = 1
    static let headerSize = 64
    static let slotSize = 64
    static let firstFrame = 256
    static let frameHeaderSize = 24
    /// The largest key (record id description) a frame can hold.
    static let largestKey = Int(UInt16.max)
    /// The largest frame (4 GiB - 1).
    static let largestFrame = Int(UInt32.max)

    /// Whether `prefix` (the first bytes of a file) starts like a record log.
    static func isLog(_ prefix: [UInt8]) -> Bool {
        prefix.count >= magic.count && prefix[0..<magic.count].elementsEqual(magic)
    }

    /// The first 256 bytes of a new log of `generation`, with `state` in slot A.
    static func prologue(_ state: LogState) -> [UInt8] {
        var bytes = magic
        appendLittleEndian(formatVersion, width: 4, to: &bytes)
        appendLittleEndian(0, width: 4, to: &bytes)
        appendLittleEndian(state.generation, width: 8, to: &bytes)
        appendLittleEndian(UInt64(CRC32.checksum(bytes)), width: 4, to: &bytes)
        bytes += [UInt8](repeating: 0, count: headerSize - bytes.count)
        var first = state
        first.sequence = 0
        bytes += first.serialized()
        bytes += [UInt8](repeating: 0, count: firstFrame - bytes.count)
        return bytes
    }

    /// The state recorded in the first 256 bytes of a log: the valid slot with the higher sequence.
    /// - Throws: ``StoreError/Code/corrupt`` (with the offset) when the header or both slots are damaged.
    static func state(fromPrologue bytes: [UInt8], path: String) throws(StoreError) -> LogState {
        guard bytes.count >= firstFrame else {
            throw StoreError(.corrupt, "the store file ends inside its header (\(bytes.count) bytes)", path: path, offset: bytes.count)
        }
        guard isLog(bytes) else { throw StoreError(.corrupt, "not a record log", path: path, offset: 0) }
        guard UInt64(CRC32.update(0, bytes, 0..<24)) == readLittleEndian(bytes, 24, width: 4) else {
            throw StoreError(.corrupt, "the header's checksum does not match", path: path, offset: 0)
        }
        let version = readLittleEndian(bytes, 8, width: 4)
        guard version == formatVersion else {
            throw StoreError(.unsupportedVersion, "store file format \(version) is not \(formatVersion); open it with a newer version of the program that wrote it",
                             path: path, offset: 8)
        }
        let generation = readLittleEndian(bytes, 16, width: 8)
        let slots = [LogState(parsing: bytes, at: headerSize, generation: generation),
                     LogState(parsing: bytes, at: headerSize + slotSize, generation: generation)]
        guard let state = slots.compactMap({ $0 }).max(by: { $0.sequence < $1.sequence }) else {
            throw StoreError(.corrupt, "both commit slots are damaged", path: path, offset: headerSize)
        }
        return state
    }

    /// An expiry as frames and index entries keep it (the bits of a double; NaN for none), in seconds since 1970.
    static func expiry(fromBits bits: UInt64) -> Double? {
        let value = Double(bitPattern: bits)
        return value.isNaN ? nil : value
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

    /// An empty log of a new random generation.
    static func empty(recordVersion: Int) -> LogState {
        LogState(sequence: 0, committed: RecordLog.firstFrame, frameCount: 0, liveCount: 0, liveBytes: 0,
                 recordVersion: recordVersion, generation: UInt64.random(in: 1 ... .max))
    }

    func serialized() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(RecordLog.slotSize)
        for word in [sequence, UInt64(committed), UInt64(frameCount), UInt64(liveCount), UInt64(liveBytes),
                     UInt64(recordVersion), generation] {
            appendLittleEndian(word, width: 8, to: &bytes)
        }
        appendLittleEndian(UInt64(CRC32.checksum(bytes)), width: 4, to: &bytes)
        appendLittleEndian(0, width: 4, to: &bytes)
        return bytes
    }

    /// Bytes of frames that no live record needs (replaced, removed, delete frames).
    var deadBytes: Int { committed - RecordLog.firstFrame - liveBytes }
}

extension LogState {
    /// The slot at `offset`, or `nil` when its checksum, generation or numbers are not those of a commit.
    init?(parsing bytes: [UInt8], at offset: Int, generation: UInt64) {
        guard UInt64(CRC32.update(0, bytes, offset..<offset + 56)) == readLittleEndian(bytes, offset + 56, width: 4),
              readLittleEndian(bytes, offset + 48, width: 8) == generation
        else { return nil }
        let words = (0..<6).map { readLittleEndian(bytes, offset + 8 * $0, width: 8) }
        let limit = UInt64(Int64.max / 2)
        guard words.allSatisfy({ $0 < limit }), words[1] >= UInt64(RecordLog.firstFrame),
              words[4] <= words[1] - UInt64(RecordLog.firstFrame), words[3] <= words[2],
              words[2] <= (words[1] - UInt64(RecordLog.firstFrame)) / UInt64(RecordLog.frameHeaderSize)
        else { return nil }
        sequence = words[0]
        committed = Int(words[1])
        frameCount = Int(words[2])
        liveCount = Int(words[3])
        liveBytes = Int(words[4])
        recordVersion = Int(words[5])
        self.generation = generation
    }
}

/// What a frame records.
enum FrameKind: UInt8, Sendable {
    /// The record with the key is now the payload.
    case put = 1
    /// The record with the key is gone.
    case delete = 2
}

/// The fixed part of a frame, parsed and bounds-checked.
struct FrameHeader: Sendable {
    var length: Int
    var kind: FrameKind
    var keyLength: Int
    var expiryBits: UInt64
    var checksum: UInt32

    /// The record's expiry in seconds since 1970, or `nil`.
    var expiry: Double? { RecordLog.expiry(fromBits: expiryBits) }

    /// The frame bytes of a record.
    static func encode(kind: FrameKind, key: [UInt8], expiry: Double?, payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(RecordLog.frameHeaderSize + key.count + payload.count)
        appendLittleEndian(UInt64(RecordLog.frameHeaderSize + key.count + payload.count), width: 4, to: &bytes)
        bytes.append(kind.rawValue)
        bytes.append(0)
        appendLittleEndian(UInt64(key.count), width: 2, to: &bytes)
        appendLittleEndian((expiry ?? .nan).bitPattern, width: 8, to: &bytes)
        appendLittleEndian(0, width: 8, to: &bytes)   // checksum and zero, filled below
        bytes += key
        bytes += payload
        let crc = CRC32.update(CRC32.update(0, bytes, 0..<16), bytes, 20..<bytes.count)
        for i in 0..<4 { bytes[16 + i] = UInt8(truncatingIfNeeded: crc >> UInt32(8 * i)) }
        return bytes
    }

    /// The header of the frame at `start` in `bytes`, which hold file offsets `base...`; `available` is how
    /// many bytes from `start` belong to the committed log.
    /// - Throws: ``StoreError/Code/corrupt`` with the frame's file offset.
    init(_ bytes: [UInt8], at start: Int, available: Int, fileOffset: Int, path: String) throws(StoreError) {
        guard available >= RecordLog.frameHeaderSize, start + RecordLog.frameHeaderSize <= bytes.count else {
            throw StoreError(.corrupt, "a frame is cut off by the committed length", path: path, offset: fileOffset)
        }
        length = Int(readLittleEndian(bytes, start, width: 4))
        keyLength = Int(readLittleEndian(bytes, start + 6, width: 2))
        expiryBits = readLittleEndian(bytes, start + 8, width: 8)
        checksum = UInt32(readLittleEndian(bytes, start + 16, width: 4))
        guard let kind = FrameKind(rawValue: bytes[start + 4]), bytes[start + 5] == 0,
              readLittleEndian(bytes, start + 20, width: 4) == 0
        else { throw StoreError(.corrupt, "a frame has an unknown kind or flags", path: path, offset: fileOffset) }
        self.kind = kind
        guard length >= RecordLog.frameHeaderSize + keyLength, length <= available,
              kind == .put || length == RecordLog.frameHeaderSize + keyLength
        else { throw StoreError(.corrupt, "a frame's length (\(length)) does not fit", path: path, offset: fileOffset) }
    }

    /// Whether the frame at `start` (all `length` bytes present in `bytes`) matches its checksum.
    func verify(_ bytes: [UInt8], at start: Int) -> Bool {
        CRC32.update(CRC32.update(0, bytes, start..<start + 16), bytes, start + 20..<start + length) == checksum
    }
}

/// A whole frame read from the log.
struct LogFrame: Sendable {
    var header: FrameHeader
    /// The frame's file offset.
    var offset: Int
    /// The frame's number in the log (0 for the first).
    var ordinal: Int
    var key: [UInt8]
    /// The keyed archive of the record (empty for a delete).
    var payload: [UInt8]
}
