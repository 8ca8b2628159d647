/// The id index beside a record log (`<store>.index`): where the live record of each id is, so that a lookup
/// reads two small ranges of this file and one frame of the log, whatever the size of the store.
///
/// ```
/// 0    header (64): "ARCHIDX1", log generation u64, covered length u64 (log bytes merged), covered frame
///      count u64, entry count u64, bucket bits u32, zero u32, CRC-32 of bytes 0..<48 (u32), zero
/// 64   fan-out: 2^bits + 1 pairs (first entry of the bucket u32, CRC-32 of the bucket's entries u32)
/// ...  entries, 32 bytes each, sorted by key hash then offset: key hash u64 (the first 8 bytes of SHA-256 of
///      the key, big-endian), frame offset u64, frame ordinal u64, expiry u64 (as in the frame)
/// ```
///
/// A bucket holds the entries whose hash starts with its number. The index is derived from the log and
/// replaced whole by `rename(2)`: it covers the log up to its covered length, and the frames after that
/// (the tail, at most a few thousand) are read from the log itself. A damaged, missing or stale index is
/// rebuilt from the log by the next writer; readers meanwhile scan the log.
///
/// No Apple API: the part of Core Data's SQLite store played by the primary-key index.
enum RecordIndex {
    static let magic: [UInt8] = Array("ARCHIDX1".utf8)
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

    /// The bytes of an index over `entries` (sorted by hash then offset).
    static func serialized(_ entries: [IndexEntry], generation: UInt64, covered: Int, coveredFrames: Int) -> [UInt8] {
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
            appendLittleEndian(UInt64(CRC32.update(0, body, bodyStart..<body.count)), width: 4, to: &fanOut)
        }
        appendLittleEndian(UInt64(entries.count), width: 4, to: &fanOut)
        appendLittleEndian(0, width: 4, to: &fanOut)
        var bytes = magic
        for word in [generation, UInt64(covered), UInt64(coveredFrames), UInt64(entries.count)] {
            appendLittleEndian(word, width: 8, to: &bytes)
        }
        appendLittleEndian(UInt64(bits), width: 4, to: &bytes)
        appendLittleEndian(0, width: 4, to: &bytes)
        appendLittleEndian(UInt64(CRC32.checksum(bytes)), width: 4, to: &bytes)
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

    var expiry: Double? { RecordLog.expiry(fromBits: expiryBits) }
}

extension IndexEntry {
    init(_ bytes: [UInt8], at start: Int) {
        hash = readLittleEndian(bytes, start, width: 8)
        offset = Int(truncatingIfNeeded: readLittleEndian(bytes, start + 8, width: 8))
        ordinal = Int(truncatingIfNeeded: readLittleEndian(bytes, start + 16, width: 8))
        expiryBits = readLittleEndian(bytes, start + 24, width: 8)
    }
}

/// The index is damaged or does not belong to the log: the caller scans the log instead.
struct IndexUnusable: Error {
    var reason: String
}

/// An open index file.
final class IndexReader {
    let fd: Int32
    let path: String
    let fileSystem: FileSystem
    let generation: UInt64
    let covered: Int
    let coveredFrames: Int
    let count: Int
    let bits: Int

    private var entriesStart: Int { RecordIndex.headerSize + ((1 << bits) + 1) * 8 }

