import ArchivePlatform

/// An open index file (see ``RecordIndex``), read a bucket at a time.
final class IndexReader {
    let fd: FileDescriptor
    let path: String
    let fileSystem: FileSystem
    /// What the file's header says, checked against its size.
    let header: Header

    /// The log's generation.
    var generation: UInt64 { header.generation }
    /// The log bytes the index covers (its entries are for frames before this offset).
    var covered: Int { header.covered }
    /// The log frames the index covers.
    var coveredFrames: Int { header.coveredFrames }
    /// The log's chain at ``covered``.
    var chain: UInt32 { header.chain }
    private var count: Int { header.count }
    private var bits: Int { header.bits }

    private var entriesStart: Int { RecordIndex.headerSize + ((1 << bits) + 1) * 8 }

    /// Opens the index at `path`; `nil` when there is none.
    ///
    /// The index path is the store's, checked as the store's own path is: a symbolic link there is
    /// ``StoreError/Code/symbolicLink``, a file with another hard link ``StoreError/Code/hardLink``, a FIFO,
    /// device or directory ``StoreError/Code/notRegularFile``; these are thrown, never read around.
    /// - Throws: ``IndexUnusable`` when its header is damaged (the log is read instead, and the next writer
    ///   replaces it).
    static func open(_ path: String, fileSystem: FileSystem) throws -> IndexReader? {
        guard let fd = try fileSystem.openIfPresent(path, [.readOnly, .noFollow, .nonBlocking]) else { return nil }
        let header: Header
        do {
            let info = try fileSystem.status(fd, path)
            try info.requireOwnRegularFile(path)
            guard let size = Int(exactly: info.size) else { throw IndexUnusable(reason: "too large for this platform") }
            header = try Header(try fileSystem.read(fd, count: RecordIndex.headerSize, at: 0, path), size: size)
        } catch {
            fileSystem.close(fd)
            throw error
        }
        return IndexReader(fd: fd, path: path, fileSystem: fileSystem, header: header)
    }

    /// Whether the file at `path` is one the store may replace with a new index: nothing, or a regular file
    /// with one link, whatever it holds (the path is the store's own: random bytes there are a damaged index).
    /// - Throws: the refusals of ``open(_:fileSystem:)`` for a link or a non-regular file.
    static func mayReplace(_ path: String, fileSystem: FileSystem) throws(StoreError) -> Bool {
        guard let info = try fileSystem.linkStatus(path) else { return true }
        if info.isSymbolicLink { throw StoreError(.symbolicLink, "refusing an index that is a symbolic link", path: path) }
        try info.requireOwnRegularFile(path)
        return true
    }

    /// The numbers of an index header, checked against the file's size.
    struct Header {
        var generation: UInt64
        var covered: Int
        var coveredFrames: Int
        var count: Int
        var bits: Int
        var chain: UInt32

        init(_ header: [UInt8], size: Int) throws {
            guard header.count == RecordIndex.headerSize, header[0..<8].elementsEqual(RecordIndex.magic),
                  UInt64(Checksum.crc32(header, 0..<48)) == readLittleEndian(header, 48, width: 4)
            else { throw IndexUnusable(reason: "damaged header") }
            generation = readLittleEndian(header, 8, width: 8)
            let words = (2...4).map { readLittleEndian(header, 8 * $0, width: 8) }
            guard words.allSatisfy({ $0 < UInt64(Int32.max) * 64 }),
                  let covered = intFromDisk(words[0]), let coveredFrames = intFromDisk(words[1]), let count = intFromDisk(words[2]),
                  count <= Int(UInt32.max)
            else { throw IndexUnusable(reason: "impossible header") }
            let bits = Int(readLittleEndian(header, 40, width: 4) & 0xFF)
            guard readLittleEndian(header, 40, width: 4) == UInt64(bits), bits == RecordIndex.bucketBits(for: count) else {
                throw IndexUnusable(reason: "impossible header")
            }
            self.covered = covered
            self.coveredFrames = coveredFrames
            self.count = count
            self.bits = bits
            chain = UInt32(readLittleEndian(header, 44, width: 4))
            let (entryBytes, overflow) = count.multipliedReportingOverflow(by: RecordIndex.entrySize)
            guard !overflow, size == RecordIndex.headerSize + ((1 << bits) + 1) * 8 + entryBytes else {
                throw IndexUnusable(reason: "size \(size) does not match the header")
            }
        }
    }

    /// Takes ownership of `fd`.
    private init(fd: FileDescriptor, path: String, fileSystem: FileSystem, header: Header) {
        self.fd = fd
        self.path = path
        self.fileSystem = fileSystem
        self.header = header
    }

    deinit { fileSystem.close(fd) }

    /// The entries whose hash is `hash` (the bucket's checksum verified).
    func candidates(_ hash: UInt64) throws -> [IndexEntry] {
        let bucket = Int(hash >> UInt64(64 - bits))
        return try entries(ofBuckets: bucket..<bucket + 1).filter { $0.hash == hash }
    }

    /// Every entry, in hash order, some buckets at a time.
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

    /// A fan-out word (an entry number, u32) as an `Int` no larger than the entry count.
    private func entryNumber(_ fan: [UInt8], _ offset: Int) throws -> Int {
        guard let value = intFromDisk(readLittleEndian(fan, offset, width: 4)), value <= count else {
            throw IndexUnusable(reason: "fan-out past the entries")
        }
        return value
    }

    /// The entries of consecutive buckets, each bucket's checksum verified.
    private func entries(ofBuckets buckets: Range<Int>) throws -> [IndexEntry] {
        let fan = try fileSystem.read(fd, count: (buckets.count + 1) * 8, at: RecordIndex.headerSize + buckets.lowerBound * 8, path)
        guard fan.count == (buckets.count + 1) * 8 else { throw IndexUnusable(reason: "fan-out cut off") }
        let first = try entryNumber(fan, 0)
        let last = try entryNumber(fan, buckets.count * 8)
        guard first <= last else { throw IndexUnusable(reason: "fan-out out of order") }
        // About eight entries a bucket by construction (the bucket bits follow from the count): a bucket far
        // fuller than that is damage, refused before anything is allocated for it.
        let largestBucket = max(4_096, 64 * (count >> bits))
        var previous = first
        for i in 1...buckets.count {
            let next = try entryNumber(fan, 8 * i)
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
            let start = try entryNumber(fan, 8 * i)
            let end = try entryNumber(fan, 8 * i + 8)
            guard first <= start, start <= end, end <= last else { throw IndexUnusable(reason: "fan-out out of order") }
            let range = (start - first) * RecordIndex.entrySize..<(end - first) * RecordIndex.entrySize
            guard Checksum.crc32(bytes, range) == UInt32(readLittleEndian(fan, 8 * i + 4, width: 4)) else {
                throw IndexUnusable(reason: "bucket \(bucket) fails its checksum")
            }
            for j in start..<end {
                guard let entry = IndexEntry(bytes, at: (j - first) * RecordIndex.entrySize),
                      Int(entry.hash >> UInt64(64 - bits)) == bucket
                else { throw IndexUnusable(reason: "entry in the wrong bucket or out of range") }
                guard entry.offset >= RecordLog.firstFrame, entry.offset < covered, entry.ordinal >= 0, entry.ordinal < coveredFrames
                else { throw IndexUnusable(reason: "entry outside the covered log") }
                result.append(entry)
            }
        }
        return result
    }
}

/// The index is damaged or does not belong to the log: the caller reads the log instead.
struct IndexUnusable: Error {
    var reason: String
}
