/// One journal record: 56 bytes, little-endian.
///
/// | bytes | field |
/// |---|---|
/// | 0 | kind (`H` header, `S` set, `R` remove, `A` access, `C` clear) |
/// | 1..<4 | zero |
/// | 4..<8 | writer (a random number per open cache) |
/// | 8..<24 | entry hash (high, low) |
/// | 24..<32 | size in bytes (set); format version (header) |
/// | 32..<40 | use tick: nanoseconds since 1970 (set, access); generation (header) |
/// | 40..<48 | expiry: milliseconds since 1970, `Int64.max` for none (set) |
/// | 48..<52 | CRC-32 of bytes 0..<48 |
/// | 52..<56 | zero |
struct CacheJournalRecord: Hashable {
    enum Kind: UInt8 {
        case header = 0x48, set = 0x53, remove = 0x52, access = 0x41, clear = 0x43
    }

    static let size = 56
    static let formatVersion: UInt64 = 2

    var kind: Kind
    var writer: UInt32 = 0
    var hash = StableHash(high: 0, low: 0)
    var size: UInt64 = 0
    var tick: UInt64 = 0
    var expires: Int64 = .max

    static func header(generation: UInt64) -> CacheJournalRecord {
        CacheJournalRecord(kind: .header, size: formatVersion, tick: generation)
    }

    func append(to bytes: inout [UInt8]) {
        let start = bytes.count
        bytes.append(kind.rawValue)
        bytes.append(contentsOf: [0, 0, 0])
        appendLittleEndian(UInt64(writer), width: 4, to: &bytes)
        appendLittleEndian(hash.high, width: 8, to: &bytes)
        appendLittleEndian(hash.low, width: 8, to: &bytes)
        appendLittleEndian(size, width: 8, to: &bytes)
        appendLittleEndian(tick, width: 8, to: &bytes)
        appendLittleEndian(UInt64(bitPattern: expires), width: 8, to: &bytes)
        appendLittleEndian(UInt64(Checksum.crc32(bytes, start..<start + 48)), width: 4, to: &bytes)
        appendLittleEndian(0, width: 4, to: &bytes)
    }

    /// The record at `offset`, or `nil` when its check or kind is wrong (a torn or damaged record).
    init?(_ bytes: [UInt8], at offset: Int) {
        guard offset >= 0, offset + Self.size <= bytes.count,
              let kind = Kind(rawValue: bytes[offset]),
              bytes[offset + 1] == 0, bytes[offset + 2] == 0, bytes[offset + 3] == 0,
              readLittleEndian(bytes, offset + 48, width: 4) == UInt64(Checksum.crc32(bytes, offset..<offset + 48)),
              readLittleEndian(bytes, offset + 52, width: 4) == 0
        else { return nil }
        self.kind = kind
        writer = UInt32(truncatingIfNeeded: readLittleEndian(bytes, offset + 4, width: 4))
        hash = StableHash(high: readLittleEndian(bytes, offset + 8, width: 8), low: readLittleEndian(bytes, offset + 16, width: 8))
        size = readLittleEndian(bytes, offset + 24, width: 8)
        tick = readLittleEndian(bytes, offset + 32, width: 8)
        expires = Int64(bitPattern: readLittleEndian(bytes, offset + 40, width: 8))
    }

    init(kind: Kind, writer: UInt32 = 0, hash: StableHash = StableHash(high: 0, low: 0), size: UInt64 = 0,
         tick: UInt64 = 0, expires: Int64 = .max) {
        self.kind = kind
        self.writer = writer
        self.hash = hash
        self.size = size
        self.tick = tick
        self.expires = expires
    }
}