    /// Opens the index at `path`; `nil` when there is none.
    /// - Throws: ``IndexUnusable`` when its header is damaged; ``StoreError`` when it cannot be read.
    static func open(_ path: String, fileSystem: FileSystem) throws -> IndexReader? {
        guard let fd = try fileSystem.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, missingIsNil: true) else { return nil }
        let header: Header
        do {
            let info = try fileSystem.status(fd, path)
            try SystemCalls.requireOwnRegularFile(info, path)
            header = try Header(try fileSystem.read(fd, count: RecordIndex.headerSize, at: 0, path), size: Int(info.st_size))
        } catch {
            fileSystem.close(fd)
            throw error
        }
        return IndexReader(fd: fd, path: path, fileSystem: fileSystem, header: header)
    }

    /// The numbers of an index header, checked against the file's size.
    struct Header {
        var generation: UInt64
        var covered: Int
        var coveredFrames: Int
        var count: Int
        var bits: Int

        init(_ header: [UInt8], size: Int) throws {
            guard header.count == RecordIndex.headerSize, header[0..<8].elementsEqual(RecordIndex.magic),
                  UInt64(CRC32.update(0, header, 0..<48)) == readLittleEndian(header, 48, width: 4)
            else { throw IndexUnusable(reason: "damaged header") }
            generation = readLittleEndian(header, 8, width: 8)
            let words = (2...4).map { readLittleEndian(header, 8 * $0, width: 8) }
            let bits = Int(readLittleEndian(header, 40, width: 4))
            guard words.allSatisfy({ $0 < UInt64(Int32.max) * 64 }), bits == RecordIndex.bucketBits(for: Int(words[2])) else {
                throw IndexUnusable(reason: "impossible header")
            }
            covered = Int(words[0])
            coveredFrames = Int(words[1])
            count = Int(words[2])
            self.bits = bits
            guard size == RecordIndex.headerSize + ((1 << bits) + 1) * 8 + count * RecordIndex.entrySize else {
                throw IndexUnusable(reason: "size \(size) does not match the header")
            }
        }
    }

    /// Takes ownership of `fd`.
    private init(fd: Int32, path: String, fileSystem: FileSystem, header: Header) {
        self.fd = fd
        self.path = path
        self.fileSystem = fileSystem
        (generation, covered, coveredFrames, count, bits) =
            (header.generation, header.covered, header.coveredFrames, header.count, header.bits)
    }

    deinit { fileSystem.close(fd) }

    /// The entries whose hash is `hash` (the bucket's checksum verified).
    func candidates(_ hash: UInt64) throws -> [IndexEntry] {
        let bucket = Int(hash >> UInt64(64 - bits))
        return try entries(ofBuckets: bucket..<bucket + 1).filter { $0.hash == hash }
    }

    /// Every entry, in hash order, `chunk` buckets at a time.
    func forEachChunk(_ body: ([IndexEntry]) throws -> Void) throws {
        let buckets = 1 << bits
        let step = max(1, (1 << 16) / 8)
        var bucket = 0
        while bucket < buckets {
            let end = min(buckets, bucket + step)
            try body(try entries(ofBuckets: bucket..<end))
            bucket = end
        }
    }

    /// The entries of consecutive buckets, each bucket's checksum verified.
    private func entries(ofBuckets buckets: Range<Int>) throws -> [IndexEntry] {
        let fan = try fileSystem.read(fd, count: (buckets.count + 1) * 8, at: RecordIndex.headerSize + buckets.lowerBound * 8, path)
        guard fan.count == (buckets.count + 1) * 8 else { throw IndexUnusable(reason: "fan-out cut off") }
        let first = Int(readLittleEndian(fan, 0, width: 4))
        let last = Int(readLittleEndian(fan, buckets.count * 8, width: 4))
        guard first <= last, last <= count else { throw IndexUnusable(reason: "fan-out out of order") }
        // About eight entries a bucket by construction (the bucket bits follow from the count): a bucket far
        // fuller than that is damage, refused before anything is allocated for it.
        let largestBucket = max(4_096, 64 * (count >> bits))
        var previous = first
        for i in 1...buckets.count {
            let next = Int(readLittleEndian(fan, 8 * i, width: 4))
            guard previous <= next, next - previous <= largestBucket else {
                throw IndexUnusable(reason: "a bucket claims \(next - previous) entries")
            }
            previous = next
        }
        let bytes = try fileSystem.read(fd, count: (last - first) * RecordIndex.entrySize,
                                        at: entriesStart + first * RecordIndex.entrySize, path)
        guard bytes.count == (last - first) * RecordIndex.entrySize else { throw IndexUnusable(reason: "entries cut off") }
        var result: [IndexEntry] = []
        result.reserveCapacity(last - first)
        for (i, bucket) in buckets.enumerated() {
            let start = Int(readLittleEndian(fan, 8 * i, width: 4))
            let end = Int(readLittleEndian(fan, 8 * i + 8, width: 4))
            guard first <= start, start <= end, end <= last else { throw IndexUnusable(reason: "fan-out out of order") }
            let range = (start - first) * RecordIndex.entrySize..<(end - first) * RecordIndex.entrySize
            guard CRC32.update(0, bytes, range) == UInt32(readLittleEndian(fan, 8 * i + 4, width: 4)) else {
                throw IndexUnusable(reason: "bucket \(bucket) fails its checksum")
            }
            for j in start..<end {
                let entry = IndexEntry(bytes, at: (j - first) * RecordIndex.entrySize)
                guard Int(entry.hash >> UInt64(64 - bits)) == bucket else { throw IndexUnusable(reason: "entry in the wrong bucket") }
                guard entry.offset >= RecordLog.firstFrame, entry.offset < covered, entry.ordinal >= 0, entry.ordinal < coveredFrames
                else { throw IndexUnusable(reason: "entry outside the covered log") }
                result.append(entry)
            }
        }
        return result
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
