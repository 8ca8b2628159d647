/// The id index beside a record log (`<store>.index`): where the live record of each id is, so that a lookup
/// reads two small ranges of this file and one frame of the log, whatever the size of the store.
///
/// ```
/// 0    header (64): "ARCHIDX2", log generation u64, covered length u64 (log bytes merged), covered frame
///      count u64, entry count u64, bucket bits u32, chain u32 (the log's chain at the covered length, see
///      ``RecordLog``), CRC-32 of bytes 0..<48 (u32), zero
/// 64   fan-out: 2^bits + 1 pairs (first entry of the bucket u32, CRC-32 of the bucket's entries u32)
/// ...  entries, 32 bytes each, sorted by key hash then offset: key hash u64 (the first 8 bytes of SHA-256 of
///      the key, big-endian), frame offset u64, frame ordinal u64, expiry u64 (as in the frame)
/// ```
///
/// A bucket holds the entries whose hash starts with its number. The index is derived from the log and
/// replaced whole by `rename(2)`: it covers the log up to its covered length, and the frames after that
/// (the tail, at most a few thousand) are read from the log itself. A damaged, missing or stale index is
/// rebuilt from the log by the next writer; readers meanwhile scan the log. The chain proves which history
/// of the log the index covers: a reader checks it against the commit after reading the tail, so an index
/// copied from a diverged copy of the store (same generation, same lengths, other frames) is set aside.
///
/// No Apple API: the part of Core Data's SQLite store played by the primary-key index.
enum RecordIndex {
    static let magic: [UInt8] = Array("ARCHIDX2".utf8)
    static let headerSize = 64
    static let entrySize = 32

    /// The hash under which a key is filed.
    static func hash(_ key: [UInt8]) -> UInt64 { StableHash(key).high }

    /// Bucket bits for `count` entries: about eight entries a bucket.
    static func bucketBits(for count: Int) -> Int {
        var bits = 1
        while bits < 24 && (1 << bits) * 8 < count { bits += 1 }
        return bits
    }

    /// Replaces the index at `path` with one over `entries` (sorted by hash then offset). Derived data: the
    /// file is synced before its rename, its directory is not (an index lost to a crash is rebuilt).
    static func write(_ entries: [IndexEntry], of state: LogState, to path: String, fileSystem: FileSystem) throws(StoreError) {
        let bytes = serialized(entries, generation: state.generation, covered: state.committed,
                               coveredFrames: state.frameCount, chain: state.chain ?? 0)
        var file = try AtomicReplace(replacing: path, fileSystem: fileSystem)
        do throws(StoreError) {
            try file.append(bytes)
            try file.finish(.synchronous)
            try file.install(.synchronous, syncDirectory: false)
        } catch {
            file.abandon()
            throw error
        }
    }

    /// The bytes of an index over `entries` (sorted by hash then offset).
    static func serialized(_ entries: [IndexEntry], generation: UInt64, covered: Int, coveredFrames: Int, chain: UInt32) -> [UInt8] {
        let bits = bucketBits(for: entries.count)
        let buckets = 1 << bits
        var body: [UInt8] = []
        body.reserveCapacity(entries.count * entrySize)
        var fanOut: [UInt8] = []
        fanOut.reserveCapacity((buckets + 1) * 8)
        var next = 0
        for bucket in 0..<buckets {
            let start = next
            let bodyStart = body.count
            while next < entries.count && Int(entries[next].hash >> UInt64(64 - bits)) == bucket {
                entries[next].append(to: &body)
                next += 1
            }
            appendLittleEndian(UInt64(start), width: 4, to: &fanOut)
            appendLittleEndian(UInt64(Checksum.crc32(body, bodyStart..<body.count)), width: 4, to: &fanOut)
        }
        appendLittleEndian(UInt64(entries.count), width: 4, to: &fanOut)
        appendLittleEndian(0, width: 4, to: &fanOut)
        var bytes = magic
        for word in [generation, UInt64(covered), UInt64(coveredFrames), UInt64(entries.count)] {
            appendLittleEndian(word, width: 8, to: &bytes)
        }
        appendLittleEndian(UInt64(bits), width: 4, to: &bytes)
        appendLittleEndian(UInt64(chain), width: 4, to: &bytes)
        appendLittleEndian(UInt64(Checksum.crc32(bytes)), width: 4, to: &bytes)
        bytes += [UInt8](repeating: 0, count: headerSize - bytes.count)
        bytes.reserveCapacity(bytes.count + fanOut.count + body.count)
        bytes += fanOut
        bytes += body
        return bytes
    }
}

/// One live record in the index.
struct IndexEntry: Hashable, Sendable, Comparable {
    var hash: UInt64
    var offset: Int
    var ordinal: Int
    var expiryBits: UInt64

    static func < (a: IndexEntry, b: IndexEntry) -> Bool { (a.hash, a.offset) < (b.hash, b.offset) }

    func append(to bytes: inout [UInt8]) {
        appendLittleEndian(hash, width: 8, to: &bytes)
        appendLittleEndian(UInt64(offset), width: 8, to: &bytes)
        appendLittleEndian(UInt64(ordinal), width: 8, to: &bytes)
        appendLittleEndian(expiryBits, width: 8, to: &bytes)
    }

    var expiry: Double? { FrameHeader.expiry(fromBits: expiryBits) }
}

extension IndexEntry {
    /// The entry at `start`; `nil` when its offset or ordinal does not fit an `Int` (damage).
    init?(_ bytes: [UInt8], at start: Int) {
        guard let offset = intFromDisk(readLittleEndian(bytes, start + 8, width: 8)),
              let ordinal = intFromDisk(readLittleEndian(bytes, start + 16, width: 8))
        else { return nil }
        hash = readLittleEndian(bytes, start, width: 8)
        self.offset = offset
        self.ordinal = ordinal
        expiryBits = readLittleEndian(bytes, start + 24, width: 8)
    }
}
