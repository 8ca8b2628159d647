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
/// length u32 (the whole frame), kind u8 (1 put, 2 delete, 3 external), zero u8, key length u16, expiry u64
/// (IEEE double, seconds since 1970; NaN when the record has none), CRC-32 u32 of the frame's bytes other than
/// these four, zero u32. Then the key and the payload.
struct FrameHeader: Sendable {
    /// The bytes of the fixed part.
    static let size = 24

    var length: Int
    var kind: FrameKind
    var keyLength: Int
    var expiryBits: UInt64
    var checksum: UInt32

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

    /// The frame bytes of a record.
    static func encode(kind: FrameKind, key: [UInt8], expiry: Double?, payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(FrameHeader.size + key.count + payload.count)
        appendLittleEndian(UInt64(FrameHeader.size + key.count + payload.count), width: 4, to: &bytes)
        bytes.append(kind.rawValue)
        bytes.append(0)
        appendLittleEndian(UInt64(key.count), width: 2, to: &bytes)
        appendLittleEndian((expiry ?? .nan).bitPattern, width: 8, to: &bytes)
        appendLittleEndian(0, width: 8, to: &bytes)   // checksum and zero, filled below
        bytes += key
        bytes += payload
        let crc = Checksum.crc32(continuing: Checksum.crc32(bytes, 0..<16), bytes, 20..<bytes.count)
        for i in 0..<4 { bytes[16 + i] = UInt8(truncatingIfNeeded: crc >> UInt32(8 * i)) }
        return bytes
    }

    /// The header of the frame at `start` in `bytes`; `available` is how many bytes from `start` belong to
    /// the committed log. An external frame is refused unless `allowsExternal` (a record log has none).
    /// - Throws: ``StoreError/Code/corrupt`` with the frame's file offset.
    init(_ bytes: [UInt8], at start: Int, available: Int, fileOffset: Int, path: String,
         allowsExternal: Bool = false) throws(StoreError) {
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
        guard let kind = FrameKind(rawValue: bytes[start + 4]), kind != .external || allowsExternal, bytes[start + 5] == 0,
              readLittleEndian(bytes, start + 20, width: 4) == 0
        else { throw StoreError(.corrupt, "a frame has an unknown kind or flags", path: path, offset: fileOffset) }
        self.kind = kind
        let payload = length - FrameHeader.size - keyLength
        guard length >= FrameHeader.size + keyLength, length <= available,
              kind == .put || payload == (kind == .external ? 8 : 0)
        else { throw StoreError(.corrupt, "a frame's length (\(length)) does not fit", path: path, offset: fileOffset) }
    }

    /// Whether the frame at `start` (all `length` bytes present in `bytes`) matches its checksum.
    func verify(_ bytes: [UInt8], at start: Int) -> Bool {
        Checksum.crc32(continuing: Checksum.crc32(bytes, start..<start + 16), bytes, start + 20..<start + length) == checksum
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
