/// Records decoded lately, by their frame's offset as one store handle read them (a frame is never changed once
/// a handle read it committed, so an offset always names the same record for that handle; a handle opened again,
/// even on the same file and log, may find other frames at the offsets, see ``StoreHandle/serial``): a query or
/// `get` that returns them again returns the copies kept here instead of decoding their archives again. At most
/// ``RepositoryOptions/decodedRecordCacheCapacity`` records whose frames add up to at most `byteBudget` bytes
/// (a record's decoded size follows its archive's), the oldest dropped first; records of a class type are never
/// kept (each caller gets its own instance, as from `NSKeyedUnarchiver`).
///
/// Each record is kept with its frame's key, so that a `get` can take it before it reads the frame (the live
/// table knows a key only by its hash). The offsets are found through a table of their own (open addressing,
/// linear probing): a lookup or a keep hashes no key and allocates nothing, where a `Dictionary` ran its
/// seeded hash twice a `get`.
///
/// No Apple API: the part of Core Data's row cache.
struct DecodedRecords<Record> {
    private var generation: UInt64 = 0
    private var handle: UInt64 = 0
    /// Slot of ``records`` plus one by offset (0: empty), a power of two at least twice the capacity.
    private var table: [Int] = []
    private var shift: UInt64 = 63
    /// The records kept, a ring in the order they were kept (the oldest at `oldest`, `count` of them), with the
    /// offset, key and frame length each is kept under; a place whose record was dropped holds `nil`.
    private var records: ContiguousArray<Record?> = []
    private var offsets: [Int] = []
    private var keys: [[UInt8]] = []
    private var lengths: [Int] = []
    private var oldest = 0
    private var count = 0
    /// The frame lengths of the records kept, added up.
    private(set) var bytes = 0
    let capacity: Int
    let byteBudget: Int

    init(capacity: Int, byteBudget: Int = .max) {
        self.capacity = Record.self is AnyClass ? 0 : Swift.max(0, capacity)
        self.byteBudget = Swift.max(0, byteBudget)
        guard self.capacity > 0 else { return }
        var size = 2
        while size < 2 * self.capacity { size <<= 1 }
        table = [Int](repeating: 0, count: size)
        shift = UInt64(64 - size.trailingZeroBitCount)
    }

    /// The record of the frame at `offset` of the log `generation` read through the handle numbered `handle`, if
    /// kept.
    mutating func record(at offset: Int, generation: UInt64, handle: UInt64) -> Record? {
        guard capacity > 0 else { return nil }
        if generation != self.generation || handle != self.handle {
            adopt(generation: generation, handle: handle)
            return nil
        }
        guard let slot = slot(of: offset) else { return nil }
        return records[slot]
    }

    /// How many records are kept.
    var keptCount: Int { count }

    /// Whether the record of the frame at `offset` (of the log `generation` read through the handle numbered
    /// `handle`) is kept, with the key `key`.
    func keeps(_ offset: Int, key: [UInt8], generation: UInt64, handle: UInt64) -> Bool {
        guard capacity > 0, generation == self.generation, handle == self.handle, let slot = slot(of: offset) else { return false }
        return sameBytes(keys[slot], key)
    }

    /// Keeps `record`, decoded from the frame of `length` bytes at `offset`, dropping the oldest records while
    /// the capacity or the byte budget would be passed (a frame larger than the budget is not kept).
    mutating func keep(_ record: Record, at offset: Int, key: [UInt8] = [], length: Int = 0, generation: UInt64, handle: UInt64) {
        guard capacity > 0, generation == self.generation, handle == self.handle, length <= byteBudget, slot(of: offset) == nil
        else { return }
        while count > 0 && (count == capacity || bytes > byteBudget - length) { dropOldest() }
        // Until the ring has `capacity` places, the next one is a new place at its end.
        let place = (oldest + count) % capacity
        insert(offset, slot: place)
        if place == records.count {
            records.append(record)
            offsets.append(offset)
            keys.append(key)
            lengths.append(length)
        } else {
            records[place] = record
            offsets[place] = offset
            keys[place] = key
            lengths[place] = length
        }
        count += 1
        bytes += length
    }

    private mutating func dropOldest() {
        remove(offsets[oldest])
        records[oldest] = nil
        keys[oldest] = []
        bytes -= lengths[oldest]
        oldest = (oldest + 1) % capacity
        count -= 1
    }

    private mutating func adopt(generation: UInt64, handle: UInt64) {
        if !records.isEmpty {
            table.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
            records.removeAll(keepingCapacity: true)
            offsets.removeAll(keepingCapacity: true)
            keys.removeAll(keepingCapacity: true)
            lengths.removeAll(keepingCapacity: true)
        }
        oldest = 0
        count = 0
        bytes = 0
        self.generation = generation
        self.handle = handle
    }

    // MARK: The offset table

    @inline(__always)
    private func home(_ offset: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: Int64(offset)) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    // The table is at most half full (``capacity`` records in at least twice as many places), so every probe
    // meets an empty place; the loops are bounded all the same.

    private func slot(of offset: Int) -> Int? {
        let mask = table.count - 1
        var i = home(offset)
        for _ in 0..<table.count {
            let entry = table[i]
            if entry == 0 { return nil }
            if offsets[entry - 1] == offset { return entry - 1 }
            i = (i + 1) & mask
        }
        return nil
    }

    private mutating func insert(_ offset: Int, slot: Int) {
        let mask = table.count - 1
        var i = home(offset)
        for _ in 0..<table.count {
            if table[i] == 0 {
                table[i] = slot + 1
                return
            }
            i = (i + 1) & mask
        }
    }

    /// Removes `offset` (kept), moving back the entries after it that its place let them reach (deletion in
    /// linear probing without tombstones).
    private mutating func remove(_ offset: Int) {
        let mask = table.count - 1
        var i = home(offset)
        var probes = 0
        while table[i] != 0, offsets[table[i] - 1] != offset, probes < table.count {
            i = (i + 1) & mask
            probes += 1
        }
        guard table[i] != 0, offsets[table[i] - 1] == offset else { return }
        var hole = i
        var j = i
        for _ in 0..<table.count {
            j = (j + 1) & mask
            let entry = table[j]
            if entry == 0 { break }
            let wanted = home(offsets[entry - 1])
            // The entry at j may move to the hole when its home is not cyclically within (hole, j].
            let reachable = hole <= j ? (wanted <= hole || wanted > j) : (wanted <= hole && wanted > j)
            if reachable {
                table[hole] = entry
                hole = j
            }
        }
        table[hole] = 0
    }
}
