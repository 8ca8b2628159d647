/// One record in a property index: its value and where its frame is.
struct IndexRow: Comparable, Sendable {
    var value: IndexValue
    /// The frame's offset in the log (unique among live records; later writes have larger offsets).
    var offset: Int
    var length: Int

    static func < (a: IndexRow, b: IndexRow) -> Bool {
        if a.value != b.value { return a.value < b.value }
        return a.offset < b.offset
    }

    static func == (a: IndexRow, b: IndexRow) -> Bool { a.offset == b.offset && a.value == b.value }
}

/// The rows of one property index, sorted by value (then offset), in chunks of at most 1,024 rows: an insert or
/// removal moves at most a chunk's rows, and a position is found by two binary searches (the chunk, then the
/// row in it), so the cost of a change does not grow with the number of records.
struct SortedRows: Sendable {
    static let chunkLimit = 1024

    private(set) var chunks: [[IndexRow]] = []
    private(set) var count = 0

    init() {}

    /// Rows already sorted.
    init(sorted rows: [IndexRow]) {
        var start = 0
        while start < rows.count {
            let end = min(start + Self.chunkLimit / 2, rows.count)
            chunks.append(Array(rows[start..<end]))
            start = end
        }
        count = rows.count
    }

    /// A place between rows: chunk and row in it (`row == chunks[chunk].count` only at the very end).
    struct Position: Equatable {
        var chunk: Int
        var row: Int
    }

    var start: Position { Position(chunk: 0, row: 0) }
    var end: Position { chunks.isEmpty ? start : Position(chunk: chunks.count - 1, row: chunks[chunks.count - 1].count) }

    /// The first position whose row is not before `probe` (`isBefore(row)` false).
    func firstPosition(where isBefore: (IndexRow) -> Bool) -> Position {
        // The first chunk whose last row is not before the probe.
        var low = 0, high = chunks.count
        while low < high {
            let mid = (low + high) / 2
            if let last = chunks[mid].last, isBefore(last) { low = mid + 1 } else { high = mid }
        }
        if low == chunks.count { return end }
        let chunk = chunks[low]
        var a = 0, b = chunk.count
        while a < b {
            let mid = (a + b) / 2
            if isBefore(chunk[mid]) { a = mid + 1 } else { b = mid }
        }
        return Position(chunk: low, row: a)
    }

    /// The position of the first row with a value not below `value` (`inclusive`) or above it.
    func position(of value: IndexValue, after: Bool) -> Position {
        after ? firstPosition { !(value < $0.value) } : firstPosition { $0.value < value }
    }

    func row(at position: Position) -> IndexRow? {
        guard position.chunk < chunks.count, position.row < chunks[position.chunk].count else { return nil }
        return chunks[position.chunk][position.row]
    }

    func next(_ position: Position) -> Position {
        var p = position
        p.row += 1
        if p.row >= chunks[p.chunk].count && p.chunk + 1 < chunks.count { p = Position(chunk: p.chunk + 1, row: 0) }
        return p
    }

    func previous(_ position: Position) -> Position? {
        if position.row > 0 { return Position(chunk: position.chunk, row: position.row - 1) }
        var chunk = position.chunk - 1
        while chunk >= 0 {
            if !chunks[chunk].isEmpty { return Position(chunk: chunk, row: chunks[chunk].count - 1) }
            chunk -= 1
        }
        return nil
    }

    /// The number of rows before `position`.
    func rank(_ position: Position) -> Int {
        var total = position.row
        for chunk in chunks[0..<min(position.chunk, chunks.count)] { total += chunk.count }
        return total
    }

    /// Calls `body` with the rows from `from` up to `to` (exclusive), in order, until it returns `false`.
    func forEach(from: Position, to: Position, _ body: (IndexRow) -> Bool) {
        var chunk = from.chunk, row = from.row
        while chunk < chunks.count && (chunk < to.chunk || (chunk == to.chunk && row < to.row)) {
            let rows = chunks[chunk]
            let stop = chunk == to.chunk ? to.row : rows.count
            while row < stop {
                if !body(rows[row]) { return }
                row += 1
            }
            chunk += 1
            row = 0
        }
    }

    /// Calls `body` with the rows before `to` down to `from` (inclusive), in reverse order, until it returns `false`.
    func forEachReversed(from: Position, to: Position, _ body: (IndexRow) -> Bool) {
        var position = to
        while let previous = previous(position), previous.chunk > from.chunk || (previous.chunk == from.chunk && previous.row >= from.row) {
            guard let row = row(at: previous), body(row) else { return }
            position = previous
        }
    }

    var first: IndexRow? { chunks.first(where: { !$0.isEmpty })?.first }
    var last: IndexRow? { chunks.last(where: { !$0.isEmpty })?.last }

    mutating func insert(_ row: IndexRow) {
        count += 1
        if chunks.isEmpty {
            chunks = [[row]]
            return
        }
        var p = firstPosition { $0 < row }
        if p.chunk == chunks.count { p = end }
        chunks[p.chunk].insert(row, at: p.row)
        if chunks[p.chunk].count > Self.chunkLimit {
            let half = chunks[p.chunk].count / 2
            let tail = Array(chunks[p.chunk][half...])
            chunks[p.chunk].removeSubrange(half...)
            chunks.insert(tail, at: p.chunk + 1)
        }
    }

    /// Removes `row` (value and offset); `false` when it is not there.
    @discardableResult
    mutating func remove(_ row: IndexRow) -> Bool {
        let p = firstPosition { $0 < row }
        guard let found = self.row(at: p), found == row else { return false }
        chunks[p.chunk].remove(at: p.row)
        count -= 1
        if chunks[p.chunk].isEmpty { chunks.remove(at: p.chunk) }
        return true
    }

    /// The rows with offsets changed by `moved` (old offset to new offset and length); rows not in it dropped.
    func remapped(_ moved: [Int: (offset: Int, length: Int)]) -> SortedRows {
        var rows: [IndexRow] = []
        rows.reserveCapacity(count)
        for chunk in chunks {
            for row in chunk {
                guard let to = moved[row.offset] else { continue }
                rows.append(IndexRow(value: row.value, offset: to.offset, length: to.length))
            }
        }
        // Offsets keep their order in a compaction (frames are copied in log order): still sorted.
        return SortedRows(sorted: rows)
    }
}
