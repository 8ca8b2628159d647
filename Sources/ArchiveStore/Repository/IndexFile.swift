import ArchivePlatform

/// The id index beside a record log (`<store>.index`): the live records' ``LiveEntry``s as of one commit, so
/// that opening the store reads this file and the frames committed after it, never the whole log.
///
/// ```
/// 0    header (64): "ARCHIDX3", log generation u64, covered length u64 (the commit it describes), covered
///      frame count u64, entry count u64, live bytes u64, chain u32 (the log's chain at the covered length, see
///      ``RecordLog``), CRC-32 of the entries u32, CRC-32 of bytes 0..<56 u32, zero u32
/// 64   entries, 32 bytes each, in log order: key hash u64 (``KeyHash`` of the log's generation), frame offset
///      u64, frame length u32, zero u32, expiry u64 (as in the frame)
/// ```
///
/// Derived data: written to a temporary file renamed into place, without a sync (an index lost or torn by a
/// power cut fails its checks and is rebuilt from the log). Before a reader uses one it checks the header and
/// entries' checksums, that the entries are in log order inside the covered length and add up to its live
/// bytes, that the generation is the log's, and that the log's chain at the covered length is the index's: the
/// link of the frame that follows it, or the commit's chain (see ``StoreHandle``). So an index of another
/// store, of another history of this one (a copy that diverged) or of a damaged file is never used.
///
/// No Apple API: the part of Core Data's SQLite store played by the primary-key index.
enum IndexFile {
    static let magic: [UInt8] = Array("ARCHIDX3".utf8)
    static let headerSize = 64
    static let entrySize = 32

    /// What a usable index holds.
    struct Snapshot {
        var covered: Int
        var coveredFrames: Int
        var liveBytes: Int
        var chain: UInt32
        var table: LiveTable
    }

    /// Why an index was not used.
    enum Unusable: Error {
        /// No file at the path.
        case absent
        /// A file that fails its checks (damaged, stale, another store's): the next writer replaces it.
        case damaged(String)
    }

    /// The index at `path` for the log of `generation`.
    /// - Throws: ``StoreError`` for a symbolic link, a file with another hard link or a non-regular file at the
    ///   path (refused as at the store's own path), and for a read that fails; ``Unusable`` otherwise.
    static func load(_ path: String, generation: UInt64, fileSystem: FileSystem) throws -> Snapshot {
        guard let fd = try fileSystem.openIfPresent(path, [.readOnly, .noFollow, .nonBlocking]) else { throw Unusable.absent }
        defer { fileSystem.close(fd) }
        let info = try fileSystem.status(fd, path)
        try info.requireOwnRegularFile(path)
        let header = try fileSystem.read(fd, count: headerSize, at: 0, path)
        guard header.count == headerSize, header[0..<8].elementsEqual(magic),
              UInt64(Checksum.crc32(header, 0..<56)) == readLittleEndian(header, 56, width: 4)
        else { throw Unusable.damaged("damaged header") }
        guard readLittleEndian(header, 8, width: 8) == generation else { throw Unusable.damaged("another log's index") }
        let words = (2...5).map { readLittleEndian(header, 8 * $0, width: 8) }
        guard words.allSatisfy({ $0 < UInt64(Int64.max / 2) }),
              let covered = intFromDisk(words[0]), let coveredFrames = intFromDisk(words[1]),
              let count = intFromDisk(words[2]), let liveBytes = intFromDisk(words[3]),
              covered >= RecordLog.firstFrame, count <= coveredFrames, info.size >= Int64(headerSize),
              (info.size - Int64(headerSize)) % Int64(entrySize) == 0, Int64(count) == (info.size - Int64(headerSize)) / Int64(entrySize)
        else { throw Unusable.damaged("impossible header") }
        let chain = UInt32(readLittleEndian(header, 48, width: 4))
        let entriesChecksum = UInt32(readLittleEndian(header, 52, width: 4))
        // Grown as entries are read and checked, not reserved from a count the file claims.
        var table = LiveTable(capacity: min(count, 1 << 16))
        var crc: UInt32 = 0
        var position = headerSize
        var lastEnd = RecordLog.firstFrame
        var bytes = 0
        let end = headerSize + count * entrySize
        while position < end {
            let chunk = try fileSystem.read(fd, count: min(1 << 20, end - position), at: position, path)
            guard !chunk.isEmpty, chunk.count % entrySize == 0 else { throw Unusable.damaged("cut short") }
            crc = Checksum.crc32(continuing: crc, chunk, 0..<chunk.count)
            var at = 0
            while at < chunk.count {
                let offset = readLittleEndian(chunk, at + 8, width: 8)
                let length = readLittleEndian(chunk, at + 16, width: 4)
                guard readLittleEndian(chunk, at + 20, width: 4) == 0, offset >= UInt64(lastEnd), offset < UInt64(covered),
                      length >= UInt64(FrameHeader.size), length <= UInt64(covered) - offset
                else { throw Unusable.damaged("an entry outside the covered log or out of order") }
                let entry = LiveEntry(hash: readLittleEndian(chunk, at, width: 8), offset: Int(offset), length: Int(length),
                                      expiryBits: readLittleEndian(chunk, at + 24, width: 8))
                table.insert(entry)
                lastEnd = entry.offset + entry.length
                bytes += entry.length
                at += entrySize
            }
            position += chunk.count
        }
        guard crc == entriesChecksum else { throw Unusable.damaged("the entries fail their checksum") }
        guard bytes == liveBytes else { throw Unusable.damaged("the entries do not add up to the live bytes") }
        return Snapshot(covered: covered, coveredFrames: coveredFrames, liveBytes: liveBytes, chain: chain, table: table)
    }

