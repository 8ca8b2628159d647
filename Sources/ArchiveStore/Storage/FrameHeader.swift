/// What a frame records.
enum FrameKind: UInt8, Sendable {
    /// The record with the key is now the payload (an ordinary keyed archive).
    case put = 1
    /// The record with the key is gone.
    case delete = 2
    /// The record with the key is in a file of its own (a cache's large entry); the payload is the file's size
    /// (u64). Only the cache writes these.
    case external = 3
}

/// The fixed 24 bytes at the start of every frame, the unit both engines append (a ``RecordLog``'s records,
/// an ``ArchiveCache``'s segment entries), parsed and bounds-checked:
///
/// length u32 (the whole frame), kind u8 (1 put, 2 delete, 3 external), flags u8, key length u16, expiry u64
/// (IEEE double, seconds since 1970; NaN when the record has none), CRC-32 u32 of the frame's bytes other than
/// these four, link u32. Then the key and the payload.
///
/// In a chained log (``RecordLog`` format 3) the flags' bit 0 marks the last frame of a commit and the link is
/// the log's chain before the frame (see ``RecordLog``); everywhere else (the cache's segments, logs of format 2)
/// both are zero.
struct FrameHeader: Sendable {
    /// The bytes of the fixed part.
    static let size = 24
    /// The flag of the last frame of a commit.
    static let commitFlag: UInt8 = 1

    var length: Int
    var kind: FrameKind
    var keyLength: Int
    var expiryBits: UInt64
    var checksum: UInt32
    /// Whether the frame ends a commit (chained logs only).
    var endsCommit: Bool
    /// The chain of the log before this frame (chained logs only; zero elsewhere).
    var link: UInt32

    /// The log's chain after this frame.
    var chainAfter: UInt32 { Checksum.crc32(continuing: link, word: checksum) }

    /// The record's expiry in seconds since 1970, or `nil`.
    var expiry: Double? { FrameHeader.expiry(fromBits: expiryBits) }

    /// An expiry as frames and index entries keep it (the bits of a double; NaN for none), in seconds since 1970.
    static func expiry(fromBits bits: UInt64) -> Double? {
        let value = Double(bitPattern: bits)
        return value.isNaN ? nil : value
    }

    /// The key of the frame whose bytes start at `start` in `bytes`.
    func key(in bytes: [UInt8], at start: Int) -> ArraySlice<UInt8> {
        bytes[start + FrameHeader.size..<start + FrameHeader.size + keyLength]
    }

    /// The payload of the frame whose bytes start at `start` in `bytes`.
    func payload(in bytes: [UInt8], at start: Int) -> ArraySlice<UInt8> {
        bytes[start + FrameHeader.size + keyLength..<start + length]
    }

    /// The frame bytes of a record (flags and link zero, as the cache and logs before format 3 keep them).
    static func encode(kind: FrameKind, key: [UInt8], expiry: Double?, payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(FrameHeader.size + key.count + payload.count)
        append(kind: kind, key: key, expiryBits: (expiry ?? .nan).bitPattern, payload: payload, link: 0, endsCommit: false,
               to: &bytes)
        return bytes
    }

    /// Appends the frame of a record to `bytes`, linked after `link` (see ``RecordLog``), and returns its checksum.
    @discardableResult
    static func append(kind: FrameKind, key: [UInt8], expiryBits: UInt64, payload: [UInt8], link: UInt32, endsCommit: Bool,
                       to bytes: inout [UInt8]) -> UInt32 {
        let start = bytes.count
        appendUnsealed(kind: kind, key: key, expiryBits: expiryBits, payload: payload, to: &bytes)
        bytes[start + 5] = endsCommit ? commitFlag : 0
        for i in 0..<4 { bytes[start + 20 + i] = UInt8(truncatingIfNeeded: link >> UInt32(8 * i)) }
        let crc = Checksum.crc32(continuing: Checksum.crc32(bytes, start..<start + 16), bytes, start + 20..<bytes.count)
        for i in 0..<4 { bytes[start + 16 + i] = UInt8(truncatingIfNeeded: crc >> UInt32(8 * i)) }
        return crc
    }

