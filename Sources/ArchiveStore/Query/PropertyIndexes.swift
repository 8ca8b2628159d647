/// The property indexes of an open store, in memory: for each index the ``SortedRows`` of every live record and
/// a map from a record's frame offset to its value (to find its row again when the record is updated or
/// removed, and to test a second condition without decoding).
///
/// They follow one ``StoreHandle``: the commits it applies reach them through its journal
/// (``StoreHandle/takeJournal()``); when the repository's handle is another (opened again, or the store
/// rewritten), they are brought to its table by ``reconcile(with:)``: rows of frames no longer live are
/// dropped and the frames written after the point they cover are read. Not thread-safe: the repository
/// keeps them behind its reader lock.
struct PropertyIndexes {
    struct Definition: Equatable, Sendable {
        var name: String
        var valueType: String
    }

    let definitions: [Definition]
    private(set) var rows: [SortedRows]
    private(set) var values: [[Int: IndexValue]]
    /// The log they describe (its generation), and how far: its length, frame count and chain there.
    var generation: UInt64
    var committed: Int
    var frameCount: Int
    var chain: UInt32
    /// The handle whose journal they follow; `nil` until reconciled with one (or once it is gone).
    weak var handle: StoreHandle?
    /// The frames the files on disk cover (of this generation).
    var persistedFrames = -1
    /// Whether they describe a current log (format 3), whose files a later open can use.
    var isPersistable = true

    init(definitions: [Definition], generation: UInt64) {
        self.definitions = definitions
        rows = definitions.map { _ in SortedRows() }
        values = definitions.map { _ in [:] }
        self.generation = generation
        committed = RecordLog.firstFrame
        frameCount = 0
        chain = RecordLog.seed(generation: generation)
    }

    init(definitions: [Definition], rows: [SortedRows], generation: UInt64, committed: Int, frameCount: Int, chain: UInt32) {
        self.definitions = definitions
        self.rows = rows
        values = rows.map { sorted in
            var map: [Int: IndexValue] = [:]
            map.reserveCapacity(sorted.count)
            for chunk in sorted.chunks { for row in chunk { map[row.offset] = row.value } }
            return map
        }
        self.generation = generation
        self.committed = committed
        self.frameCount = frameCount
        self.chain = chain
    }

    var count: Int { rows.first?.count ?? 0 }

    func value(_ index: Int, at offset: Int) -> IndexValue? { values[index][offset] }

    /// Drops the rows of the frame at `offset` (a record updated or removed).
    mutating func remove(offset: Int) {
        for i in rows.indices {
            guard let value = values[i].removeValue(forKey: offset) else { continue }
            rows[i].remove(IndexRow(value: value, offset: offset, length: 0))
        }
    }

    /// Adds the rows of a record's frame.
    mutating func insert(offset: Int, length: Int, values recordValues: [IndexValue]) {
        for i in rows.indices where i < recordValues.count {
            values[i][offset] = recordValues[i]
            rows[i].insert(IndexRow(value: recordValues[i], offset: offset, length: length))
        }
    }

    /// Brings the indexes, which describe this log up to `committed`, to `handle`'s table: rows of frames no
    /// longer live are dropped, and the live frames written since are returned, for the caller to read their
    /// values and ``insert(offset:length:values:)`` them. `nil` when the indexes cannot describe the table (a
    /// row names a frame of another length: they are damaged), so they are to be built again.
    mutating func reconcile(with table: LiveTable) -> [LiveEntry]? {
        var live: [Int: Int] = [:]
        live.reserveCapacity(table.count)
        var added: [LiveEntry] = []
        for entry in table.entries where entry.isLive {
            if entry.offset >= committed { added.append(entry) } else { live[entry.offset] = entry.length }
        }
        for i in rows.indices {
            var kept: [IndexRow] = []
            kept.reserveCapacity(rows[i].count)
            for chunk in rows[i].chunks {
                for row in chunk {
                    guard let length = live[row.offset] else {
                        values[i][row.offset] = nil
                        continue
                    }
                    guard length == row.length else { return nil }
                    kept.append(row)
                }
            }
            guard kept.count == live.count else { return nil }
            if kept.count != rows[i].count { rows[i] = SortedRows(sorted: kept) }
        }
        return added
    }

    /// The indexes after the log was rewritten (compacted) into the log of `generation`: each row moved to its
    /// frame's new offset.
    func remapped(_ moved: [Int: (offset: Int, length: Int)], generation: UInt64, committed: Int, frameCount: Int,
                  chain: UInt32) -> PropertyIndexes {
        PropertyIndexes(definitions: definitions, rows: rows.map { $0.remapped(moved) }, generation: generation,
                        committed: committed, frameCount: frameCount, chain: chain)
    }
}