    /// Whether the file at `path` is one the store may replace with a new index: nothing, or a regular file
    /// with one link, whatever it holds (the path is the store's own: random bytes there are a damaged index).
    /// - Throws: the refusals of ``load(_:generation:fileSystem:)`` for a link or a non-regular file.
    static func mayReplace(_ path: String, fileSystem: FileSystem) throws(StoreError) -> Bool {
        guard let info = try fileSystem.linkStatus(path) else { return true }
        if info.isSymbolicLink { throw StoreError(.symbolicLink, "refusing an index that is a symbolic link", path: path) }
        try info.requireOwnRegularFile(path)
        return true
    }

    /// Replaces the index at `path` with one of `table` at the commit `state` (format 3). Not synced: derived data.
    static func write(_ table: LiveTable, of state: LogState, to path: String, fileSystem: FileSystem) throws(StoreError) {
        guard try mayReplace(path, fileSystem: fileSystem) else { return }
        var file = try AtomicReplace(replacing: path, fileSystem: fileSystem)
        do throws(StoreError) {
            try file.append([UInt8](repeating: 0, count: headerSize))
            var body: [UInt8] = []
            body.reserveCapacity(min(table.count, 1 << 15) * entrySize)
            var crc: UInt32 = 0
            var count = 0
            var liveBytes = 0
            for entry in table.entries where entry.isLive {
                appendLittleEndian(entry.hash, width: 8, to: &body)
                appendLittleEndian(UInt64(entry.offset), width: 8, to: &body)
                appendLittleEndian(UInt64(entry.length), width: 4, to: &body)
                appendLittleEndian(0, width: 4, to: &body)
                appendLittleEndian(entry.expiryBits, width: 8, to: &body)
                count += 1
                liveBytes += entry.length
                if body.count >= 1 << 20 {
                    crc = Checksum.crc32(continuing: crc, body, 0..<body.count)
                    try file.append(body)
                    body.removeAll(keepingCapacity: true)
                }
            }
            crc = Checksum.crc32(continuing: crc, body, 0..<body.count)
            try file.append(body)
            var header = magic
            for word in [state.generation, UInt64(state.committed), UInt64(state.frameCount), UInt64(count), UInt64(liveBytes)] {
                appendLittleEndian(word, width: 8, to: &header)
            }
            appendLittleEndian(UInt64(state.chain), width: 4, to: &header)
            appendLittleEndian(UInt64(crc), width: 4, to: &header)
            appendLittleEndian(UInt64(Checksum.crc32(header)), width: 4, to: &header)
            header += [UInt8](repeating: 0, count: headerSize - header.count)
            try file.write(header, at: 0)
            try file.finish(.relaxed)
            try file.install(.relaxed)
        } catch {
            file.abandon()
            throw error
        }
    }
}
