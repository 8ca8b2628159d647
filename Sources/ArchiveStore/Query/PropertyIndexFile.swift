/// One property index on disk (`<store>.index-<name>`): the rows of ``SortedRows`` as of one commit, so that
/// opening a store reads them and the frames committed after, never decoding every record again.
///
/// ```
/// 0    header (64): "ARCHPIX1", log generation u64, covered length u64, covered frame count u64, row count
///      u64, chain u32 (the log's chain at the covered length), CRC-32 of the rest of the file u32, definition
///      length u32, CRC-32 of bytes 0..<52 u32, zero u64
/// 64   definition: the index's name, a zero byte, its value type's name (UTF-8)
///      rows, in order: frame offset u64, frame length u32, present u8, has text u8, zero u16, high u64, low
///      u64, text length u32, text (UTF-8)
/// ```
///
/// Derived data, as the id index (``IndexFile``): written to a temporary file renamed into place, without a
/// sync. A file that fails any check (checksums, order, a definition or generation not the store's, a row
/// naming a frame that is not live with that length) is not used: the index is built again from the log.
///
/// No Apple API: the part of Core Data's SQLite store played by an `NSFetchIndexDescription`'s index.
enum PropertyIndexFile {
    static let magic: [UInt8] = Array("ARCHPIX1".utf8)
    static let headerSize = 64
    static let rowSize = 36
    /// The largest file read: 4 GiB.
    static let largest = 1 << 32

    /// What a file describes.
    struct Contents {
        var rows: SortedRows
        var generation: UInt64
        var covered: Int
        var frames: Int
        var chain: UInt32
    }

    static func path(of store: String, index name: String) -> String { store + ".index-" + name }

    /// The rows at `path` for `definition`, or `nil` when there is no usable file.
    static func load(_ path: String, definition: PropertyIndexes.Definition, fileSystem: FileSystem) -> Contents? {
        guard let bytes = try? fileSystem.readFile(path, limit: largest), bytes.count >= headerSize,
              bytes[0..<8].elementsEqual(magic),
              UInt64(Checksum.crc32(bytes, 0..<52)) == readLittleEndian(bytes, 52, width: 4),
              UInt64(Checksum.crc32(bytes, headerSize..<bytes.count)) == readLittleEndian(bytes, 44, width: 4),
              let covered = intFromDisk(readLittleEndian(bytes, 16, width: 8)),
              let frames = intFromDisk(readLittleEndian(bytes, 24, width: 8)),
              let count = intFromDisk(readLittleEndian(bytes, 32, width: 8)),
              let definitionLength = intFromDisk(readLittleEndian(bytes, 48, width: 4)),
              definitionLength <= bytes.count - headerSize,
              count <= (bytes.count - headerSize - definitionLength) / rowSize
        else { return nil }
        let expected = Array(definition.name.utf8) + [0] + Array(definition.valueType.utf8)
        guard bytes[headerSize..<headerSize + definitionLength].elementsEqual(expected) else { return nil }
        var rows: [IndexRow] = []
        rows.reserveCapacity(count)
        var at = headerSize + definitionLength
        for _ in 0..<count {
            guard bytes.count - at >= rowSize,
                  let offset = intFromDisk(readLittleEndian(bytes, at, width: 8)),
                  let length = intFromDisk(readLittleEndian(bytes, at + 8, width: 4)),
                  let textLength = intFromDisk(readLittleEndian(bytes, at + 32, width: 4)),
                  bytes[at + 12] <= 1, bytes[at + 13] <= 1, textLength <= bytes.count - at - rowSize
            else { return nil }
            var text: String?
            if bytes[at + 13] == 1 {
                let slice = bytes[at + rowSize..<at + rowSize + textLength]
                let decoded = String(decoding: slice, as: UTF8.self)
                guard decoded.utf8.elementsEqual(slice) else { return nil }   // not UTF-8: damaged
                text = decoded
            } else if textLength != 0 {
                return nil
            }
            let value = IndexValue(present: bytes[at + 12], high: readLittleEndian(bytes, at + 16, width: 8),
                                   low: readLittleEndian(bytes, at + 24, width: 8), text: text)
            let row = IndexRow(value: value, offset: offset, length: length)
            if let previous = rows.last, !(previous < row) { return nil }
            rows.append(row)
            at += rowSize + textLength
        }
        guard at == bytes.count else { return nil }
        return Contents(rows: SortedRows(sorted: rows), generation: readLittleEndian(bytes, 8, width: 8), covered: covered,
                        frames: frames, chain: UInt32(readLittleEndian(bytes, 40, width: 4)))
    }

    /// Replaces the file at `path` with `rows` of the log of `generation` up to `covered`. Not synced.
    static func write(_ rows: SortedRows, definition: PropertyIndexes.Definition, generation: UInt64, covered: Int, frames: Int,
                      chain: UInt32, to path: String, fileSystem: FileSystem) throws(StoreError) {
        guard try IndexFile.mayReplace(path, fileSystem: fileSystem) else { return }
        var body = Array(definition.name.utf8) + [0] + Array(definition.valueType.utf8)
        let definitionLength = body.count
        body.reserveCapacity(definitionLength + rows.count * rowSize)
        for chunk in rows.chunks {
            for row in chunk {
                appendLittleEndian(UInt64(row.offset), width: 8, to: &body)
                appendLittleEndian(UInt64(row.length), width: 4, to: &body)
                body.append(row.value.present)
                body.append(row.value.text == nil ? 0 : 1)
                body += [0, 0]
                appendLittleEndian(row.value.high, width: 8, to: &body)
                appendLittleEndian(row.value.low, width: 8, to: &body)
                let text = row.value.text.map { Array($0.utf8) } ?? []
                appendLittleEndian(UInt64(text.count), width: 4, to: &body)
                body += text
            }
        }
        var header = magic
        for word in [generation, UInt64(covered), UInt64(frames), UInt64(rows.count)] { appendLittleEndian(word, width: 8, to: &header) }
        appendLittleEndian(UInt64(chain), width: 4, to: &header)
        appendLittleEndian(UInt64(Checksum.crc32(body)), width: 4, to: &header)
        appendLittleEndian(UInt64(definitionLength), width: 4, to: &header)
        appendLittleEndian(UInt64(Checksum.crc32(header)), width: 4, to: &header)
        header += [UInt8](repeating: 0, count: headerSize - header.count)
        var file = try AtomicReplace(replacing: path, fileSystem: fileSystem)
        do throws(StoreError) {
            try file.append(header)
            try file.append(body)
            try file.finish(.relaxed)
            try file.install(.relaxed)
        } catch {
            file.abandon()
            throw error
        }
    }
}
