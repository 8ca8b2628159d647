/// The cache's index on disk: a snapshot (`cache.index`) and an append-only journal (`cache.journal`).
///
/// Entry files are the truth; these two files only remember, for every process sharing the directory, which
/// entries exist, their sizes, expiries and the order in which they were last used, so that eviction needs
/// no scan of the directory. When either is damaged or lost, the index is rebuilt from the entry files.
///
/// The journal is a sequence of fixed-size records (``CacheJournalRecord``), the first a header naming its
/// generation. Every process appends with `O_APPEND` while holding the lock file shared; compaction holds it
/// exclusively, writes a new snapshot (generation + 1) by atomic rename, then starts the journal over.
/// A reader of the journal notices others' changes by its size and mtime and its header's generation.
///
/// No Apple API; the layout of SQLite's write-ahead log in miniature.
enum CacheJournal {
    static let indexName = "cache.index"
    static let journalName = "cache.journal"
    static let lockName = "cache.lock"
    static let stagingName = "staging"
    /// A journal generation that no snapshot has: the journal was created over existing entries whose
    /// index was lost, so the index must be rebuilt from the entry files.
    static let unknownGeneration = UInt64.max
}

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
/// | 48..<56 | check: a mix of bytes 0..<48 |
struct CacheJournalRecord: Hashable {
    enum Kind: UInt8 {
        case header = 0x48, set = 0x53, remove = 0x52, access = 0x41, clear = 0x43
    }

    static let size = 56
    static let formatVersion: UInt64 = 1

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
        appendLittleEndian(Self.check(bytes, start), width: 8, to: &bytes)
    }

    /// The record at `offset`, or `nil` when its check or kind is wrong (a torn or damaged record).
    init?(_ bytes: [UInt8], at offset: Int) {
        guard offset >= 0, offset + Self.size <= bytes.count,
              let kind = Kind(rawValue: bytes[offset]),
              bytes[offset + 1] == 0, bytes[offset + 2] == 0, bytes[offset + 3] == 0,
              readLittleEndian(bytes, offset + 48, width: 8) == Self.check(bytes, offset)
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

    /// Six words of the record mixed (multiply-xor, MurmurHash3's finalizer).
    private static func check(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        var h: UInt64 = 0x243F_6A88_85A3_08D3
        for word in 0..<6 {
            h = (h ^ readLittleEndian(bytes, offset + 8 * word, width: 8)) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 29
        }
        h ^= h >> 33
        h &*= 0xC4CE_B9FE_1A85_EC53
        return h ^ (h >> 33)
    }
}

/// The snapshot file `cache.index`: a 64-byte header, then one 40-byte line per entry, least recently used
/// first.
///
/// Header: `ACINDEX1` (8), generation (8), base generation: the journal generation it merged (8), merged
/// length: the journal bytes of that generation it merged (8), entry count (8), digest of the lines (8),
/// zero (8), check of bytes 0..<56 (8). Line: hash high, hash low, size, tick, expiry (ms since 1970).
struct CacheIndexSnapshot {
    static let magic: [UInt8] = Array("ACINDEX1".utf8)
    /// The most entries a snapshot may list (1.3 GB of lines); a header claiming more is damage.
    static let largestCount: UInt64 = 1 << 25
    static let headerSize = 64
    static let lineSize = 40

    var generation: UInt64
    var baseGeneration: UInt64
    var mergedLength: UInt64
    var entries: [CacheIndex.Entry]

    func serialized() -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(entries.count * Self.lineSize)
        for entry in entries {
            appendLittleEndian(entry.hash.high, width: 8, to: &body)
            appendLittleEndian(entry.hash.low, width: 8, to: &body)
            appendLittleEndian(entry.size, width: 8, to: &body)
            appendLittleEndian(entry.tick, width: 8, to: &body)
            appendLittleEndian(UInt64(bitPattern: entry.expires), width: 8, to: &body)
        }
        var bytes = Self.magic
        bytes.reserveCapacity(Self.headerSize + body.count)
        appendLittleEndian(generation, width: 8, to: &bytes)
        appendLittleEndian(baseGeneration, width: 8, to: &bytes)
        appendLittleEndian(mergedLength, width: 8, to: &bytes)
        appendLittleEndian(UInt64(entries.count), width: 8, to: &bytes)
        appendLittleEndian(StoreDigest.of(body), width: 8, to: &bytes)
        appendLittleEndian(0, width: 8, to: &bytes)
        appendLittleEndian(StoreDigest.of(Array(bytes[0..<56])), width: 8, to: &bytes)
        bytes.append(contentsOf: body)
        return bytes
    }

    /// Parses a snapshot; `nil` when anything does not check out.
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= Self.headerSize, bytes.starts(with: Self.magic), readLittleEndian(bytes, 48, width: 8) == 0,
              readLittleEndian(bytes, 56, width: 8) == StoreDigest.of(Array(bytes[0..<56]))
        else { return nil }
        let count = readLittleEndian(bytes, 32, width: 8)
        guard count <= UInt64((bytes.count - Self.headerSize) / Self.lineSize),
              Int(count) * Self.lineSize == bytes.count - Self.headerSize,
              readLittleEndian(bytes, 40, width: 8) == StoreDigest.of(Array(bytes[Self.headerSize...]))
        else { return nil }
        generation = readLittleEndian(bytes, 8, width: 8)
        baseGeneration = readLittleEndian(bytes, 16, width: 8)
        mergedLength = readLittleEndian(bytes, 24, width: 8)
        var entries: [CacheIndex.Entry] = []
        entries.reserveCapacity(Int(count))
        var offset = Self.headerSize
        for _ in 0..<Int(count) {
            entries.append(CacheIndex.Entry(
                hash: StableHash(high: readLittleEndian(bytes, offset, width: 8), low: readLittleEndian(bytes, offset + 8, width: 8)),
                size: readLittleEndian(bytes, offset + 16, width: 8),
                tick: readLittleEndian(bytes, offset + 24, width: 8),
                expires: Int64(bitPattern: readLittleEndian(bytes, offset + 32, width: 8))))
            offset += Self.lineSize
        }
        self.entries = entries
    }

    init(generation: UInt64, baseGeneration: UInt64, mergedLength: UInt64, entries: [CacheIndex.Entry]) {
        self.generation = generation
        self.baseGeneration = baseGeneration
        self.mergedLength = mergedLength
        self.entries = entries
    }
}

@inline(__always)
func appendLittleEndian(_ value: UInt64, width: Int, to bytes: inout [UInt8]) {
    for i in 0..<width { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(8 * i))) }
}

@inline(__always)
func readLittleEndian(_ bytes: [UInt8], _ offset: Int, width: Int) -> UInt64 {
    var value: UInt64 = 0
    for i in 0..<width { value |= UInt64(bytes[offset + i]) << UInt64(8 * i) }
    return value
}