    /// Appends the frame of a record to `bytes` with no link, flags or checksum yet: ``relink(_:at:length:link:endsCommit:)``
    /// seals it once its place in the chain and whether it ends its commit are known (one checksum a frame).
    static func appendUnsealed(kind: FrameKind, key: [UInt8], expiryBits: UInt64, payload: [UInt8], to bytes: inout [UInt8]) {
        appendLittleEndian(UInt64(FrameHeader.size + key.count + payload.count), width: 4, to: &bytes)
        bytes.append(kind.rawValue)
        bytes.append(0)
        appendLittleEndian(UInt64(key.count), width: 2, to: &bytes)
        appendLittleEndian(expiryBits, width: 8, to: &bytes)
        appendLittleEndian(0, width: 4, to: &bytes)   // checksum
        appendLittleEndian(0, width: 4, to: &bytes)   // link
        bytes += key
        bytes += payload
    }

    /// Rewrites, in place, the link and commit flag of the frame at `start` of `bytes` (whole, verified) and its
    /// checksum: a frame copied into another log (compaction, migration) is linked into its new chain.
    /// Returns the new checksum.
    static func relink(_ bytes: inout [UInt8], at start: Int, length: Int, link: UInt32, endsCommit: Bool) -> UInt32 {
        bytes[start + 5] = endsCommit ? commitFlag : 0
        for i in 0..<4 { bytes[start + 20 + i] = UInt8(truncatingIfNeeded: link >> UInt32(8 * i)) }
        let crc = Checksum.crc32(continuing: Checksum.crc32(bytes, start..<start + 16), bytes, start + 20..<start + length)
        for i in 0..<4 { bytes[start + 16 + i] = UInt8(truncatingIfNeeded: crc >> UInt32(8 * i)) }
        return crc
    }

    /// The header of the frame at `start` in `bytes`; `available` is how many bytes from `start` belong to
    /// the committed log. An external frame is refused unless `allowsExternal` (a record log has none); flags
    /// and a link are refused unless `chained` (a log of format 3).
    /// - Throws: ``StoreError/Code/corrupt`` with the frame's file offset.
    init(_ bytes: [UInt8], at start: Int, available: Int, fileOffset: Int, path: String,
         allowsExternal: Bool = false, chained: Bool = false) throws(StoreError) {
        guard available >= FrameHeader.size, start >= 0, start + FrameHeader.size <= bytes.count else {
            throw StoreError(.corrupt, "a frame is cut off by the committed length", path: path, offset: fileOffset)
        }
        // A u32 length always fits an Int of 32 bits or more only as far as Int.max: checked, not converted.
        guard let length = intFromDisk(readLittleEndian(bytes, start, width: 4)) else {
            throw StoreError(.corrupt, "a frame's length does not fit this platform", path: path, offset: fileOffset)
        }
        self.length = length
        keyLength = Int(readLittleEndian(bytes, start + 6, width: 2))
        expiryBits = readLittleEndian(bytes, start + 8, width: 8)
        checksum = UInt32(readLittleEndian(bytes, start + 16, width: 4))
        link = UInt32(readLittleEndian(bytes, start + 20, width: 4))
        let flags = bytes[start + 5]
        endsCommit = flags == FrameHeader.commitFlag
        guard let kind = FrameKind(rawValue: bytes[start + 4]), kind != .external || allowsExternal,
              flags & ~FrameHeader.commitFlag == 0, chained || (flags == 0 && link == 0)
        else { throw StoreError(.corrupt, "a frame has an unknown kind or flags", path: path, offset: fileOffset) }
        self.kind = kind
        let payload = length - FrameHeader.size - keyLength
        guard length >= FrameHeader.size + keyLength, length <= available,
              kind == .put || payload == (kind == .external ? 8 : 0)
        else { throw StoreError(.corrupt, "a frame's length (\(length)) does not fit", path: path, offset: fileOffset) }
    }

    /// Whether `prefix`, the start of a frame (at least its header and the key's length), names `key`.
    static func names(_ key: [UInt8], prefix: ArraySlice<UInt8>) -> Bool {
        let start = prefix.startIndex
        guard prefix.count >= size + key.count, Int(prefix[start + 6]) | Int(prefix[start + 7]) << 8 == key.count else { return false }
        return prefix[(start + size)..<(start + size + key.count)].elementsEqual(key)
    }

    /// Whether the frame at `start` (all `length` bytes present in `bytes`) matches its checksum.
    func verify(_ bytes: [UInt8], at start: Int) -> Bool {
        Checksum.crc32(continuing: Checksum.crc32(bytes, start..<start + 16), bytes, start + 20..<start + length) == checksum
    }
}
