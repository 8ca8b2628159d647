/// The snapshot file `cache.index`: a 64-byte header, then one 40-byte line per entry, least recently used
/// first.
///
/// Header: `ACINDEX2` (8), generation (8), base generation: the journal generation it merged (8), merged
/// length: the journal bytes of that generation it merged (8), entry count (8), CRC-32 of the lines (4), zero
/// (12), CRC-32 of bytes 0..<56 (4), zero (4). Line: hash high, hash low, size, tick, expiry (ms since 1970).
/// A snapshot of another format (`ACINDEX1`) is ignored: the index is rebuilt from the entry files.
struct CacheIndexSnapshot {
    static let magic: [UInt8] = Array("ACINDEX2".utf8)
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
        appendLittleEndian(UInt64(Checksum.crc32(body)), width: 4, to: &bytes)
        appendLittleEndian(0, width: 12, to: &bytes)
        appendLittleEndian(UInt64(Checksum.crc32(bytes, 0..<56)), width: 4, to: &bytes)
        appendLittleEndian(0, width: 4, to: &bytes)
        bytes.append(contentsOf: body)
        return bytes
    }

    /// Parses a snapshot; `nil` when anything does not check out.
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= Self.headerSize, bytes.starts(with: Self.magic),
              readLittleEndian(bytes, 44, width: 4) == 0, readLittleEndian(bytes, 48, width: 8) == 0,
              readLittleEndian(bytes, 60, width: 4) == 0,
              readLittleEndian(bytes, 56, width: 4) == UInt64(Checksum.crc32(bytes, 0..<56))
        else { return nil }
        let count = readLittleEndian(bytes, 32, width: 8)
        guard count <= UInt64((bytes.count - Self.headerSize) / Self.lineSize),
              Int(count) * Self.lineSize == bytes.count - Self.headerSize,
              readLittleEndian(bytes, 40, width: 4) == UInt64(Checksum.crc32(bytes, Self.headerSize..<bytes.count))
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
